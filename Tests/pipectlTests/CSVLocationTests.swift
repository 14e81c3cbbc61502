import Foundation
import Pipeline
import XCTest

/// The CSV reader works out a field's line and column only for a record that a message is about,
/// from the record's text: the locations must be those of a scan of every field, byte for byte,
/// for records over several lines and several read chunks (128 KiB) too.
final class CSVLocationTests: XCTestCase {
    private let csv = "pipelines/data/grocery.csv"

    /// The grocery export with `rows` appended (raw bytes: the file may hold invalid UTF-8).
    private func append(_ rows: [UInt8], in ws: Workspace) throws {
        let url = ws.root.appendingPathComponent(csv)
        try (Data(contentsOf: url) + Data(rows)).write(to: url)
    }

    private func goodStore(in ws: Workspace) throws -> Data {
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        return try ws.bytes("build/grocery-sqlite.sqlite")
    }

    private func itemCount(_ ws: Workspace, _ filter: String) throws -> Value? {
        try ws.store("build/grocery-sqlite.sqlite").scalar("SELECT count(*) FROM Item WHERE \(filter)")
    }

    func testLateFieldAfterAQuotedFieldOverThreeLines() throws {
        let ws = try Workspace()
        try append(Array(("\"Oat \"\"barista\"\" milk;\r\nwith é and 🍓\r\nthird line é🍓\";1;l;Fridge;Aisle 3: Dairy;31/02/2026\r\n"
            + "Rye flour;2;kg;Pantry;Aisle 8: Baking;01/03/2026\r\n").utf8), in: ws)

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        // Line 423 counts the CRLFs inside the quotes; column 42 counts é and 🍓 as one each.
        XCTAssertTrue(result.stderr.hasPrefix(#"""
            pipelines/data/grocery.csv:423:42: warning: record rejected: date: field 'added' "31/02/2026": day 31 does not exist in February 2026

            """#), result.stderr)
        XCTAssertTrue(result.stdout.contains("source items       421       461     1182        0        0         1"), result.stdout)
        XCTAssertEqual(try itemCount(ws, "name LIKE 'Oat \"barista\"%'"), .integer(0))
        XCTAssertEqual(try itemCount(ws, "name = 'Rye flour'"), .integer(1))
    }

    func testLateFieldOfARecordLongerThanAReadChunk() throws {
        let ws = try Workspace()
        try append(Array(("\"Long " + String(repeating: "x", count: 300_000) + "\r\nend é\";lots;l;Fridge;Aisle 3: Dairy;01/01/2026\r\n"
            + "Rye flour;2;kg;Pantry;Aisle 8: Baking;01/03/2026\r\n").utf8), in: ws)

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix(#"""
            pipelines/data/grocery.csv:422:8: warning: record rejected: number: field 'quantity' "lots": not a number with decimal ',' and grouping '.': unexpected 'l'

            """#), result.stderr)
        XCTAssertEqual(try itemCount(ws, "name LIKE 'Long x%'"), .integer(0))
        XCTAssertEqual(try itemCount(ws, "name = 'Rye flour'"), .integer(1))
    }

    func testRowOfTheWrongWidthOverTwoLines() throws {
        let ws = try Workspace()
        try append(Array("\"Oatly\r\nbarista\";1;l;Fridge;Aisle 3: Dairy\r\nRye flour;2;kg;Pantry;Aisle 8: Baking;01/03/2026\r\n".utf8), in: ws)

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("pipelines/data/grocery.csv:421:1: warning: record rejected: csv: row has 5 fields, the header has 6\n"),
                      result.stderr)
        XCTAssertEqual(try itemCount(ws, "name LIKE 'Oatly%'"), .integer(0))
        XCTAssertEqual(try itemCount(ws, "name = 'Rye flour'"), .integer(1))
    }

    func testInvalidUTF8LateInAMultiLineRecordFailsAndKeepsTheStore() throws {
        let ws = try Workspace()
        let before = try goodStore(in: ws)
        try append(Array("\"Oat\r\nmilk é\";1;l;Fridge;Aisle ".utf8) + [0xC3, 0x28] + Array(" 3;01/01/2026\r\n".utf8), in: ws)

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertEqual(result.stderr, """
            pipelines/data/grocery.csv:422:26: error: csv: invalid UTF-8 bytes 0xC3 0x28 (the file is not UTF-8; set encoding: \
            windows-1252 or macroman if it came from older Excel)

            """)
        XCTAssertEqual(try ws.bytes("build/grocery-sqlite.sqlite"), before)
    }

    func testQuoteInAnUnquotedFieldOfARecordAcrossChunks() throws {
        let ws = try Workspace()
        let before = try goodStore(in: ws)
        try append(Array(("\"Long " + String(repeating: "y", count: 140_000) + "\r\nend é\";1;l;Fri\"dge;Aisle 3: Dairy;01/01/2026\r\n").utf8), in: ws)

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertEqual(result.stderr, """
            pipelines/data/grocery.csv:422:15: error: csv: a quote inside an unquoted field (a field with quotes in it must be \
            quoted as a whole, with each quote inside doubled); the record starts on line 421
            end é";1;l;Fri"dge;Aisle 3: Dairy;01/01/2026
                          ^

            """)
        XCTAssertEqual(try ws.bytes("build/grocery-sqlite.sqlite"), before)
    }

    func testUnterminatedQuoteOpenedChunksBeforeTheEnd() throws {
        let ws = try Workspace()
        let before = try goodStore(in: ws)
        try append(Array(("\"Long " + String(repeating: "z", count: 140_000) + "\r\nend é\";1;l;Fridge;\"Aisle 3: Dairy;01/01/2026\r\n"
            + String(repeating: "w", count: 140_000) + "\r\n").utf8), in: ws)

        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertEqual(result.stderr, """
            pipelines/data/grocery.csv:422:19: error: csv: unterminated quoted field (the quote opened here is never closed; \
            the record starts on line 421)

            """)
        XCTAssertEqual(try ws.bytes("build/grocery-sqlite.sqlite"), before)
    }
}
