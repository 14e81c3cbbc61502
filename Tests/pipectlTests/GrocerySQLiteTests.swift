import Foundation
import Pipeline
import XCTest

/// `pipectl run pipelines/grocery-sqlite.yaml` end to end: the plain layout, on a copy of `pipelines/`.
final class GrocerySQLiteTests: XCTestCase {
    func testGroceryBuildsTheStore() throws {
        let ws = try Workspace()
        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("grocery-sqlite: wrote build/grocery-sqlite.sqlite in "), result.stdout)

        let store = try ws.store("build/grocery-sqlite.sqlite")
        // 419 rows, 5 of them repeat an item name: 414 items (counted with Python's csv module).
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM Item"), .integer(414))
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM Unit"), .integer(11))
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM LocationAtHome"), .integer(18))
        // A duplicate row names "Aisle 99: Nowhere"; it is kept-first, so that aisle is never created.
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM LocationAtShop"), .integer(17))
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM LocationAtShop WHERE aisle LIKE '%Nowhere%'"), .integer(0))
        // 22 items have no unit in the spreadsheet: no link, never an empty Unit.
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM Item WHERE unit_id IS NULL"), .integer(22))
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM Unit WHERE name = '' OR name IS NULL"), .integer(0))

        // Stray tabs, spaces and NBSPs are gone from every stored text.
        for (table, column) in [("Item", "name"), ("Unit", "name"), ("LocationAtHome", "storedIn"), ("LocationAtShop", "aisle")] {
            XCTAssertEqual(
                try store.scalar("SELECT count(*) FROM \(table) WHERE \(column) GLOB '*[\t ]' OR \(column) GLOB '[\t ]*' OR instr(\(column), char(160)) > 0"),
                .integer(0), "\(table).\(column) has untrimmed values")
        }

        // Decimal commas and grouping: "0,5" kg of oranges (the first of two rows), "1.000" g of ice cream.
        XCTAssertEqual(try store.scalar("SELECT quantity FROM Item WHERE name = 'Oranges'"), .double(0.5))
        XCTAssertEqual(try store.rows("""
            SELECT i.quantity, u.name, h.storedIn, s.aisle FROM Item i
            JOIN Unit u ON u.id = i.unit_id JOIN LocationAtHome h ON h.id = i.locationAtHome_id
            JOIN LocationAtShop s ON s.id = i.locationAtShop_id WHERE i.name = 'Ben & Jerry''s "Cookie Dough"'
            """), [[.double(1000), .text("g"), .text("Pantry"), .text("Aisle 12: Snacks")]])

        // Dates are seconds since 2001-01-01 UTC, read in Europe/Berlin (values from Python's calendar.timegm):
        // 12/04/2026 is summer time (UTC+2), 02/03/2026 winter time (UTC+1).
        XCTAssertEqual(try store.scalar("SELECT added FROM Item WHERE name = 'Eggs'"), .double(797_637_600))
        XCTAssertEqual(try store.scalar("SELECT added FROM Item WHERE name = 'Apples'"), .double(794_098_800))

        // Defaults fill what the spreadsheet does not have.
        XCTAssertEqual(try store.rows("SELECT DISTINCT listed, collected FROM Item"), [[.integer(1), .integer(0)]])
        XCTAssertEqual(try store.scalar("SELECT value FROM pipectl_metadata WHERE key = 'DefaultDataImported'"), .integer(1))

        // One file, journal mode DELETE, checked.
        XCTAssertEqual(try store.scalar("PRAGMA journal_mode"), .text("delete"))
        XCTAssertEqual(try store.scalar("PRAGMA integrity_check"), .text("ok"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: ws.build.path).sorted()
        XCTAssertEqual(leftovers, ["grocery-report.json", "grocery-report.xlsx", "grocery-sqlite.sqlite"])
    }

    func testGrocerySummaryAndWarnings() throws {
        let ws = try Workspace()
        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(lines.dropFirst()), [
            "                  read  inserted  present  updated  skipped  rejected",
            "source items       419       460     1179        0        0         0",
            "  Unit                        11      381        0        0",
            "  LocationAtHome              18      396        0        0",
            "  LocationAtShop              17      397        0        0",
            "  Item                       414        5        0        0",
            // The grocery list loads items only: its units and locations are what the items name.
            "created by links only (no source loads them; listed in the report): Unit 11, LocationAtHome 18, LocationAtShop 17",
            // 22 items without a unit: their link is left empty.
            "links: Item.unit 392, Item.locationAtHome 414, Item.locationAtShop 414",
            // The Numbers export as `auto` read it: its byte order mark said UTF-8, its lines said ';'.
            "read pipelines/data/grocery.csv as encoding utf-8, byte order mark yes, delimiter ';' (detected), line ends CRLF",
        ])
        // Three of the five repeated names carry other values; the first row wins and both are named.
        XCTAssertTrue(result.stderr.contains(
            "pipelines/data/grocery.csv:132:1: warning: Item name=Oranges was already loaded from pipelines/data/grocery.csv:42:1 with other values (quantity \"0.5\" -> \"3\"); kept the first"),
            result.stderr)
        XCTAssertTrue(result.stderr.contains("pipelines/data/grocery.csv:202:1: warning: Item name=Toilet roll"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipelines/data/grocery.csv:272:1: warning: Item name=Milk chocolate"), result.stderr)
        XCTAssertFalse(result.stderr.contains("name=Eggs"), "identical repeats are not conflicts")
        // Items without a unit are normal: an empty unit cell is no link, not a skip, and no warning.
        XCTAssertFalse(result.stderr.contains("Unit skipped"), result.stderr)
    }

    func testManyConflictingDuplicatesAreSummed() throws {
        let ws = try Workspace()
        // Fourteen names seen twice with another quantity, one seen twice the same.
        var csv = "name,quantity\n" + (1...15).map { "Item \($0),1\n" }.joined()
        csv += (1...14).map { "Item \($0),2\n" }.joined() + "Item 15,1\n"
        try ws.write(csv, to: "pipelines/data/repeats.csv")
        try ws.write("""
            version: 1
            name: repeats
            store: { path: ../build/repeats.sqlite, layout: sqlite }
            entities:
              Item: { unique: name, attributes: { name: string, quantity: double } }
            sources:
              - name: items
                read: { csv: data/repeats.csv }
                transform: [{ number: { fields: [quantity] } }]
                load: { Item: { name: name, quantity: quantity } }
            """, to: "pipelines/repeats.yaml")
        let result = try ws.run("run", "pipelines/repeats.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("was already loaded") }
        XCTAssertEqual(warnings.count, 10, result.stderr)
        XCTAssertTrue(warnings[0].hasPrefix("pipelines/data/repeats.csv:17:1: warning: Item name=Item 1 was already loaded"), result.stderr)
        XCTAssertTrue(result.stderr.contains("\n... and 4 more conflicting duplicates\n"), result.stderr)
    }

    func testTwoRunsGiveByteIdenticalStores() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let first = try ws.bytes("build/grocery-sqlite.sqlite")
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        XCTAssertEqual(try ws.bytes("build/grocery-sqlite.sqlite"), first)
    }

    func testDryRunWritesNothing() throws {
        let ws = try Workspace()
        let result = try ws.run("run", "--dry-run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("grocery-sqlite: dry run, the store was not written (it would be build/grocery-sqlite.sqlite)"), result.stdout)
        XCTAssertFalse(ws.exists("build/grocery-sqlite.sqlite"))
        // Nothing at all: not the store's folder, not the reports the pipeline names.
        XCTAssertFalse(ws.exists("build"))
    }

    func testValidate() throws {
        let ws = try Workspace()
        let result = try ws.run("validate", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "pipelines/grocery-sqlite.yaml: ok: pipeline 'grocery-sqlite', 4 entities, 1 source\n")
    }
}
