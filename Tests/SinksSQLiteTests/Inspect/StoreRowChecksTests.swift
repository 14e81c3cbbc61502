import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("StoreRowChecks: every row read as the model's")
struct StoreRowChecksTests {
    /// Every shape a rule covers: a hierarchy (abstract Location), an ordered to-many kept on the
    /// to-one side, a many-to-many, a required attribute, and SwiftData's two enum forms.
    static let model: StoreModel = {
        let gear = CompositeAttribute(name: "gear", kind: .rawValue(cases: [.init("barbell", rawValue: "barbell"), .init("kettlebell", rawValue: "Kettlebell")]),
                                      isOptional: false, typeName: "Gear")
        let shape = CompositeAttribute(name: "shape", kind: .caseName(cases: ["round", "square"]), isOptional: true, typeName: "Shape")
        return StoreModel(entities: [
            Entity(name: "Item", attributes: [
                Attribute(name: "name", type: .string, isOptional: false),
                Attribute(name: "done", type: .bool),
                Attribute(name: "count", type: .integer16),
                Attribute(name: "id", type: .uuid),
                Attribute(name: "added", type: .date),
                Attribute(name: "gear", type: .string, composite: CompositePart(composite: "gear", element: "gear")),
                Attribute(name: "shape.round", type: .string, composite: CompositePart(composite: "shape", element: "round")),
                Attribute(name: "shape.square", type: .string, composite: CompositePart(composite: "shape", element: "square")),
            ], relationships: [
                Relationship(name: "location", destination: "Home", inverse: "items"),
                Relationship(name: "tags", destination: "Tag", inverse: "items", isToMany: true),
                Relationship(name: "steps", destination: "Step", inverse: "item", isToMany: true, isOrdered: true),
            ], composites: [gear, shape]),
            Entity(name: "Location", isAbstract: true, attributes: [Attribute(name: "title", type: .string)]),
            Entity(name: "Home", parent: "Location", relationships: [Relationship(name: "items", destination: "Item", inverse: "location", isToMany: true)]),
            Entity(name: "Shop", parent: "Location"),
            Entity(name: "Step", attributes: [Attribute(name: "text", type: .string)],
                   relationships: [Relationship(name: "item", destination: "Item", inverse: "steps")]),
            Entity(name: "Tag", attributes: [Attribute(name: "name", type: .string)],
                   relationships: [Relationship(name: "items", destination: "Item", inverse: "tags", isToMany: true)]),
        ])
    }()

    /// A store of the model whose every row is right, then `changes`, then the checks.
    static func findings(after changes: [String]) throws -> [StoreRowChecks.Finding] {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            let schema = try CoreDataSchema(model)
            var statements = schema.statements()
            statements += schema.primaryKeyRows(maxPrimaryKeys: ["Item": 10, "Location": 10, "Step": 10, "Tag": 10]).map { row in
                "INSERT INTO Z_PRIMARYKEY VALUES (\(row.entity), '\(row.name)', \(row.superEntity), \(row.max))"
            }
            statements += [
                // Home is Z_ENT 3, Shop 4 (Location 2 is abstract).
                "INSERT INTO ZLOCATION (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1, 3, 1, 'Pantry'), (2, 4, 1, 'Aisle 1')",
                "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZDONE, ZCOUNT, ZID, ZADDED, ZGEAR, ZROUND, ZSQUARE, ZLOCATION) VALUES "
                    + "(1, 1, 1, 'Milk', 1, 2, x'00112233445566778899AABBCCDDEEFF', 0, 'Kettlebell', 'round', NULL, 1), "
                    + "(2, 1, 1, 'Bread', 0, -32768, NULL, 12.5, 'barbell', NULL, NULL, NULL)",
                "INSERT INTO ZSTEP (Z_PK, Z_ENT, Z_OPT, ZTEXT, ZITEM, Z_FOK_ITEM) VALUES (1, 5, 1, 'mix', 1, 1024), (2, 5, 1, 'bake', 1, 2048)",
                "INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 6, 1, 'dairy')",
                "INSERT INTO Z_1TAGS VALUES (1, 1)",
            ]
            statements += changes
            try RawSQLite.run(statements, at: url)
            return try StoreRowChecks.run(storeAt: url, model: model)
        }
    }

    @Test("a store whose rows are all as Core Data writes them has no finding")
    func clean() throws {
        #expect(try Self.findings(after: []) == [])
    }

    @Test("each rule names the entity, the property, the count and the first rows", arguments: [
        ("UPDATE ZITEM SET ZDONE = 'true'", "Item", "done", 2, "Z_PK 1: TEXT 'true'"),
        ("UPDATE ZITEM SET ZDONE = 2 WHERE Z_PK = 2", "Item", "done", 1, "Z_PK 2: 2"),
        ("UPDATE ZITEM SET ZCOUNT = 40000 WHERE Z_PK = 1", "Item", "count", 1, "Z_PK 1: 40000"),
        ("UPDATE ZITEM SET ZID = x'0011' WHERE Z_PK = 1", "Item", "id", 1, "Z_PK 1: 2 bytes"),
        ("UPDATE ZITEM SET ZID = 'text' WHERE Z_PK = 1", "Item", "id", 1, "Z_PK 1: TEXT 'text'"),
        ("UPDATE ZITEM SET ZADDED = 'yesterday' WHERE Z_PK = 2", "Item", "added", 1, "Z_PK 2: TEXT 'yesterday'"),
        ("UPDATE ZITEM SET ZNAME = NULL WHERE Z_PK = 2", "Item", "name", 1, "Z_PK 2: empty"),
        ("UPDATE ZITEM SET ZNAME = 12 WHERE Z_PK = 2", "Item", "name", 0, ""),  // VARCHAR affinity keeps it as TEXT '12'
        ("UPDATE ZITEM SET ZGEAR = 'Barbell' WHERE Z_PK = 2", "Item", "gear", 1, "Z_PK 2: 'Barbell'"),
        ("UPDATE ZITEM SET ZGEAR = NULL WHERE Z_PK = 2", "Item", "gear", 1, "Z_PK 2: empty"),
        ("UPDATE ZITEM SET ZSQUARE = 'square' WHERE Z_PK = 1", "Item", "shape", 1, "Z_PK 1: 2 cases"),
        ("UPDATE ZITEM SET ZSQUARE = 'round' WHERE Z_PK = 2", "Item", "shape.square", 1, "Z_PK 2: 'round'"),
        ("UPDATE ZITEM SET ZLOCATION = 9 WHERE Z_PK = 2", "Item", "location", 1, "Z_PK 2: Z_PK 9"),
        // Row 2 of ZLOCATION is a Shop: Item.location leads to Home only.
        ("UPDATE ZITEM SET ZLOCATION = 2 WHERE Z_PK = 2", "Item", "location", 1, "Z_PK 2: Z_PK 2"),
        ("UPDATE ZLOCATION SET Z_ENT = 2 WHERE Z_PK = 2", "Location", "Z_ENT", 1, "Z_PK 2: 2"),
        ("UPDATE ZSTEP SET ZITEM = 7 WHERE Z_PK = 2", "Step", "item", 1, "Z_PK 2: Z_PK 7"),
        // What lies between two rows' numbers and is none is found too, as is what lies in a gap.
        ("UPDATE ZSTEP SET ZITEM = 1.5 WHERE Z_PK = 2", "Step", "item", 1, "Z_PK 2: Z_PK 1.5"),
        ("UPDATE ZSTEP SET ZITEM = 'one' WHERE Z_PK = 2", "Step", "item", 1, "Z_PK 2: Z_PK one"),
        ("UPDATE ZSTEP SET ZITEM = 0 WHERE Z_PK = 2", "Step", "item", 1, "Z_PK 2: Z_PK 0"),
        ("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZGEAR) VALUES (5, 1, 1, 'Eggs', 'barbell'); UPDATE ZSTEP SET ZITEM = 3 WHERE Z_PK = 2",
         "Step", "item", 1, "Z_PK 2: Z_PK 3"),
        // Every Location a Home: a number past them is none.
        ("UPDATE ZLOCATION SET Z_ENT = 3 WHERE Z_PK = 2; UPDATE ZITEM SET ZLOCATION = 3 WHERE Z_PK = 2", "Item", "location", 1, "Z_PK 2: Z_PK 3"),
        ("UPDATE ZSTEP SET Z_FOK_ITEM = 1024", "Step", "item", 1, "parent 1: Z_FOK_ITEM 1024 2 times"),
        ("INSERT INTO Z_1TAGS VALUES (1, 5)", "Item.tags", "Z_6TAGS", 1, "(Z_1ITEMS, Z_6TAGS) (1, 5): Z_PK 5"),
        ("INSERT INTO Z_1TAGS VALUES (1, 0.5)", "Item.tags", "Z_6TAGS", 1, "(Z_1ITEMS, Z_6TAGS) (1, 0.5): Z_PK 0.5"),
        ("INSERT INTO Z_1TAGS VALUES (NULL, 1)", "Item.tags", "Z_1ITEMS", 1, ": Z_PK empty"),
        ("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZGEAR) VALUES (11, 1, 1, 'Eggs', 'barbell')", "Item", "Z_PK", 1, "Z_PK 11: Z_MAX 10"),
    ] as [(String, String, String, Int, String)])
    func rule(_ change: String, _ entity: String, _ property: String, _ count: Int, _ first: String) throws {
        let findings = try Self.findings(after: [change])
        if count == 0 {
            #expect(findings == [])
            return
        }
        #expect(findings.count == 1, "\(findings)")
        let finding = try #require(findings.first)
        #expect(finding.entity == entity)
        #expect(finding.property == property)
        #expect(finding.count == count)
        #expect(finding.rows.first?.hasSuffix(first) == true, "\(finding.rows)")
    }

    /// The facts of a store Core Data wrote (gaoyve/GroceryDude a8d15ed, `Grocery Dude/DefaultData.sqlite`,
    /// NSPersistenceFrameworkVersion 478), restated: its model (Model 8 with the names its store
    /// has, `collected` and `storedIn`) and rows as they are there. Every rule holds for its 442
    /// rows but one: Z_MAX is -1 on every entity while Z_PK goes to 399, which pipectl still
    /// reports (an app inserting into that store would be handed Z_PK 0, 1, ...).
    @Test("a store Core Data wrote passes every rule but its Z_MAX of -1")
    func groceryDude() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="collected" optional="YES" attributeType="Boolean" defaultValueString="NO" syncable="YES"/>
                    <attribute name="listed" optional="YES" attributeType="Boolean" defaultValueString="YES" syncable="YES"/>
                    <attribute name="name" optional="YES" attributeType="String" defaultValueString="New Item" indexed="YES" syncable="YES"/>
                    <attribute name="quantity" optional="YES" attributeType="Float" defaultValueString="1" syncable="YES"/>
                    <attribute name="thumbnail" optional="YES" attributeType="Binary" syncable="YES"/>
                    <relationship name="locationAtHome" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="LocationAtHome" inverseName="items" inverseEntity="LocationAtHome" syncable="YES"/>
                    <relationship name="locationAtShop" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="LocationAtShop" inverseName="items" inverseEntity="LocationAtShop" syncable="YES"/>
                    <relationship name="photo" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="Item_Photo" inverseName="item" inverseEntity="Item_Photo" syncable="YES"/>
                    <relationship name="unit" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Unit" inverseName="items" inverseEntity="Unit" syncable="YES"/>
                </entity>
                <entity name="Item_Photo" representedClassName="Item_Photo" syncable="YES">
                    <attribute name="data" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" syncable="YES"/>
                    <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="photo" inverseEntity="Item" syncable="YES"/>
                </entity>
                <entity name="Location" representedClassName="Location" isAbstract="YES" syncable="YES">
                    <attribute name="summary" optional="YES" attributeType="String" syncable="YES"/>
                </entity>
                <entity name="LocationAtHome" representedClassName="LocationAtHome" parentEntity="Location" syncable="YES">
                    <attribute name="storedIn" optional="YES" attributeType="String" syncable="YES"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="locationAtHome" inverseEntity="Item" syncable="YES"/>
                </entity>
                <entity name="LocationAtShop" representedClassName="LocationAtShop" parentEntity="Location" syncable="YES">
                    <attribute name="aisle" optional="YES" attributeType="String" syncable="YES"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="locationAtShop" inverseEntity="Item" syncable="YES"/>
                </entity>
                <entity name="Unit" representedClassName="Unit" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String" syncable="YES"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Item" inverseName="unit" inverseEntity="Item" syncable="YES"/>
                </entity>
            </model>
            """
        let model = try CoreDataModelReader.parse(Data(xml.utf8), file: "Model 8.xcdatamodel/contents")
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("DefaultData.sqlite")
            // Its DDL, Z_PRIMARYKEY and rows as the store has them (ZITEM's first rows, and the
            // kinds of row it has: a Float 1.0 stored REAL, Booleans 0 and 1, no photo).
            try RawSQLite.run([
                "CREATE TABLE ZLOCATION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSUMMARY VARCHAR, ZSTOREDIN VARCHAR, ZAISLE VARCHAR )",
                "CREATE TABLE ZUNIT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE ZITEM_PHOTO ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZITEM INTEGER, ZDATA BLOB )",
                "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOLLECTED INTEGER, ZLISTED INTEGER, ZLOCATIONATHOME INTEGER, ZLOCATIONATSHOP INTEGER, ZPHOTO INTEGER, ZUNIT INTEGER, ZQUANTITY FLOAT, ZNAME VARCHAR, ZTHUMBNAIL BLOB )",
                "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
                "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Item', 0, -1), (2, 'Item_Photo', 0, -1), (3, 'Location', 0, -1), (4, 'LocationAtHome', 3, -1), (5, 'LocationAtShop', 3, -1), (6, 'Unit', 0, -1)",
                "INSERT INTO ZLOCATION VALUES (1, 4, 9, NULL, 'Bathroom', NULL), (2, 5, 27, NULL, NULL, 'Aisle 6'), (3, 5, 51, NULL, NULL, 'Aisle 7'), (30, 4, 1, NULL, 'Main Bedroom', NULL)",
                "INSERT INTO ZUNIT VALUES (1, 6, 4, 'pk'), (2, 6, 12, 'g'), (3, 6, 8, 'kg')",
                "INSERT INTO ZITEM VALUES (1, 1, 1, 0, 0, 1, 2, NULL, NULL, 1.0, 'Bubble Bath - Kids', NULL), (2, 1, 1, 0, 0, 1, 2, NULL, NULL, 1.0, 'Cotton Balls', NULL), "
                    + "(3, 1, 2, 1, 1, 30, 3, NULL, 3, 2.0, 'QV Wash', NULL)",
            ], at: url)
            let findings = try #require(try StoreRowChecks.runIfReadable(on: SQLiteStore(readingAt: url), model: model))
            #expect(findings.map { "\($0.entity).\($0.property) \($0.count)" } == ["Item.Z_PK 3", "Location.Z_PK 4", "Unit.Z_PK 3"])
        }
    }

    @Test("a store without a column of the model is not read as the model's")
    func unreadable() throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            let statements = try CoreDataSchema(Self.model).statements().map {
                $0.replacingOccurrences(of: "ZDONE INTEGER, ", with: "")
            }
            try RawSQLite.run(statements, at: url)
            #expect(try StoreRowChecks.runIfReadable(on: SQLiteStore(readingAt: url), model: Self.model) == nil)
        }
    }

    @Test("a run stops on a finding with the store check's kind and code, naming every finding")
    func failure() throws {
        let findings = try Self.findings(after: ["UPDATE ZITEM SET ZDONE = 'true'"])
        let error = try #require(StoreRowChecks.failure(findings, store: "Grocery.sqlite"))
        #expect(error.kind == .storeCheckFailed)
        #expect(error.code == .storeRowCheckFailed)
        #expect(error.message.contains("Item.done: 2 rows not stored as INTEGER"))
        #expect(StoreRowChecks.failure([], store: "Grocery.sqlite") == nil)
    }
}
