import Foundation
import TestSupport
import Diagnostics
import Pipeline
import Testing
@testable import SourcesCSV

/// Everything a reader hands out for one file.
struct ReadResult {
    var fieldNames: [String]
    var records: [Record] = []
    var rejections: [Rejection] = []
    var encoding: CSVReader.Encoding
    var delimiter: CSVReader.Delimiter

    /// The text of every record, row by row.
    var rows: [[String]] {
        records.map { $0.values.map(\.displayText) }
    }
}

enum CSVTest {
    static let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    /// A fixture as an input shown as `data/<name>`.
    static func fixture(_ name: String) -> Input {
        Input(url: fixtures.appendingPathComponent(name), displayPath: "data/\(name)")
    }

    /// Writes `bytes` to a new temporary file, shown as `data/<name>`.
    static func file(_ name: String, _ bytes: [UInt8]) throws -> Input {
        let folder = try ScratchFolder.make("csv-tests")
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return Input(url: url, displayPath: "data/\(name)")
    }

    static func file(_ name: String, _ text: String) throws -> Input {
        try file(name, Array(text.utf8))
    }

    /// Reads every record, collecting rejections and going on after them, as the runner does.
    /// `trimming`: the fields trimmed as they are read (`trimWhileReading`), as a leading `trim` step has them.
    static func read(_ input: Input, _ options: CSVReader.Options = .init(), chunkSize: Int? = nil,
                     trimming: [Int] = []) throws -> ReadResult {
        try reading(input, options, chunkSize: chunkSize, trimming: trimming).result
    }

    /// The records, and the reader that read them.
    static func reading(_ input: Input, _ options: CSVReader.Options = .init(), chunkSize: Int? = nil,
                     trimming: [Int] = []) throws -> (result: ReadResult, reader: CSVReader) {
        let reader = try chunkSize.map { try CSVReader(input: input, options: options, chunkSize: $0) }
            ?? CSVReader(input: input, options: options)
        if !trimming.isEmpty { _ = reader.trimWhileReading(fields: trimming) }
        var result = ReadResult(fieldNames: reader.fieldNames, encoding: reader.encoding, delimiter: reader.delimiter)
        while true {
            do {
                guard let record = try reader.next() else { break }
                result.records.append(record)
            } catch let rejection as Rejection {
                result.rejections.append(rejection)
            }
        }
        return (result, reader)
    }

    /// The `PipelineError` that reading `input` throws, or nil if it reads fine.
    static func failure(_ input: Input, _ options: CSVReader.Options = .init(), chunkSize: Int? = nil,
                        trimming: [Int] = []) -> PipelineError? {
        do {
            _ = try read(input, options, chunkSize: chunkSize, trimming: trimming)
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }
}

/// Pipeline-file nodes built by hand, as the loader would build them from YAML.
enum Config {
    static let file = "pipelines/grocery.yaml"

    static func scalar(_ value: String, line: Int = 5, column: Int = 11, quoted: Bool = false) -> ConfigNode {
        ConfigNode(.scalar(value), at: Location(file: file, line: line, column: column), isQuoted: quoted)
    }

    static func list(_ values: [String], line: Int = 5, column: Int = 11) -> ConfigNode {
        let items = values.enumerated().map { scalar($1, line: line, column: column + 1 + 6 * $0) }
        return ConfigNode(.sequence(items), at: Location(file: file, line: line, column: column))
    }

    /// `read: { csv: data/grocery.csv, <options> }` on line 5, one key after the other.
    static func read(_ options: [(String, ConfigNode)]) -> ConfigNode {
        var pairs = [(key: scalar("csv", column: 13), value: scalar("data/grocery.csv", column: 18))]
        for (key, value) in options { pairs.append((key: scalar(key, column: value.location.column ?? 1), value: value)) }
        return ConfigNode(.mapping(pairs), at: Location(file: file, line: 5, column: 11))
    }

    /// The checked options of a `read:` block, as the loader hands them to the reader kind.
    static func options(_ options: [(String, ConfigNode)]) throws -> Pipeline.Options {
        try Pipeline.Options(read(options), spec: CSVReaderKind().spec, ignoring: ["csv"])
    }
}
