import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
import CoreDataFormat
import XCTest

/// `pipectl run pipelines/grocery.yaml`, the README's main job: a Core Data store from the app's
/// own model (pipelines/model/Grocery.xcdatamodeld), checked with SQL on a copy of `pipelines/`.
final class GroceryCoreDataTests: XCTestCase {
    func testGroceryWritesACoreDataStore() throws {
        let ws = try Workspace()
        let result = try ws.run("run", "pipelines/grocery.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("grocery: wrote build/Grocery.sqlite in "), result.stdout)
        let store = try ws.store("build/Grocery.sqlite")

        // Entity numbers: roots by name, each followed by its sub-entities (STORE-FORMAT.md).
        XCTAssertEqual(try store.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"), [
            [.integer(1), .text("Item"), .integer(0), .integer(414)],
            [.integer(2), .text("Location"), .integer(0), .integer(35)],
            [.integer(3), .text("LocationAtHome"), .integer(2), .integer(0)],
            [.integer(4), .text("LocationAtShop"), .integer(2), .integer(0)],
            [.integer(5), .text("Unit"), .integer(0), .integer(11)],
        ])
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM ZITEM"), .integer(414))
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM ZUNIT"), .integer(11))
        // Both kinds of location share the root's table, told apart by Z_ENT.
        XCTAssertEqual(try store.rows("SELECT Z_ENT, count(*) FROM ZLOCATION GROUP BY Z_ENT ORDER BY Z_ENT"),
                       [[.integer(3), .integer(18)], [.integer(4), .integer(17)]])
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM ZLOCATION WHERE Z_ENT = 3 AND (ZSTOREDIN IS NULL OR ZAISLE IS NOT NULL)"), .integer(0))
        XCTAssertEqual(try store.scalar("SELECT max(Z_PK) FROM ZLOCATION"), .integer(35))
        XCTAssertEqual(try store.rows("SELECT DISTINCT Z_OPT FROM ZITEM"), [[.integer(1)]])

        // One item, its defaults and its links through Z_PKs (dates: seconds since 2001 in Berlin time;
        // a whole number of seconds is stored as an integer by the TIMESTAMP column's affinity).
        XCTAssertEqual(try store.rows("""
            SELECT i.ZQUANTITY, i.ZLISTED, i.ZCOLLECTED, i.ZADDED, u.ZNAME, h.Z_ENT, h.ZSTOREDIN, s.Z_ENT, s.ZAISLE
            FROM ZITEM i JOIN ZUNIT u ON u.Z_PK = i.ZUNIT
            JOIN ZLOCATION h ON h.Z_PK = i.ZLOCATIONATHOME JOIN ZLOCATION s ON s.Z_PK = i.ZLOCATIONATSHOP
            WHERE i.ZNAME = 'Eggs'
            """), [[.double(1), .integer(1), .integer(0), .integer(797_637_600), .text("dozen"),
                    .integer(3), .text("Fridge"), .integer(4), .text("Aisle 3: Dairy")]])
        XCTAssertEqual(try store.scalar("SELECT count(*) FROM ZITEM WHERE ZUNIT IS NULL"), .integer(22))

        XCTAssertEqual(try store.scalar("PRAGMA auto_vacuum"), .integer(2))
        XCTAssertEqual(try store.scalar("PRAGMA page_size"), .integer(4096))
        XCTAssertEqual(try store.scalar("PRAGMA journal_mode"), .text("delete"))
        XCTAssertEqual(try store.scalar("PRAGMA integrity_check"), .text("ok"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: ws.build.path).sorted(),
                       ["Grocery.sqlite", "grocery-report.json", "grocery-report.xlsx"])
    }

    /// The store's UUID is derived from the inputs, the model's files among them: a model folder
    /// reached through a symbolic link (a model shared between an app and its pipelines) gave
    /// none, so the UUID changed and a later change of the model would have kept it.
    func testAModelFolderReachedThroughALinkGivesTheSameStore() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let plain = try ws.bytes("build/Grocery.sqlite")

        let manager = FileManager.default
        let model = ws.pipelines.appendingPathComponent("model/Grocery.xcdatamodeld")
        let shared = ws.root.appendingPathComponent("Grocery.xcdatamodeld")
        try manager.moveItem(at: model, to: shared)
        try manager.createSymbolicLink(atPath: model.path, withDestinationPath: shared.path)
        let linked = try ws.run("run", "-q", "pipelines/grocery.yaml")
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertEqual(try ws.bytes("build/Grocery.sqlite"), plain)
    }

    func testInspectSaysCoreDataOpensItWithTheModel() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let result = try ws.run("inspect", "build/Grocery.sqlite", "--model", "pipelines/model/Grocery.xcdatamodeld")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("layout:  coredata\n"), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("match: Core Data opens this store with this model without migrating\n"
                                                  + "rows: every row is as Core Data writes it for this model\n"), result.stdout)

        // The same store against a model whose Item changed: refused, with the entity named.
        let contents = ws.pipelines.appendingPathComponent("model/Grocery.xcdatamodeld/Grocery.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8)
        try xml.replacingOccurrences(of: #"name="quantity" optional="YES" attributeType="Float""#,
                                     with: #"name="quantity" optional="YES" attributeType="Double""#)
            .write(to: contents, atomically: true, encoding: .utf8)
        let mismatch = try ws.run("inspect", "build/Grocery.sqlite", "--model", "pipelines/model/Grocery.xcdatamodeld")
        XCTAssertEqual(mismatch.status, 68, mismatch.stderr)
        XCTAssertTrue(mismatch.stdout.contains("Item            differs"), mismatch.stdout)
    }

    /// A to-one the model requires, left empty by the data (22 items have no unit): Core Data would
    /// refuse to save them, so the store is not written, and the error says it is the data's doing.
    func testARequiredToOneTheDataLeavesEmptyFailsTheRun() throws {
        let ws = try Workspace()
        let contents = ws.pipelines.appendingPathComponent("model/Grocery.xcdatamodeld/Grocery.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8)
        let required = xml.replacingOccurrences(of: #"<relationship name="unit" optional="YES""#, with: #"<relationship name="unit""#)
        XCTAssertNotEqual(required, xml)
        try required.write(to: contents, atomically: true, encoding: .utf8)
        let run = try ws.run("run", "-q", "pipelines/grocery.yaml")
        XCTAssertEqual(run.status, 67, run.stderr)
        XCTAssertTrue(run.stderr.contains("error: row checks: the new store would leave values the model requires empty, which Core Data "
                                              + "refuses to save, so it was not put in place and the store was left as it was: "
                                              + "Item.unit: 22 rows without a Unit, which the model requires"), run.stderr)
        XCTAssertFalse(ws.exists("build/Grocery.sqlite"))
    }

    /// Xcode writes a transient attribute of type Undefined with no attributeType at all; real
    /// models have them. Transient attributes have no column and no hash (the coredataplus case).
    func testTransientAttributesOfAnyTypeRunAndInspectAsAMatch() throws {
        let plain = try Workspace()
        XCTAssertEqual(try plain.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let ws = try Workspace()
        let contents = ws.pipelines.appendingPathComponent("model/Grocery.xcdatamodeld/Grocery.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8)
        try xml.replacingOccurrences(of: #"<attribute name="added""#, with: #"""
            <attribute name="display" optional="YES" transient="YES"/>
                    <attribute name="expiry" optional="YES" transient="YES" attributeType="Undefined"/>
                    <attribute name="total" optional="YES" transient="YES" attributeType="Double" usesScalarValueType="YES"/>
                    <attribute name="added"
            """#).write(to: contents, atomically: true, encoding: .utf8)
        let run = try ws.run("run", "-q", "pipelines/grocery.yaml")
        XCTAssertEqual(run.status, 0, run.stderr)
        let result = try ws.run("inspect", "build/Grocery.sqlite", "--model", "pipelines/model/Grocery.xcdatamodeld")
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.hasSuffix("match: Core Data opens this store with this model without migrating\n"
                                                  + "rows: every row is as Core Data writes it for this model\n"), result.stdout)
        // Nothing of them in the store: the same tables and the same entity hashes as without them.
        let schema = "SELECT sql FROM sqlite_master ORDER BY name"
        XCTAssertEqual(try ws.store("build/Grocery.sqlite").rows(schema), try plain.store("build/Grocery.sqlite").rows(schema))
        let plist = "SELECT Z_PLIST FROM Z_METADATA"
        XCTAssertEqual(try ws.store("build/Grocery.sqlite").rows(plist).count, 1)
        func hashes(_ workspace: Workspace) throws -> [String] {
            let lines = try workspace.run("inspect", "--json", "build/Grocery.sqlite").stdout.components(separatedBy: "\n")
            guard let start = lines.firstIndex(where: { $0.contains("\"NSStoreModelVersionHashes\" : {") }) else { return [] }
            return Array(lines[(start + 1)...].prefix { !$0.contains("}") })
        }
        XCTAssertEqual(try hashes(ws).count, 5)
        XCTAssertEqual(try hashes(ws), try hashes(plain))
    }

    func testMetadataHoldsEveryKeyCoreDataReads() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let store = try ws.store("build/Grocery.sqlite")
        let rows = try store.rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0][0], .integer(1))
        guard case .text(let uuid) = rows[0][1], case .binary(let plistBytes) = rows[0][2] else {
            return XCTFail("Z_METADATA row has the wrong types: \(rows[0])")
        }
        XCTAssertNotNil(UUID(uuidString: uuid))
        XCTAssertEqual(uuid, uuid.uppercased())
        XCTAssertEqual(Array(plistBytes.prefix(8)), Array("bplist00".utf8))

        let plist = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(plistBytes), format: nil) as? [String: Any])
        XCTAssertEqual(Set(plist.keys), [
            "NSStoreType", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion", "NSStoreModelVersionIdentifiers",
            "NSPersistenceFrameworkVersion", "_NSAutoVacuumLevel", "DefaultDataImported",
            // Written by framework 1044, which pipectl's stores say wrote them (coredataplus-samplemodel).
            "NSStoreModelVersionHashesDigest",
        ])
        XCTAssertEqual(plist["NSStoreType"] as? String, "SQLite")
        XCTAssertEqual(plist["NSStoreModelVersionHashesVersion"] as? Int, 3)
        XCTAssertEqual(plist["NSStoreModelVersionIdentifiers"] as? [String], [""])
        XCTAssertNotNil(plist["NSPersistenceFrameworkVersion"] as? Int)
        XCTAssertEqual(plist["_NSAutoVacuumLevel"] as? String, "2")
        XCTAssertEqual(plist["DefaultDataImported"] as? Bool, true)
        // The hashes are the model's own, computed from the model file the app ships.
        let model = try CoreDataModelReader.read(ws.pipelines.appendingPathComponent("model/Grocery.xcdatamodeld"))
        let hashes = try XCTUnwrap(plist["NSStoreModelVersionHashes"] as? [String: Data])
        XCTAssertEqual(hashes, CoreDataVersionHashes.hashes(for: model))
        XCTAssertEqual(hashes.keys.sorted(), ["Item", "Location", "LocationAtHome", "LocationAtShop", "Unit"])
        XCTAssertTrue(hashes.values.allSatisfy { $0.count == 32 })
    }

    func testTheSameInputsGiveTheSameBytesAndOtherInputsAnotherUUID() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let first = try ws.bytes("build/Grocery.sqlite")
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        XCTAssertEqual(try ws.bytes("build/Grocery.sqlite"), first)
        let uuid = try ws.store("build/Grocery.sqlite").scalar("SELECT Z_UUID FROM Z_METADATA")

        let csv = try ws.bytes("pipelines/data/grocery.csv")
        try (csv + Data("Rye flour;1;kg;Pantry;Aisle 8: Baking;01/02/2026\r\n".utf8)).write(to: ws.pipelines.appendingPathComponent("data/grocery.csv"))
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        XCTAssertNotEqual(try ws.store("build/Grocery.sqlite").scalar("SELECT Z_UUID FROM Z_METADATA"), uuid)
    }

    func testAPipelineUUIDWins() throws {
        let ws = try Workspace()
        let yaml = try String(decoding: ws.bytes("pipelines/grocery.yaml"), as: UTF8.self)
        try ws.write(yaml.replacingOccurrences(of: "  layout: coredata\n", with: "  layout: coredata\n  uuid: 0a1b2c3d-4e5f-4061-8273-8495a6b7c8d9\n"),
                     to: "pipelines/grocery.yaml")
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        XCTAssertEqual(try ws.store("build/Grocery.sqlite").scalar("SELECT Z_UUID FROM Z_METADATA"),
                       .text("0A1B2C3D-4E5F-4061-8273-8495A6B7C8D9"))
    }

    func testABrokenModelFileIsLocatedAndKeepsTheStore() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let before = try ws.bytes("build/Grocery.sqlite")
        let contents = ws.pipelines.appendingPathComponent("model/Grocery.xcdatamodeld/Grocery.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8)
        try xml.replacingOccurrences(of: #"attributeType="Float""#, with: #"attributeType="Floot""#)
            .write(to: contents, atomically: true, encoding: .utf8)
        let result = try ws.run("run", "pipelines/grocery.yaml")
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("pipelines/model/Grocery.xcdatamodeld/Grocery.xcdatamodel/contents:8:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Floot"), result.stderr)
        XCTAssertEqual(try ws.bytes("build/Grocery.sqlite"), before)
    }

    func testAModelMismatchIsLocated() throws {
        let ws = try Workspace()
        let yaml = try String(decoding: ws.bytes("pipelines/grocery.yaml"), as: UTF8.self)
        try ws.write(yaml.replacingOccurrences(of: "  Item: { unique: name }", with: "  Item: { unique: name, attributes: { quantity: double } }"),
                     to: "pipelines/grocery.yaml")
        let result = try ws.run("run", "pipelines/grocery.yaml")
        XCTAssertEqual(result.status, 65)
        XCTAssertEqual(result.stderr, """
            pipelines/grocery.yaml:13:49: error: pipeline: Item.quantity is float in the model, not double
              Item: { unique: name, attributes: { quantity: double } }
                                                            ^

            """)
    }
}
