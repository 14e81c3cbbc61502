import Pipeline

/// The `field: value` pairs of `default` and `set`, and the step that writes them into records.
struct FieldValues: Sendable {
    struct Entry: Sendable {
        var field: FieldReference
        var value: Value
    }

    var entries: [Entry]

    /// Reads `{ unit: pcs, listed: "true" }`: field names to values, kept as text as written.
    init(_ node: ConfigNode, stage: String) throws {
        guard let pairs = node.mapping, !pairs.isEmpty else {
            throw node.error(.pipelineWrongType, "'\(stage)' expects a mapping of field names to values, e.g. { unit: pcs },"
                                                     + " found \(node.kindDescription)", stage: stage)
        }
        entries = []
        for (key, value) in pairs {
            guard let name = key.scalar, !name.isEmpty else { throw key.error(.pipelineInvalidName, "field names must be plain names", stage: stage) }
            if entries.contains(where: { $0.field.name == name }) {
                throw key.error(.pipelineDuplicateName, "field '\(name)' is listed twice", stage: stage)
            }
            guard let text = value.scalar else {
                throw value.error(.pipelineWrongType, "the value of '\(name)' must be a single value (write \"\" for empty text),"
                                                          + " found \(value.kindDescription)", stage: stage)
            }
            entries.append(Entry(field: FieldReference(name: name, node: key), value: .text(text)))
        }
    }
}

/// Writes constant values into records: into fields that reach it (when empty, or always), and
/// as new fields after the others for names that do not reach it.
final class FieldValuesStep: Transform {
    let values: FieldValues
    /// `set` overwrites; `default` fills only empty values.
    let overwrite: Bool
    private var slots: [(index: Int, value: Value)] = []
    private var addedCount = 0

    init(_ values: FieldValues, overwrite: Bool) {
        self.values = values
        self.overwrite = overwrite
    }

    func bind(fields: [String]) throws -> [String] {
        var output = fields
        slots = values.entries.map { entry in
            if let i = fields.firstIndex(of: entry.field.name) { return (i, entry.value) }
            output.append(entry.field.name)
            return (output.count - 1, entry.value)
        }
        addedCount = output.count - fields.count
        return output
    }

    func apply(_ record: inout Record) throws {
        // One allocation for all the fields this step adds, not one per field.
        if addedCount > 0 { record.values.reserveCapacity(record.values.count + addedCount) }
        for (index, value) in slots {
            if index < record.values.count {
                if overwrite || record.values[index].isEmpty { record.values[index] = value }
            } else {
                while record.values.count < index { record.values.append(.null) }
                record.values.append(value)
            }
        }
    }
}
