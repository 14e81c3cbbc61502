import Diagnostics
import Foundation
import Pipeline

/// `keep` and `drop`: which records load at all, by conditions on their fields, for drafts and
/// rows a status column marks. A record turned away is counted as filtered, not rejected.
///
/// ```yaml
/// - keep: { status: [active, new] }
/// - drop: { name: "", notes: { matches: "^DRAFT" } }
/// ```
/// A condition is a value (equal to it), a list (any of them), `{ matches: REGEX }` (found in the
/// value; anchor with `^` and `$`) or `{ empty: true|false }`. Values compare as text after
/// trimming; `""` is an empty value. With several fields, all must hold: `keep` keeps the records
/// where they do, `drop` drops them.
public struct FilterTransform: TransformKind {
    public let keeps: Bool
    public var name: String { keeps ? "keep" : "drop" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: name,
            summary: keeps
                ? "Loads only the records whose fields hold the conditions: `keep: { status: [active, new] }`; the others are counted as filtered."
                : "Leaves out the records whose fields hold the conditions: `drop: { name: \"\" }`; they are counted as filtered.",
            options: [
                OptionSpec("<field>", .any, "A value, a list of values, `{ matches: REGEX }` or `{ empty: true|false }`."),
            ])
    }

    public func fieldsRead(_ node: ConfigNode) -> [String] { node.mapping?.compactMap(\.key.scalar) ?? [] }

    public static let keep = FilterTransform(keeps: true)
    public static let drop = FilterTransform(keeps: false)

    enum Condition {
        case anyOf([String])
        /// Run without backtracking (`LinearRegex`): a value costs its length times the pattern's size.
        case matches(LinearRegex, pattern: String)
        case empty(Bool)

        func holds(_ value: Value) -> Bool {
            let text = value.isEmpty ? "" : (Trimming.trimmed(value.displayText) ?? value.displayText)
            switch self {
            case .anyOf(let values): return values.contains(text)
            case .matches(let regex, _): return regex.firstMatch(in: text)
            case .empty(let wanted): return text.isEmpty == wanted
            }
        }

        /// As the filtered record's reason says it: `status "draft" is none of active, new`.
        func describe(_ field: String, _ value: Value, holds: Bool) -> String {
            let shown = Snippet.quoted(value.displayText)
            switch self {
            case .anyOf(let values) where values == [""]: return "\(field) is\(holds ? "" : " not") empty"
            case .anyOf(let values) where values.count == 1: return "\(field) \(shown) is\(holds ? "" : " not") \(Snippet.quoted(values[0]))"
            case .anyOf(let values): return "\(field) \(shown) is \(holds ? "one" : "none") of \(values.joined(separator: ", "))"
            case .matches(_, let pattern): return "\(field) \(shown) \(holds ? "matches" : "does not match") /\(pattern)/"
            case .empty: return "\(field) is\(holds ? "" : " not") empty"
            }
        }
    }

    public func make(_ node: ConfigNode) throws -> any Transform {
        guard let pairs = node.mapping, !pairs.isEmpty else {
            throw node.error(.pipelineWrongType,
                             "'\(name)' expects a mapping of fields to conditions, e.g. { status: [active, new] }, found \(node.kindDescription)",
                             stage: name)
        }
        var conditions: [(FieldReference, Condition)] = []
        for (key, value) in pairs {
            guard let field = key.scalar, !field.isEmpty else {
                throw key.error(.pipelineInvalidName, "field names must be plain names", stage: name)
            }
            if conditions.contains(where: { $0.0.name == field }) {
                throw key.error(.pipelineDuplicateName, "field '\(field)' is listed twice", stage: name)
            }
            conditions.append((FieldReference(name: field, node: key), try condition(value, field: field)))
        }
        return Step(keeps: keeps, conditions: conditions)
    }

    private func condition(_ node: ConfigNode, field: String) throws -> Condition {
        if let text = node.scalar { return .anyOf([Trimming.trimmed(text) ?? text]) }
        if let items = node.sequence {
            let values = try items.map { item -> String in
                guard let text = item.scalar else {
                    throw item.error(.pipelineWrongType, "'\(field)' lists values, found \(item.kindDescription)", stage: name)
                }
                return Trimming.trimmed(text) ?? text
            }
            guard !values.isEmpty else { throw node.error(.pipelineEmptyValue, "'\(field)' lists no values", stage: name) }
            return .anyOf(values)
        }
        guard let pairs = node.mapping, pairs.count == 1, let key = pairs[0].key.scalar, let text = pairs[0].value.scalar else {
            throw node.error(.pipelineWrongType, "'\(field)' expects a value, a list of values, { matches: REGEX } or { empty: true|false }, "
                                                     + "found \(node.kindDescription)", stage: name)
        }
        switch key {
        case "matches":
            do {
                return .matches(try LinearRegex(text), pattern: text)
            } catch {
                throw pairs[0].value.error(.filterInvalidRegex, "'\(text)' is not a regular expression pipectl runs: \(error)", stage: name)
            }
        case "empty":
            guard let wanted = Options.bool(text) else {
                throw pairs[0].value.error(.pipelineValueNotAllowed, "'empty' is true or false, not '\(text)'", stage: name)
            }
            return .empty(wanted)
        default:
            throw pairs[0].key.error(.pipelineUnknownKey,
                                     "'\(key)' is no condition; write a value, a list, { matches: REGEX } or { empty: true|false }"
                                         + Suggestion.hint(for: key, in: ["matches", "empty"]), stage: name)
        }
    }

    public final class Step: Transform {
        let keeps: Bool
        let conditions: [(field: FieldReference, condition: Condition)]
        private var indexes: [Int] = []

        init(keeps: Bool, conditions: [(FieldReference, Condition)]) {
            self.keeps = keeps
            self.conditions = conditions.map { (field: $0.0, condition: $0.1) }
        }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try conditions.map { try $0.field.index(in: fields, stage: keeps ? "keep" : "drop") }
            return fields
        }

        public func apply(_ record: inout Record) throws {
            for (n, i) in indexes.enumerated() {
                let value = i < record.values.count ? record.values[i] : .null
                let holds = conditions[n].condition.holds(value)
                // keep: the first condition that fails turns it away; drop: all must hold.
                if keeps && !holds {
                    throw Filtered(at: record.location, stage: "keep",
                                   reason: conditions[n].condition.describe(conditions[n].field.name, value, holds: false))
                }
                if !keeps && !holds { return }
            }
            if !keeps {
                let reasons = zip(conditions, indexes).map { item, i in
                    item.condition.describe(item.field.name, i < record.values.count ? record.values[i] : .null, holds: true)
                }
                throw Filtered(at: record.location, stage: "drop", reason: reasons.joined(separator: " and "))
            }
        }
    }
}
