import Foundation
import XCTest

/// The import report end to end: `pipectl run` writes the workbook and its JSON twin on every run
/// (failed ones too), and identical runs give identical bytes.
final class ReportTests: XCTestCase {
    /// grocery.csv plus a row whose quantity is not a number: rejected at line 421, column 10.
    private func workspaceWithABadRow() throws -> Workspace {
        let ws = try Workspace()
        let csv = try String(decoding: ws.bytes("pipelines/data/grocery.csv"), as: UTF8.self)
        try ws.write(csv + "Oat milk;abc;l;Fridge;Aisle 3: Dairy;01/01/2026\r\n", to: "pipelines/data/grocery.csv")
        return ws
    }

    func testWorkbookHasCountsRejectsDuplicatesAndStoredRows() throws {
        let ws = try workspaceWithABadRow()
        let result = try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        let workbook = try Workbook(ws.root.appendingPathComponent("build/grocery-report.xlsx"))

        XCTAssertEqual(try workbook.sheetNames(),
                       ["Summary", "Rejected", "Duplicates", "Created by links", "Changes", "Unit", "LocationAtHome", "LocationAtShop", "Item"])
        let summary = try workbook.sheet(1)
        XCTAssertTrue(summary.contains(#"<t>Outcome</t></is></c><c r="B5" t="inlineStr"><is><t>succeeded</t>"#), summary)
        // source items: read 420, inserted 460, already present 1179, updated 0, skipped 0, rejected 1.
        XCTAssertTrue(summary.contains(#"<t>source items</t></is></c><c r="B11"><v>420</v></c><c r="C11"><v>460</v></c>"#
                                           + #"<c r="D11"><v>1179</v></c><c r="E11"><v>0</v></c><c r="F11"><v>0</v></c>"#
                                           + #"<c r="G11"><v>1</v></c>"#), summary)
        XCTAssertTrue(summary.contains(#"<t>Item</t></is></c><c r="C15"><v>414</v></c><c r="D15"><v>5</v></c>"#), summary)

        let rejected = try workbook.sheet(2)
        XCTAssertTrue(rejected.contains(row(2, ["rejected", "items", "pipelines/data/grocery.csv:421:10", "number", nil, "quantity", "abc",
                                                "not a number with decimal ',' and grouping '.': unexpected 'a'"])),
                      rejected)
        // Items without a unit are no skips: an empty cell for an optional to-one is no link.
        XCTAssertFalse(rejected.contains("skipped"), rejected)

        let duplicates = try workbook.sheet(3)
        XCTAssertTrue(duplicates.contains(row(3, ["items", "Item", "name=Oranges", "pipelines/data/grocery.csv:42:1", "pipelines/data/grocery.csv:132:1",
                                                  "quantity", "0.5", "3", "kept the first"])), duplicates)

        // Item: a header and 414 rows, frozen, filtered, dates as dates, booleans as booleans.
        let items = try workbook.sheet(9)
        XCTAssertTrue(items.contains(#"<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>"#), items)
        XCTAssertTrue(items.contains(#"<autoFilter ref="A1:I415"/>"#), items)
        XCTAssertTrue(items.contains(#"<row r="415">"#) && !items.contains(#"<row r="416">"#))
        XCTAssertTrue(items.contains(#"<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="inlineStr"><is><t>Fresh parsley</t></is></c><c r="C2"><v>2</v></c>"#
                                         + #"<c r="D2" t="b"><v>1</v></c><c r="E2" t="b"><v>0</v></c><c r="F2" s="2"><v>46353.95833333334</v></c>"#),
                      items)
    }

    func testJSONReportHasTheCounts() throws {
        let ws = try workspaceWithABadRow()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: ws.bytes("build/grocery-report.json")) as? [String: Any])
        XCTAssertEqual(json["pipelineName"] as? String, "grocery")
        XCTAssertEqual(json["storePath"] as? String, "build/Grocery.sqlite")
        XCTAssertEqual(json["storeLayout"] as? String, "coredata")
        XCTAssertEqual(json["outcome"] as? [String: String], ["status": "succeeded"])
        let inputs = try XCTUnwrap(json["inputs"] as? [[String: Any]])
        XCTAssertEqual(inputs.count, 1)
        XCTAssertEqual(inputs[0]["path"] as? String, "pipelines/data/grocery.csv")
        XCTAssertEqual((inputs[0]["sha256"] as? String)?.count, 64)
        let sources = try XCTUnwrap(json["sources"] as? [[String: Any]])
        XCTAssertEqual(sources.map { $0["name"] as? String }, ["items"])
        XCTAssertEqual(sources[0]["read"] as? Int, 420)
        XCTAssertEqual(sources[0]["inserted"] as? Int, 460)
        XCTAssertEqual(sources[0]["alreadyPresent"] as? Int, 1179)
        XCTAssertEqual(sources[0]["skipped"] as? Int, 0)
        XCTAssertEqual(sources[0]["rejected"] as? Int, 1)
        let entities = try XCTUnwrap(json["entities"] as? [[String: Any]])
        let inserted = Dictionary(uniqueKeysWithValues: entities.map { ($0["name"] as? String ?? "", $0["inserted"] as? Int ?? -1) })
        XCTAssertEqual(inserted, ["Item": 414, "Unit": 11, "LocationAtHome": 18, "LocationAtShop": 17])
        let issues = try XCTUnwrap(json["issues"] as? [[String: String]])
        XCTAssertEqual(issues.first, ["kind": "rejected", "source": "items", "stage": "number", "location": "pipelines/data/grocery.csv:421:10",
                                      "field": "quantity", "rawValue": "abc",
                                      "reason": "not a number with decimal ',' and grouping '.': unexpected 'a'"])
        XCTAssertEqual(issues.filter { $0["kind"] == "skipped" }.count, 0)
        let duplicates = try XCTUnwrap(json["duplicates"] as? [[String: Any]])
        // Identical repeats are listed too, without differences.
        XCTAssertEqual(duplicates.map { $0["key"] as? String },
                       ["name=Eggs", "name=Oranges", "name=Toilet roll", "name=Milk chocolate", "name=Toothbrushes"])
        XCTAssertEqual(duplicates.map { ($0["differences"] as? [Any])?.count }, [0, 1, 1, 1, 0])
        XCTAssertEqual(Set(duplicates.map { $0["source"] as? String }), ["items"])
        XCTAssertEqual((json["durations"] as? [[String: Any]])?.map { $0["stage"] as? String }, ["items", "finish"])
    }

    /// A workbook's rejected record is located at its cell in both reports, as in the message.
    func testWorkbookCellsInBothReports() throws {
        let ws = try Workspace()
        try FileManager.default.copyItem(at: Pipectl.repository.appendingPathComponent("Tests/ExtrasTests/Fixtures/libreoffice/cell-kinds.xlsx"),
                                         to: ws.root.appendingPathComponent("cell-kinds.xlsx"))
        try ws.write("""
            version: 1
            name: cells
            on_reject: continue
            store: { path: build/cells.sqlite, layout: sqlite }
            report: { xlsx: build/cells.xlsx, json: build/cells.json }
            entities:
              Item: { unique: name, attributes: { name: string, quantity: string } }
            sources:
              - name: items
                read: { xlsx: cell-kinds.xlsx, sheet: Items }
                load: { Item: { name: name, quantity: quantity } }
            """, to: "cells.yaml")
        let result = try ws.run("run", "cells.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains(##"cell-kinds.xlsx: Items!B4: warning: record rejected: xlsx: field 'quantity' "#DIV/0!""##), result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: ws.bytes("build/cells.json")) as? [String: Any])
        let issues = try XCTUnwrap(json["issues"] as? [[String: String]])
        XCTAssertEqual(issues.first?["location"], "cell-kinds.xlsx: Items!B4")
        let rejected = try Workbook(ws.root.appendingPathComponent("build/cells.xlsx")).sheet(2)
        XCTAssertTrue(rejected.contains(row(2, ["rejected", "items", "cell-kinds.xlsx: Items!B4", "xlsx", nil, "quantity", "#DIV/0!",
                                                "the cell holds the error #DIV/0!, not a value"])), rejected)
    }

    func testIdenticalRunsGiveIdenticalReports() throws {
        let ws = try Workspace()
        // Identical runs start from the same state: no store, then the store the run writes (which
        // the report compares the new one with).
        for previousStore in [false, true] {
            if !previousStore { try? FileManager.default.removeItem(at: ws.root.appendingPathComponent("build/Grocery.sqlite")) }
            XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
            let xlsx = try ws.bytes("build/grocery-report.xlsx")
            let json = try ws.bytes("build/grocery-report.json")
            XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
            if !previousStore { try FileManager.default.removeItem(at: ws.root.appendingPathComponent("build/Grocery.sqlite")) }
            XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
            XCTAssertEqual(try ws.bytes("build/grocery-report.xlsx"), xlsx, "the workbook differs between identical runs")
            XCTAssertEqual(try withoutDurations(ws.bytes("build/grocery-report.json")), try withoutDurations(json))
            XCTAssertNotEqual(try withoutDurations(json), json, "the durations were not where CI drops them")
        }
    }

    func testFailedRunReportSaysWhy() throws {
        let ws = try Workspace()
        let csv = try String(decoding: ws.bytes("pipelines/data/grocery.csv"), as: UTF8.self)
        try ws.write(csv + "\"Oat milk;1;l;Fridge;Aisle 3: Dairy;01/01/2026\r\n", to: "pipelines/data/grocery.csv")
        let result = try ws.run("run", "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(result.status, 66)
        XCTAssertFalse(ws.exists("build/grocery-sqlite.sqlite"))

        let why = """
            pipelines/data/grocery.csv:421:1: error: csv: unterminated quoted field (the quote opened here is never closed)
            "Oat milk;1;l;Fridge;Aisle 3: Dairy;01/01/2026
            ^
            """
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: ws.bytes("build/grocery-report.json")) as? [String: Any])
        XCTAssertEqual(json["outcome"] as? [String: String], ["status": "failed", "message": why])
        XCTAssertEqual((json["sources"] as? [[String: Any]])?.first?["read"] as? Int, 419)

        let workbook = try Workbook(ws.root.appendingPathComponent("build/grocery-report.xlsx"))
        // No store, so no entity sheets.
        XCTAssertEqual(try workbook.sheetNames(), ["Summary", "Rejected", "Duplicates", "Created by links", "Changes"])
        let summary = try workbook.sheet(1)
        XCTAssertTrue(summary.contains(#"<c r="B5" t="inlineStr"><is><t>failed</t></is></c>"#), summary)
        XCTAssertTrue(summary.contains("<t>Why</t></is></c><c r=\"B6\" s=\"2\" t=\"inlineStr\"><is><t>"
                                           + why + "</t>"), summary)
    }

    func testChangesSinceThePreviousStore() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: ws.bytes("build/grocery-report.json")) as? [String: Any])
        XCTAssertNil(json["changes"])
        XCTAssertEqual(json["changesUnavailable"] as? String,
                       "there was no store at build/Grocery.sqlite before this run: every record is new")

        // Pale ale changes quantity and unit, Nutmeg goes, Oat drink comes.
        var csv = try String(decoding: ws.bytes("pipelines/data/grocery.csv"), as: UTF8.self)
        csv = csv.replacingOccurrences(of: "Pale ale;12;bottle;", with: "Pale ale;13;can;")
            .replacingOccurrences(of: "Nutmeg;200\u{A0};\tg;Spice rack;Aisle 10: Herbs & Spices;03/03/2026\r\n", with: "")
        try ws.write(csv + "Oat drink (barista);2;l;Fridge;Aisle 3: Dairy;01/01/2026\r\n", to: "pipelines/data/grocery.csv")
        let second = try ws.run("run", "pipelines/grocery.yaml")
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.hasSuffix("changes: 1 record(s) added, 1 removed, 1 changed since the previous store "
                                                  + "(the report's Changes sheet lists them)\n"), second.stdout)

        json = try XCTUnwrap(JSONSerialization.jsonObject(with: ws.bytes("build/grocery-report.json")) as? [String: Any])
        let changes = try XCTUnwrap(json["changes"] as? [String: Any])
        let entities = try XCTUnwrap(changes["entities"] as? [[String: Any]])
        XCTAssertEqual(entities.map { $0["name"] as? String }, ["Item", "LocationAtHome", "LocationAtShop", "Unit"])
        XCTAssertEqual(entities[0]["added"] as? Int, 1)
        XCTAssertEqual(entities[0]["removed"] as? Int, 1)
        XCTAssertEqual(entities[0]["changed"] as? Int, 1)
        XCTAssertEqual(entities[0]["unchanged"] as? Int, 412)
        let listed = try XCTUnwrap(changes["changes"] as? [[String: Any]])
        XCTAssertEqual(listed.map { "\($0["kind"] ?? "") \($0["key"] ?? "")" },
                       ["removed name=Nutmeg", "added name=Oat drink (barista)", "changed name=Pale ale"])
        XCTAssertEqual(listed[2]["fields"] as? [[String: String]], [["name": "quantity", "old": "12", "new": "13"],
                                                                    ["name": "unit", "old": "bottle", "new": "can"]])

        let workbook = try Workbook(ws.root.appendingPathComponent("build/grocery-report.xlsx"))
        let sheet = try workbook.sheet(5)
        XCTAssertTrue(sheet.contains(row(2, ["Item", "name=Nutmeg", "removed", nil, nil, nil])), sheet)
        XCTAssertTrue(sheet.contains(row(4, ["Item", "name=Pale ale", "changed", "quantity", "12", "13"])), sheet)
        XCTAssertTrue(sheet.contains(row(5, ["Item", "name=Pale ale", "changed", "unit", "bottle", "can"])), sheet)

        // A run that changes nothing says so.
        let third = try ws.run("run", "pipelines/grocery.yaml")
        XCTAssertTrue(third.stdout.hasSuffix("changes: none, the previous store held the same records\n"), third.stdout)
    }

    func testDurationsInTheWorkbookWhenThePipelineAsks() throws {
        let ws = try Workspace()
        let yaml = try String(decoding: ws.bytes("pipelines/grocery-sqlite.yaml"), as: UTF8.self)
        try ws.write(yaml.replacingOccurrences(of: "json: ../build/grocery-report.json }", with: "json: ../build/grocery-report.json, durations: true }"),
                     to: "pipelines/grocery-sqlite.yaml")
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let summary = try Workbook(ws.root.appendingPathComponent("build/grocery-report.xlsx")).sheet(1)
        XCTAssertTrue(summary.contains("<t>Stage</t>") && summary.contains("<t>Seconds</t>"), summary)
        XCTAssertNotNil(summary.range(of: #"<t>items</t></is></c><c r="B[0-9]+"><v>[0-9.e-]+</v>"#, options: .regularExpression), summary)
    }

    func testStoredRowsKeepsTheEntitySheetsShort() throws {
        let ws = try Workspace()
        let yaml = try String(decoding: ws.bytes("pipelines/grocery-sqlite.yaml"), as: UTF8.self)
        func run(rows: Int) throws -> (status: Int32, stderr: String) {
            try ws.write(yaml.replacingOccurrences(of: "json: ../build/grocery-report.json }",
                                                   with: "json: ../build/grocery-report.json, stored_rows: \(rows) }"),
                         to: "pipelines/grocery-sqlite.yaml")
            let result = try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml")
            return (result.status, result.stderr)
        }
        for (rows, sheets) in [(2, ["Summary", "Rejected", "Duplicates", "Created by links", "Changes", "Unit", "LocationAtHome", "LocationAtShop", "Item"]),
                               (0, ["Summary", "Rejected", "Duplicates", "Created by links", "Changes"])] {
            XCTAssertEqual(try run(rows: rows).status, 0)
            let workbook = try Workbook(ws.root.appendingPathComponent("build/grocery-report.xlsx"))
            XCTAssertEqual(try workbook.sheetNames(), sheets)
            let summary = try workbook.sheet(1)
            XCTAssertTrue(summary.contains("<t>Entity sheets</t>") && summary.contains("(stored_rows: \(rows)); the store has every row</t>"), summary)
            // The counts are whole (a row lower, under the note), and every duplicate is listed.
            XCTAssertTrue(summary.contains(#"<t>Item</t></is></c><c r="C16"><v>414</v></c>"#), summary)
            XCTAssertTrue(try workbook.sheet(3).contains(#"<autoFilter ref="A1:I6"/>"#))
            guard rows == 2 else { continue }
            // The first two items by row id, under the header.
            let items = try workbook.sheet(9)
            XCTAssertTrue(items.contains(#"<autoFilter ref="A1:I3"/>"#) && items.contains(#"<row r="3"><c r="A3"><v>2</v></c>"#)
                              && !items.contains(#"<row r="4">"#), items)
        }
        let bad = try run(rows: -1)
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertNotNil(bad.stderr.range(of: #"^pipelines/grocery-sqlite\.yaml:[0-9]+:[0-9]+: "#, options: .regularExpression), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("error: pipeline: 'stored_rows' must be 0 or more (the most stored rows the workbook shows per entity), not -1"),
                      bad.stderr)
    }

    func testReportOptionWritesAnExtraReport() throws {
        let ws = try Workspace()
        let result = try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml", "--report", "out/nested/extra.xlsx")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Workbook(ws.root.appendingPathComponent("out/nested/extra.xlsx")).sheetNames().first, "Summary")
        XCTAssertEqual(try ws.bytes("out/nested/extra.xlsx"), try ws.bytes("build/grocery-report.xlsx"))

        let bad = try ws.run("run", "pipelines/grocery-sqlite.yaml", "--report", "report.txt")
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.hasPrefix("Error: --report 'report.txt': the report is written as .xlsx or .json; name the file so\n"), bad.stderr)
    }

    /// What a run killed while it wrote its reports left (its temporary report and the writer's
    /// `.partial`, named for its process id) is removed by the next run writing the same report;
    /// another live run's files are left alone.
    func testStaleTemporaryReportsOfDeadRunsAreRemoved() throws {
        let ws = try Workspace()
        // A process that has ended: its id names no live process now.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let dead = ended.processIdentifier, alive = ProcessInfo.processInfo.processIdentifier
        let stale = ["out/.extra.json.pipectl-report-\(dead)", "out/..extra.json.pipectl-report-\(dead).partial"]
        let kept = ["out/.extra.json.pipectl-report-\(alive)", "out/..extra.json.pipectl-report-\(alive).partial",
                    "out/.other.json.pipectl-report-\(dead)"]
        for name in stale + kept { try ws.write("{", to: name) }
        let result = try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml", "--report", "out/extra.json")
        XCTAssertEqual(result.status, 0, result.stderr)
        let left = try FileManager.default.contentsOfDirectory(atPath: ws.root.appendingPathComponent("out").path).sorted()
        XCTAssertEqual(left, (["extra.json"] + kept.map { String($0.dropFirst(4)) }).sorted())
    }

    /// The path and the reason in words, for both formats: Foundation's own text on Linux was
    /// "NSCocoaErrorDomain error 512", and libxlsxwriter printed "[ERROR]" lines of its own.
    func testReportThatCannotBeCreatedSaysWhereAndWhy() throws {
        #if os(Linux)
        let ws = try Workspace()
        // /proc takes no new files, root's included (the tests may run as root, whom modes do not stop).
        for report in ["/proc/x.json", "/proc/x.xlsx"] {
            let result = try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml", "--report", report)
            XCTAssertEqual(result.status, 74, report)
            XCTAssertEqual(result.stderr, "\(report): error: report: cannot write \(report): no such file or directory\n")
        }
        #endif
    }

    func testReportThatCannotBeWrittenIsAnError() throws {
        let ws = try Workspace()
        try ws.write("not a folder", to: "blocked")
        let result = try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml", "--report", "blocked/report.json")
        XCTAssertEqual(result.status, 74)
        XCTAssertEqual(result.stderr, "blocked/report.json: error: report: cannot create the report's folder blocked: file exists\n")
        // The reports are written before the store is put in place: a run whose report fails
        // leaves the store as it was (here: none).
        XCTAssertFalse(ws.exists("build/grocery-sqlite.sqlite"))
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let before = try ws.bytes("build/grocery-sqlite.sqlite")
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml", "--report", "blocked/report.json").status, 74)
        XCTAssertEqual(try ws.bytes("build/grocery-sqlite.sqlite"), before)
    }

    /// `<row r="n">` with inline-string cells from column A on; nil leaves a cell out.
    private func row(_ number: Int, _ cells: [String?]) -> String {
        var out = "<row r=\"\(number)\">"
        for (column, cell) in cells.enumerated() {
            guard let cell else { continue }
            let letter = String(UnicodeScalar(UInt8(65 + column)))
            out += "<c r=\"\(letter)\(number)\" t=\"inlineStr\"><is><t>\(cell)</t></is></c>"
        }
        return out + "</row>"
    }

    private func withoutDurations(_ data: Data) throws -> Data {
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["durations"] = nil
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
