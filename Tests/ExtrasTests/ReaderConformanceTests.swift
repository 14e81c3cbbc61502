import Foundation
import Diagnostics
import Pipeline
import PipelineFile
import SourcesCSV
import SourcesJSON
import PropertyLists
import SourcesXML
import XCTest

/// One set of checks every reader passes, CSV included: the same situations, written in each
/// format, through the real readers (libcsv, libxml2, the JSON and plist parsers).
final class ReaderConformanceTests: XCTestCase {
    /// How one format writes the conformance situations.
    struct Format: Sendable {
        var kind: any ReaderKind
        var fileName: String
        /// `read:` options beyond the path, as YAML flow-mapping entries.
        var options: String
        /// A file holding these records (field -> value), every field in `fields` order.
        var write: @Sendable ([[String: String]]) -> [UInt8]
        /// The file with nothing but the header or the root: zero records.
        var headerOnly: [UInt8]
        /// A file whose second record is malformed, and where the error must point.
        var malformed: (bytes: [UInt8], line: Int)
        /// A file whose only record lacks `unit`; `nil` expected value means "rejected".
        var missingField: (bytes: [UInt8], unit: Value?)
        /// Whether an empty file is an error (a header or root is required) or zero records.
        var emptyIsError: Bool
        /// Whether the format can carry a byte order mark and bytes that are not UTF-8.
        var hasBOMAndBytes = true
    }

    static let fields = ["name", "unit"]
    static let unicode: [[String: String]] = [
        ["name": "Crème fraîche", "unit": "pot"], ["name": "Jalapeño slices", "unit": "jar"],
        ["name": "日本茶", "unit": "g"], ["name": "🥑 Avocado", "unit": "pcs"], ["name": "Straße \"Süß\" & Co", "unit": "l"],
    ]

    static func csvField(_ s: String) -> String { s.contains { ",\"\n".contains($0) } ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s }
    static func xmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
    }
    static func jsonString(_ s: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    static let formats: [Format] = [
        Format(kind: CSVReaderKind(), fileName: "items.csv", options: "encoding: utf-8, delimiter: \",\"",
               write: { records in Array(("name,unit\n" + records.map { "\(csvField($0["name"]!)),\(csvField($0["unit"]!))\n" }.joined()).utf8) },
               headerOnly: Array("name,unit\n".utf8),
               malformed: (Array("name,unit\nMilk,l\n\"Eggs,pcs\n".utf8), 3),
               missingField: (Array("name,unit\nMilk\n".utf8), nil),
               emptyIsError: true),
        Format(kind: XMLReaderKind(), fileName: "items.xml", options: "record: items/item",
               write: { records in Array(("<items>\n" + records.map { "<item name=\"\(xmlEscaped($0["name"]!))\" unit=\"\(xmlEscaped($0["unit"]!))\"/>\n" }.joined() + "</items>\n").utf8) },
               headerOnly: Array("<items/>\n".utf8),
               malformed: (Array("<items>\n<item name=\"Milk\" unit=\"l\"/>\n<item name=\"Eggs unit=\"pcs\"/>\n</items>\n".utf8), 3),
               missingField: (Array("<items><item name=\"Milk\"/></items>\n".utf8), .text("")),
               emptyIsError: true),
        Format(kind: JSONReaderKind(), fileName: "items.json", options: "",
               write: { records in Array(("[\n" + records.map { "{\"name\": \(jsonString($0["name"]!)), \"unit\": \(jsonString($0["unit"]!))}" }.joined(separator: ",\n") + "\n]\n").utf8) },
               headerOnly: Array("[]\n".utf8),
               malformed: (Array("[\n{\"name\": \"Milk\", \"unit\": \"l\"},\n{\"name\": \"Eggs\", \"unit\": }\n]\n".utf8), 3),
               missingField: (Array("[{\"name\": \"Milk\"}]\n".utf8), .null),
               emptyIsError: true),
        Format(kind: JSONLinesReaderKind(), fileName: "items.jsonl", options: "",
               write: { records in Array(records.map { "{\"name\": \(jsonString($0["name"]!)), \"unit\": \(jsonString($0["unit"]!))}\n" }.joined().utf8) },
               headerOnly: Array("\n".utf8),
               malformed: (Array("{\"name\": \"Milk\", \"unit\": \"l\"}\n{\"name\": \"Eggs\", \"unit\": }\n".utf8), 2),
               missingField: (Array("{\"name\": \"Milk\"}\n".utf8), .null),
               emptyIsError: false),
        Format(kind: PropertyListReaderKind(), fileName: "items.plist", options: "",
               write: { records in
                   let data = try! PropertyListSerialization.data(fromPropertyList: records, format: .xml, options: 0)
                   return Array(data)
               },
               headerOnly: Array(try! PropertyListSerialization.data(fromPropertyList: [[String: String]](), format: .xml, options: 0)),
               malformed: (Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><array><dict><key>name</key><string>Milk</dict></array></plist>".utf8), 0),
               missingField: (Array(try! PropertyListSerialization.data(fromPropertyList: [["name": "Milk"]], format: .xml, options: 0)), .null),
               emptyIsError: true, hasBOMAndBytes: false),
    ]

    // MARK: Running a reader

    struct Outcome {
        var records: [Record] = []
        var rejections: [Rejection] = []
        var texts: [[Value]] { records.map(\.values) }
    }

    func read(_ format: Format, _ bytes: [UInt8]) throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(format.fileName)
        try Data(bytes).write(to: url)
        let yaml = "{ \(format.kind.name): \(format.fileName)\(format.options.isEmpty ? "" : ", " + format.options) }"
        let node = try XCTUnwrap(ConfigNode.parse(yaml: yaml, file: "test.yaml"))
        let options = try Options(node, spec: format.kind.spec, ignoring: [format.kind.name])
        try format.kind.validate(options)
        let reader = try format.kind.makeReader(input: Input(url: url, displayPath: format.fileName), options: options, fields: Self.fields)
        var outcome = Outcome()
        while true {
            do {
                guard let record = try reader.next() else { break }
                outcome.records.append(record)
            } catch let rejection as Rejection {
                outcome.rejections.append(rejection)
            }
        }
        return outcome
    }

    func eachFormat(_ body: (Format) throws -> Void) rethrows {
        for format in Self.formats { try body(format) }
    }

    // MARK: The checks

    func testUnicodeTextRoundTripsUnchanged() throws {
        try eachFormat { format in
            let outcome = try read(format, format.write(Self.unicode))
            XCTAssertEqual(outcome.texts, Self.unicode.map { [.text($0["name"]!), .text($0["unit"]!)] }, format.kind.name)
            XCTAssertEqual(outcome.rejections.count, 0, format.kind.name)
        }
    }

    func testEveryRecordKnowsWhereItCameFrom() throws {
        try eachFormat { format in
            let outcome = try read(format, format.write(Self.unicode))
            for record in outcome.records {
                XCTAssertEqual(record.location.file, format.fileName, format.kind.name)
                XCTAssertTrue(record.location.line != nil || record.location.path != nil, "\(format.kind.name): \(record.location)")
            }
            XCTAssertEqual(Set(outcome.records.map(\.location.description)).count, Self.unicode.count, "\(format.kind.name): locations repeat")
        }
    }

    func testEmptyFile() throws {
        try eachFormat { format in
            if format.emptyIsError {
                XCTAssertThrowsError(try read(format, []), format.kind.name) { error in
                    let error = error as? PipelineError
                    XCTAssertEqual(error?.kind, .invalidInput, format.kind.name)
                    XCTAssertEqual(error?.code, .inputEmpty, format.kind.name)
                    XCTAssertEqual(error?.location?.file, format.fileName, "\(format.kind.name): \(String(describing: error))")
                }
            } else {
                XCTAssertEqual(try read(format, []).records.count, 0, format.kind.name)
            }
        }
    }

    func testHeaderOrRootOnlyIsZeroRecords() throws {
        try eachFormat { format in
            let outcome = try read(format, format.headerOnly)
            XCTAssertEqual(outcome.records.count, 0, format.kind.name)
            XCTAssertEqual(outcome.rejections.count, 0, format.kind.name)
        }
    }

    func testAByteOrderMarkIsSkipped() throws {
        try eachFormat { format in
            guard format.hasBOMAndBytes else { return }
            let outcome = try read(format, [0xEF, 0xBB, 0xBF] + format.write(Self.unicode))
            XCTAssertEqual(outcome.texts.first, [.text("Crème fraîche"), .text("pot")], format.kind.name)
            XCTAssertEqual(outcome.records.count, Self.unicode.count, format.kind.name)
        }
    }

    func testInvalidBytesAreAnErrorWithAPosition() throws {
        try eachFormat { format in
            var bytes = format.write([["name": "Milk", "unit": "l"], ["name": "EggsX", "unit": "pcs"]])
            guard let x = bytes.firstIndex(of: UInt8(ascii: "X")) else { return XCTFail(format.kind.name) }
            bytes[x] = 0xFF
            XCTAssertThrowsError(try read(format, bytes), format.kind.name) { error in
                let error = error as? PipelineError
                XCTAssertEqual(error?.kind, .invalidInput, "\(format.kind.name): \(String(describing: error))")
                if format.hasBOMAndBytes {
                    XCTAssertNotNil(error?.location?.line, "\(format.kind.name): \(String(describing: error))")
                }
            }
        }
    }

    func testAMalformedRecordIsAnErrorAtItsPosition() throws {
        try eachFormat { format in
            XCTAssertThrowsError(try read(format, format.malformed.bytes), format.kind.name) { error in
                let error = error as? PipelineError
                XCTAssertEqual(error?.kind, .invalidInput, "\(format.kind.name): \(String(describing: error))")
                if format.malformed.line > 0 {
                    XCTAssertEqual(error?.location?.line, format.malformed.line, "\(format.kind.name): \(String(describing: error))")
                }
            }
        }
    }

    func testARecordWithAMissingFieldIsEmptyOrRejectedNeverDropped() throws {
        try eachFormat { format in
            let outcome = try read(format, format.missingField.bytes)
            if let unit = format.missingField.unit {
                XCTAssertEqual(outcome.texts, [[.text("Milk"), unit]], format.kind.name)
            } else {
                XCTAssertEqual(outcome.records.count, 0, format.kind.name)
                XCTAssertEqual(outcome.rejections.count, 1, format.kind.name)
                XCTAssertEqual(outcome.rejections.first?.location.line, 2, format.kind.name)
            }
        }
    }
}
