import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SinksSQLite
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

/// `layout: coredata`: the sink writes the store Core Data itself would, checked with SQL.
@Suite("SQLite sink: Core Data layout")
struct CoreDataSinkTests {
    static let uuid = "6FA1D3C2-0B5E-4C1A-9D3E-2F4B5A6C7D8E"

    @Test("the schema is exactly Core Data's, on a single-file store with Core Data's settings")
    func schemaAndSettings() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            try CoreDataGrocery.build(at: target, CoreDataGrocery.records)
            let store = try SQLiteStore(readingAt: target)
            let schema = try CoreDataSchema(CoreDataGrocery.model)
            #expect(try store.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").map { $0[0].displayText }
                == schema.statements())
            #expect(schema.statements().first ==
                "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOLLECTED INTEGER, ZLISTED INTEGER, "
                + "ZLOCATIONATHOME INTEGER, ZLOCATIONATSHOP INTEGER, ZUNIT INTEGER, ZUSUALPLACE INTEGER, Z2_USUALPLACE INTEGER, "
                + "ZADDED TIMESTAMP, ZQUANTITY FLOAT, ZNAME VARCHAR )")
            #expect(try store.scalar("PRAGMA page_size") == .integer(4096))
            #expect(try store.scalar("PRAGMA auto_vacuum") == .integer(2))
            #expect(try store.scalar("PRAGMA encoding") == .text("UTF-8"))
            #expect(try store.scalar("PRAGMA journal_mode") == .text("delete"))
            #expect(try store.scalar("PRAGMA integrity_check") == .text("ok"))
            #expect(try store.rows("PRAGMA foreign_key_check").isEmpty)
            // No Z_MODELCACHE: optional, and CoreDataSchema leaves it out by default.
            #expect(try store.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'") == .integer(0))
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(files == ["Grocery.sqlite"])
        }
    }

    @Test("rows: one table per hierarchy, Z_ENT per entity, one key space, defaults, links and their entities")
    func rows() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            let log = try CoreDataGrocery.build(at: target, CoreDataGrocery.records)
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT * FROM ZITEM ORDER BY Z_PK") == [
                // Z_PK, Z_ENT, Z_OPT, ZCOLLECTED, ZLISTED, ZLOCATIONATHOME, ZLOCATIONATSHOP, ZUNIT, ZUSUALPLACE,
                // Z2_USUALPLACE, ZADDED, ZQUANTITY, ZNAME
                [.integer(1), .integer(1), .integer(1), .integer(0), .integer(1), .integer(1), .integer(2), .integer(1),
                 .integer(1), .integer(3), .double(700_000_000.5), .double(2), .text("Milk")],
                [.integer(2), .integer(1), .integer(1), .integer(1), .integer(1), .integer(3), .null, .integer(2),
                 .integer(4), .integer(4), .null, .double(1), .text("Flour")],
                [.integer(3), .integer(1), .integer(1), .integer(0), .integer(1), .null, .null, .null,
                 .null, .null, .null, .double(1), .text("Bread")],
            ])
            // LocationAtHome (3) and LocationAtShop (4) share ZLOCATION and its Z_PK sequence; the
            // other sub-entity's column stays NULL.
            #expect(try store.rows("SELECT * FROM ZLOCATION ORDER BY Z_PK") == [
                [.integer(1), .integer(3), .integer(1), .null, .text("Fridge"), .null],
                [.integer(2), .integer(4), .integer(1), .null, .null, .text("3")],
                [.integer(3), .integer(3), .integer(1), .null, .text("Pantry"), .null],
                [.integer(4), .integer(4), .integer(1), .null, .null, .text("7")],
            ])
            #expect(try store.rows("SELECT * FROM ZUNIT ORDER BY Z_PK") == [
                [.integer(1), .integer(5), .integer(1), .text("l")],
                [.integer(2), .integer(5), .integer(1), .text("kg")],
            ])
            // Storage classes as Core Data's own stores have them (Grocery Dude: ZQUANTITY real).
            #expect(try store.rows("SELECT typeof(ZQUANTITY), typeof(ZADDED), typeof(ZLISTED) FROM ZITEM WHERE Z_PK = 1")
                == [[.text("real"), .text("real"), .text("integer")]])
            #expect(log.entities[CoreDataGrocery.home] == counts(inserted: 2, alreadyPresent: 1))
            #expect(log.entities[CoreDataGrocery.shop] == counts(inserted: 2))
            #expect(log.entities[CoreDataGrocery.item] == counts(inserted: 3))
        }
    }

    @Test("Z_PRIMARYKEY: every entity, Z_MAX the highest Z_PK of each root")
    func primaryKeys() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            try CoreDataGrocery.build(at: target, CoreDataGrocery.records)
            let store = try SQLiteStore(readingAt: target)
            #expect(try texts(store.rows("SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT")) == [
                ["1", "Item", "0", "3"],
                ["2", "Location", "0", "4"],
                ["3", "LocationAtHome", "2", "0"],
                ["4", "LocationAtShop", "2", "0"],
                ["5", "Unit", "0", "2"],
            ])
        }
    }

    @Test("an empty store still has its bookkeeping rows")
    func emptyStore() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            try CoreDataGrocery.build(at: target, [])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == Array(repeating: [.integer(0)], count: 5))
            #expect(try store.scalar("SELECT count(*) FROM Z_METADATA") == .integer(1))
        }
    }

    /// The error of a link check that finds one item linking to a missing row.
    /// A failed link check, which names the link and the first row that breaks it.
    private static func expectMissingLink(_ error: PipelineError?, _ relationship: String, first row: Int,
                                          sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == .storeCheckFailed, sourceLocation: sourceLocation)
        #expect(error?.message == "the new store fails its link check: 1 row(s) of 'ZITEM' link through '\(relationship)' "
                    + "to missing rows, first Z_PK \(row)", sourceLocation: sourceLocation)
    }

    /// The grocery model's Core Data tables, empty, for SQL to fill and `complete` to check.
    private func withEmptyStore(_ body: (CoreDataTableLayout, SQLiteConnection) throws -> Void) throws {
        try withScratchFolder { folder in
            let path = folder.appendingPathComponent("links.sqlite")
            let layout = try CoreDataTableLayout(model: CoreDataGrocery.model, settings: CoreDataGrocery.settings(path))
            let connection = try SQLiteConnection(path: path.path, readOnly: false)
            try layout.configure(connection)
            try layout.createSchema(in: connection)
            try body(layout, connection)
        }
    }

    @Test("the finish checks every link, as SQLite's foreign key check does for the plain layout")
    func linkCheck() throws {
        try withEmptyStore { layout, connection in
            try connection.execute("INSERT INTO ZLOCATION (Z_PK, Z_ENT, Z_OPT, ZSTOREDIN) VALUES (1, 3, 1, 'Fridge')")
            // A shop link to a row that is a LocationAtHome.
            try connection.execute("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZLOCATIONATSHOP) VALUES (7, 1, 1, 'Tea', 1)")
            Self.expectMissingLink(pipelineError { try layout.complete(in: connection) }, "Item.locationAtShop", first: 7)
            // A link into the hierarchy whose entity column names another entity than the row's.
            try connection.execute("UPDATE ZITEM SET ZLOCATIONATSHOP = NULL, ZUSUALPLACE = 1, Z2_USUALPLACE = 4")
            Self.expectMissingLink(pipelineError { try layout.complete(in: connection) }, "Item.usualPlace", first: 7)
            try connection.execute("UPDATE ZITEM SET Z2_USUALPLACE = 3")
            try layout.complete(in: connection)
        }
    }

    @Test("the link check finds a missing row among many links, past the ones it checks one by one")
    func linkCheckManyLinks() throws {
        try withEmptyStore { layout, connection in
            let unit = 5  // Core Data numbers entities by name: see CoreDataGrocery
            // 2,000 units and an item for each, then one more item whose unit is missing: more
            // distinct links than the check seeks one by one, so the scan has to find it.
            try connection.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO ZUNIT (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT i, \(unit), 1, 'unit ' || i FROM n
                """)
            try connection.execute("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZUNIT) SELECT Z_PK, 1, 1, ZNAME, Z_PK FROM ZUNIT")
            try layout.complete(in: connection)
            try connection.execute("DELETE FROM Z_PRIMARYKEY; DELETE FROM Z_METADATA")
            try connection.execute("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZUNIT) VALUES (2001, 1, 1, 'Tea', 2500)")
            Self.expectMissingLink(pipelineError { try layout.complete(in: connection) }, "Item.unit", first: 2001)
            // A few links, one of them missing: the seeks find it.
            try connection.execute("DELETE FROM ZITEM WHERE Z_PK > 3 AND Z_PK < 2001")
            Self.expectMissingLink(pipelineError { try layout.complete(in: connection) }, "Item.unit", first: 2001)
            try connection.execute("UPDATE ZITEM SET ZUNIT = 3 WHERE Z_PK = 2001")
            try layout.complete(in: connection)
        }
    }

    @Test("Z_METADATA: version 1, the given UUID, the plist with every key Core Data writes and the app's own")
    func metadata() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            let settings = CoreDataGrocery.settings(target, uuid: Self.uuid.lowercased(), metadata: [
                ("DefaultDataImported", .bool(true)), ("DataVersion", .integer(7)), ("Source", .text("grocery.csv")),
            ])
            try CoreDataGrocery.build(at: target, settings: settings, CoreDataGrocery.records)
            let store = try SQLiteStore(readingAt: target)
            let rows = try store.rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA")
            try #require(rows.count == 1)
            #expect(rows[0][0] == .integer(1))
            #expect(rows[0][1] == .text(Self.uuid))  // upper case, as Core Data writes it
            guard case .binary(let bytes) = rows[0][2] else {
                Issue.record("Z_PLIST is \(rows[0][2].kindName), not a blob")
                return
            }
            #expect(bytes.starts(with: Array("bplist00".utf8)))
            let plist = try #require(try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any])
            #expect(plist.keys.sorted() == [
                "DataVersion", "DefaultDataImported", "NSPersistenceFrameworkVersion", "NSStoreModelVersionHashes",
                "NSStoreModelVersionHashesDigest", "NSStoreModelVersionHashesVersion", "NSStoreModelVersionIdentifiers", "NSStoreType", "Source",
                "_NSAutoVacuumLevel",
            ])
            #expect(plist["NSStoreType"] as? String == "SQLite")
            #expect(plist["NSStoreModelVersionHashesVersion"] as? Int == 3)
            #expect(plist["NSStoreModelVersionIdentifiers"] as? [String] == [""])
            #expect(plist["NSPersistenceFrameworkVersion"] as? Int == CoreDataMetadata.defaultFrameworkVersion)
            #expect(plist["_NSAutoVacuumLevel"] as? String == "2")
            #expect(plist["DefaultDataImported"] as? Bool == true)
            #expect(plist["DataVersion"] as? Int == 7)
            #expect(plist["Source"] as? String == "grocery.csv")
            let hashes = try #require(plist["NSStoreModelVersionHashes"] as? [String: Data])
            #expect(hashes == CoreDataVersionHashes.hashes(for: CoreDataGrocery.model))
            #expect(hashes.keys.sorted() == ["Item", "Location", "LocationAtHome", "LocationAtShop", "Unit"])
            #expect(hashes.values.allSatisfy { $0.count == 32 })
        }
    }

    @Test("without a given UUID, the store UUID is derived from the model and metadata: same inputs, same UUID")
    func derivedUUID() throws {
        try withScratchFolder { folder in
            func uuid(_ name: String, metadata: [(key: String, value: Value)]) throws -> Value? {
                let target = folder.appendingPathComponent(name)
                try CoreDataGrocery.build(at: target, settings: CoreDataGrocery.settings(target, uuid: nil, metadata: metadata), [])
                return try SQLiteStore(readingAt: target).scalar("SELECT Z_UUID FROM Z_METADATA")
            }
            let imported: [(key: String, value: Value)] = [("DefaultDataImported", .bool(true))]
            let first = try uuid("a.sqlite", metadata: imported)
            let expected = CoreDataMetadata.storeUUID(
                from: try CoreDataMetadata(model: CoreDataGrocery.model, extra: ["DefaultDataImported": .bool(true)]).binaryPropertyList())
            #expect(first == .text(expected))
            #expect(expected == expected.uppercased() && UUID(uuidString: expected) != nil)
            #expect(try uuid("b.sqlite", metadata: imported) == first)
            #expect(try uuid("c.sqlite", metadata: []) != first)
        }
    }

    @Test("discarding the store cancels the store UUID's work and waits for its thread to end")
    func discardCancelsTheStoreUUIDWork() throws {
        final class Flag: @unchecked Sendable {
            private let lock = NSLock()
            private var value = false
            var isSet: Bool { lock.withLock { value } }
            func set() { lock.withLock { value = true } }
        }
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            let sink = try SQLiteSink(settings: CoreDataGrocery.settings(target, uuid: nil, metadata: []), model: CoreDataGrocery.model)
            let started = DispatchSemaphore(value: 0), ended = Flag()
            sink.storeUUID = { isCancelled in
                started.signal()
                // A digest of a large input, reading until told to stop.
                while !isCancelled() { usleep(1_000) }
                ended.set()
                throw CancellationError()
            }
            started.wait()
            sink.discard()
            #expect(ended.isSet, "discard() returned while the work still ran")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test("a store UUID worked out while the store is finished is the store's; its error fails the run and keeps the old store")
    func storeUUIDWorkedOutWhileFinishing() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            let settings = CoreDataGrocery.settings(target, uuid: nil, metadata: [])
            func finish(_ uuid: @escaping @Sendable () throws -> String) throws {
                let sink = try SQLiteSink(settings: settings, model: CoreDataGrocery.model)
                sink.storeUUID = { _ in try uuid() }
                let log = ImportLog(sourceNames: ["items"], entityNames: CoreDataGrocery.model.entities.map(\.name))
                for record in CoreDataGrocery.records { try sink.write(record, onDuplicate: .keep, log: log) }
                try sink.finish(log: log)
            }
            try finish { "0B0C5E5A-1D2E-4F60-8A9B-0C1D2E3F4A5B" }
            #expect(try SQLiteStore(readingAt: target).scalar("SELECT Z_UUID FROM Z_METADATA") == .text("0B0C5E5A-1D2E-4F60-8A9B-0C1D2E3F4A5B"))
            let before = try Data(contentsOf: target)

            let error = pipelineError {
                try finish { throw PipelineError(.io, code: .inputCannotRead, stage: "pipeline", "cannot read items.csv") }
            }
            #expect(error?.code == .inputCannotRead)
            #expect(try Data(contentsOf: target) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Grocery.sqlite"])
        }
    }

    @Test("the same inputs give a byte-identical store")
    func byteIdentical() throws {
        try withScratchFolder { folder in
            let first = folder.appendingPathComponent("first.sqlite")
            let second = folder.appendingPathComponent("second.sqlite")
            try CoreDataGrocery.build(at: first, CoreDataGrocery.records)
            try CoreDataGrocery.build(at: second, CoreDataGrocery.records)
            let bytes = try Data(contentsOf: first)
            #expect(bytes.count > 0 && bytes.count % 4096 == 0)
            #expect(try Data(contentsOf: second) == bytes)
            // Rebuilding over an existing store gives the same bytes again.
            try CoreDataGrocery.build(at: first, CoreDataGrocery.records)
            #expect(try Data(contentsOf: first) == bytes)
        }
    }

    @Test("a duplicate updated under on_duplicate: update moves its links, the entity column included")
    func updateLinks() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            let log = try CoreDataGrocery.build(at: target, [
                CoreDataGrocery.item("Milk", usual: .home("Fridge"), line: 2),
                CoreDataGrocery.item("Milk", quantity: 3, usual: .shop("3"), line: 3),
            ], onDuplicate: .update)
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT Z_PK, ZQUANTITY, ZUSUALPLACE, Z2_USUALPLACE FROM ZITEM") ==
                [[.integer(1), .double(3), .integer(2), .integer(4)]])
            #expect(log.duplicates.map { $0.differences.map { "\($0.attribute): \($0.first) -> \($0.again)" } } == [
                ["quantity: 1 -> 3", "usualPlace: storedIn=Fridge -> aisle=3"],
            ])
            #expect(log.entities[CoreDataGrocery.item] == counts(inserted: 1, updated: 1))
        }
    }

    @Test("links into a hierarchy take any of its concrete entities; an abstract one or another entity is refused")
    func linkTargets() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            let sink = try SQLiteSink(settings: CoreDataGrocery.settings(target), model: CoreDataGrocery.model)
            let log = ImportLog(sourceNames: ["items"], entityNames: CoreDataGrocery.model.entities.map(\.name))
            var abstract = CoreDataGrocery.item("Salt", line: 5)
            abstract.links[3] = EntityRecord(entity: CoreDataGrocery.location, values: [.text("Somewhere")], links: [nil],
                                              location: CoreDataGrocery.at(5))
            expectError(pipelineError { try sink.write(abstract, onDuplicate: .keep, log: log) }, .recordAbstractEntity, at: "items.csv:5")
            var wrong = CoreDataGrocery.item("Salt", line: 6)
            wrong.links[1] = CoreDataGrocery.shop("3", line: 6)
            expectError(pipelineError { try sink.write(wrong, onDuplicate: .keep, log: log) }, .pipelineWrongDestination, at: "items.csv:6")
            sink.discard()
        }
    }

    @Test("to-many relationships link the records of a list: one record in a to-one's slot is an error, a list writes join rows")
    func toManyLinks() throws {
        let model = StoreModel(entities: [
            Entity(name: "Note", attributes: [Attribute(name: "title", type: .string)],
                   relationships: [Relationship(name: "tags", destination: "Tag", inverse: "notes", isToMany: true)],
                   uniqueKey: ["title"]),
            Entity(name: "Tag", attributes: [Attribute(name: "name", type: .string)],
                   relationships: [Relationship(name: "notes", destination: "Note", inverse: "tags", isToMany: true)],
                   uniqueKey: ["name"]),
        ])
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Notes.sqlite")
            let sink = try SQLiteSink(settings: CoreDataGrocery.settings(target), model: model)
            let log = ImportLog(sourceNames: ["notes"], entityNames: ["Note", "Tag"])
            let tag = EntityRecord(entity: 1, values: [.text("home")], links: [nil], location: CoreDataGrocery.at(2))
            let note = EntityRecord(entity: 0, values: [.text("Buy milk")], links: [tag], location: CoreDataGrocery.at(2))
            expectError(pipelineError { try sink.write(note, onDuplicate: .keep, log: log) }, .recordToManyAsLink, at: "items.csv:2")
            try sink.write(EntityRecord(entity: 0, values: [.text("Buy milk")], links: [nil], lists: [[tag, tag]],
                                        location: CoreDataGrocery.at(3)), onDuplicate: .keep, log: log)
            try sink.finish(log: log)
            let store = try SQLiteStore(readingAt: target)
            // One tag, one join row: a pair given twice is kept once.
            #expect(try store.rows("SELECT * FROM Z_1TAGS") == [[.integer(1), .integer(1)]])
            #expect(try store.rows("SELECT Z_PK, ZNAME FROM ZTAG") == [[.integer(1), .text("home")]])
            #expect(try store.rows("SELECT Z_PK, Z_ENT, ZTITLE FROM ZNOTE") == [[.integer(1), .integer(1), .text("Buy milk")]])
        }
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            let sink = try SQLiteSink(settings: CoreDataGrocery.settings(target), model: CoreDataGrocery.model)
            let log = ImportLog(sourceNames: ["items"], entityNames: CoreDataGrocery.model.entities.map(\.name))
            let unit = EntityRecord(entity: CoreDataGrocery.unit, values: [.text("l")], links: [CoreDataGrocery.item("Milk", line: 2)],
                                    location: CoreDataGrocery.at(2))
            expectError(pipelineError { try sink.write(unit, onDuplicate: .keep, log: log) }, .recordToManyAsLink, at: "items.csv:2")
        }
    }

    /// A catalog with a UUID, a decimal, binary data and a Core Data uniqueness constraint that
    /// pipectl's key (name) does not cover.
    static let catalog = StoreModel(entities: [
        Entity(name: "Product",
               attributes: [
                   Attribute(name: "name", type: .string),
                   Attribute(name: "code", type: .integer32),
                   Attribute(name: "id", type: .uuid),
                   Attribute(name: "price", type: .decimal),
                   Attribute(name: "photo", type: .binary),
               ],
               uniqueKey: ["name"], uniquenessConstraints: [["code"]]),
    ])

    static func product(_ name: String, code: Int64, id: String? = nil, price: Decimal? = nil, photo: [UInt8]? = nil,
                        line: Int) -> EntityRecord {
        EntityRecord(entity: 0, values: [.text(name), .integer(code), id.map(Value.text), price.map(Value.decimal), photo.map(Value.binary)],
                     links: [], location: CoreDataGrocery.at(line))
    }

    @Test("UUIDs as their 16 bytes, decimals as numbers, binary data as blobs")
    func storage() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Catalog.sqlite")
            try CoreDataGrocery.build(at: target, model: Self.catalog, [
                Self.product("Tea", code: 1, id: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", price: Decimal(string: "3.25"),
                             photo: [0xFF, 0xD8, 0x00], line: 2),
                Self.product("Mug", code: 2, price: 12, line: 3),
            ])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT ZCODE, ZPRICE, typeof(ZPRICE), ZNAME, ZID, ZPHOTO FROM ZPRODUCT ORDER BY Z_PK") == [
                [.integer(1), .double(3.25), .text("real"), .text("Tea"),
                 .binary([0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F]),
                 .binary([0xFF, 0xD8, 0x00])],
                [.integer(2), .integer(12), .text("integer"), .text("Mug"), .null, .null],
            ])
        }
    }

    @Test("a record breaking a uniqueness constraint of the model is turned away with the constraint named")
    func uniquenessConstraint() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Catalog.sqlite")
            let sink = try SQLiteSink(settings: CoreDataGrocery.settings(target), model: Self.catalog)
            let log = ImportLog(sourceNames: ["products"], entityNames: ["Product"])
            try sink.write(Self.product("Tea", code: 1, line: 2), onDuplicate: .keep, log: log)
            let rejection = try #require(throws: Rejection.self) {
                try sink.write(Self.product("Green tea", code: 1, line: 3), onDuplicate: .keep, log: log)
            }
            #expect(rejection.description == "items.csv:3: rejected: sqlite: field 'code': "
                + "Product breaks the model's uniqueness constraint on Product (code): the store already holds a row with code=1")
            // The run goes on: the rejected row is not there, later rows are.
            try sink.write(Self.product("Coffee", code: 2, line: 4), onDuplicate: .keep, log: log)
            // An update that would break it is turned away the same way, and leaves the row as it was.
            let update = try #require(throws: Rejection.self) {
                try sink.write(Self.product("Coffee", code: 1, line: 5), onDuplicate: .update, log: log)
            }
            #expect(update.reason == "Product breaks the model's uniqueness constraint on Product (code): the store already holds a row with code=1")
            try sink.finish(log: log)
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT Z_PK, ZNAME, ZCODE FROM ZPRODUCT ORDER BY Z_PK") ==
                [[.integer(1), .text("Tea"), .integer(1)], [.integer(2), .text("Coffee"), .integer(2)]])
        }
    }

    @Test("with several uniqueness constraints, the one a record breaks is named, on insert and on update")
    func severalUniquenessConstraints() throws {
        let model = StoreModel(entities: [
            Entity(name: "Product", attributes: Self.catalog.entities[0].attributes,
                   uniqueKey: ["name"], uniquenessConstraints: [["code"], ["id"]]),
        ])
        let tea = "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", mug = "0b5e8f4c-7d2a-4c1e-9a3b-2f6d8e1c4a7b"
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Catalog.sqlite")
            let sink = try SQLiteSink(settings: CoreDataGrocery.settings(target), model: model)
            let log = ImportLog(sourceNames: ["products"], entityNames: ["Product"])
            try sink.write(Self.product("Tea", code: 1, id: tea, line: 2), onDuplicate: .keep, log: log)
            try sink.write(Self.product("Mug", code: 2, id: mug, line: 3), onDuplicate: .keep, log: log)
            let byID = try #require(throws: Rejection.self) {
                try sink.write(Self.product("Cup", code: 3, id: tea, line: 4), onDuplicate: .keep, log: log)
            }
            #expect(byID.reason == "Product breaks the model's uniqueness constraint on Product (id): "
                + "the store already holds a row with id=\(tea)")
            let byCode = try #require(throws: Rejection.self) {
                try sink.write(Self.product("Cup", code: 1, line: 5), onDuplicate: .keep, log: log)
            }
            #expect(byCode.reason == "Product breaks the model's uniqueness constraint on Product (code): "
                + "the store already holds a row with code=1")
            // An update keeping its own id and taking Tea's code: the row itself is no conflict.
            let update = try #require(throws: Rejection.self) {
                try sink.write(Self.product("Mug", code: 1, id: mug, line: 6), onDuplicate: .update, log: log)
            }
            #expect(update.reason == "Product breaks the model's uniqueness constraint on Product (code): "
                + "the store already holds a row with code=1")
            try sink.finish(log: log)
        }
    }

    @Test("a constraint on a parent entity holds across its sub-entities; pipectl's key covers it within one")
    func inheritedUniquenessConstraint() throws {
        let model = StoreModel(entities: [
            Entity(name: "Place", isAbstract: true, attributes: [Attribute(name: "name", type: .string)],
                   uniquenessConstraints: [["name"]]),
            Entity(name: "Shelf", parent: "Place", uniqueKey: ["name"]),
            Entity(name: "Shop", parent: "Place", uniqueKey: ["name"]),
        ])
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Places.sqlite")
            let sink = try SQLiteSink(settings: CoreDataGrocery.settings(target), model: model)
            let log = ImportLog(sourceNames: ["places"], entityNames: ["Place", "Shelf", "Shop"])
            func place(_ entity: Int, _ name: String, line: Int) -> EntityRecord {
                EntityRecord(entity: entity, values: [.text(name)], links: [], location: CoreDataGrocery.at(line))
            }
            try sink.write(place(1, "North", line: 2), onDuplicate: .keep, log: log)
            try sink.write(place(1, "North", line: 3), onDuplicate: .keep, log: log)
            let rejection = try #require(throws: Rejection.self) { try sink.write(place(2, "North", line: 4), onDuplicate: .keep, log: log) }
            #expect(rejection.description == "items.csv:4: rejected: sqlite: field 'name': "
                + "Shop breaks the model's uniqueness constraint on Place (name): the store already holds a row with name=North")
            try sink.write(place(2, "South", line: 5), onDuplicate: .keep, log: log)
            try sink.finish(log: log)
            #expect(log.entities[1] == counts(inserted: 1, alreadyPresent: 1))
            #expect(log.entities[2] == counts(inserted: 1))
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT Z_PK, Z_ENT, ZNAME FROM ZPLACE ORDER BY Z_PK") ==
                [[.integer(1), .integer(2), .text("North")], [.integer(2), .integer(3), .text("South")]])
        }
    }

    @Test("settings the layout refuses")
    func refusedSettings() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            func refusal(_ settings: StoreSettings) -> PipelineError? {
                pipelineError { _ = try SQLiteSink(settings: settings, model: CoreDataGrocery.model) }
            }
            expectError(refusal(CoreDataGrocery.settings(target, uuid: "not-a-uuid")), .pipelineInvalidUUID, at: "grocery.yaml:4:3")
            let reserved = refusal(CoreDataGrocery.settings(target, metadata: [("NSStoreType", .text("XML"))]))
            expectError(reserved, .pipelineReservedMetadataKey, at: "grocery.yaml:4:3")
            #expect(reserved?.stage == "metadata")
            expectError(refusal(CoreDataGrocery.settings(target, metadata: [("A", .bool(true)), ("A", .bool(false))])),
                        .pipelineDuplicateKey, at: "grocery.yaml:4:3")
            #expect(!FileManager.default.fileExists(atPath: target.path))
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(left.isEmpty)
        }
    }

    /// Grocery Dude's model restated in code (the case reads it from XML): a store written for it
    /// carries the hashes, schema and bookkeeping rows of the real store.
    @Test("a store for Grocery Dude's model carries the real store's hashes and schema")
    func groceryDude() throws {
        let model = StoreModel(entities: [
            Entity(name: "Item",
                   attributes: [
                       Attribute(name: "collected", type: .bool, defaultValue: .bool(false)),
                       Attribute(name: "listed", type: .bool, defaultValue: .bool(true)),
                       Attribute(name: "name", type: .string, defaultValue: .text("New Item"), isIndexed: true),
                       Attribute(name: "photoData", type: .binary),
                       Attribute(name: "quantity", type: .float, defaultValue: .double(1)),
                   ],
                   relationships: [
                       Relationship(name: "locationAtHome", destination: "LocationAtHome", inverse: "items"),
                       Relationship(name: "locationAtShop", destination: "LocationAtShop", inverse: "items"),
                       Relationship(name: "unit", destination: "Unit", inverse: "items"),
                   ],
                   uniqueKey: ["name"]),
            Entity(name: "Location", isAbstract: true, attributes: [Attribute(name: "summary", type: .string)]),
            Entity(name: "LocationAtHome", parent: "Location",
                   attributes: [Attribute(name: "storedin", type: .string)],
                   relationships: [Relationship(name: "items", destination: "Item", inverse: "locationAtHome", isToMany: true)],
                   uniqueKey: ["storedin"]),
            Entity(name: "LocationAtShop", parent: "Location",
                   attributes: [Attribute(name: "aisle", type: .string)],
                   relationships: [Relationship(name: "items", destination: "Item", inverse: "locationAtShop", isToMany: true)],
                   uniqueKey: ["aisle"]),
            Entity(name: "Unit",
                   attributes: [Attribute(name: "name", type: .string)],
                   relationships: [Relationship(name: "items", destination: "Item", inverse: "unit", isToMany: true)],
                   uniqueKey: ["name"]),
        ], versionIdentifiers: [""])
        let c = CoreDataCases.groceryDude
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("Grocery.sqlite")
            let at = { (line: Int) in CoreDataGrocery.at(line) }
            // Its first sample row: 80 of 🌱 at home in 洗手间, in the shop at 绿植区, unit 棵.
            let item = EntityRecord(
                entity: 0, values: [nil, nil, .text("🌱🌱🌱🌱🌱🌱🌱🌱"), nil, .double(80)],
                links: [EntityRecord(entity: 2, values: [nil, .text("洗手间")], links: [nil], location: at(2)),
                        EntityRecord(entity: 3, values: [nil, .text("绿植区")], links: [nil], location: at(2)),
                        EntityRecord(entity: 4, values: [.text("棵")], links: [nil], location: at(2))],
                location: at(2))
            try CoreDataGrocery.build(at: target, model: model, settings: CoreDataGrocery.settings(target, metadata: []), [item])
            let store = try SQLiteStore(readingAt: target)
            guard case .binary(let bytes) = try store.scalar("SELECT Z_PLIST FROM Z_METADATA") else {
                Issue.record("no Z_PLIST")
                return
            }
            let plist = try #require(try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any])
            let hashes = try #require(plist["NSStoreModelVersionHashes"] as? [String: Data])
            #expect(hashes.mapValues { $0.base64EncodedString() } == c.hashes)
            // The real store has Z_MODELCACHE too, which is optional.
            let theirs = c.schema.split(separator: "\n").map(String.init).filter { !$0.contains("Z_MODELCACHE") }
            #expect(try store.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").map { $0[0].displayText } == theirs)
            #expect(try store.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { $0.map(\.displayText) } ==
                c.entities.map { [String($0.0), $0.1, String($0.2)] })
            #expect(try store.rows("SELECT Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [1, 2, 0, 0, 1].map { [.integer($0)] })
            // The sample row as the real store has it: (1, 1, 1, 0, 1, 1, 2, 1, 80.0, '🌱🌱🌱🌱🌱🌱🌱🌱', None).
            #expect(try store.rows("SELECT * FROM ZITEM") == [[
                .integer(1), .integer(1), .integer(1), .integer(0), .integer(1), .integer(1), .integer(2), .integer(1),
                .double(80), .text("🌱🌱🌱🌱🌱🌱🌱🌱"), .null,
            ]])
        }
    }
}
