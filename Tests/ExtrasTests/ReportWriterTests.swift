import Foundation
import Diagnostics
import Pipeline
@testable import ReportsXLSX
import XCTest

/// The report writers on their own: JSON shape and determinism, workbook errors, sheet names.
final class ReportWriterTests: XCTestCase {
    private let report = ImportReport(
        pipelineName: "p", pipelineFile: "p.yaml", storePath: "s.sqlite", storeLayout: "sqlite", outcome: .failed("boom"),
        inputs: [.init(source: "items", path: "a.csv", bytes: 3, sha256: "ab")],
        sources: [], entities: [], issues: [.init(kind: .skipped, source: "items", entity: "Unit", location: "a.csv:2:1", reason: "empty key")],
        duplicates: [], durations: [.init(stage: "items", seconds: 0.5)])

    func testJSONWithoutDurationsIsSortedAndRoundTrips() throws {
        let data = try JSONReportWriter(includeDurations: false).data(for: report)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("\"durations\" : [\n\n  ],\n  \"entities\""), text)
        XCTAssertTrue(text.contains(#""outcome" : {"# + "\n" + #"    "message" : "boom","# + "\n" + #"    "status" : "failed""#), text)
        XCTAssertTrue(text.hasSuffix("}\n"))
        var expected = report
        expected.durations = []
        XCTAssertEqual(try JSONDecoder().decode(ImportReport.self, from: data), expected)
    }

    func testJSONWrittenInSlicesIsTheWholeDocument() throws {
        var report = self.report
        report.duplicates = (1...7).map {
            ImportReport.Duplicate(source: "items", entity: "Item", key: "name=n\($0) \"/\\ é", first: "a.csv:\($0 + 1):1", again: "a.csv:9:1",
                                   differences: $0.isMultiple(of: 3) ? [.init(field: "quantity", first: "1", again: "2\n")] : [],
                                   updated: $0 == 6)
        }
        // Every control character, quotes, backslashes, slashes, DEL, line separators and emoji,
        // in each string a duplicate writes itself (not through JSONEncoder).
        let awkward = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }) + "\"\\/\u{7F}\u{2028}\u{2029}é😀 end"
        report.duplicates.append(ImportReport.Duplicate(
            source: awkward, entity: awkward, key: awkward, first: awkward, again: awkward,
            differences: [.init(field: awkward, first: awkward, again: ""), .init(field: "b", first: "", again: awkward)], updated: true))
        // An escape at every place of the eight bytes read together, and none: the runs between.
        for (place, escaped) in zip(0..<40, ["\"", "\\", "\u{1F}", "\t", "\u{0}"].cycled(40)) {
            let text = String(repeating: "a", count: place) + escaped + String(repeating: "é", count: place % 11)
            report.duplicates.append(ImportReport.Duplicate(source: "items", entity: "Item", key: text, first: "a.csv:2:1",
                                                            again: String(repeating: "b", count: place), differences: [], updated: false))
        }
        report.issues += (1...4).map {
            ImportReport.Issue(kind: .rejected, source: "items", stage: "number", location: "a.csv:\($0):2", field: "quantity",
                               rawValue: "x\t\($0)", reason: "not a number")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        for (lists, durations) in [(report, true), (report, false), (self.report, true)] {
            var whole = lists
            if !durations { whole.durations = [] }
            let expected = try encoder.encode(whole) + Data("\n".utf8)
            for sliceSize in [1, 2, 3, 4096] {
                var writer = JSONReportWriter(includeDurations: durations)
                writer.sliceSize = sliceSize
                let data = try writer.data(for: lists)
                XCTAssertEqual(String(decoding: data, as: UTF8.self), String(decoding: expected, as: UTF8.self), "slices of \(sliceSize)")
            }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try JSONReportWriter().write(report, to: url)
        XCTAssertEqual(try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: url)), report)
    }

    func testWorkbookThatCannotBeWrittenSaysWhyAndLeavesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-folder-\(UUID().uuidString)")
        XCTAssertThrowsError(try XLSXReportWriter().write(report, to: folder.appendingPathComponent("r.xlsx"), name: "r.xlsx")) { error in
            XCTAssertEqual((error as? PipelineError)?.code, .reportCannotWrite)
            XCTAssertEqual((error as? PipelineError)?.description,
                           "r.xlsx: error: report: cannot write r.xlsx: no such file or directory")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path))
    }

    func testSheetNamesAreValidAndDistinct() {
        var names = XLSXSheetNames()
        XCTAssertEqual(names.claim("Summary"), "Summary")
        XCTAssertEqual(names.claim("summary"), "summary (2)")
        XCTAssertEqual(names.claim("a/b:c"), "a_b_c")
        XCTAssertEqual(names.claim("'quoted'"), "quoted")
        XCTAssertEqual(names.claim(String(repeating: "x", count: 40)), String(repeating: "x", count: 31))
        XCTAssertEqual(names.claim(String(repeating: "x", count: 35)), String(repeating: "x", count: 27) + " (2)")
    }
}

private extension Array {
    /// The elements over and over, `count` of them.
    func cycled(_ count: Int) -> [Element] { (0..<count).map { self[$0 % self.count] } }
}
