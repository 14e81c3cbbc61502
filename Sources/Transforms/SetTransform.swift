import Pipeline

/// `set`: gives fields a value in every record, adding the fields that do not reach it.
///
/// ```yaml
/// - set: { source_name: grocery }
/// ```
/// Values are text as written; the attribute's type converts them like any other field.
public struct SetTransform: TransformKind {
    public var name: String { "set" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "set",
            summary: "Sets fields to the given text in every record, whatever they held: `set: { source_name: grocery }`."
                + " A field that does not reach the step is added.",
            options: [
                OptionSpec("<field>", .string, "Any field name, with the text it takes."),
            ])
    }

    public init() {}

    public func fieldsRead(_ node: ConfigNode) -> [String] { [] }
    public func fieldsMade(_ node: ConfigNode) -> [String] { node.mapping?.compactMap(\.key.scalar) ?? [] }

    public func make(_ node: ConfigNode) throws -> any Transform {
        FieldValuesStep(try FieldValues(node, stage: name), overwrite: true)
    }
}
