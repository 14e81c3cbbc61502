import Diagnostics
import Pipeline

/// A field named in a transform's options, kept with the node that names it so that binding can
/// point at the exact spot when the field does not reach the step.
struct FieldReference: Sendable {
    var name: String
    var node: ConfigNode

    /// The fields a node names: one name or a list of names. An empty list or a name listed twice
    /// is an error (applying a step twice to one field is never meant: `1.234,5` would not survive
    /// a second `number`).
    static func list(_ node: ConfigNode, option: String, stage: String) throws -> [FieldReference] {
        let items: [ConfigNode]
        if node.scalar != nil {
            items = [node]
        } else if let sequence = node.sequence {
            items = sequence
        } else {
            throw node.error(.pipelineWrongType, "'\(option)' expects a field name or a list of field names, found \(node.kindDescription)",
                             stage: stage)
        }
        guard !items.isEmpty else { throw node.error(.pipelineEmptyValue, "'\(option)' lists no fields", stage: stage) }
        var references: [FieldReference] = []
        for item in items {
            guard let name = item.scalar, !name.isEmpty else {
                throw item.error(.pipelineWrongType, "'\(option)' expects field names, found \(item.kindDescription)", stage: stage)
            }
            if references.contains(where: { $0.name == name }) {
                throw item.error(.pipelineDuplicateName, "field '\(name)' is listed twice", stage: stage)
            }
            references.append(FieldReference(name: name, node: item))
        }
        return references
    }

    /// The index of this field among `fields` (its first occurrence), or an error at the option
    /// naming it, with the closest field name and the fields that do reach the step.
    func index(in fields: [String], stage: String) throws -> Int {
        if let i = fields.firstIndex(of: name) { return i }
        throw node.error(.pipelineUnknownField, FieldReference.missing(name, in: fields, stage: stage), stage: stage)
    }

    /// Where a step writes the field it makes: the field's index where it reaches the step,
    /// else a new last one; and the field names the step hands on.
    static func made(_ name: String, in fields: [String]) -> (index: Int, fields: [String]) {
        if let i = fields.firstIndex(of: name) { return (i, fields) }
        return (fields.count, fields + [name])
    }

    static func missing(_ name: String, in fields: [String], stage: String) -> String {
        "no field '\(name)' reaches '\(stage)'\(Suggestion.hint(for: name, in: fields))"
            + " (fields: \(fields.isEmpty ? "none" : fields.joined(separator: ", ")))"
    }
}

/// The fields a step works on: all that reach it, or those its options name.
enum FieldSelection: Sendable {
    case all
    case named([FieldReference])

    /// `all`, one name, a list of names: the shorthand forms and the value of a `fields:` key.
    static func parse(_ node: ConfigNode, option: String, stage: String) throws -> FieldSelection {
        if node.scalar == "all", !node.isQuoted { return .all }
        return .named(try FieldReference.list(node, option: option, stage: stage))
    }

    /// The indexes of the selected fields among `fields`.
    func indexes(in fields: [String], stage: String) throws -> [Int] {
        switch self {
        case .all: return Array(fields.indices)
        case .named(let references): return try references.map { try $0.index(in: fields, stage: stage) }
        }
    }
}
