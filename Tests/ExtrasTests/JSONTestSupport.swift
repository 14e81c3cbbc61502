import Foundation
import TestSupport
import Diagnostics
import Pipeline
import Testing
@testable import SourcesJSON

/// Everything a reader hands out for one file, collected as the runner does (going on after rejections).
struct JSONReadResult {
    var fieldNames: [String]
    var records: [Record] = []
    var rejections: [Rejection] = []

    var rows: [[Value]] { records.map(\.values) }
}

enum JSONTest {
    /// Writes `bytes` to a new temporary file, shown as `data/<name>`.
    static func file(_ name: String, _ bytes: [UInt8]) throws -> Input {
        let folder = try ScratchFolder.make("json-tests")
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return Input(url: url, displayPath: "data/\(name)")
    }

    static func file(_ name: String, _ text: String) throws -> Input {
        try file(name, Array(text.utf8))
    }

    static func collect(_ reader: any RecordReader) throws -> JSONReadResult {
        var result = JSONReadResult(fieldNames: reader.fieldNames)
        while true {
            do {
                guard let record = try reader.next() else { break }
                result.records.append(record)
            } catch let rejection as Rejection {
                result.rejections.append(rejection)
            }
        }
        return result
    }

    static func read(_ text: String, fields: [String], records: String? = nil, chunkSize: Int = 128 * 1024) throws -> JSONReadResult {
        try collect(JSONReader(input: file("items.json", text), fields: fields, records: records, chunkSize: chunkSize))
    }

    static func readLines(_ text: String, fields: [String], chunkSize: Int = 128 * 1024) throws -> JSONReadResult {
        try collect(JSONLinesReader(input: file("items.jsonl", text), fields: fields, chunkSize: chunkSize))
    }

    /// The error reading fails with, or nil if it reads fine.
    static func failure(_ bytes: [UInt8], fields: [String] = ["name"], records: String? = nil,
                        chunkSize: Int = 128 * 1024) -> PipelineError? {
        do {
            _ = try collect(JSONReader(input: file("items.json", bytes), fields: fields, records: records, chunkSize: chunkSize))
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }

    static func failure(_ text: String, fields: [String] = ["name"], records: String? = nil,
                        chunkSize: Int = 128 * 1024) -> PipelineError? {
        failure(Array(text.utf8), fields: fields, records: records, chunkSize: chunkSize)
    }
}
