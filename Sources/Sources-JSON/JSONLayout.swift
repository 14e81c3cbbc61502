import Diagnostics
import Pipeline

/// Where the records of a JSON or JSON Lines file are and which fields they have, as `pipectl init`
/// drafts a read of it. Found by the readers' own parser, under the same limits (nesting, the
/// length of strings and numbers), so a file `init` samples is held to what `run` would allow.
///
/// ```swift
/// let layout = try JSONLayout.json(input, limit: 500)  // records: "items", fields: ["added", "location.home", ...]
/// ```
public struct JSONLayout: Sendable, Hashable {
    /// `records:`: the key of the top-level object whose value is the array of records; nil for
    /// a top-level array, and for JSON Lines.
    public var records: String?
    /// The records' keys as field names, a nested object's as dotted names (`location.home`), in
    /// the order first met, each object's keys sorted.
    public var fields: [String]

    /// `fields` but those no field name can spell (a key that is empty, or gives an empty part
    /// between dots), which the readers cannot read.
    public var readableFields: [String] { fields.filter { FieldTree.malformedName(in: [$0]) == nil } }

    public init(records: String?, fields: [String]) {
        self.records = records
        self.fields = fields
    }

    /// A JSON file's layout, from the first `limit` objects of its records: the top-level array,
    /// else the array of the top-level object's first key in sorted order that holds one. Nil when
    /// the top level is neither.
    public static func json(_ input: Input, limit: Int) throws -> JSONLayout? {
        let parser = try JSONParser(input: input, stage: "json", chunkSize: JSONParser.defaultChunkSize)
        try parser.skipByteOrderMark()
        guard try parser.skipWhitespace() != nil else {
            throw parser.error(.inputEmpty, "the file is empty", at: TextPosition(line: 1, column: 1))
        }
        switch try parser.peek() {
        case UInt8(ascii: "["):
            var names = Names()
            try names.addRecords(parser, limit: limit, readToEnd: false)
            return JSONLayout(records: nil, fields: names.list)
        case UInt8(ascii: "{"):
            guard try parser.enterObject() else { return nil }
            // Every array's records are looked at, as the key chosen is known only at the end.
            var arrays: [String: Names] = [:]
            repeat {
                try parser.readKey()
                let key = parser.key.string
                if try parser.peek() == UInt8(ascii: "["), arrays[key] == nil {
                    var names = Names()
                    try names.addRecords(parser, limit: limit, readToEnd: true)
                    arrays[key] = names
                } else {
                    try parser.skipValue()
                }
            } while try parser.nextMember()
            guard let key = arrays.keys.min() else { return nil }
            return JSONLayout(records: key, fields: arrays[key]?.list ?? [])
        default:
            return nil
        }
    }

    /// A JSON Lines file's layout, from its first `limit` lines that hold an object.
    public static func jsonLines(_ input: Input, limit: Int) throws -> JSONLayout {
        let parser = try JSONParser(input: input, stage: "jsonl", chunkSize: JSONParser.defaultChunkSize)
        try parser.skipByteOrderMark()
        var names = Names(), objects = 0
        while objects < limit {
            // As `JSONLinesReader` reads a line: blank lines skipped, one value, then its end.
            parser.newlineIsWhitespace = true
            guard try parser.skipWhitespace() != nil else { break }
            parser.newlineIsWhitespace = false
            parser.depth = 0
            if try parser.peek() == UInt8(ascii: "{") {
                try names.addObject(parser)
                objects += 1
            } else {
                try parser.skipValue()
            }
            switch try parser.skipWhitespace() {
            case nil: break
            case 0x0A: parser.consumeNewline()
            default: throw try parser.expected("the end of the line after the JSON value (JSON Lines holds one value per line)")
            }
        }
        return JSONLayout(records: nil, fields: names.list)
    }

    /// Field names in the order first met, each once.
    struct Names {
        private(set) var list: [String] = []
        private var seen: Set<String> = []

        mutating func add(_ name: String) {
            if seen.insert(name).inserted { list.append(name) }
        }

        /// The names of the first `limit` objects of the array next in `parser` (other elements
        /// are skipped, as the readers reject them); the rest of the array is read past, or left
        /// unread unless `readToEnd`.
        mutating func addRecords(_ parser: JSONParser, limit: Int, readToEnd: Bool) throws {
            guard try parser.enterArray() else { return }
            var objects = 0
            repeat {
                if objects < limit, try parser.peek() == UInt8(ascii: "{") {
                    try addObject(parser)
                    objects += 1
                } else if objects < limit || readToEnd {
                    try parser.skipValue()
                } else {
                    return
                }
            } while try parser.nextElement()
        }

        /// The names of the object next in `parser`, its keys sorted, a nested object's keys as
        /// dotted names in its key's place.
        mutating func addObject(_ parser: JSONParser) throws {
            for name in try Self.names(parser, prefix: "") { add(name) }
        }

        private enum Member {
            case value
            case object(names: [String])
        }

        private static func names(_ parser: JSONParser, prefix: String) throws -> [String] {
            var members: [String: Member] = [:]
            guard try parser.enterObject() else { return [] }
            repeat {
                try parser.readKey()
                let key = parser.key.string
                // A key given twice: its last value counts, as for a record's own fields.
                if try parser.peek() == UInt8(ascii: "{") {
                    members[key] = .object(names: try names(parser, prefix: prefix + key + "."))
                } else {
                    try parser.skipValue()
                    members[key] = .value
                }
            } while try parser.nextMember()
            return members.keys.sorted().flatMap { key -> [String] in
                if case .object(let names)? = members[key] { return names }
                return [prefix + key]
            }
        }
    }
}
