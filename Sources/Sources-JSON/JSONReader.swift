import Foundation
import Diagnostics
import Pipeline

/// Streams the records of a JSON file: the objects of its top-level array, or of the array at a
/// dotted path inside its top-level object (`records: data.items`).
///
/// The file is parsed incrementally in chunks, one record object at a time, keeping only the
/// values of the fields asked for; memory stays the same whatever the size of the file. A field
/// `unit.name` reaches into nested objects. Strings give `.text`, numbers `.text` of their exact
/// digits as written (`12.50`, `1e3`: the attribute conversion parses text exactly, so decimals
/// stay exact), `true`/`false` `.bool`, `null` and missing keys `.null`.
///
/// ```swift
/// let reader = try JSONReader(input: input, fields: ["name", "quantity"], records: "data.items")
/// while let record = try reader.next() { ... }  // throws Rejection for an element that is not an object
/// ```
public final class JSONReader: TrimmingReader, RecyclingReader {
    /// The file read, and how it is named in messages and record locations.
    public let input: Input
    /// The fields of every record, in order.
    public var fieldNames: [String] { tree.fieldNames }
    /// Bytes read from the file so far.
    public var bytesRead: Int64 { parser.bytesRead }

    private let parser: JSONParser
    private let tree: FieldTree
    private var latch = FailureLatch()
    /// The keys leading to the records array; each is an object left open around it.
    private let recordsPath: [String]
    private let pathPrefix: String
    /// The records array's location, whose path each record's extends with its index.
    private let recordsLocation: Location
    private var index = 0
    private var finished = false

    /// Opens `input` and parses up to the first record. `records` is the dotted path of the
    /// records array inside the top-level object, nil for a top-level array.
    public convenience init(input: Input, fields: [String], records: String? = nil) throws {
        try self.init(input: input, fields: fields, records: records, chunkSize: JSONParser.defaultChunkSize)
    }

    /// `chunkSize` is settable for tests that cut values at chunk boundaries.
    init(input: Input, fields: [String], records: String?, chunkSize: Int) throws {
        guard let tree = FieldTree(fields: fields) else {
            throw PipelineError(.invalidPipeline, code: .jsonInvalidFieldPath, at: Location(file: input.displayPath), stage: "json",
                                "the field name '\(FieldTree.malformedName(in: fields) ?? "")' has an empty part between dots")
        }
        let path = records.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) } ?? []
        if path.contains(where: \.isEmpty) {
            throw PipelineError(.invalidPipeline, code: .jsonInvalidFieldPath, at: Location(file: input.displayPath), stage: "json",
                                "records: '\(records ?? "")' has an empty part between dots")
        }
        self.input = input
        self.tree = tree
        self.recordsPath = path
        self.pathPrefix = records ?? ""
        parser = try JSONParser(input: input, stage: "json", chunkSize: chunkSize)
        var recordsLocation = parser.fileLocation
        recordsLocation.path = pathPrefix
        self.recordsLocation = recordsLocation
        try parser.skipByteOrderMark()
        guard try parser.skipWhitespace() != nil else {
            throw parser.error(.inputEmpty, "the file is empty", at: TextPosition(line: 1, column: 1))
        }
        try openRecords()
    }

    /// Parses up to the first element of the records array (or to the end, when it is empty).
    private func openRecords() throws {
        let top = try parser.kindOfNext()
        if recordsPath.isEmpty {
            guard top == "an array" else {
                throw parser.error(.jsonRecordsNotFound, "the top level is \(top), not an array of records"
                                                         + (top == "an object" ? ": set 'records:' to the dotted path of the array of records "
                                                            + "inside it (such as records: data.items)" : ""))
            }
        } else if top != "an object" {
            throw parser.error(.jsonRecordsNotFound, "records: '\(pathPrefix)' names an array inside an object, but the top level is \(top)")
        }
        for (level, name) in recordsPath.enumerated() {
            let objectStart = parser.position
            let here = level == 0 ? "the top-level object" : "'\(recordsPath[..<level].joined(separator: "."))'"
            var keys: [String] = []
            guard try parser.enterObject() else {
                throw parser.error(.jsonRecordsNotFound, "records: \(here) is empty, it has no key '\(name)'", at: objectStart)
            }
            while true {
                try parser.readKey()
                let key = parser.key.string
                if key == name { break }
                if keys.count < 100 { keys.append(key) }
                try parser.skipValue()
                guard try parser.nextMember() else {
                    throw parser.error(.jsonRecordsNotFound, "records: \(here) has no key '\(name)'\(Suggestion.hint(for: name, in: keys))",
                                                             at: objectStart)
                }
            }
            let kind = try parser.kindOfNext()
            let expected = level == recordsPath.count - 1 ? "an array" : "an object"
            guard kind == expected else {
                let whole = recordsPath[...level].joined(separator: ".")
                throw parser.error(.jsonRecordsNotFound, "records: '\(whole)' is \(kind), not \(expected)"
                                                         + (expected == "an array" ? " of records" : ""))
            }
        }
        if try !parser.enterArray() { try finish() }
    }

    /// After the records array: closes the objects around it and checks nothing follows.
    private func finish() throws {
        finished = true
        for _ in recordsPath {
            while try parser.nextMember() {
                try parser.readKey()
                try parser.skipValue()
            }
        }
        if try parser.skipWhitespace() != nil {
            throw parser.error(.jsonTrailingData, "trailing data after the JSON value: found \(try parser.describeNext())")
        }
    }

    /// Keeps the record's values array for the next record (see `RecordReader`).
    public func recycle(_ record: consuming Record) {
        parser.spareValues = record.values
    }

    /// Trims the fields' strings (and numbers, kept as text) as they are made.
    public func trimWhileReading(fields indexes: [Int]) -> Bool {
        parser.trim(fields: indexes, count: tree.fieldNames.count)
        return true
    }

    /// The next record; throws `Rejection` for an element that is not an object or a field that
    /// holds an object or array (call again for the next one), `PipelineError` for bad JSON.
    public func next() throws -> Record? {
        try latch.run(readRecord)
    }

    private func readRecord() throws -> Record? {
        if finished { return nil }
        if index > 0, try !parser.nextElement() {
            try finish()
            return nil
        }
        let position = parser.position
        let location = parser.location(position, index: index, under: recordsLocation)
        index += 1
        guard try parser.peek() == UInt8(ascii: "{") else {
            let kind = try parser.kindOfNext()
            try parser.skipValue()
            throw Rejection(at: location, stage: "json", reason: "the element is \(kind), not an object")
        }
        var values = parser.takeValues(count: tree.fieldNames.count)
        var problem: JSONParser.RecordProblem?
        try parser.parseRecord(tree, into: &values, problem: &problem)
        if let problem { throw Rejection(at: location, stage: "json", field: problem.field, reason: problem.reason) }
        return Record(values: values, location: location)
    }
}
