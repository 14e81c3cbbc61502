import Foundation
import Pipeline
import SinksSQLite
import XCTest
import SQLite

/// The grocery data as CSV, XML (the classic default-data shape), JSON and a property list
/// (pipelines/data/make-formats.py writes the last three from the CSV): each pipeline must build
/// a store with the same content. Only the store UUID, derived from the inputs, may differ.
final class GroceryFormatsTests: XCTestCase {
    /// Every row of every table of a Core Data store but Z_METADATA's UUID, in a fixed order.
    static func content(of store: SQLiteStore) throws -> [[Value]] {
        var rows: [[Value]] = []
        let tables = try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        for case .text(let table) in tables.map({ $0[0] }) {
            let columns = table == "Z_METADATA" ? "Z_VERSION, Z_PLIST" : "*"
            rows += try store.rows("SELECT '\(table)', \(columns) FROM \(table) ORDER BY 2")
        }
        return rows
    }

    func testEveryFormatGivesTheSameStore() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let csvStore = try ws.store("build/Grocery.sqlite")
        let expected = try Self.content(of: csvStore)
        XCTAssertEqual(expected.filter { $0[0] == .text("ZITEM") }.count, 414)
        let csvUUID = try csvStore.scalar("SELECT Z_UUID FROM Z_METADATA")

        for format in ["xml", "json", "plist", "xlsx"] {
            let result = try ws.run("run", "-q", "pipelines/grocery-\(format).yaml")
            XCTAssertEqual(result.status, 0, "\(format): \(result.stderr)")
            let store = try ws.store("build/Grocery-\(format).sqlite")
            let actual = try Self.content(of: store)
            XCTAssertEqual(actual.count, expected.count, format)
            for (a, e) in zip(actual, expected) where a != e {
                XCTFail("\(format): \(a) != \(e)")
                break
            }
            XCTAssertNotEqual(try store.scalar("SELECT Z_UUID FROM Z_METADATA"), csvUUID, "\(format): the UUID comes from the inputs")
        }
    }
}
