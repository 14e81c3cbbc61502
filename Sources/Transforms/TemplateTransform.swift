import Diagnostics
import Pipeline

/// `template`: a field computed from others, for a title or a label no column holds.
///
/// ```yaml
/// - template: { field: title, value: "{first} {last}" }
/// ```
/// `{name}` is the field's value as text (empty for an empty one); `{{` and `}}` are braces. A
/// record whose named fields are all empty gets an empty value, not the template's bare text.
public struct TemplateTransform: TransformKind {
    public var name: String { "template" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "template",
            summary: "A field made of others: `template: { field: title, value: \"{first} {last}\" }`; `{{` and `}}` are braces."
                + " The field is added when it does not reach the step.",
            options: [
                OptionSpec("field", .string, required: true, "The field that takes the text."),
                OptionSpec("value", .string, required: true, "The text, with `{field}` where a field's value goes."),
            ])
    }

    public init() {}

    public func fieldsRead(_ node: ConfigNode) -> [String] {
        guard let value = node.mapping?.first(where: { $0.key.scalar == "value" })?.value,
              let parts = try? Self.parts(value.scalar ?? "", at: value) else { return [] }
        return parts.compactMap { if case .field(let name) = $0 { name } else { nil } }
    }

    public func fieldsMade(_ node: ConfigNode) -> [String] {
        node.mapping?.first(where: { $0.key.scalar == "field" })?.value.scalar.map { [$0] } ?? []
    }

    /// The template cut into literal text and field names.
    enum Part: Equatable {
        case text(String)
        case field(String)
    }

    static func parts(_ template: String, at node: ConfigNode) throws -> [Part] {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(template)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "{", rest.first == "{" { literal.append("{"); rest = rest.dropFirst(); continue }
            if c == "}", rest.first == "}" { literal.append("}"); rest = rest.dropFirst(); continue }
            if c == "}" { throw node.error(.templateMalformed, "template: a '}' closes nothing; write '}}' for a brace", stage: "template") }
            guard c == "{" else { literal.append(c); continue }
            guard let end = rest.firstIndex(of: "}") else {
                throw node.error(.templateMalformed, "template: '{' opens a field name that no '}' closes; write '{{' for a brace", stage: "template")
            }
            let name = String(rest[..<end])
            guard !name.isEmpty else { throw node.error(.templateMalformed, "template: '{}' names no field", stage: "template") }
            if !literal.isEmpty { parts.append(.text(literal)); literal = "" }
            parts.append(.field(name))
            rest = rest[rest.index(after: end)...]
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        return parts
    }

    public func make(_ node: ConfigNode) throws -> any Transform {
        let options = try Options(node, spec: spec)
        guard let field = options.string("field"), !field.isEmpty else {
            throw (options.node("field") ?? node).error(.pipelineEmptyValue, "'field' names the field that takes the text", stage: name)
        }
        let valueNode = options.node("value") ?? node
        guard let template = valueNode.scalar else {
            throw valueNode.error(.pipelineWrongType, "'value' is the template text, found \(valueNode.kindDescription)", stage: name)
        }
        return Step(field: field, parts: try Self.parts(template, at: valueNode), node: valueNode)
    }

    public final class Step: Transform {
        let field: String
        let parts: [Part]
        let node: ConfigNode
        private var target = 0
        /// Per part: the field's index, or nil for literal text.
        private var indexes: [Int?] = []

        init(field: String, parts: [Part], node: ConfigNode) {
            self.field = field
            self.parts = parts
            self.node = node
        }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try parts.map { part in
                guard case .field(let name) = part else { return nil }
                guard let i = fields.firstIndex(of: name) else {
                    throw node.error(.pipelineUnknownField, FieldReference.missing(name, in: fields, stage: "template"), stage: "template")
                }
                return i
            }
            let made = FieldReference.made(field, in: fields)
            target = made.index
            return made.fields
        }

        public func apply(_ record: inout Record) throws {
            var text = ""
            var anyValue = false
            for (part, index) in zip(parts, indexes) {
                switch part {
                case .text(let literal): text += literal
                case .field:
                    guard let index, index < record.values.count else { continue }
                    let value = record.values[index]
                    if !value.isEmpty { anyValue = true; text += value.displayText }
                }
            }
            while record.values.count <= target { record.values.append(.null) }
            record.values[target] = anyValue ? .text(text) : .null
        }
    }
}
