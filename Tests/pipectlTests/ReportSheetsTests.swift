import Foundation
import Pipeline
@testable import ReportsXLSX
import XCTest

/// The workbook writer on its own, with sheets of a few rows: a table longer than a sheet.
final class ReportSheetsTests: XCTestCase {
    func testTablesLongerThanASheetGoOnInTheNextSheet() throws {
        let duplicates = (1...5).map {
            ImportReport.Duplicate(source: "items", entity: "Item", key: "name=n\($0)", first: "a.csv:\($0 + 1):1", again: "a.csv:9:1",
                                   differences: [], updated: false)
        }
        let report = ImportReport(pipelineName: "p", pipelineFile: "p.yaml", storePath: "s.sqlite", storeLayout: "sqlite",
                                  outcome: .succeeded, inputs: [], sources: [], entities: [], issues: [], duplicates: duplicates,
                                  durations: [])
        let items = StoredRows(entity: "Item", columns: [.init(name: "id", type: .integer64), .init(name: "name", type: .string)]) { emit in
            for k in 1...5 { try emit([.integer(Int64(k)), .text("n\(k)")]) }
        }
        var writer = XLSXReportWriter()
        writer.rowsPerSheet = 3  // the header and two rows
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("long-tables-\(UUID().uuidString).xlsx")
        defer { try? FileManager.default.removeItem(at: url) }
        try writer.write(report, storedRows: [items], to: url)

        let workbook = try Workbook(url)
        XCTAssertEqual(try workbook.sheetNames(), ["Summary", "Rejected", "Duplicates", "Duplicates (2)", "Duplicates (3)", "Created by links", "Changes",
                                                   "Item", "Item (2)", "Item (3)"])
        // Every sheet of a table has the header and a filter over its own rows; no row is lost or repeated.
        for (sheet, keys) in [(3, ["n1", "n2"]), (4, ["n3", "n4"]), (5, ["n5"])] {
            let xml = try workbook.sheet(sheet)
            XCTAssertTrue(xml.contains("<t>Again location</t>"), xml)
            XCTAssertTrue(xml.contains("<autoFilter ref=\"A1:I\(keys.count + 1)\"/>"), xml)
            XCTAssertEqual(xml.components(separatedBy: "<t>name=").dropFirst().map { String($0.prefix { $0 != "<" }) }, keys)
        }
        for (sheet, ids) in [(8, [1, 2]), (9, [3, 4]), (10, [5])] {
            let xml = try workbook.sheet(sheet)
            XCTAssertTrue(xml.contains("<t>name</t>") && xml.contains("<autoFilter ref=\"A1:B\(ids.count + 1)\"/>"), xml)
            let cellsOfColumnA = xml.components(separatedBy: "<c r=\"A").dropFirst(2)  // past the header
            XCTAssertEqual(cellsOfColumnA.map { String($0.split(separator: ">")[2].prefix { $0 != "<" }) }, ids.map(String.init))
        }
    }
}
