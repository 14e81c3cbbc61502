import Pipeline

/// `rename`: gives fields new names, for headers that are awkward to load by (`Item Name`).
///
/// ```yaml
/// - rename: { "Item Name": name, Qty: quantity }
/// ```
/// Renames happen together, so two fields can swap names. Renaming a field that does not reach
/// the step, or onto a name another field has, is an error in the pipeline file.
public struct RenameTransform: TransformKind {
    public var name: String { "rename" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "rename",
            summary: "Renames fields: `rename: { \"Item Name\": name, Qty: quantity }`. The old names must reach the step;"
                + " the new names must not clash with other fields.",
            options: [
                OptionSpec("<field>", .string, "A field that reaches the step, with its new name."),
            ])
    }

    public init() {}

    public func fieldsRead(_ node: ConfigNode) -> [String] { node.mapping?.compactMap(\.key.scalar) ?? [] }
    public func fieldsMade(_ node: ConfigNode) -> [String] { node.mapping?.compactMap(\.value.scalar) ?? [] }

    public func make(_ node: ConfigNode) throws -> any Transform {
        guard let pairs = node.mapping, !pairs.isEmpty else {
            throw node.error(.pipelineWrongType, "'rename' expects a mapping of old field names to new ones, e.g. { \"Item Name\": name },"
                                                     + " found \(node.kindDescription)", stage: name)
        }
        var renames: [(from: FieldReference, to: String)] = []
        for (key, value) in pairs {
            guard let old = key.scalar, !old.isEmpty else { throw key.error(.pipelineInvalidName, "field names must be plain names", stage: name) }
            if renames.contains(where: { $0.from.name == old }) {
                throw key.error(.pipelineDuplicateName, "field '\(old)' is renamed twice", stage: name)
            }
            guard let new = value.scalar, !new.isEmpty else {
                throw value.error(.pipelineInvalidName, "the new name of '\(old)' must be a field name, found \(value.kindDescription)", stage: name)
            }
            renames.append((FieldReference(name: old, node: key), new))
        }
        return Step(renames)
    }

    /// A configured `rename` step: it changes names only, so records pass through untouched.
    public final class Step: Transform {
        let renames: [(from: FieldReference, to: String)]

        init(_ renames: [(from: FieldReference, to: String)]) { self.renames = renames }

        public func bind(fields: [String]) throws -> [String] {
            var output = fields
            var renamed = Set<Int>()
            for (from, to) in renames {
                let i = try from.index(in: fields, stage: "rename")
                output[i] = to
                renamed.insert(i)
            }
            // Checked after all renames, so that swapping two names is fine.
            for (from, to) in renames {
                let i = try from.index(in: fields, stage: "rename")
                if let clash = output.indices.first(where: { $0 != i && output[$0] == to }) {
                    let other = renamed.contains(clash) ? "'\(fields[clash])' is renamed to it too" : "a field '\(to)' already reaches 'rename'"
                    throw from.node.error(.pipelineDuplicateName, "cannot rename '\(from.name)' to '\(to)': \(other)", stage: "rename")
                }
            }
            return output
        }

        public func apply(_ record: inout Record) throws {}
    }
}
