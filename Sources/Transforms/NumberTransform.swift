import Diagnostics
import Pipeline

/// `number`: reads numbers as an export writes them (decimal comma, grouping, currency, percent,
/// accounting negatives) and hands them on as canonical text (`-1234.5`) that the attribute's
/// type then takes exactly.
///
/// ```yaml
/// - number: { fields: [quantity, price], decimal: ",", grouping: "." }
/// - number: [quantity, price]        # decimal point, comma grouping
/// ```
/// A value that is not a number in that format rejects the record; empty text stays empty.
public struct NumberTransform: TransformKind {
    public var name: String { "number" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "number",
            summary: "Reads numbers written with a decimal comma or point, grouping separators at thousands positions"
                + " (spaces and apostrophes always count as grouping), a sign or accounting parentheses `(12.50)`,"
                + " a currency before or after (`$`, `€`, `£`, `¥`, `EUR`, `CHF`, ...) and a trailing `%` (divided by 100"
                + " exactly). Hands on plain text such as `-1234.5`; anything else rejects the record."
                + " Shorthand with the default format: `number: [quantity, price]`.",
            options: [
                OptionSpec("fields", .stringOrList, required: true, "The fields holding numbers."),
                OptionSpec("decimal", .oneOf([".", ","]), default: "\".\"", "The decimal separator."),
                OptionSpec("grouping", .oneOf([".", ",", " ", "'"]), default: "the other of `.` and `,`",
                           "The thousands separator, besides spaces and apostrophes."),
            ])
    }

    public init() {}

    public func make(_ node: ConfigNode) throws -> any Transform {
        // Shorthand `number: quantity` or `number: [quantity, price]`: the default format.
        if node.mapping == nil {
            return Step(fields: try FieldReference.list(node, option: "number", stage: name), format: NumberFormat())
        }
        let options = try Options(node, spec: spec)
        let fields = try FieldReference.list(options.node("fields") ?? node, option: "fields", stage: name)
        let decimal = options.string("decimal")?.utf8.first ?? UInt8(ascii: ".")
        let grouping = options.string("grouping")?.utf8.first
        if let grouping, grouping == decimal, let groupingNode = options.node("grouping") {
            throw groupingNode.error(.pipelineConflictingOptions,
                                     "'grouping' must differ from 'decimal' (both are \(NumberFormat.show(decimal)))", stage: name)
        }
        return Step(fields: fields, format: NumberFormat(decimal: decimal, grouping: grouping))
    }

    /// A configured `number` step.
    public final class Step: Transform {
        let references: [FieldReference]
        let format: NumberFormat
        private var indexes: [Int] = []

        init(fields: [FieldReference], format: NumberFormat) {
            self.references = fields
            self.format = format
        }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try references.map { try $0.index(in: fields, stage: "number") }
            return fields
        }

        public func apply(_ record: inout Record) throws {
            for (k, i) in indexes.enumerated() where i < record.values.count {
                guard case .text(let text) = record.values[i] else { continue }
                do {
                    if let canonical = try format.canonical(text) { record.values[i] = .text(canonical) }
                } catch {
                    throw Rejection(at: record.location(ofField: i), stage: "number", field: references[k].name,
                                    rawValue: text, reason: format.reason(error))
                }
            }
        }
    }
}
