import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
import Testing
@testable import CoreDataFormat
import PropertyLists
@testable import StoreTools
import SQLite

@Suite("StoreInspection: layouts, metadata and the model check")
struct StoreInspectionTests {
    /// The case's store as Core Data wrote it: its schema, Z_PRIMARYKEY rows and a Z_METADATA row
    /// with its hashes in a plist Foundation wrote. No entity rows.
    static func coreDataStore(_ c: CoreDataCase, at url: URL, hashes: [String: String]? = nil) throws {
        let plist = try RawSQLite.corePlist(hashes: hashes ?? c.hashes, frameworkVersion: 641)
        var statements = ["PRAGMA auto_vacuum = 2"] + c.schema.split(separator: "\n").map(String.init)
        if !c.modelCache { statements.append("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)") }
        for (number, name, parent) in c.entities {
            statements.append("INSERT INTO Z_PRIMARYKEY VALUES (\(number), '\(name)', \(parent), 0)")
        }
        statements.append("INSERT INTO Z_METADATA VALUES (1, 'F0E1D2C3-B4A5-4697-8877-665544332211', \(RawSQLite.blob(plist)))")
        try RawSQLite.run(statements, at: url)
    }

    static func model(_ c: CoreDataCase) throws -> StoreModel {
        if let xml = c.modelXML {
            return try CoreDataModelReader.parse(Data(xml.utf8), file: "\(c.name).xcdatamodel/contents")
        }
        return try #require(c.model)
    }

    @Test("every Core Data case: detected, decoded, and matching its own model", arguments: CoreDataCases.all.map(\.name))
    func coreDataCases(_ name: String) throws {
        let c = try #require(CoreDataCases.all.first { $0.name == name })
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("\(name).sqlite")
            try Self.coreDataStore(c, at: url)
            let inspection = try StoreInspection(at: url)
            #expect(inspection.layout == .coreData)
            #expect(inspection.settings == .init(pageSize: 4096, journalMode: "delete", autoVacuum: 2, encoding: "UTF-8"))
            #expect(inspection.entities.map { $0.number } == c.entities.map { Int64($0.0) })
            #expect(inspection.entities.map(\.name) == c.entities.map(\.1))
            #expect(inspection.entities.allSatisfy { $0.rows == 0 && $0.table != nil })
            #expect(inspection.versionHashes?.mapValues { $0.base64EncodedString() } == c.hashes)

            let comparison = StoreModelComparison(store: inspection, model: try Self.model(c))
            #expect(comparison.matches)
            #expect(comparison.hashes.count == c.hashes.count)
        }
    }

    @Test("Core Data metadata keeps each plist type")
    func plistTypes() throws {
        let c = CoreDataCases.surfJournal
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            try Self.coreDataStore(c, at: url)
            let inspection = try StoreInspection(at: url)
            guard case .coreData(let version, let uuid, let plist?) = inspection.metadata else {
                Issue.record("no plist: \(inspection.metadata)")
                return
            }
            #expect(version == 1)
            #expect(uuid == "F0E1D2C3-B4A5-4697-8877-665544332211")
            #expect(plist["NSStoreType"] == .string("SQLite"))
            #expect(plist["NSStoreModelVersionHashesVersion"] == .integer(3))
            #expect(plist["NSPersistenceFrameworkVersion"] == .integer(641))
            #expect(plist["NSStoreModelVersionIdentifiers"] == .array([.string("")]))
            #expect(plist["_NSAutoVacuumLevel"] == .string("2"))
        }
    }

    @Test("property lists decode to the types they hold, from Foundation's writer and ours")
    func decoding() throws {
        let object: BinaryPropertyList.Object = .dictionary([
            "DefaultDataImported": .bool(true), "off": .bool(false), "one": .integer(1), "zero": .integer(0),
            "big": .integer(-9_000_000_000), "real": .real(2), "half": .real(0.5), "when": .date(797_637_600),
            "bytes": .data([0, 1, 255]), "text": .string("洗手间"), "list": .array([.integer(1), .string("a")]),
            "nested": .dictionary(["x": .bool(false)]),
        ])
        #expect(try BinaryPropertyList.decode(BinaryPropertyList.encode(object)) == object)

        let foundation = try PropertyListSerialization.data(fromPropertyList: [
            "flag": true, "one": 1, "real": 2.0, "when": Date(timeIntervalSinceReferenceDate: 5), "bytes": Data([7]),
        ] as [String: Any], format: .binary, options: 0)
        #expect(try BinaryPropertyList.decode(foundation) == .dictionary([
            "flag": .bool(true), "one": .integer(1), "real": .real(2), "when": .date(5), "bytes": .data([7]),
        ]))
        #expect(throws: (any Error).self) { try BinaryPropertyList.decode(Data("not a plist \u{1}".utf8)) }
    }

    @Test("pipectl's plain layout: tables with counts and pipectl_metadata")
    func plain() throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: url, metadata: [("DefaultDataImported", .bool(true)), ("source", .text("grocery.csv"))],
                           [Grocery.item("Eggs", unit: "pcs", home: "Fridge", line: 2), Grocery.item("Milk", unit: "l", line: 3)])
            let inspection = try StoreInspection(at: url)
            #expect(inspection.layout == .plain)
            #expect(inspection.entities.map { "\($0.name) \($0.rows ?? -1)" }
                        == ["Item 2", "LocationAtHome 1", "LocationAtShop 0", "Unit 2"])
            #expect(inspection.metadata == .plain([.init(key: "DefaultDataImported", value: .integer(1)),
                                                   .init(key: "source", value: .text("grocery.csv"))]))
            #expect(inspection.versionHashes == nil)
        }
    }

    @Test("any other SQLite database: its tables, no metadata")
    func unknown() throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("other.db")
            try RawSQLite.run(["CREATE TABLE \"order\" (id INTEGER PRIMARY KEY)", "INSERT INTO \"order\" VALUES (1), (2)",
                               "CREATE TABLE Z_METADATA (x)"], at: url)
            let inspection = try StoreInspection(at: url)
            #expect(inspection.layout == .unknown)
            #expect(inspection.layout.displayName == "sqlite (not written by pipectl)")
            #expect(inspection.entities.map { "\($0.name) \($0.rows ?? -1)" } == ["Z_METADATA 0", "order 2"])
            #expect(inspection.metadata == .none)
        }
    }

    @Test("a model that changed: the entity that differs, and entities on one side only")
    func mismatch() throws {
        let c = CoreDataCases.groceryDude
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            try Self.coreDataStore(c, at: url)
            let inspection = try StoreInspection(at: url)
            // quantity becomes a Double; Unit goes; Photo arrives (and takes Z_ENT 5 from Unit).
            let xml = try #require(c.modelXML)
                .replacingOccurrences(of: #"name="quantity" optional="YES" attributeType="Float""#,
                                      with: #"name="quantity" optional="YES" attributeType="Double""#)
                .replacingOccurrences(of: #"<entity name="Unit">"#, with: #"<entity name="Photo">"#)
                .replacingOccurrences(of: #"destinationEntity="Unit""#, with: #"destinationEntity="Photo""#)
            let model = try CoreDataModelReader.parse(Data(xml.utf8), file: "changed.xcdatamodel/contents")
            let comparison = StoreModelComparison(store: inspection, model: model)
            #expect(!comparison.matches)
            #expect(comparison.hashes.map { "\($0.name): \($0.status.rawValue)" } == [
                "Item: differs", "Location: match", "LocationAtHome: match", "LocationAtShop: match",
                "Photo: missing in store", "Unit: missing in model",
            ])
            #expect(comparison.primaryKeys.map { "\($0.name): \($0.status.rawValue)" } == [
                "Item: match", "Location: match", "LocationAtHome: match", "LocationAtShop: match",
                "Photo: missing in store", "Unit: missing in model",
            ])
            let item = try #require(comparison.hashes.first)
            #expect(item.store?.base64EncodedString() == c.hashes["Item"])
            #expect(item.model != nil && item.model != item.store)
        }
    }

    @Test("Z_PRIMARYKEY numbered unlike the model")
    func renumbered() throws {
        let c = CoreDataCases.groceryDude
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            try Self.coreDataStore(c, at: url)
            try RawSQLite.run(["UPDATE Z_PRIMARYKEY SET Z_SUPER = 0 WHERE Z_NAME = 'LocationAtShop'"], at: url)
            let comparison = StoreModelComparison(store: try StoreInspection(at: url), model: try Self.model(c))
            #expect(comparison.hashesMatch)
            #expect(!comparison.primaryKeysMatch)
            let differing = comparison.primaryKeys.filter { $0.status != .match }
            #expect(differing.map { "\($0.name) \($0.status.rawValue) \($0.storeNumber ?? 0)/\($0.modelNumber ?? 0) "
                                        + "\($0.storeParent ?? "-")/\($0.modelParent ?? "-")" }
                        == ["LocationAtShop differs 4/4 -/Location"])
        }
    }

    @Test("row counts: by Z_ENT in a shared table, sub-entities apart from their root")
    func rowCounts() throws {
        let c = CoreDataCases.groceryDude
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            try Self.coreDataStore(c, at: url)
            try RawSQLite.run(["INSERT INTO ZLOCATION (Z_PK, Z_ENT, Z_OPT) VALUES (1, 3, 1), (2, 4, 1), (3, 4, 1)",
                               "INSERT INTO ZUNIT (Z_PK, Z_ENT, Z_OPT) VALUES (1, 5, 1)"], at: url)
            let inspection = try StoreInspection(at: url)
            #expect(inspection.entities.map { "\($0.name) \($0.table ?? "-") \($0.rows ?? -1)" } == [
                "Item ZITEM 0", "Location ZLOCATION 0", "LocationAtHome ZLOCATION 1", "LocationAtShop ZLOCATION 2", "Unit ZUNIT 1",
            ])
        }
    }

    @Test("a WAL store is read as it is, and its folder is left as it was")
    func wal() throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            try Self.coreDataStore(CoreDataCases.surfJournal, at: url)
            try RawSQLite.run(["PRAGMA journal_mode = WAL"], at: url)
            let inspection = try StoreInspection(at: url)
            #expect(inspection.settings.journalMode == "wal")
            #expect(inspection.walBytes == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["store.sqlite"])
        }
    }

    @Test("files that are not SQLite databases")
    func notADatabase() throws {
        try withScratchFolder { folder in
            func failure(_ name: String) -> PipelineError? {
                pipelineError { _ = try StoreInspection(at: folder.appendingPathComponent(name), name: name) }
            }
            try Data("name;quantity\n".utf8).write(to: folder.appendingPathComponent("items.csv"))
            try Data().write(to: folder.appendingPathComponent("empty.sqlite"))
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Model.xcdatamodeld"), withIntermediateDirectories: true)
            let csv = failure("items.csv")
            expectError(csv, .inspectNotADatabase, at: "items.csv")
            #expect(csv?.message == #"this file is not a SQLite database (it does not begin with "SQLite format 3")"#)
            expectError(failure("empty.sqlite"), .inspectEmptyFile, at: "empty.sqlite")
            expectError(failure("Model.xcdatamodeld"), .inspectIsAFolder, at: "Model.xcdatamodeld")
            expectError(failure("missing.sqlite"), .inspectNotFound, at: "missing.sqlite")
        }
    }
}
