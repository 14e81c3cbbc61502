import Diagnostics
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
        let object = nextObjectStamp()
        repeat {
            try readKey()
            guard let child = tree.child(of: node, key: key.bytes) else {
                try skipValue()
                continue
            }
            noteKey(child, in: object, tree: tree)
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

    /// A number for the object being parsed, that tells its keys from those of the objects before.
    private func nextObjectStamp() -> Int {
        objectStamp += 1
        return objectStamp
    }

    /// Notes that the key of tree node `child` was read in `object` (its value is next), and
    /// warns when it already was: JSON leaves a key given twice undefined, and the last value
    /// read wins here. Only the keys of fields read are followed: the others change nothing.
    private func noteKey(_ child: Int, in object: Int, tree: FieldTree) {
        if keyStamps.count != tree.nodes.count {
            keyStamps = Array(repeating: 0, count: tree.nodes.count)
            keyPositions = Array(repeating: TextPosition(line: 0, column: 0), count: tree.nodes.count)
        }
        let here = position
        if keyStamps[child] == object {
            let first = keyPositions[child]
            let name = String(decoding: tree.nodes[child].key, as: UTF8.self)
            warnings.add(.init(location: location(here), stage: stage,
                               message: "the key \(UTF8Text.quoted(name)) appears twice in this object (its first value is at "
                                   + "\(first.line):\(first.column)); the last value is kept"))
        }
        keyStamps[child] = object
        keyPositions[child] = here
    }

    private func firstSlot(under node: Int, in tree: FieldTree) -> Int {
        var node = node
        while tree.nodes[node].slot == nil, let first = tree.nodes[node].children.first { node = first }
        return tree.nodes[node].slot ?? 0
    }

    /// A whole value with what is inside it: arrays as lists, objects as their fields, scalars as
    /// `parseField` gives them. `budget` counts the values a record's lists may hold in all.
    private func parseTree(trim: Bool, budget: inout Int, path: String) throws -> Value {
        budget -= 1
        guard budget >= 0 else {
            throw error(.jsonTooManyListValues, "the lists in '\(path)' hold more than \(JSONParser.maxListValues.grouped) values in one record")
        }
        switch try peek() {
        case UInt8(ascii: "["):
            guard try enterArray() else { return .list([]) }
            // Room for a short list at once: grown from empty, a list of five took four
            // allocations (and an object of two keys two for each of its arrays).
            var elements: [Value] = []
            elements.reserveCapacity(8)
            repeat {
                elements.append(try parseTree(trim: trim, budget: &budget, path: path))
            } while try nextElement()
            return .list(elements)
        case UInt8(ascii: "{"):
            guard try enterObject() else { return .object(Fields(names: [], values: [])) }
            var fields = Fields(names: [], values: [])
            fields.names.reserveCapacity(4)
            fields.values.reserveCapacity(4)
            var index: [String: Int] = [:]
            repeat {
                try readKey()
                let name = key.string
                let value = try parseTree(trim: trim, budget: &budget, path: path)
                // A key given twice: the last value, as for a record's own fields.
                guard fields.set(name, value, index: &index) else {
                    throw error(.inputTooManyKeys, "an object in '\(path)' has more than \(Fields.maxNames.grouped) keys, more than pipectl reads")
                }
            } while try nextMember()
            return .object(fields)
        default:
            switch try scanScalar(.value) {
            case .string, .number: return .text(trim ? Trimming.text(UnsafeRawBufferPointer(value.bytes)) : value.string)
            case .bool(let b): return .bool(b)
            case .null: return .null
            }
        }
    }

    /// The value of one field: text for strings and numbers (numbers as written, so that decimals
    /// stay exact; trimmed as the `trim` transform trims text, if `trim`), bool, null; an array is a
    /// list (of objects' fields, for `each:`); an object turns the record away.
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
            var budget = JSONParser.maxListValues
            return try parseTree(trim: trim, budget: &budget, path: path)
        default:
            switch try scanScalar(.value) {
            case .string, .number: return .text(trim ? Trimming.text(UnsafeRawBufferPointer(value.bytes)) : value.string)
            case .bool(let b): return .bool(b)
            case .null: return .null
            }
        }
    }
}
