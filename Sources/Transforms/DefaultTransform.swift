import Pipeline

/// `default`: gives fields a value where they are empty, and adds the fields that do not reach it
/// (a constant column).
///
/// ```yaml
/// - default: { unit: pcs, listed: "true" }
/// ```
/// Values are text as written; the attribute's type converts them like any other field.
public struct DefaultTransform: TransformKind {
    public var name: String { "default" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "default",
            summary: "Sets fields that are empty (or missing) to the given text: `default: { unit: pcs, listed: \"true\" }`."
                + " A field that does not reach the step is added, so a pipeline can supply a constant column.",
            options: [
                OptionSpec("<field>", .string, "Any field name, with the text it takes where it is empty."),
            ])
    }

    public init() {}

    public func fieldsRead(_ node: ConfigNode) -> [String] { node.mapping?.compactMap(\.key.scalar) ?? [] }
    public func fieldsMade(_ node: ConfigNode) -> [String] { fieldsRead(node) }

    public func make(_ node: ConfigNode) throws -> any Transform {
        FieldValuesStep(try FieldValues(node, stage: name), overwrite: false)
    }
}
