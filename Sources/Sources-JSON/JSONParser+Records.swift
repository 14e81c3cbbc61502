import Pipeline

extension JSONParser {
    /// Why a record is turned away, found while parsing it; parsing goes on to its end so that
    /// the next record starts in the right place.
    struct RecordProblem {
        var field: String?
        var reason: String
    }

    /// Parses the object at the current position into `values` (one slot per field of `tree`),
    /// keeping the values of the tree's fields and skipping the rest without building it.
    func parseRecord(_ tree: FieldTree, node: Int = 0, into values: inout [Value], problem: inout RecordProblem?) throws {
        guard try enterObject() else { return }
        repeat {
            try readKey()
            guard let child = tree.child(of: node, key: key.bytes) else {
                try skipValue()
                continue
            }
            let target = tree.nodes[child]
            if let slot = target.slot {
                values[slot] = try parseField(target.path, trim: slot < trims.count && trims[slot], problem: &problem)
            } else if try peek() == UInt8(ascii: "{") {
                try parseRecord(tree, node: child, into: &values, problem: &problem)
            } else {
                let kind = try kindOfNext()
                try skipValue()
                // null for a whole parent object means its fields are missing, as for a missing key.
                if kind != "null", problem == nil {
                    problem = RecordProblem(field: nil, reason: "'\(target.path)' is \(kind), not an object with "
                                            + "the field '\(tree.fieldNames[firstSlot(under: child, in: tree)])'")
                }
            }
        } while try nextMember()
    }

    private func firstSlot(under node: Int, in tree: FieldTree) -> Int {
        var node = node
        while tree.nodes[node].slot == nil, let first = tree.nodes[node].children.first { node = first }
        return tree.nodes[node].slot ?? 0
    }

    /// The value of one field: text for strings and numbers (numbers as written, so that decimals
    /// stay exact; trimmed as the `trim` transform trims text, if `trim`), bool, null; an object
    /// or array turns the record away.
    private func parseField(_ path: String, trim: Bool, problem: inout RecordProblem?) throws -> Value {
        switch try peek() {
        case UInt8(ascii: "{"):
            var reason = "the value is an object; name a field inside it"
            if try enterObject() {
                try readKey()
                reason += ", such as '\(path).\(key.string)'"
                try skipValue()
                while try nextMember() {
                    try readKey()
                    try skipValue()
                }
            }
            if problem == nil { problem = RecordProblem(field: path, reason: reason) }
            return .null
        case UInt8(ascii: "["):
            try skipValue()
            if problem == nil {
                problem = RecordProblem(field: path, reason: "the value is an array, which does not fit in one field")
            }
            return .null
        default:
            switch try scanScalar(.value) {
            case .string, .number: return .text(trim ? Trimming.text(UnsafeRawBufferPointer(value.bytes)) : value.string)
            case .bool(let b): return .bool(b)
            case .null: return .null
            }
        }
    }
}
