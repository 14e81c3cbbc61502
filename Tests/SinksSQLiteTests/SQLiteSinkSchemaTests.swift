import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("SQLite sink: plain layout schema")
struct SQLiteSinkSchemaTests {
    @Test("one table per concrete entity, in model order, with foreign keys and indexes")
    func grocerySchema() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: target, [])
            let store = try SQLiteStore(readingAt: target)
            let schema: [[String]] = try texts(store.rows("SELECT type, name, coalesce(sql, '-') FROM sqlite_master ORDER BY rowid"))
            let expected: [[String]] = [
                ["table", "Unit", #"CREATE TABLE "Unit" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL)"#],
                ["table", "LocationAtHome",
                 #"CREATE TABLE "LocationAtHome" ("id" INTEGER PRIMARY KEY, "summary" TEXT, "storedIn" TEXT)"#],
                ["table", "LocationAtShop",
                 #"CREATE TABLE "LocationAtShop" ("id" INTEGER PRIMARY KEY, "summary" TEXT, "aisle" TEXT)"#],
                ["table", "Item",
                 #"CREATE TABLE "Item" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "quantity" REAL, "listed" INTEGER, "#
                     + #""collected" INTEGER, "added" REAL, "unit_id" INTEGER REFERENCES "Unit"("id"), "#
                     + #""locationAtHome_id" INTEGER REFERENCES "LocationAtHome"("id"), "#
                     + #""locationAtShop_id" INTEGER REFERENCES "LocationAtShop"("id"))"#],
                ["table", "pipectl_metadata", #"CREATE TABLE "pipectl_metadata" ("key" TEXT PRIMARY KEY, "value")"#],
                ["index", "sqlite_autoindex_pipectl_metadata_1", "-"],
                ["index", "Unit_name_unique", #"CREATE UNIQUE INDEX "Unit_name_unique" ON "Unit" ("name")"#],
                ["index", "LocationAtHome_storedIn_unique",
                 #"CREATE UNIQUE INDEX "LocationAtHome_storedIn_unique" ON "LocationAtHome" ("storedIn")"#],
                ["index", "LocationAtShop_aisle_unique",
                 #"CREATE UNIQUE INDEX "LocationAtShop_aisle_unique" ON "LocationAtShop" ("aisle")"#],
                // Item.name is indexed, but its unique index covers it.
                ["index", "Item_name_unique", #"CREATE UNIQUE INDEX "Item_name_unique" ON "Item" ("name")"#],
                ["index", "Item_unit_id_index", #"CREATE INDEX "Item_unit_id_index" ON "Item" ("unit_id")"#],
                ["index", "Item_locationAtHome_id_index",
                 #"CREATE INDEX "Item_locationAtHome_id_index" ON "Item" ("locationAtHome_id")"#],
                ["index", "Item_locationAtShop_id_index",
                 #"CREATE INDEX "Item_locationAtShop_id_index" ON "Item" ("locationAtShop_id")"#],
            ]
            #expect(schema == expected)
        }
    }

    @Test("SQL keywords and quotes as names, every attribute type, composite keys, indexed attributes")
    func keywordsTypesAndIndexes() throws {
        let model = StoreModel(entities: [
            Entity(name: "Order",
                   attributes: [
                       Attribute(name: "group", type: .string, isIndexed: true),
                       Attribute(name: "select", type: .integer32),
                       Attribute(name: #"say "hi""#, type: .string),
                   ],
                   uniqueKey: ["group", "select"]),
            Entity(name: "Everything", attributes: [
                Attribute(name: "s", type: .string), Attribute(name: "i16", type: .integer16),
                Attribute(name: "i32", type: .integer32), Attribute(name: "i64", type: .integer64),
                Attribute(name: "dec", type: .decimal), Attribute(name: "dbl", type: .double),
                Attribute(name: "flt", type: .float), Attribute(name: "b", type: .bool),
                Attribute(name: "d", type: .date), Attribute(name: "bin", type: .binary),
                Attribute(name: "u", type: .uuid), Attribute(name: "uri", type: .uri),
                Attribute(name: "t", type: .transformable),
            ]),
        ])
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: target, model: model, [])
            let store = try SQLiteStore(readingAt: target)
            let sql: [[String]] = try texts(store.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name <> 'pipectl_metadata' ORDER BY rowid"))
            let expected: [[String]] = [
                [#"CREATE TABLE "Order" ("id" INTEGER PRIMARY KEY, "group" TEXT, "select" INTEGER, "say ""hi""" TEXT)"#],
                [#"CREATE TABLE "Everything" ("id" INTEGER PRIMARY KEY, "s" TEXT, "i16" INTEGER, "i32" INTEGER, "#
                     + #""i64" INTEGER, "dec" NUMERIC, "dbl" REAL, "flt" REAL, "b" INTEGER, "d" REAL, "bin" BLOB, "#
                     + #""u" TEXT, "uri" TEXT, "t" BLOB)"#],
                [#"CREATE UNIQUE INDEX "Order_group_select_unique" ON "Order" ("group", "select")"#],
                [#"CREATE INDEX "Order_group_index" ON "Order" ("group")"#],
            ]
            #expect(sql == expected)
        }
    }

    @Test("a relationship to an abstract entity cannot be expressed in the plain layout")
    func abstractDestination() throws {
        var entities = Grocery.model.entities
        entities[Grocery.item].relationships.append(Relationship(name: "location", destination: "Location"))
        try withScratchFolder { folder in
            let error = pipelineError {
                _ = try SQLiteSink(settings: StoreSettings(path: folder.appendingPathComponent("store.sqlite"), location: storeEntry),
                                   model: StoreModel(entities: entities))
            }
            expectError(error, .modelAbstractDestination, at: "grocery.yaml:4:3")
            #expect(error?.message == "relationship 'Item.location' leads to the abstract entity "
                        + "'Location', which the plain SQLite layout cannot express (each concrete entity has a table of "
                        + "its own); link a concrete entity ('LocationAtHome', 'LocationAtShop') or use layout: coredata")
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(left == [])
        }
    }

    @Test("names the layout cannot use are errors before anything is written")
    func unusableNames() throws {
        // The bad-input corpus words the row id, case and `sqlite_` clashes; the words of the others are checked here.
        let cases: [(StoreModel, PipelineError.Code, String?)] = [
            (StoreModel(entities: [Entity(name: "pipectl_metadata", attributes: [Attribute(name: "key", type: .string)])]),
             .modelReservedName, "the entity name 'pipectl_metadata' is reserved for the store's metadata table; rename the entity"),
            (StoreModel(entities: [Entity(name: "Thing", attributes: [Attribute(name: "ID", type: .integer64)])]), .modelReservedName, nil),
            (StoreModel(entities: [
                Entity(name: "Unit", attributes: [Attribute(name: "name", type: .string)]),
                Entity(name: "Thing", attributes: [Attribute(name: "unit_id", type: .integer64)],
                       relationships: [Relationship(name: "unit", destination: "Unit")]),
            ]),
             .modelNameClash, "entity 'Thing': attribute 'unit_id' and relationship 'unit' would both be the column 'unit_id' "
                 + "(SQLite column names ignore case); rename one of them"),
            (StoreModel(entities: [Entity(name: "Item"), Entity(name: "item")]), .modelNameClash, nil),
            (StoreModel(entities: [Entity(name: "Item", attributes: [Attribute(name: "name", type: .string)], uniqueKey: ["title"])]),
             .modelUnknownProperty, "the unique key of 'Item' names 'title', which is not one of its attributes or to-one relationships"),
        ]
        try withScratchFolder { folder in
            for (model, code, message) in cases {
                let error = pipelineError {
                    _ = try SQLiteSink(settings: StoreSettings(path: folder.appendingPathComponent("store.sqlite"), location: storeEntry),
                                       model: model)
                }
                expectError(error, code, at: "grocery.yaml:4:3")
                if let message { #expect(error?.message == message) }
            }
        }
    }

    @Test("layout coredata writes Core Data's tables instead (see CoreDataSinkTests)")
    func coreDataLayout() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let sink = try SQLiteSink(settings: StoreSettings(path: target, layout: .coredata, location: storeEntry), model: Grocery.model)
            let log = Grocery.log()
            try sink.write(Grocery.item("Milk", unit: "l", home: "Fridge", line: 2), onDuplicate: .keep, log: log)
            try sink.finish(log: log)
            let store = try SQLiteStore(readingAt: target)
            #expect(try texts(store.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")) ==
                [["ZITEM"], ["ZLOCATION"], ["ZUNIT"], ["Z_PRIMARYKEY"], ["Z_METADATA"]])
            #expect(try store.rows("SELECT ZNAME, ZUNIT, ZLOCATIONATHOME FROM ZITEM") == [[.text("Milk"), .integer(1), .integer(1)]])
        }
    }

    @Test("metadata pairs land in pipectl_metadata, typed, in file order")
    func metadata() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: target, metadata: [
                ("DefaultDataImported", .bool(true)), ("Version", .text("1.2")), ("Ratio", .double(0.5)),
                ("Build", .integer(7)), ("Nothing", .null),
            ], [])
            let store = try SQLiteStore(readingAt: target)
            let rows = try store.rows("SELECT key, value FROM pipectl_metadata ORDER BY rowid")
            let expected: [[Value]] = [
                [.text("DefaultDataImported"), .integer(1)],
                [.text("Version"), .text("1.2")],
                [.text("Ratio"), .double(0.5)],
                [.text("Build"), .integer(7)],
                [.text("Nothing"), .null],
            ]
            #expect(rows == expected)
            let error = pipelineError {
                _ = try SQLiteSink(settings: StoreSettings(path: target, metadata: [("A", .bool(true)), ("A", .bool(false))],
                                                           location: storeEntry),
                                   model: Grocery.model)
            }
            expectError(error, .pipelineDuplicateKey, at: "grocery.yaml:4:3")
        }
    }
}
