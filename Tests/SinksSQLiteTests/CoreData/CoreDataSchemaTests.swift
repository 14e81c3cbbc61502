import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SinksSQLite
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("Core Data schema, hashes and metadata")
struct CoreDataSchemaTests {
    /// The worked check of the format: JournalEntry's properties hashed one by one.
    @Test func surfJournalWorkedCheck() throws {
        let attributes = [("date", AttributeType.date), ("height", .string), ("location", .string),
                          ("period", .string), ("rating", .integer16), ("wind", .string)]
            .map { Attribute(name: $0.0, type: $0.1) }
        let model = StoreModel(entities: [Entity(name: "JournalEntry", attributes: attributes)])
        #expect(CoreDataVersionHashes.hashes(for: model)["JournalEntry"]?.base64EncodedString()
            == "Tj6pVjI2H01Wp34HCsdGhqINZK/14EnrYaNBIVLu3wc=")
    }

    @Test func entityNumbersArePreOrderNotAlphabetical() {
        let model = StoreModel(entities: [
            Entity(name: "Person"), Entity(name: "SportCar", parent: "Car"),
            Entity(name: "ExpensiveSportCar", parent: "SportCar"), Entity(name: "Car"),
            Entity(name: "Item_Photo"), Entity(name: "Item"),
        ])
        let tree = CoreDataEntityTree(model)
        #expect(tree.entities.map(\.name) == ["Car", "SportCar", "ExpensiveSportCar", "Item", "Item_Photo", "Person"])
        #expect(tree.superNumber(of: "ExpensiveSportCar") == 2)
        #expect(tree.root(of: "ExpensiveSportCar")?.name == "Car")
        #expect(tree.rootEntities.map(\.name) == ["Car", "Item", "Item_Photo", "Person"])
    }

    @Test func derivedCountIsHashedAsCountExpression() {
        #expect(CoreDataVersionHashes.hashedDerivation("pages.@count") == "count:(pages)")
        #expect(CoreDataVersionHashes.hashedDerivation("chapters.pages.@count") == "count:(chapters.pages)")
        #expect(CoreDataVersionHashes.hashedDerivation("title.lowercase") == "title.lowercase")
        let a = Attribute(name: "pageCount", type: .integer64, derivationExpression: "pages.@count")
        let b = Attribute(name: "other", type: .string, isOptional: false, derivationExpression: "pages.@count")
        // Name, flags and type are not part of a derived attribute's hash.
        #expect(CoreDataVersionHashes.attributeHash(a) == CoreDataVersionHashes.attributeHash(b))
    }

    @Test func derivedAttributesAreRefused() throws {
        let location = Location(file: "Books.xcdatamodel/contents", line: 4, column: 9)
        let model = StoreModel(entities: [Entity(name: "Book", attributes: [
            Attribute(name: "pageCount", type: .integer64, location: location, derivationExpression: "pages.@count"),
        ])])
        let error = try #require(throws: PipelineError.self) { try CoreDataSchema(model) }
        #expect(error.code == .modelDerivedAttribute)
        #expect(error.location == location)
        #expect(error.message == "derived attribute 'Book.pageCount' cannot be written into a generated store: Core Data keeps it up to date with SQL triggers that call its own functions; make it a plain attribute or drop it from the model")
    }

    @Test("a to-many without inverse: the listing row's key on the listed table, as SwiftData keeps it")
    func toManyWithoutInverse() throws {
        let model = StoreModel(entities: [
            Entity(name: "A", relationships: [Relationship(name: "bs", destination: "B", isToMany: true)]),
            Entity(name: "B", relationships: [Relationship(name: "a", destination: "A")]),
        ])
        let schema = try CoreDataSchema(model)
        #expect(schema.tables[1].createStatement == "CREATE TABLE ZB ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZA INTEGER, Z1BS INTEGER )")
        #expect(schema.indexStatements == ["CREATE INDEX ZB_ZA_INDEX ON ZB (ZA)", "CREATE INDEX ZB_Z1BS_INDEX ON ZB (Z1BS)"])
    }

    /// Siblings sharing a property name, a to-one into a hierarchy, and an ordered to-many's
    /// order key: rules from Core Data stores outside the cases (not confirmed by them).
    @Test func hierarchyColumnsEntityColumnsAndOrderKeys() throws {
        let model = StoreModel(entities: [
            Entity(name: "Record", attributes: [Attribute(name: "created", type: .date)]),
            Entity(name: "Contact", parent: "Record", attributes: [
                Attribute(name: "name", type: .string), Attribute(name: "age", type: .integer16),
            ], relationships: [Relationship(name: "container", destination: "Folder", inverse: "contacts")]),
            Entity(name: "Group", parent: "Record", attributes: [Attribute(name: "name", type: .string)],
                   relationships: [Relationship(name: "container", destination: "Folder", inverse: "groups")]),
            Entity(name: "Folder", relationships: [
                Relationship(name: "contacts", destination: "Contact", inverse: "container", isToMany: true, isOrdered: true),
                Relationship(name: "groups", destination: "Group", inverse: "container", isToMany: true),
                Relationship(name: "owner", destination: "Record", inverse: nil),
            ]),
        ])
        let schema = try CoreDataSchema(model)
        #expect(schema.entities.entities.map(\.name) == ["Folder", "Record", "Contact", "Group"])
        #expect(schema.tables.map(\.createStatement) == [
            "CREATE TABLE ZFOLDER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, Z2_OWNER INTEGER )",
            "CREATE TABLE ZRECORD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAGE INTEGER, ZCONTAINER INTEGER, Z_FOK_CONTAINER INTEGER, ZCONTAINER1 INTEGER, ZCREATED TIMESTAMP, ZNAME VARCHAR, ZNAME1 VARCHAR )",
        ])
        #expect(schema.column(of: "Group", property: "container") == "ZCONTAINER1")
        #expect(schema.column(of: "Group", property: "created") == "ZCREATED")
        #expect(schema.column(of: "Contact", property: "name") == "ZNAME")
        #expect(schema.table(of: "Group")?.name == "ZRECORD")
        #expect(schema.indexStatements == [
            "CREATE INDEX ZFOLDER_ZOWNER_INDEX ON ZFOLDER (ZOWNER)",
            "CREATE INDEX ZRECORD_ZCONTAINER_INDEX ON ZRECORD (ZCONTAINER)",
            "CREATE INDEX ZRECORD_ZCONTAINER1_INDEX ON ZRECORD (ZCONTAINER1)",
            "CREATE INDEX ZRECORD_Z_ENT_INDEX ON ZRECORD (Z_ENT)",
        ])
        #expect(schema.primaryKeyRows(maxPrimaryKeys: ["Record": 7]).map(\.description) ==
            ["1\tFolder\t0\t0", "2\tRecord\t0\t7", "3\tContact\t2\t0", "4\tGroup\t2\t0"])
    }

    @Test func metadataPlistDecodesBackWithEveryKey() throws {
        let model = try CoreDataModelReader.parse(Data(CoreDataCases.groceryDudeXML.utf8), file: "contents")
        let metadata = CoreDataMetadata(model: model, extra: [
            "DefaultDataImported": .bool(true), "Source": .text("grocery.csv"), "Rows": .integer(87),
        ])
        let data = try metadata.binaryPropertyList()
        #expect(data.starts(with: Array("bplist00".utf8)))
        let decoded = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(Set(decoded.keys) == [
            "NSStoreType", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion",
            "NSStoreModelVersionIdentifiers", "NSPersistenceFrameworkVersion", "_NSAutoVacuumLevel",
            "DefaultDataImported", "Source", "Rows", "NSStoreModelVersionHashesDigest",
        ])
        // SwiftData's framework versions add the checksum too.
        let later = CoreDataMetadata(model: model, frameworkVersion: CoreDataMetadata.swiftDataFrameworkVersion)
        let keys = try #require(try PropertyListSerialization.propertyList(from: later.binaryPropertyList(), format: nil) as? [String: Any]).keys
        #expect(keys.contains("NSStoreModelVersionChecksumKey") && keys.contains("NSStoreModelVersionHashesDigest"))
        #expect(decoded["NSStoreType"] as? String == "SQLite")
        #expect(decoded["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(decoded["NSStoreModelVersionIdentifiers"] as? [String] == [""])
        #expect(decoded["NSPersistenceFrameworkVersion"] as? Int == 1044)
        #expect(decoded["_NSAutoVacuumLevel"] as? String == "2")
        #expect(decoded["DefaultDataImported"] as? Bool == true)
        #expect(decoded["Source"] as? String == "grocery.csv")
        #expect(decoded["Rows"] as? Int == 87)
        let hashes = try #require(decoded["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(hashes.mapValues { $0.base64EncodedString() } == CoreDataCases.groceryDude.hashes)
        // The same metadata always encodes to the same bytes (reproducible stores).
        #expect(try metadata.binaryPropertyList() == data)
    }

    @Test func metadataRefusesCoreDataKeysAndNulls() throws {
        let model = StoreModel(entities: [Entity(name: "A")])
        let reserved = try #require(throws: PipelineError.self) {
            try CoreDataMetadata(model: model, extra: ["NSStoreType": .text("XML")]).binaryPropertyList()
        }
        #expect(reserved.code == .pipelineReservedMetadataKey)
        #expect(reserved.message == "'NSStoreType' is a key Core Data writes itself; choose another metadata key")
        let null = try #require(throws: PipelineError.self) {
            try CoreDataMetadata(model: model, extra: ["Imported": .null]).binaryPropertyList()
        }
        #expect(null.code == .pipelineEmptyValue)
        #expect(null.message == "metadata key 'Imported' has no value; a property list cannot hold a null")
    }

    @Test func nameBasedUUIDs() throws {
        // RFC 4122 version 5 vector: the DNS namespace and "www.example.com".
        let dns = try #require(UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))
        #expect(CoreDataMetadata.nameBasedUUID(namespace: dns, name: Array("www.example.com".utf8)).uuidString
            == "2ED6657D-E927-568B-95E1-2665A8AEA6A2")
        let a = CoreDataMetadata.storeUUID(from: Array("inputs v1".utf8))
        #expect(a == CoreDataMetadata.storeUUID(from: Array("inputs v1".utf8)))
        #expect(a != CoreDataMetadata.storeUUID(from: Array("inputs v2".utf8)))
        #expect(a == a.uppercased() && UUID(uuidString: a) != nil)
        #expect(Array(a)[14] == "5")
    }
}

extension CoreDataSchemaTests {
    /// The join tables of Apple's Contacts store, restated in small: two many-to-many pairs
    /// into Group, whose second join column is numbered because the first took its name.
    @Test func joinColumnsAreUniqueAcrossTheStore() throws {
        let model = StoreModel(entities: [
            Entity(name: "Record"),
            Entity(name: "AbstractGroup", parent: "Record", relationships: [
                Relationship(name: "parentGroups", destination: "Group", inverse: "childGroups", isToMany: true),
            ]),
            Entity(name: "Group", parent: "AbstractGroup", relationships: [
                Relationship(name: "childGroups", destination: "AbstractGroup", inverse: "parentGroups", isToMany: true),
                Relationship(name: "contacts", destination: "Contact", inverse: "parentGroups", isToMany: true),
            ]),
            Entity(name: "Contact", parent: "Record", relationships: [
                Relationship(name: "parentGroups", destination: "Group", inverse: "contacts", isToMany: true),
            ]),
        ])
        let schema = try CoreDataSchema(model)
        #expect(schema.entities.entities.map(\.name) == ["Record", "AbstractGroup", "Group", "Contact"])
        #expect(schema.joinTables.map(\.createStatement) == [
            "CREATE TABLE Z_2PARENTGROUPS ( Z_2CHILDGROUPS INTEGER, Z_3PARENTGROUPS INTEGER, PRIMARY KEY (Z_2CHILDGROUPS, Z_3PARENTGROUPS) )",
            "CREATE TABLE Z_4PARENTGROUPS ( Z_4CONTACTS INTEGER, Z_3PARENTGROUPS1 INTEGER, PRIMARY KEY (Z_4CONTACTS, Z_3PARENTGROUPS1) )",
        ])
    }

    @Test func selfInverseManyToManyAndOrderedJoin() throws {
        let model = StoreModel(entities: [
            Entity(name: "Person", relationships: [
                Relationship(name: "friends", destination: "Person", inverse: "friends", isToMany: true),
                Relationship(name: "playlists", destination: "Playlist", inverse: "listeners", isToMany: true),
            ]),
            Entity(name: "Playlist", relationships: [
                Relationship(name: "listeners", destination: "Person", inverse: "playlists", isToMany: true, isOrdered: true),
            ]),
        ])
        let schema = try CoreDataSchema(model)
        #expect(schema.joinTables.map(\.createStatement) == [
            "CREATE TABLE Z_1FRIENDS ( Z_1FRIENDS INTEGER, Z_1FRIENDS1 INTEGER, PRIMARY KEY (Z_1FRIENDS, Z_1FRIENDS1) )",
            "CREATE TABLE Z_1PLAYLISTS ( Z_1LISTENERS INTEGER, Z_2PLAYLISTS INTEGER, Z_FOK_1LISTENERS INTEGER, PRIMARY KEY (Z_1LISTENERS, Z_2PLAYLISTS) )",
        ])
        #expect(try CoreDataCaseTests.sqliteSchema(after: schema.statements()) == schema.statements())
    }
}
