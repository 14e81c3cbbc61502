import Foundation
import Diagnostics
import Pipeline
import Testing
import SQLite
import StoreTools
@testable import CoreDataFormat
import PropertyLists
@testable import SwiftDataModel

/// Four more real SwiftData stores, found in public repositories, with the `@Model` source each
/// was made from, restated as its stored properties (and a few computed ones, which must be left
/// out). The model read from the source must give each store's hashes, digests, version
/// identifiers and schema exactly.
@Suite("SwiftData stores from their source, found")
struct SwiftDataFoundStoresTests {
    /// github.com/nobelnrj/myhome, MyHomeTests/Resources/MyHomeV2Seed.store at 9477f4c, from
    /// MyHomeApp/Persistence/Schema/SchemaV2.swift: classes inside a VersionedSchema (2.0.0),
    /// Decimal, a many-to-many whose inverse is declared on one side only. SchemaV1 is in the
    /// same source: the newest version is the model.
    static let myHomeV2Source = """
        import SwiftData
        import Foundation

        enum SchemaV1: VersionedSchema {
            static let versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [SchemaV1.Expense.self] }

            @Model
            final class Expense {
                var id: UUID = UUID()
                var amount: Decimal = Decimal(0)
                var currencyCode: String = "INR"
                var date: Date = Date()
                var note: String? = nil
                var createdAt: Date = Date()
                var updatedAt: Date = Date()
            }
        }

        enum SchemaV2: VersionedSchema {
            static let versionIdentifier = Schema.Version(2, 0, 0)

            static var models: [any PersistentModel.Type] {
                [SchemaV2.Expense.self, SchemaV2.Category.self]
            }

            @Model
            final class Category {
                var id: UUID = UUID()
                var name: String? = nil
                var symbolName: String? = nil
                var sortOrder: Int = 0
                var monthlyBudget: Decimal? = nil
                var currencyCode: String = "INR"
                var createdAt: Date = Date()
                @Relationship(deleteRule: .nullify)
                var expenses: [SchemaV2.Expense] = []
            }

            @Model
            final class Expense {
                var id: UUID = UUID()
                var amount: Decimal = Decimal(0)
                var currencyCode: String = "INR"
                var date: Date = Date()
                var note: String? = nil
                var createdAt: Date = Date()
                var updatedAt: Date = Date()
                @Relationship(deleteRule: .nullify, inverse: \\SchemaV2.Category.expenses)
                var categories: [SchemaV2.Category] = []
            }
        }
        """

    /// github.com/Hamanto-Studio/heritg, ios/HeritgTests/Fixtures/swiftdata-1.0.0.store at
    /// 203d69a, written by the app's code at b31ce48 (ios/Heritg/FamilyModels.swift): defaults
    /// that are expressions, external storage, enum-typed computed properties with get/set.
    static let heritgSource = """
        import SwiftData
        import Foundation

        enum PersonGender: String, Codable { case female, male, unspecified }

        @Model
        final class FamilyTree {
            var id: String = ""
            var title: String = ""
            var createdAt: Date = Date.now
            var updatedAt: Date = Date.now
            var lastSelectedPersonID: String?
        }

        @Model
        final class Person {
            var id: String = ""
            var treeID: String = ""
            var displayName: String = ""
            var genderRaw: String = PersonGender.unspecified.rawValue
            var createdAt: Date = Date.now
            var birthDate: Date?
            var deathDate: Date?
            var birthDatePrecisionRaw: String = BirthDatePrecision.exact.rawValue
            var notes: String = ""
            var addressLine: String = ""
            var city: String = ""
            var province: String = ""
            var country: String = ""
            var postalCode: String = ""
            @Attribute(.externalStorage) var profilePhotoData: Data? = nil

            var gender: PersonGender {
                get { PersonGender(rawValue: genderRaw) ?? .unspecified }
                set { genderRaw = newValue.rawValue }
            }
            var age: Int? { nil }
        }

        @Model
        final class FamilyRelationship {
            var id: String = ""
            var treeID: String = ""
            var fromPersonID: String = ""
            var toPersonID: String = ""
            var kindRaw: String = RelationshipKind.parent.rawValue
            var subtypeRaw: String = ""
            var createdAt: Date = Date.now
            var marriageDate: Date?

            var marriageYear: String? {
                guard let marriageDate else { return nil }
                return String(Calendar.current.component(.year, from: marriageDate))
            }
        }
        """

    /// github.com/haridass-pdx/MP_Soap_Names, MP_Soap_Names/Data/default.store at 702d995
    /// (20,870 names), from Model/Name.swift and Xcode's template Model/Item.swift.
    static let soapNamesSource = """
        import SwiftData
        import Foundation

        @Model
        final class Item {
            var timestamp: Date
            init(timestamp: Date) { self.timestamp = timestamp }
        }

        @Model
        final class Name {
            var dbid: String
            var lastname: String
            var firstname: String
            var fullname: String {
                return "\\(firstname) \\(lastname)"
            }
            var gender: String
            var dob: Date?
             var startDate: Date?
            var endDate: Date?
            var count: Int
            var dbSource: String
        }
        """

    /// nobelnrj/myhome at 9477f4c: MyHomeTests/Resources/MyHomeV2Seed.store (framework 1526).
    static let myHomeV2Hashes = [
        "Category": "H7KMTVXjT1KGAPGGtWASieFC5PiCQF5ZIhp1YWFt7vE=",
        "Expense": "on03vLjVttxTZvvZk0Vtiw9yHnEmXZEVueLounb5Ka4=",
    ]
    static let myHomeV2Checksum = "2zJRcZGYMJKQ/hfDtrAv0S9lUjlrxG3czTAKbMqEesI="
    static let myHomeV2Digest = "TTHSJOmB5ngVF+Z+vOG4UqyeduCiRYuIJKCgl/rUwkuZEq1jFrrX0lcm//BKqqfG5U0O5WQk0H4B2VzSV51EfQ=="
    static let myHomeV2Identifiers = ["2.0.0"]
    static let myHomeV2DDL: [String] = [
        "CREATE TABLE ZCATEGORY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSORTORDER INTEGER, ZCREATEDAT TIMESTAMP, ZMONTHLYBUDGET DECIMAL, ZCURRENCYCODE VARCHAR, ZNAME VARCHAR, ZSYMBOLNAME VARCHAR, ZID BLOB )",
        "CREATE TABLE Z_1EXPENSES ( Z_1CATEGORIES INTEGER, Z_2EXPENSES INTEGER, PRIMARY KEY (Z_1CATEGORIES, Z_2EXPENSES) )",
        "CREATE TABLE ZEXPENSE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCREATEDAT TIMESTAMP, ZDATE TIMESTAMP, ZUPDATEDAT TIMESTAMP, ZAMOUNT DECIMAL, ZCURRENCYCODE VARCHAR, ZNOTE VARCHAR, ZID BLOB )",
        "CREATE INDEX Z_1EXPENSES_Z_2EXPENSES_INDEX ON Z_1EXPENSES (Z_2EXPENSES, Z_1CATEGORIES)",
    ] + SwiftDataStoreDDL.bookkeeping
    /// nobelnrj/myhome at 33a81a5: MyHomeTests/Resources/MyHomeV1Seed.store (framework 1526).
    static let myHomeV1Hashes = [
        "Expense": "nMVEcGoT/FHNRdi3dI4/AYVwK3h6DlH+iYKLWMdpXgk=",
    ]
    static let myHomeV1Checksum = "/r5Xny3uPG/uuYy/N6QFQe9nR8FAFz4YtAoFby3P4NM="
    static let myHomeV1Digest = "ZQszVACiFQkPDG5dCzT7Y0Ti1SS/1JJs4q86Ug6bem75Nr3tIusJSZh8mHMfRBShHyZFMnLCWMN9+0V6xPGPaA=="
    static let myHomeV1Identifiers = ["1.0.0"]
    static let myHomeV1DDL: [String] = [
        "CREATE TABLE ZEXPENSE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCREATEDAT TIMESTAMP, ZDATE TIMESTAMP, ZUPDATEDAT TIMESTAMP, ZAMOUNT DECIMAL, ZCURRENCYCODE VARCHAR, ZNOTE VARCHAR, ZID BLOB )",
    ] + SwiftDataStoreDDL.bookkeeping
    /// Hamanto-Studio/heritg at 203d69a: ios/HeritgTests/Fixtures/swiftdata-1.0.0.store (framework 1522).
    static let heritgHashes = [
        "FamilyRelationship": "3ZSHFgu5GUji4Kws3OhAA+LmT0O0bl+3gbB+DrXlAYw=",
        "FamilyTree": "b7+qtjbcsFfHQY/HejsgZbzZ68zj7Rn+SUh2U265PGE=",
        "Person": "VBF3GxYZO2puXfu7bSaVXLoY8f9+cBUljqLnMNkLfac=",
    ]
    static let heritgChecksum = "/LC/PLhBj4XqwpvlaoCSaGbVw7xlw8QyLHkwC/VsjhI="
    static let heritgDigest = "FQ8dp76lj0qljrN8XF24Kk+ZfL6JremC5f+ax/WTtJRo9FVXk1P2CPN1w1FcHFeo6JEn9gHSMaWpHTb84thoew=="
    static let heritgIdentifiers = ["1.0.0"]
    static let heritgDDL: [String] = [
        "CREATE TABLE ZFAMILYRELATIONSHIP ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCREATEDAT TIMESTAMP, ZMARRIAGEDATE TIMESTAMP, ZFROMPERSONID VARCHAR, ZID VARCHAR, ZKINDRAW VARCHAR, ZSUBTYPERAW VARCHAR, ZTOPERSONID VARCHAR, ZTREEID VARCHAR )",
        "CREATE TABLE ZFAMILYTREE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCREATEDAT TIMESTAMP, ZUPDATEDAT TIMESTAMP, ZID VARCHAR, ZLASTSELECTEDPERSONID VARCHAR, ZTITLE VARCHAR )",
        "CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBIRTHDATE TIMESTAMP, ZCREATEDAT TIMESTAMP, ZDEATHDATE TIMESTAMP, ZADDRESSLINE VARCHAR, ZBIRTHDATEPRECISIONRAW VARCHAR, ZCITY VARCHAR, ZCOUNTRY VARCHAR, ZDISPLAYNAME VARCHAR, ZGENDERRAW VARCHAR, ZID VARCHAR, ZNOTES VARCHAR, ZPOSTALCODE VARCHAR, ZPROVINCE VARCHAR, ZTREEID VARCHAR, ZPROFILEPHOTODATA BLOB )",
    ] + SwiftDataStoreDDL.bookkeeping
    /// haridass-pdx/MP_Soap_Names at 702d995: MP_Soap_Names/Data/default.store (framework 1526).
    static let soapNamesHashes = [
        "Item": "tz+EqCETrYpwWl4jr1szrkJaRxICg51GevZadC+AOhk=",
        "Name": "x8IgsWvCC0ibk9alGtR6g3tNsD34iY3XwABHpI8F0J0=",
    ]
    static let soapNamesChecksum = "8JLDETeSXDuctn6Zru92lsa2Fq9qRTikcJO8bPqvjGM="
    static let soapNamesDigest = "rwQUWEH0UMqxmhCOrPqxpEmTS30hnyOcOXaGK50WkdHTT40derI2pItp1aAa03K2GgwA5MovKYMLSFrxGERrkQ=="
    static let soapNamesIdentifiers = ["1.0.0"]
    static let soapNamesDDL: [String] = [
        "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTIMESTAMP TIMESTAMP )",
        "CREATE TABLE ZNAME ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOUNT INTEGER, ZDOB TIMESTAMP, ZENDDATE TIMESTAMP, ZSTARTDATE TIMESTAMP, ZDBSOURCE VARCHAR, ZDBID VARCHAR, ZFIRSTNAME VARCHAR, ZGENDER VARCHAR, ZLASTNAME VARCHAR )",
    ] + SwiftDataStoreDDL.bookkeeping

    static func check(_ source: String, hashes: [String: String], checksum: String, digest: String, identifiers: [String],
                      ddl: [String]) throws {
        let model = try SwiftDataModelReader.parse([(source, "Models.swift")])
        #expect(CoreDataVersionHashes.hashes(for: model).mapValues { $0.base64EncodedString() } == hashes)
        let metadata = CoreDataMetadata(model: model)
        #expect(metadata.checksum == checksum && metadata.hashesDigest == digest)
        #expect(model.versionIdentifiers == identifiers)
        #expect(try CoreDataSchema(model).statements(modelCache: true) + CoreDataSchema.historyStatements == ddl)
    }

    @Test("nobelnrj/myhome V2: a VersionedSchema's newest version, Decimal, a many-to-many")
    func myHomeV2() throws {
        try Self.check(Self.myHomeV2Source, hashes: Self.myHomeV2Hashes, checksum: Self.myHomeV2Checksum,
                       digest: Self.myHomeV2Digest, identifiers: Self.myHomeV2Identifiers, ddl: Self.myHomeV2DDL)
    }

    @Test("inspect: the myhome V2 store rebuilt from its facts (schema, history entities, metadata) matches its @Model source")
    func inspectRealStoreWithHistory() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("myhome-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let connection = try SQLiteConnection(path: url.path, readOnly: false)
            for sql in Self.myHomeV2DDL { try connection.execute(sql) }
            // Its Z_PRIMARYKEY rows and metadata, as the store has them (framework 1526).
            try connection.execute("INSERT INTO Z_PRIMARYKEY VALUES (1, 'Category', 0, 1), (2, 'Expense', 0, 1), "
                                       + "(16001, 'CHANGE', 0, 2), (16002, 'TRANSACTION', 0, 1), (16003, 'TRANSACTIONSTRING', 0, 1)")
            let plist = BinaryPropertyList.encode(.dictionary([
                "NSStoreType": .string("SQLite"), "NSPersistenceFrameworkVersion": .integer(1526),
                "NSStoreModelVersionHashes": .dictionary(Self.myHomeV2Hashes.mapValues { .data(Array(Data(base64Encoded: $0)!)) }),
                "NSStoreModelVersionHashesVersion": .integer(3), "NSStoreModelVersionIdentifiers": .array([.string("2.0.0")]),
                "NSStoreModelVersionChecksumKey": .string(Self.myHomeV2Checksum), "NSStoreModelVersionHashesDigest": .string(Self.myHomeV2Digest),
                "_NSAutoVacuumLevel": .string("2"),
            ]))
            let insert = try connection.prepare("INSERT INTO Z_METADATA VALUES (1, '2AFB5D7F-4757-41AD-BB27-42B14BAED045', ?1)")
            try insert.bind(Value.binary(Array(plist)), at: 1)
            try insert.run()
        }  // the connection closes with its statements

        let inspection = try StoreInspection(at: url)
        #expect(inspection.entities.filter(\.isCoreDataHistory).map(\.name) == ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"])
        let comparison = StoreModelComparison(store: inspection, model: try SwiftDataModelReader.parse([(Self.myHomeV2Source, "Schema.swift")]))
        #expect(comparison.matches, "\(comparison.hashes) \(comparison.primaryKeys)")
        #expect(comparison.hashes.map(\.name) == ["Category", "Expense"])
    }

    @Test("nobelnrj/myhome V1: the store of the older schema version, from its source alone")
    func myHomeV1() throws {
        let v1 = String(Self.myHomeV2Source.prefix(upTo: Self.myHomeV2Source.range(of: "enum SchemaV2")!.lowerBound))
        try Self.check(v1, hashes: Self.myHomeV1Hashes, checksum: Self.myHomeV1Checksum,
                       digest: Self.myHomeV1Digest, identifiers: Self.myHomeV1Identifiers, ddl: Self.myHomeV1DDL)
    }

    @Test("Hamanto-Studio/heritg: defaults that are expressions, external storage, computed properties left out")
    func heritg() throws {
        try Self.check(Self.heritgSource, hashes: Self.heritgHashes, checksum: Self.heritgChecksum,
                       digest: Self.heritgDigest, identifiers: Self.heritgIdentifiers, ddl: Self.heritgDDL)
    }

    @Test("haridass-pdx/MP_Soap_Names: plain types, a computed property, Xcode's template Item")
    func soapNames() throws {
        try Self.check(Self.soapNamesSource, hashes: Self.soapNamesHashes, checksum: Self.soapNamesChecksum,
                       digest: Self.soapNamesDigest, identifiers: Self.soapNamesIdentifiers, ddl: Self.soapNamesDDL)
    }
}
