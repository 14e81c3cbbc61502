import Foundation
import Pipeline
import SinksSQLite
import XCTest
import SQLite

/// The grocery export as Excel and Numbers write it in other encodings, delimiters and line
/// endings (re-encoded by Python's codecs, see Fixtures/encodings/make.py): with `encoding: auto`
/// and `delimiter: auto` every variant must give exactly the store the original gives.
final class EncodingTests: XCTestCase {
    static let fixtures = Pipectl.repository.appendingPathComponent("Tests/pipectlTests/Fixtures/encodings")

    func testEveryExportVariantGivesTheSameStore() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let expected = try SQLiteStoreContent(try ws.store("build/grocery-sqlite.sqlite")).all()
        XCTAssertEqual(expected.count, 414 + 11 + 18 + 17 + 1)

        let yaml = try String(decoding: ws.bytes("pipelines/grocery-sqlite.yaml"), as: UTF8.self)
        let variants = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasSuffix(".csv") }.sorted()
        XCTAssertEqual(variants.count, 5)
        for variant in variants {
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(variant),
                                             to: ws.pipelines.appendingPathComponent("data/\(variant)"))
            let pipeline = yaml.replacingOccurrences(of: "data/grocery.csv", with: "data/\(variant)")
                .replacingOccurrences(of: "../build/grocery-sqlite.sqlite", with: "../build/\(variant).sqlite")
            try ws.write(pipeline, to: "pipelines/\(variant).yaml")

            let result = try ws.run("run", "-q", "pipelines/\(variant).yaml")
            XCTAssertEqual(result.status, 0, "\(variant): \(result.stderr)")
            let actual = try SQLiteStoreContent(try ws.store("build/\(variant).sqlite")).all()
            XCTAssertEqual(actual.count, expected.count, variant)
            for (a, e) in zip(actual, expected) where a != e {
                XCTFail("\(variant): \(a) != \(e)")
                break
            }
        }
    }
}

/// All rows of a grocery store, tables in a fixed order, for comparing two stores.
struct SQLiteStoreContent {
    let store: SQLiteStore
    init(_ store: SQLiteStore) { self.store = store }

    func all() throws -> [[Value]] {
        var rows: [[Value]] = []
        for table in ["Unit", "LocationAtHome", "LocationAtShop", "Item", "pipectl_metadata"] {
            rows += try store.rows("SELECT '\(table)', * FROM \(table) ORDER BY 2")
        }
        return rows
    }
}
