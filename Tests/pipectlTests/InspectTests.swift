import Foundation
import Diagnostics
import XCTest

/// `pipectl inspect` end to end: pipectl's own store, and Core Data stores recreated from the facts
/// of stores Core Data itself wrote (`Fixtures/inspect/*/store.sql` plus the Z_METADATA row below).
final class InspectTests: XCTestCase {
    /// Z_METADATA of the original stores: UUID, framework version and entity hashes.
    struct CoreDataMetadata {
        var uuid: String
        var frameworkVersion: Int
        var hashes: [String: String]
    }

    static let groceryDude = CoreDataMetadata(
        uuid: "5547A3DF-B087-4BA7-9E18-B493B396A93D", frameworkVersion: 641,
        hashes: [
            "Item": "bczLnOwKIlsDQoLjvUK8d9yPHarLcOibbGlpzTDv5NE=",
            "Location": "Rhu2tmuMRhF0ap48gHDCjcTo8WLik0BXSlz4HDb84PU=",
            "LocationAtHome": "QfIRgJCUWGITojKHMmyahTLDKnTc6xvNfKVDrnV34HQ=",
            "LocationAtShop": "tlQzimQ6Cl2AlH+hjl98asc+qdNzyCLLUQIhgdPMuzA=",
            "Unit": "IiApERpgmALOjTRPB2zCsxyU2ax7PPkpBCJ0A0Cp8O0=",
        ])

    static let surfJournal = CoreDataMetadata(
        uuid: "D246D1F7-4A2D-462D-AE31-1A41C47E7B6C", frameworkVersion: 519,
        hashes: ["JournalEntry": "Tj6pVjI2H01Wp34HCsdGhqINZK/14EnrYaNBIVLu3wc="])

    static let fixtures = Pipectl.repository.appendingPathComponent("Tests/pipectlTests/Fixtures/inspect")

    /// A workspace holding `Fixtures/inspect` as `inspect/`.
    private func workspace() throws -> Workspace {
        let ws = try Workspace()
        try FileManager.default.copyItem(at: Self.fixtures, to: ws.root.appendingPathComponent("inspect"))
        return ws
    }

    /// Builds `inspect/<name>/<store>` with the sqlite3 shell from the case's `store.sql`, plus its
    /// Z_METADATA row: Z_PLIST a binary plist written by Foundation, as Core Data writes it.
    private func coreDataStore(_ name: String, _ metadata: CoreDataMetadata, store: String, in ws: Workspace) throws {
        let plist: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSStoreModelVersionHashes": metadata.hashes.mapValues { Data(base64Encoded: $0) ?? Data() },
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionIdentifiers": [""],
            "NSPersistenceFrameworkVersion": metadata.frameworkVersion,
            "_NSAutoVacuumLevel": "2",
        ]
        let bytes = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let script = try String(decoding: ws.bytes("inspect/\(name)/store.sql"), as: UTF8.self)
            + "INSERT INTO Z_METADATA VALUES (1, '\(metadata.uuid)', X'\(hex)');\n"

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "inspect/\(name)/\(store)"]
        process.currentDirectoryURL = ws.root
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "sqlite3 failed on inspect/\(name)/store.sql")
    }

    private func groceryDude(in ws: Workspace) throws {
        try coreDataStore("grocerydude", Self.groceryDude, store: "DefaultData.sqlite", in: ws)
    }

    static let groceryDudeText = """
        store:   inspect/grocerydude/DefaultData.sqlite
        layout:  coredata
        sqlite:  page size 4096, journal mode delete, auto_vacuum incremental, encoding UTF-8

        entities: 5 (Z_PRIMARYKEY)
          Z_ENT  entity          parent    table      rows  Z_MAX
              1  Item                      ZITEM        55     55
              2  Location                  ZLOCATION     0     24
              3  LocationAtHome  Location  ZLOCATION    10      0
              4  LocationAtShop  Location  ZLOCATION    14      0
              5  Unit                      ZUNIT         8      8

        metadata: Z_METADATA
          Z_VERSION: 1
          Z_UUID: 5547A3DF-B087-4BA7-9E18-B493B396A93D
          NSPersistenceFrameworkVersion: 641
          NSStoreModelVersionHashes:
            Item:           bczLnOwKIlsDQoLjvUK8d9yPHarLcOibbGlpzTDv5NE=
            Location:       Rhu2tmuMRhF0ap48gHDCjcTo8WLik0BXSlz4HDb84PU=
            LocationAtHome: QfIRgJCUWGITojKHMmyahTLDKnTc6xvNfKVDrnV34HQ=
            LocationAtShop: tlQzimQ6Cl2AlH+hjl98asc+qdNzyCLLUQIhgdPMuzA=
            Unit:           IiApERpgmALOjTRPB2zCsxyU2ax7PPkpBCJ0A0Cp8O0=
          NSStoreModelVersionHashesVersion: 3
          NSStoreModelVersionIdentifiers: [""]
          NSStoreType: "SQLite"
          _NSAutoVacuumLevel: "2"

        """

    func testPlainGroceryStore() throws {
        let ws = try workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let result = try ws.run("inspect", "build/grocery-sqlite.sqlite")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.stdout, """
            store:   build/grocery-sqlite.sqlite
            layout:  sqlite (pipectl plain layout)
            sqlite:  page size 4096, journal mode delete, auto_vacuum none, encoding UTF-8

            tables: 4
              table           rows
              Item             414
              LocationAtHome    18
              LocationAtShop    17
              Unit              11

            metadata: pipectl_metadata
              DefaultDataImported: 1

            """)
    }

    func testCoreDataStoreWrittenByCoreData() throws {
        let ws = try workspace()
        try groceryDude(in: ws)
        let result = try ws.run("inspect", "inspect/grocerydude/DefaultData.sqlite")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.stdout, Self.groceryDudeText)
    }

    func testModelMatches() throws {
        let ws = try workspace()
        try groceryDude(in: ws)
        let result = try ws.run("inspect", "inspect/grocerydude/DefaultData.sqlite",
                                "--model", "inspect/grocerydude/GroceryDude.xcdatamodeld")
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout, Self.groceryDudeText + """

            model: inspect/grocerydude/GroceryDude.xcdatamodeld
              entity          version hash  Z_PRIMARYKEY
              Item            match         match
              Location        match         match
              LocationAtHome  match         match
              LocationAtShop  match         match
              Unit            match         match
            match: Core Data opens this store with this model without migrating
            rows: every row is as Core Data writes it for this model

            """)
    }

    func testModelWithAnAttributeOfAnotherType() throws {
        let ws = try workspace()
        try groceryDude(in: ws)
        let contents = "inspect/grocerydude/GroceryDude.xcdatamodeld/Model 6.xcdatamodel/contents"
        let xml = try String(decoding: ws.bytes(contents), as: UTF8.self)
        let changed = xml.replacingOccurrences(of: #"name="quantity" attributeType="Float""#, with: #"name="quantity" attributeType="Double""#)
        XCTAssertNotEqual(changed, xml)
        try ws.write(changed, to: contents)

        let result = try ws.run("inspect", "inspect/grocerydude/DefaultData.sqlite",
                                "--model", "inspect/grocerydude/GroceryDude.xcdatamodeld")
        XCTAssertEqual(result.status, 68, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let model = try XCTUnwrap(result.stdout.components(separatedBy: "\n\nmodel: ").last)
        let lines = model.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 10, model)
        XCTAssertEqual(Array(lines.prefix(4)), [
            "inspect/grocerydude/GroceryDude.xcdatamodeld",
            "  entity          version hash  Z_PRIMARYKEY",
            "  Item            differs       match",
            "  Location        match         match",
        ])
        XCTAssertTrue(lines[7].hasPrefix("  Item: version hash bczLnOwKIlsDQoLjvUK8d9yPHarLcOibbGlpzTDv5NE= in the store, "), lines[7])
        XCTAssertTrue(lines[7].hasSuffix(" in the model"), lines[7])
        XCTAssertEqual(lines[8], "mismatch: Core Data will refuse to open this store with this model: 'The model used to open "
                           + "the store is incompatible with the one used to create the store'; regenerate the store or add a migration")
        // Z_ENT and every column are the model's, so the rows are read as its: a Float's REAL is a Double's too.
        XCTAssertEqual(lines[9], "rows: every row is as Core Data writes it for this model")
    }

    func testSurfJournalInWALMode() throws {
        let ws = try workspace()
        try coreDataStore("surfjournal", Self.surfJournal, store: "SurfJournalDatabase.sqlite", in: ws)
        // A second entity in the model: missing in the store and in its Z_PRIMARYKEY.
        let contents = "inspect/surfjournal/SurfJournal.xcdatamodel/contents"
        let xml = try String(decoding: ws.bytes(contents), as: UTF8.self)
        try ws.write(xml.replacingOccurrences(of: "</model>", with: """
                <entity name="Spot"><attribute name="name" attributeType="String" optional="YES"/></entity>
            </model>
            """), to: "inspect/surfjournal/Spots.xcdatamodel/contents")

        let result = try ws.run("inspect", "inspect/surfjournal/SurfJournalDatabase.sqlite",
                                "--model", "inspect/surfjournal/SurfJournal.xcdatamodel")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("""
            sqlite:  page size 4096, journal mode wal, auto_vacuum incremental, encoding UTF-8

            entities: 1 (Z_PRIMARYKEY)
              Z_ENT  entity        parent  table          rows  Z_MAX
                  1  JournalEntry          ZJOURNALENTRY  5000   5000

            metadata: Z_METADATA
              Z_VERSION: 1
              Z_UUID: D246D1F7-4A2D-462D-AE31-1A41C47E7B6C
              NSPersistenceFrameworkVersion: 519
              NSStoreModelVersionHashes:
                JournalEntry: Tj6pVjI2H01Wp34HCsdGhqINZK/14EnrYaNBIVLu3wc=
            """), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("""
              JournalEntry  match         match
            match: Core Data opens this store with this model without migrating
            rows: every row is as Core Data writes it for this model

            """), result.stdout)
        XCTAssertEqual(result.stderr, "inspect/surfjournal/SurfJournalDatabase.sqlite: warning: inspect: journal mode WAL; "
                           + "a store that ships should be one file in journal mode DELETE: a copy without its -wal file "
                           + "loses every transaction not yet checkpointed\n")
        // Reading a WAL store left no -wal or -shm file beside it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: ws.root.appendingPathComponent("inspect/surfjournal").path).sorted(),
                       ["Spots.xcdatamodel", "SurfJournal.xcdatamodel", "SurfJournalDatabase.sqlite", "store.sql"])

        let spots = try ws.run("inspect", "inspect/surfjournal/SurfJournalDatabase.sqlite",
                               "--model", "inspect/surfjournal/Spots.xcdatamodel")
        XCTAssertEqual(spots.status, 68)
        XCTAssertTrue(spots.stdout.hasSuffix("""
            model: inspect/surfjournal/Spots.xcdatamodel
              entity        version hash      Z_PRIMARYKEY
              JournalEntry  match             match
              Spot          missing in store  missing in store
            mismatch: \(Self.hashMismatch)
            mismatch: Core Data numbers entities (Z_ENT) from the model, so this store's rows would be read as the wrong entities; regenerate the store
            rows: not checked: the store's tables and entity numbers are not the model's

            """), spots.stdout)
    }

    /// What `inspect --model` exists for: a store whose schema fits the model and whose rows do not.
    func testRowsThatBreakTheModel() throws {
        let ws = try workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery.yaml").status, 0)
        let sqlite = try Pipectl.runTool("sqlite3", ["build/Grocery.sqlite",
            "UPDATE ZITEM SET ZLISTED = 'false' WHERE Z_PK IN (2, 3); UPDATE ZITEM SET ZUNIT = 4242 WHERE Z_PK = 7; "
                + "UPDATE ZLOCATION SET Z_ENT = 2 WHERE Z_PK = 1"], in: ws.root)
        XCTAssertEqual(sqlite.status, 0, sqlite.stderr)

        let result = try ws.run("inspect", "build/Grocery.sqlite", "--model", "pipelines/model/Grocery.xcdatamodeld")
        XCTAssertEqual(result.status, 68, result.stderr)
        for line in [
            "match: Core Data opens this store with this model without migrating",
            "rows: 4 rules broken; the app would read these rows wrong or not at all:",
            "  Item.listed: 2 rows not stored as INTEGER, as a Boolean is (Z_PK 2: TEXT 'false', Z_PK 3: TEXT 'false')",
            "  Item.unit: 1 row pointing at no Unit row (Z_PK 7: Z_PK 4242)",
            "  Location.Z_ENT: 1 row of an entity that is not Location or one of its concrete sub-entities (Z_PK 1: 2)",
        ] {
            XCTAssertTrue(result.stdout.contains("\n" + line + "\n"), line + "\n" + result.stdout)
        }
        // Location 1 is no LocationAtHome any more (Z_ENT 2 is the abstract Location), so the items stored there point at none.
        XCTAssertTrue(result.stdout.contains("\n  Item.locationAtHome: 17 rows pointing at no LocationAtHome row (Z_PK "), result.stdout)
        let json = try ws.run("inspect", "build/Grocery.sqlite", "--model", "pipelines/model/Grocery.xcdatamodeld", "--json")
        XCTAssertEqual(json.status, 68)
        let model = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["model"] as? [String: Any])
        XCTAssertEqual(model["match"] as? Bool, false)
        let rows = try XCTUnwrap(model["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.map { "\($0["entity"] ?? "").\($0["property"] ?? "") \($0["count"] ?? "")" }, ["Item.listed 2", "Item.locationAtHome 17", "Item.unit 1", "Location.Z_ENT 1"])
        XCTAssertEqual(rows.first?["rows"] as? [String], ["Z_PK 2: TEXT 'false'", "Z_PK 3: TEXT 'false'"])
    }

    static let hashMismatch = "Core Data will refuse to open this store with this model: 'The model used to open the store "
        + "is incompatible with the one used to create the store'; regenerate the store or add a migration"

    func testJSON() throws {
        let ws = try workspace()
        try groceryDude(in: ws)
        let result = try ws.run("inspect", "--json", "inspect/grocerydude/DefaultData.sqlite",
                                "--model", "inspect/grocerydude/GroceryDude.xcdatamodeld")
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json.keys.sorted(), ["entities", "joinTables", "layout", "metadata", "model", "path", "sqlite"])
        XCTAssertEqual(json["layout"] as? String, "coredata")
        XCTAssertEqual(json["path"] as? String, "inspect/grocerydude/DefaultData.sqlite")
        let sqlite = try XCTUnwrap(json["sqlite"] as? [String: Any])
        XCTAssertEqual(sqlite["journalMode"] as? String, "delete")
        XCTAssertEqual(sqlite["autoVacuum"] as? Int, 2)
        let entities = try XCTUnwrap(json["entities"] as? [[String: Any]])
        XCTAssertEqual(entities.map { $0["name"] as? String }, ["Item", "Location", "LocationAtHome", "LocationAtShop", "Unit"])
        XCTAssertEqual(entities.map { $0["rows"] as? Int }, [55, 0, 10, 14, 8])
        XCTAssertEqual(entities[0].keys.sorted(), ["coreDataHistory", "maxPrimaryKey", "name", "number", "parent", "rows", "table"])
        XCTAssertEqual(entities.map { $0["coreDataHistory"] as? Bool }, [false, false, false, false, false])
        let metadata = try XCTUnwrap(json["metadata"] as? [String: Any])
        XCTAssertEqual(metadata["Z_UUID"] as? String, "5547A3DF-B087-4BA7-9E18-B493B396A93D")
        let plist = try XCTUnwrap(metadata["Z_PLIST"] as? [String: Any])
        XCTAssertEqual(plist["NSStoreModelVersionHashes"] as? [String: String], Self.groceryDude.hashes)
        XCTAssertEqual(plist["_NSAutoVacuumLevel"] as? String, "2")
        XCTAssertEqual(plist["NSPersistenceFrameworkVersion"] as? Int, 641)
        let model = try XCTUnwrap(json["model"] as? [String: Any])
        XCTAssertEqual(model["match"] as? Bool, true)
        let first = try XCTUnwrap((model["entities"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["name"] as? String, "Item")
        XCTAssertEqual(first["hash"] as? String, "match")
        XCTAssertEqual(first["primaryKey"] as? String, "match")
        // Sorted keys: the text itself is stable, so CI can diff it.
        XCTAssertTrue(result.stdout.hasPrefix("{\n  \"entities\" : [\n    {\n      \"coreDataHistory\" : false,\n      \"maxPrimaryKey\" : 55,\n"), result.stdout)
    }

    func testJSONOfThePlainStore() throws {
        let ws = try workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let result = try ws.run("inspect", "build/grocery-sqlite.sqlite", "--json")
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json.keys.sorted(), ["entities", "joinTables", "layout", "metadata", "path", "sqlite"])
        XCTAssertEqual(json["layout"] as? String, "sqlite")
        XCTAssertEqual((json["metadata"] as? [String: Any])?["DefaultDataImported"] as? Int, 1)
    }

    func testNotASQLiteDatabase() throws {
        let ws = try workspace()
        let result = try ws.run("inspect", "pipelines/data/grocery.csv")
        XCTAssertEqual(result.status, 66)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr,
                       "pipelines/data/grocery.csv: error: inspect: this file is not a SQLite database (it does not begin with \"SQLite format 3\")\n")
    }

    func testMissingStore() throws {
        let ws = try workspace()
        let result = try ws.run("inspect", "build/missing.sqlite")
        XCTAssertEqual(result.status, 66)
        XCTAssertEqual(result.stderr, "build/missing.sqlite: error: inspect: no such file\n")
        XCTAssertFalse(ws.exists("build/missing.sqlite"), "inspect created the file it was asked to read")
    }

    func testModelOnAPlainStore() throws {
        let ws = try workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let result = try ws.run("inspect", "build/grocery-sqlite.sqlite", "--model", "inspect/grocerydude/GroceryDude.xcdatamodeld")
        XCTAssertEqual(result.status, 66)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr, "build/grocery-sqlite.sqlite: error: inspect: --model checks Core Data version hashes, and this "
                           + "store has layout 'sqlite (pipectl plain layout)', which keeps none\n")
    }

    func testMissingModel() throws {
        let ws = try workspace()
        try groceryDude(in: ws)
        let result = try ws.run("inspect", "inspect/grocerydude/DefaultData.sqlite", "--model", "Model.xcdatamodeld")
        XCTAssertEqual(result.status, 74)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.hasSuffix("Model.xcdatamodeld: error: model: no model at this path\n"), result.stderr)
    }
}
