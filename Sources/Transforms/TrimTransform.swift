import Pipeline

/// `trim`: removes leading and trailing whitespace from text values, the stray tabs, line breaks,
/// non-breaking and zero-width spaces that spreadsheet exports leave behind.
///
/// ```yaml
/// - trim: all                        # every field
/// - trim: [name, unit]               # these fields
/// - trim: { fields: [name, unit] }
/// ```
/// The rule itself is `Trimming`. Inner whitespace is kept; values other than text are left alone;
/// a value is never rejected.
public struct TrimTransform: TransformKind {
    public var name: String { "trim" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "trim",
            summary: "Removes leading and trailing whitespace (spaces, tabs, line breaks, no-break and other Unicode"
                + " spaces, zero-width spaces, a stray byte order mark) from text values; inner whitespace stays."
                + " Shorthands: `trim: all`, `trim: [name, unit]`.",
            options: [
                OptionSpec("fields", .stringOrList, required: true, "The fields to trim, or `all`."),
            ],
            shorthand: .stringOrList)
    }

    public init() {}

    public func make(_ node: ConfigNode) throws -> any Transform {
        if node.mapping == nil {
            guard node.scalar != nil || node.sequence != nil else {
                throw node.error(.pipelineWrongType, "'trim' expects `all`, a list of fields or { fields: [...] }, found \(node.kindDescription)",
                                                     stage: name)
            }
            return Step(try FieldSelection.parse(node, option: "trim", stage: name))
        }
        let options = try Options(node, spec: spec)
        return Step(try FieldSelection.parse(options.node("fields") ?? node, option: "fields", stage: name))
    }

    /// A configured `trim` step.
    public final class Step: TrimmingStep {
        let selection: FieldSelection
        private var indexes: [Int] = []

        init(_ selection: FieldSelection) { self.selection = selection }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try selection.indexes(in: fields, stage: "trim")
            return fields
        }

        /// The fields it trims, once bound; the same names reach it as leave it.
        public var fieldIndexes: [Int] { indexes }

        public func apply(_ record: inout Record) throws {
            for i in indexes where i < record.values.count {
                guard case .text(let text) = record.values[i], let trimmed = Trimming.trimmed(text) else { continue }
                record.values[i] = .text(trimmed)
            }
        }
    }
}
