import Foundation
import XCTest

/// Bad input never costs the previous store: each failing run exits non-zero with a located
/// message and leaves the store byte-for-byte as it was.
final class FailureTests: XCTestCase {
    /// Runs grocery once so that a good store is in place, and returns its bytes.
    private func goodStore(in ws: Workspace) throws -> Data {
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        return try ws.bytes("build/grocery-sqlite.sqlite")
    }

    private func assertStoreIntact(_ ws: Workspace, _ before: Data, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try ws.bytes("build/grocery-sqlite.sqlite"), before, "the previous store changed", file: file, line: line)
        let names = try FileManager.default.contentsOfDirectory(atPath: ws.build.path).sorted()
        XCTAssertEqual(names, ["grocery-report.json", "grocery-report.xlsx", "grocery-sqlite.sqlite"], "a temporary file was left behind", file: file, line: line)
    }

    func testUnterminatedQuoteFailsAndKeepsTheStore() throws {
        let ws = try Workspace()
        let before = try goodStore(in: ws)
        let csv = try String(decoding: ws.bytes("pipelines/data/grocery.csv"), as: UTF8.self)
        try ws.write(csv + "\"Oat milk;1;l;Fridge;Aisle 3: Dairy;01/01/2026\r\n", to: "pipelines/data/grocery.csv")

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 66)
        XCTAssertEqual(result.stderr,
                       """
                       pipelines/data/grocery.csv:421:1: error: csv: unterminated quoted field (the quote opened here is never closed)
                       "Oat milk;1;l;Fridge;Aisle 3: Dairy;01/01/2026
                       ^

                       """)
        try assertStoreIntact(ws, before)
    }

    func testUnknownKeyIsLocatedWithASuggestion() throws {
        let ws = try Workspace()
        let before = try goodStore(in: ws)
        let yaml = try String(decoding: ws.bytes("pipelines/grocery-sqlite.yaml"), as: UTF8.self)
        try ws.write(yaml.replacingOccurrences(of: "delimiter: auto", with: "delimter: auto"), to: "pipelines/grocery-sqlite.yaml")

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 65)
        let line = yaml.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains("delimiter: auto") }! + 1
        XCTAssertTrue(result.stderr.hasPrefix("pipelines/grocery-sqlite.yaml:\(line):"), result.stderr)
        XCTAssertTrue(result.stderr.contains("error: pipeline: unknown key 'delimter'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("did you mean 'delimiter'?"), result.stderr)
        try assertStoreIntact(ws, before)
    }

    func testRejectsAreFatalWhenThePipelineSaysSo() throws {
        let ws = try Workspace()
        let before = try goodStore(in: ws)
        let yaml = try String(decoding: ws.bytes("pipelines/grocery-sqlite.yaml"), as: UTF8.self)
        try ws.write(yaml.replacingOccurrences(of: "name: grocery-sqlite\n", with: "name: grocery-sqlite\non_reject: fail\n"),
                     to: "pipelines/grocery-sqlite.yaml")
        let csv = try String(decoding: ws.bytes("pipelines/data/grocery.csv"), as: UTF8.self)
        try ws.write(csv + "Oat milk;lots;l;Fridge;Aisle 3: Dairy;01/01/2026\r\n", to: "pipelines/data/grocery.csv")

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 67, result.stderr)
        XCTAssertTrue(result.stderr.contains("pipelines/data/grocery.csv:421:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("1 record(s) rejected and the pipeline says on_reject: fail"), result.stderr)
        try assertStoreIntact(ws, before)
    }

    func testRejectedRecordsAreReportedAndTheRestLoads() throws {
        let ws = try Workspace()
        let csv = try String(decoding: ws.bytes("pipelines/data/grocery.csv"), as: UTF8.self)
        try ws.write(csv + "Oat cream;lots;l;Fridge;Aisle 3: Dairy;01/01/2026\r\nRye flour;1;kg;Pantry;Aisle 8: Baking;31/02/2026\r\n",
                     to: "pipelines/data/grocery.csv")

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains(
            #"pipelines/data/grocery.csv:421:11: warning: record rejected: number: field 'quantity' "lots": not a number with decimal ',' and grouping '.': unexpected 'l'"#),
            result.stderr)
        XCTAssertTrue(result.stderr.contains(
            #"pipelines/data/grocery.csv:422:39: warning: record rejected: date: field 'added' "31/02/2026": day 31 does not exist in February 2026"#),
            result.stderr)
        XCTAssertTrue(result.stdout.contains("source items       421       460     1179        0        0         2"), result.stdout)
        let store = try ws.store("build/grocery-sqlite.sqlite")
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM Item WHERE name IN ('Oat cream', 'Rye flour')"), .integer(0))
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM Item"), .integer(414))
    }

    func testMissingInputFile() throws {
        let ws = try Workspace()
        let before = try goodStore(in: ws)
        try FileManager.default.removeItem(at: ws.pipelines.appendingPathComponent("data/grocery.csv"))
        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 74, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("pipelines/grocery-sqlite.yaml:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipelines/data/grocery.csv"), result.stderr)
        try assertStoreIntact(ws, before)
    }
}
