import Foundation
import Diagnostics
import Pipeline

/// Streams the records of a JSON Lines file: one JSON object per line, blank lines skipped.
///
/// Values are read as by `JSONReader`; each record's location is the line and column of its `{`.
///
/// ```swift
/// let reader = try JSONLinesReader(input: input, fields: ["name", "quantity"])
/// ```
public final class JSONLinesReader: TrimmingReader, RecyclingReader {
    public let input: Input
    public var fieldNames: [String] { tree.fieldNames }
    public var bytesRead: Int64 { parser.bytesRead }

    private let parser: JSONParser
    private let tree: FieldTree
    private var latch = FailureLatch()

    public convenience init(input: Input, fields: [String]) throws {
        try self.init(input: input, fields: fields, chunkSize: JSONParser.defaultChunkSize)
    }

    /// `chunkSize` is settable for tests that cut values at chunk boundaries.
    init(input: Input, fields: [String], chunkSize: Int) throws {
        guard let tree = FieldTree(fields: fields) else {
            throw PipelineError(.invalidPipeline, code: .jsonInvalidFieldPath, at: Location(file: input.displayPath), stage: "jsonl",
                                "the field name '\(FieldTree.malformedName(in: fields) ?? "")' has an empty part between dots")
        }
        self.input = input
        self.tree = tree
        parser = try JSONParser(input: input, stage: "jsonl", chunkSize: chunkSize)
        try parser.skipByteOrderMark()
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

    /// The next record; throws `Rejection` for a line that is not an object or a field that holds
    /// an object or array, `PipelineError` for a line that is not valid JSON.
    public func next() throws -> Record? {
        try latch.run(readRecord)
    }

    private func readRecord() throws -> Record? {
        parser.newlineIsWhitespace = true
        guard try parser.skipWhitespace() != nil else { return nil }
        parser.newlineIsWhitespace = false
        parser.depth = 0
        let location = parser.location(parser.position)
        var values = parser.takeValues(count: tree.fieldNames.count)
        var problem: JSONParser.RecordProblem?
        if try parser.peek() == UInt8(ascii: "{") {
            try parser.parseRecord(tree, into: &values, problem: &problem)
        } else {
            problem = .init(field: nil, reason: "the line holds \(try parser.kindOfNext()), not an object")
            try parser.skipValue()
        }
        switch try parser.skipWhitespace() {
        case nil: break
        case 0x0A: parser.consumeNewline()
        default: throw try parser.expected("the end of the line after the JSON value (JSON Lines holds one value per line)")
        }
        if let problem { throw Rejection(at: location, stage: "jsonl", field: problem.field, reason: problem.reason) }
        return Record(values: values, location: location)
    }
}
