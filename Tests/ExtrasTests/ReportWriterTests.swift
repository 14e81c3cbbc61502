import Foundation
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

    func testWorkbookThatCannotBeWrittenSaysWhyAndLeavesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-folder-\(UUID().uuidString)")
        XCTAssertThrowsError(try XLSXReportWriter().write(report, to: folder.appendingPathComponent("r.xlsx"), name: "r.xlsx")) { error in
            XCTAssertEqual((error as? PipelineError)?.description,
                           "r.xlsx: error: report: cannot write the workbook: Error creating output xlsx file. Usually a permissions error.")
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
