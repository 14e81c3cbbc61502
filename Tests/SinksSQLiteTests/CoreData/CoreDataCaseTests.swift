import Foundation
import Pipeline
import Testing
@testable import SinksSQLite
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

/// Every store Core Data wrote in the cases: our hashes, DDL and Z_PRIMARYKEY rows must be its own.
@Suite("Core Data cases")
struct CoreDataCaseTests {
    static func model(_ c: CoreDataCase) throws -> StoreModel {
        if let xml = c.modelXML {
            return try CoreDataModelReader.parse(Data(xml.utf8), file: "\(c.name).xcdatamodel/contents")
        }
        return try #require(c.model)
    }

    static let names = CoreDataCases.all.map(\.name)

    static func named(_ name: String) throws -> CoreDataCase {
        try #require(CoreDataCases.all.first { $0.name == name })
    }

    @Test("entity version hashes", arguments: names)
    func hashes(_ name: String) throws {
        let c = try Self.named(name)
        let hashes = CoreDataVersionHashes.hashes(for: try Self.model(c))
        #expect(hashes.mapValues { $0.base64EncodedString() } == c.hashes)
    }

    @Test("schema statements", arguments: names)
    func schema(_ name: String) throws {
        let c = try Self.named(name)
        let ours = try CoreDataSchema(try Self.model(c)).statements(modelCache: c.modelCache)
        let theirs = c.schema.split(separator: "\n").map(String.init)
        switch c.comparison {
        case .exact:
            #expect(ours == theirs)
        case .sameStatements:
            #expect(ours.sorted() == theirs.sorted())
        case .sameColumns:
            #expect(ours.map(Self.sortingColumns).sorted() == theirs.map(Self.sortingColumns).sorted())
        }
        // And SQLite itself takes them and keeps them as written.
        #expect(try Self.sqliteSchema(after: ours) == ours)
    }

    @Test("Z_PRIMARYKEY rows", arguments: names)
    func primaryKeys(_ name: String) throws {
        let c = try Self.named(name)
        let rows = try CoreDataSchema(try Self.model(c)).primaryKeyRows(maxPrimaryKeys: c.rowCounts)
        let expected = c.entities.map { number, entity, parent in
            CoreDataSchema.PrimaryKeyRow(entity: number, name: entity, superEntity: parent,
                                         max: parent == 0 ? c.rowCounts[entity] ?? 0 : 0)
        }
        #expect(rows == expected)
    }

    @Test("version identifiers", arguments: names)
    func versionIdentifiers(_ name: String) throws {
        let c = try Self.named(name)
        #expect(try Self.model(c).versionIdentifiers == c.versionIdentifiers)
    }

    @Test func recipesColumnOrderIsTheModernOne() throws {
        let schema = try CoreDataSchema(CoreDataCases.recipesModel)
        #expect(schema.tables[2].createStatement ==
            "CREATE TABLE ZRECIPE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZIMAGE INTEGER, ZTYPE INTEGER, ZINSTRUCTIONS VARCHAR, ZNAME VARCHAR, ZOVERVIEW VARCHAR, ZPREPTIME VARCHAR, ZTHUMBNAILIMAGE BLOB )")
    }

    @Test func manyToManyHashesMatchXcodesCompiledModel() throws {
        let model = try CoreDataModelReader.parse(Data(CoreDataCases.samplePlusV3XML.utf8), file: "SampleModel3.xcdatamodel/contents")
        #expect(CoreDataVersionHashes.hashes(for: model).mapValues { $0.base64EncodedString() } == CoreDataCases.samplePlusV3Hashes)
    }

    /// Unconfirmed by the cases: the join table follows the rule seen in other Core Data stores.
    @Test func manyToManyJoinTable() throws {
        let model = try CoreDataModelReader.parse(Data(CoreDataCases.samplePlusV3XML.utf8), file: "SampleModel3.xcdatamodel/contents")
        let schema = try CoreDataSchema(model)
        #expect(schema.entities.entities.map(\.name) == ["Car", "SportCar", "LuxuryCar", "Maker", "Person"])
        #expect(schema.statements() == [
            "CREATE TABLE ZCAR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCREATEDBY INTEGER, ZOWNER INTEGER, ZISLIMITEDEDITION INTEGER, ZMARKEDFORDELETIONASOF TIMESTAMP, ZMODEL VARCHAR, ZNUMBERPLATE VARCHAR )",
            "CREATE TABLE Z_1PREVIOUSOWNERS ( Z_1PREVIOUSCARS INTEGER, Z_5PREVIOUSOWNERS INTEGER, PRIMARY KEY (Z_1PREVIOUSCARS, Z_5PREVIOUSOWNERS) )",
            "CREATE TABLE ZMAKER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            "CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZUPDATEDAT TIMESTAMP, ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR )",
            "CREATE INDEX ZCAR_ZCREATEDBY_INDEX ON ZCAR (ZCREATEDBY)",
            "CREATE INDEX ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER)",
            "CREATE INDEX ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT)",
            "CREATE INDEX Z_1PREVIOUSOWNERS_Z_5PREVIOUSOWNERS_INDEX ON Z_1PREVIOUSOWNERS (Z_5PREVIOUSOWNERS, Z_1PREVIOUSCARS)",
            "CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_Maker_UNIQUE_name ON ZMAKER (ZNAME COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)",
            CoreDataSchema.primaryKeyTable,
            CoreDataSchema.metadataTable,
        ])
        let join = try #require(schema.joinTables.first)
        #expect(join.entity == "Car" && join.relationship == "previousOwners")
        #expect(join.inverseEntity == "Person" && join.inverseRelationship == "previousCars")
        #expect(try Self.sqliteSchema(after: schema.statements()) == schema.statements())
    }

    /// swiftdata-metacocktails' join table, restated: Cocktail (1).garnish <-> Garnish (2).cocktails
    /// is Z_1GARNISH, its columns named after the relationship pointing at each side's rows.
    @Test func manyToManyJoinTableAsSwiftDataWroteIt() throws {
        let model = StoreModel(entities: [
            Entity(name: "Cocktail", attributes: [Attribute(name: "name", type: .string)],
                   relationships: [Relationship(name: "garnish", destination: "Garnish", inverse: "cocktails", isToMany: true)]),
            Entity(name: "Garnish", attributes: [Attribute(name: "name", type: .string)],
                   relationships: [Relationship(name: "cocktails", destination: "Cocktail", inverse: "garnish", isToMany: true)]),
        ])
        let statements = try CoreDataSchema(model).statements()
        #expect(statements.contains("CREATE TABLE Z_1GARNISH ( Z_1COCKTAILS INTEGER, Z_2GARNISH INTEGER, PRIMARY KEY (Z_1COCKTAILS, Z_2GARNISH) )"))
        #expect(statements.contains("CREATE INDEX Z_1GARNISH_Z_2GARNISH_INDEX ON Z_1GARNISH (Z_2GARNISH, Z_1COCKTAILS)"))
    }

    /// Columns after Z_OPT in name order, so that only the set of columns is compared.
    static func sortingColumns(_ statement: String) -> String {
        guard statement.hasPrefix("CREATE TABLE Z"), !statement.hasPrefix("CREATE TABLE Z_"),
              let open = statement.range(of: "( "), let close = statement.range(of: " )", options: .backwards)
        else { return statement }
        let columns = statement[open.upperBound..<close.lowerBound].components(separatedBy: ", ")
        return statement[..<open.upperBound] + (columns.prefix(3) + columns.dropFirst(3).sorted()).joined(separator: ", ") + " )"
    }

    /// Runs the statements in a new in-memory SQLite database and returns what sqlite_master keeps.
    static func sqliteSchema(after statements: [String]) throws -> [String] {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false)
        for sql in statements { try connection.execute(sql) }
        return try connection.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").map { $0[0].displayText }
    }
}
