import Foundation
import TestSupport
import Diagnostics
import Pipeline
import SourcesXML
import Testing

/// Reads XML written to temporary files, as the runner does.
enum XMLTest {
    /// Writes `bytes` to a new temporary folder as `name`, shown as `data/<name>`.
    static func file(_ name: String, _ bytes: [UInt8]) throws -> Input {
        let url = try folder().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return Input(url: url, displayPath: "data/\(name)")
    }

    static func file(_ name: String, _ text: String) throws -> Input {
        try file(name, Array(text.utf8))
    }

    static func folder() throws -> URL {
        let folder = try ScratchFolder.make("xml-tests")
        return folder
    }

    /// Every record of `input`.
    static func read(_ input: Input, record: String, fields: [String]) throws -> [Record] {
        let reader = try XMLReader(input: input, options: .init(record: record, fields: fields))
        var records: [Record] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    /// The text of every record's fields.
    static func rows(_ input: Input, record: String, fields: [String]) throws -> [[String]] {
        try read(input, record: record, fields: fields).map { $0.values.map(\.displayText) }
    }

    /// The `PipelineError` reading `input` throws, or nil if it reads fine.
    static func failure(_ input: Input, record: String = "items/item", fields: [String] = ["name"]) -> PipelineError? {
        do {
            _ = try read(input, record: record, fields: fields)
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }
}
