import Foundation
import XCTest

/// `pipectl diff OLD NEW`: the CI gate between the store that shipped and a regenerated one.
final class DiffTests: XCTestCase {
    /// Two grocery stores of `pipeline`: `build/old.sqlite` from the data as it is, and the
    /// pipeline's own store after Pale ale changed quantity and unit and Nutmeg went.
    private func twoStores(_ pipeline: String, store: String) throws -> Workspace {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", pipeline).status, 0)
        try FileManager.default.copyItem(at: ws.root.appendingPathComponent(store), to: ws.root.appendingPathComponent("build/old.sqlite"))
        var csv = try String(decoding: ws.bytes("pipelines/data/grocery.csv"), as: UTF8.self)
        csv = csv.replacingOccurrences(of: "Pale ale;12;bottle;", with: "Pale ale;13;can;")
            .replacingOccurrences(of: "Nutmeg;200\u{A0};\tg;Spice rack;Aisle 10: Herbs & Spices;03/03/2026\r\n", with: "")
        try ws.write(csv, to: "pipelines/data/grocery.csv")
        XCTAssertEqual(try ws.run("run", "-q", pipeline).status, 0)
        return ws
    }

    func testCoreDataStoresWithTheirPipeline() throws {
        let ws = try twoStores("pipelines/grocery.yaml", store: "build/Grocery.sqlite")
        let result = try ws.run("diff", "build/old.sqlite", "build/Grocery.sqlite", "--pipeline", "pipelines/grocery.yaml")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stdout, """
            Item (by name): 0 added, 1 removed, 1 changed, 412 unchanged
            LocationAtHome (by storedIn): no changes, 18 record(s)
            LocationAtShop (by aisle): no changes, 17 record(s)
            Unit (by name): no changes, 11 record(s)
            - Item name=Nutmeg
            ~ Item name=Pale ale: quantity 12 -> 13, unit bottle -> can

            """)

        let same = try ws.run("diff", "build/Grocery.sqlite", "build/Grocery.sqlite", "--pipeline", "pipelines/grocery.yaml")
        XCTAssertEqual(same.status, 0, same.stdout)
        let quiet = try ws.run("diff", "-q", "build/old.sqlite", "build/Grocery.sqlite", "--pipeline", "pipelines/grocery.yaml")
        XCTAssertEqual(quiet.status, 1)
        XCTAssertEqual(quiet.stdout, "")
    }

    func testPlainStoresWithoutAPipeline() throws {
        let ws = try twoStores("pipelines/grocery-sqlite.yaml", store: "build/grocery-sqlite.sqlite")
        let result = try ws.run("diff", "build/old.sqlite", "build/grocery-sqlite.sqlite", "--json")
        XCTAssertEqual(result.status, 1, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let changes = try XCTUnwrap(json["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.map { "\($0["kind"] ?? "") \($0["entity"] ?? "") \($0["key"] ?? "")" },
                       ["removed Item name=Nutmeg", "changed Item name=Pale ale"])
        // The foreign key unit_id compares as the unit's name.
        XCTAssertEqual(changes[1]["fields"] as? [[String: String]], [["name": "quantity", "old": "12", "new": "13"],
                                                                     ["name": "unit", "old": "bottle", "new": "can"]])
    }

    func testAFileThatIsNotAStore() throws {
        let ws = try Workspace()
        let result = try ws.run("diff", "pipelines/grocery.yaml", "pipelines/grocery.yaml")
        XCTAssertEqual(result.status, 66)
        XCTAssertTrue(result.stderr.hasPrefix("pipelines/grocery.yaml: error: diff: "), result.stderr)
        let missing = try ws.run("diff", "build/none.sqlite", "pipelines/grocery.yaml")
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr, "build/none.sqlite: error: diff: no such store\n")
        let folder = try ws.run("diff", "pipelines", "pipelines/grocery.yaml")
        XCTAssertEqual(folder.status, 66)
        XCTAssertEqual(folder.stderr, "pipelines: error: diff: this is a folder, not a store\n")
    }

    /// 1 means "the stores differ" and nothing else: output that cannot be written is an I/O
    /// error, not a crash (it was: FileHandle.write traps on a full disk) nor a 1.
    func testOutputThatCannotBeWrittenIsAnIOError() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let full = FileHandle(forWritingAtPath: "/dev/full")
        try XCTSkipIf(full == nil, "no /dev/full on this system (Linux has one)")
        let result = try Pipectl.run(["diff", "--json", "build/grocery-sqlite.sqlite", "build/grocery-sqlite.sqlite"], in: ws.root, standardOutput: full)
        XCTAssertEqual(result.status, 74, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("error: pipectl: cannot write to standard output: "), result.stderr)
    }
}
