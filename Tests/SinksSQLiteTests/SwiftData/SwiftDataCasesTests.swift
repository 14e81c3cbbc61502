import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import CoreDataFormat
@testable import SwiftDataModel

/// Two real SwiftData stores of ../shared/coredata/cases, each with the `@Model` source it was
/// made from: the model read from that source must give the store's entity hashes, digests and
/// schema exactly. The sources are restated here as their stored properties and the value types
/// they use (methods and conformances left out; the cases' README.txt has the originals).
@Suite("SwiftData stores from their source")
struct SwiftDataCasesTests {
    /// swiftdata-metacocktails: github.com/MatthewHunt84/MetaCocktailsSwiftData at 3d81022,
    /// PreloadedCocktails.store (framework 1414). Composite structs and enums (with raw values,
    /// without), a many-to-many, a to-many and a to-one without inverse, #Index and #Unique.
    static let metaCocktailsSource = """
        import SwiftData

        @Model
        class Cocktail: Equatable, Hashable, Identifiable, Codable {
            #Index<Cocktail>([\\.cocktailName], [\\.collectionName], [\\.cocktailName, \\.collectionName])
            var id = UUID()
            @Attribute(.unique) var cocktailName: String
            var glasswareType: Glassware
            @Relationship(deleteRule: .nullify, inverse: \\Garnish.cocktails) var garnish: [Garnish]
            var ice: Ice?
            var author: Author?
            @Relationship(deleteRule: .cascade) var spec: [Ingredient]
            var buildOrder: Build?
            var notes: String?
            @Transient var tags: Tags = Tags()
            var compiledTags: Tags = Tags()
            var variation: Variation?
            var variationName: String?
            var collection: CocktailCollection?
            var isCustomCocktail: Bool
            var collectionName: String
            var titleCocktail: Bool?
            var favorite: Bool
            var historicSpec: HistoricSpec?

            enum CodingKeys: CodingKey { case id, cocktailName }
        }

        @Model
        class Garnish: Codable, Hashable {
            #Unique<Garnish>([\\.name])
            var name: String
            var cocktails: [Cocktail]?
        }

        @Model
        class Ingredient: Codable, Hashable {
            var ingredientBase: IngredientBase
            var id: UUID
            var value: Double
            var unit: MeasurementUnit
        }

        @Model
        class IngredientBase: Codable, Hashable {
            #Unique<IngredientBase>([\\.name])
            var id: UUID
            var name: String
            var info: String?
            var tags: Tags?
            var prep: Prep? = nil
            var isCustom: Bool = false
            var umbrellaCategory: String
            var baseCategory: String
            var specialtyCategory: String
        }

        struct Author: Codable, Hashable { var id = UUID(); var person: String?; var place: String?; var year: String? }
        struct Build: Codable, Hashable { var instructions: [Instruction] }
        struct Instruction: Codable, Hashable { var id = UUID(); var step: Int; var method: String }
        struct Tags: Codable, Hashable {
            var flavors: [Flavor]?
            var profiles: [Profile]?
            var styles: [Style]?
            var booze: [Booze]?
            var nA: [NAIngredients]?
        }
        struct Booze: Codable, Hashable { var ingredientType: IngredientType; var name: String }
        struct NAIngredients: Codable, Hashable { var ingredientType: IngredientType; var name: String }
        enum IngredientType: Codable, Hashable { case syrups(String), juices(String) }
        struct Prep: Codable, Hashable { var id = UUID(); var prepIngredientName: String; var prepRecipe: [Instruction] }
        enum Glassware: String, Codable { case coupe = "Coupe", rocks = "Rocks" }
        enum Ice: String, Codable { case bigRock = "Big Rock", none = "" }
        enum Variation: String, Codable { case daiquiri = "Daiquiri" }
        enum MeasurementUnit: String, Codable { case fluidOunces = "oz", none = "" }
        enum Flavor: String, Codable { case lime = "Lime" }
        enum Profile: String, Codable { case dry = "Dry" }
        enum Style: String, Codable { case sour = "Sour" }
        enum CocktailCollection: Int, Codable { case all, deathAndCo, williamsAndGraham, originals, milkAndHoney, custom, house }
        enum HistoricSpec: Codable {
            case algonquin, alaska, betweenTheSheets, bloodAndSand, bramble, bobbyBurns, chocolateCocktail, elDiablo, fogCutter,
                 ginFizz, gimlet, silverFizz, hotToddy, mexicanFiringSquad, modernCocktail
        }
        """

    /// swiftdata-cheftime: github.com/jdeda/iOS-ChefTime at aac1b60, mock.store (framework
    /// 1327). Nested @Model classes, an enum without raw values declared in an extension, `[Data]`.
    static let chefTimeSource = """
        import SwiftData

        @Model
        final class SDFolder: Identifiable, Equatable {
          @Attribute(.unique)
          let id: UUID
          var name: String
          var imageData: Data?
          @Relationship(deleteRule: .cascade, inverse: \\SDFolder.parentFolder)
          var folders: [SDFolder]
          @Relationship(deleteRule: .cascade, inverse: \\SDRecipe.parentFolder)
          var recipes: [SDRecipe]
          var folderType: Folder.FolderType
          var parentFolder: SDFolder?
        }

        @Model
        final class SDRecipe: Identifiable, Equatable {
          @Attribute(.unique)
          let id: UUID
          var name: String = ""
          var imageData: [Data] = []
          @Relationship(deleteRule: .cascade, inverse: \\SDAboutSection.parentRecipe)
          var aboutSections: [SDAboutSection] = []
          @Relationship(deleteRule: .cascade, inverse: \\SDIngredientSection.parentRecipe)
          var ingredientSections: [SDIngredientSection] = []
          @Relationship(deleteRule: .cascade, inverse: \\SDStepSection.parentRecipe)
          var stepSections: [SDStepSection] = []
          weak var parentFolder: SDFolder?

          @Model
          final class SDAboutSection: Identifiable, Equatable {
            @Attribute(.unique)
            let id: UUID
            var name: String = ""
            var description_: String = ""
            weak var parentRecipe: SDRecipe?
          }

          @Model
          final class SDIngredientSection: Identifiable, Equatable {
            @Attribute(.unique)
            let id: UUID
            var name: String = ""
            @Relationship(deleteRule: .cascade, inverse: \\SDIngredient.parentIngredientSection)
            var ingredients: [SDIngredient] = []
            weak var parentRecipe: SDRecipe?

            @Model
            final class SDIngredient: Identifiable, Equatable {
              @Attribute(.unique)
              let id: UUID
              var name: String = ""
              var amount: Double = 0.0
              var measure: String = ""
              weak var parentIngredientSection: SDIngredientSection?
            }
          }

          @Model
          final class SDStepSection: Identifiable, Equatable {
            @Attribute(.unique)
            let id: UUID
            var name: String = ""
            @Relationship(deleteRule: .cascade, inverse: \\SDStep.parentStepSection)
            var steps: [SDStep] = []
            weak var parentRecipe: SDRecipe?

            @Model
            final class SDStep: Identifiable, Equatable {
              @Attribute(.unique)
              let id: UUID
              var description_: String = ""
              var imageData: [Data] = []
              weak var parentStepSection: SDStepSection?
            }
          }
        }

        extension Folder {
          enum FolderType: Equatable, Codable, CaseIterable { case systemAll, systemStandard, systemRecentlyDeleted, user }
        }
        """

    /// swiftdata-metacocktails: its sqlite_master, in order.
    static let metaCocktailsDDL: [String] = [
        "CREATE TABLE ZCOCKTAIL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOLLECTION INTEGER, ZFAVORITE INTEGER, ZISCUSTOMCOCKTAIL INTEGER, ZTITLECOCKTAIL INTEGER, ZPERSON VARCHAR, ZPLACE VARCHAR, ZYEAR VARCHAR, ZCOCKTAILNAME VARCHAR, ZCOLLECTIONNAME VARCHAR, ZGLASSWARETYPE VARCHAR, ZALGONQUIN VARCHAR, ZALASKA VARCHAR, ZBETWEENTHESHEETS VARCHAR, ZBLOODANDSAND VARCHAR, ZBRAMBLE VARCHAR, ZBOBBYBURNS VARCHAR, ZCHOCOLATECOCKTAIL VARCHAR, ZELDIABLO VARCHAR, ZFOGCUTTER VARCHAR, ZGINFIZZ VARCHAR, ZGIMLET VARCHAR, ZSILVERFIZZ VARCHAR, ZHOTTODDY VARCHAR, ZMEXICANFIRINGSQUAD VARCHAR, ZMODERNCOCKTAIL VARCHAR, ZICE VARCHAR, ZNOTES VARCHAR, ZVARIATION VARCHAR, ZVARIATIONNAME VARCHAR, ZID BLOB, ZID1 BLOB, ZINSTRUCTIONS BLOB, ZFLAVORS BLOB, ZPROFILES BLOB, ZSTYLES BLOB, ZBOOZE BLOB, ZNA BLOB )",
        "CREATE TABLE Z_1GARNISH ( Z_1COCKTAILS INTEGER, Z_2GARNISH INTEGER, PRIMARY KEY (Z_1COCKTAILS, Z_2GARNISH) )",
        "CREATE TABLE ZGARNISH ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE TABLE ZINGREDIENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZINGREDIENTBASE INTEGER, Z1SPEC INTEGER, ZVALUE FLOAT, ZUNIT VARCHAR, ZID BLOB )",
        "CREATE TABLE ZINGREDIENTBASE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZISCUSTOM INTEGER, ZBASECATEGORY VARCHAR, ZINFO VARCHAR, ZNAME VARCHAR, ZPREPINGREDIENTNAME VARCHAR, ZSPECIALTYCATEGORY VARCHAR, ZUMBRELLACATEGORY VARCHAR, ZID BLOB, ZID1 BLOB, ZPREPRECIPE BLOB, ZFLAVORS BLOB, ZPROFILES BLOB, ZSTYLES BLOB, ZBOOZE BLOB, ZNA BLOB )",
        "CREATE INDEX Z_1GARNISH_Z_2GARNISH_INDEX ON Z_1GARNISH (Z_2GARNISH, Z_1COCKTAILS)",
        "CREATE INDEX Z_Cocktail_SwiftDataIndexOnBinarycocktailName ON ZCOCKTAIL (ZCOCKTAILNAME COLLATE BINARY ASC)",
        "CREATE INDEX Z_Cocktail_SwiftDataIndexOnBinarycollectionName ON ZCOCKTAIL (ZCOLLECTIONNAME COLLATE BINARY ASC)",
        "CREATE INDEX Z_Cocktail_SwiftDataIndexOnBinarycocktailNamecollectionName ON ZCOCKTAIL (ZCOCKTAILNAME COLLATE BINARY ASC, ZCOLLECTIONNAME COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_Cocktail_UNIQUE_cocktailName ON ZCOCKTAIL (ZCOCKTAILNAME COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_Garnish_UNIQUE_name ON ZGARNISH (ZNAME COLLATE BINARY ASC)",
        "CREATE INDEX ZINGREDIENT_ZINGREDIENTBASE_INDEX ON ZINGREDIENT (ZINGREDIENTBASE)",
        "CREATE INDEX ZINGREDIENT_Z1SPEC_INDEX ON ZINGREDIENT (Z1SPEC)",
        "CREATE UNIQUE INDEX Z_IngredientBase_UNIQUE_name ON ZINGREDIENTBASE (ZNAME COLLATE BINARY ASC)",
    ] + SwiftDataStoreDDL.bookkeeping
    /// swiftdata-metacocktails: NSStoreModelVersionHashes.
    static let metaCocktailsHashes = [
        "Cocktail": "eLi+RaYckUzM8DStLaIJ4Ub84I8sWQankcEJF2FhNZA=",
        "Garnish": "dqmVnpDnntF7MqmAop5TaLlTxbfn/UBzz+Bj4xbUTMU=",
        "Ingredient": "SjufMt9CruGesYa2rQOtV8ls0/tFMmcaQGPaIALPxho=",
        "IngredientBase": "oBdlOYmpobZCZ04XjyHQ+YMYDvaybcFnNgY1Nasi5hU=",
    ]
    static let metaCocktailsChecksum = "PfzOF+B8xFeHy7FWO/cFMC/dVCdmD0mbo1VdzPPozKA="
    static let metaCocktailsDigest = "7Pxev8Rtoyk5RW9EuJNcyO2a8MYFOxxpWuW5bDgvrP9yL7yIsZ5pXzMyp40FkYsoGqX9R8WLC5IFbT/0k4gGJg=="
    /// swiftdata-cheftime: its sqlite_master, in order.
    static let chefTimeDDL: [String] = [
        "CREATE TABLE ZSDABOUTSECTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENTRECIPE INTEGER, ZDESCRIPTION_ VARCHAR, ZNAME VARCHAR, ZID BLOB )",
        "CREATE TABLE ZSDFOLDER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENTFOLDER INTEGER, ZSYSTEMALL VARCHAR, ZSYSTEMSTANDARD VARCHAR, ZSYSTEMRECENTLYDELETED VARCHAR, ZUSER VARCHAR, ZNAME VARCHAR, ZID BLOB, ZIMAGEDATA BLOB )",
        "CREATE TABLE ZSDINGREDIENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENTINGREDIENTSECTION INTEGER, ZAMOUNT FLOAT, ZMEASURE VARCHAR, ZNAME VARCHAR, ZID BLOB )",
        "CREATE TABLE ZSDINGREDIENTSECTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENTRECIPE INTEGER, ZNAME VARCHAR, ZID BLOB )",
        "CREATE TABLE ZSDRECIPE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENTFOLDER INTEGER, ZNAME VARCHAR, ZID BLOB, ZIMAGEDATA BLOB )",
        "CREATE TABLE ZSDSTEP ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENTSTEPSECTION INTEGER, ZDESCRIPTION_ VARCHAR, ZID BLOB, ZIMAGEDATA BLOB )",
        "CREATE TABLE ZSDSTEPSECTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENTRECIPE INTEGER, ZNAME VARCHAR, ZID BLOB )",
        "CREATE INDEX ZSDABOUTSECTION_ZPARENTRECIPE_INDEX ON ZSDABOUTSECTION (ZPARENTRECIPE)",
        "CREATE UNIQUE INDEX Z_SDAboutSection_UNIQUE_id ON ZSDABOUTSECTION (ZID COLLATE BINARY ASC)",
        "CREATE INDEX ZSDFOLDER_ZPARENTFOLDER_INDEX ON ZSDFOLDER (ZPARENTFOLDER)",
        "CREATE UNIQUE INDEX Z_SDFolder_UNIQUE_id ON ZSDFOLDER (ZID COLLATE BINARY ASC)",
        "CREATE INDEX ZSDINGREDIENT_ZPARENTINGREDIENTSECTION_INDEX ON ZSDINGREDIENT (ZPARENTINGREDIENTSECTION)",
        "CREATE UNIQUE INDEX Z_SDIngredient_UNIQUE_id ON ZSDINGREDIENT (ZID COLLATE BINARY ASC)",
        "CREATE INDEX ZSDINGREDIENTSECTION_ZPARENTRECIPE_INDEX ON ZSDINGREDIENTSECTION (ZPARENTRECIPE)",
        "CREATE UNIQUE INDEX Z_SDIngredientSection_UNIQUE_id ON ZSDINGREDIENTSECTION (ZID COLLATE BINARY ASC)",
        "CREATE INDEX ZSDRECIPE_ZPARENTFOLDER_INDEX ON ZSDRECIPE (ZPARENTFOLDER)",
        "CREATE UNIQUE INDEX Z_SDRecipe_UNIQUE_id ON ZSDRECIPE (ZID COLLATE BINARY ASC)",
        "CREATE INDEX ZSDSTEP_ZPARENTSTEPSECTION_INDEX ON ZSDSTEP (ZPARENTSTEPSECTION)",
        "CREATE UNIQUE INDEX Z_SDStep_UNIQUE_id ON ZSDSTEP (ZID COLLATE BINARY ASC)",
        "CREATE INDEX ZSDSTEPSECTION_ZPARENTRECIPE_INDEX ON ZSDSTEPSECTION (ZPARENTRECIPE)",
        "CREATE UNIQUE INDEX Z_SDStepSection_UNIQUE_id ON ZSDSTEPSECTION (ZID COLLATE BINARY ASC)",
    ] + SwiftDataStoreDDL.bookkeeping
    /// swiftdata-cheftime: NSStoreModelVersionHashes.
    static let chefTimeHashes = [
        "SDAboutSection": "5fPFM7fA8lJXev2oxj0R5O0JqBPFs+sPEHUVhwQlZZk=",
        "SDFolder": "jyYLES2D0M7bSKm/zPLVS2ubTGHkT6xKZPfHV+aWlxQ=",
        "SDIngredient": "/SKEhNiKoOcohtW5Yd4dEdOKZ7iXkdoOP/zwZNW8f2A=",
        "SDIngredientSection": "hZsbTULATbbp+2T760Edh1SDQp80O2T8ODCwioRZfF8=",
        "SDRecipe": "v5P8uytNUMFAq0PBgwEdlzgpiB6RHw2BBQrgIduNYI0=",
        "SDStep": "iqKatX+wNiPS5OmQdGbY3JmpQPKUkaRAdIGYyYx8mro=",
        "SDStepSection": "yGANA1Xjzn+h/5sN0+xTammhIm0sBz9PGsMSIondTNE=",
    ]
    static let chefTimeChecksum = "Xce4i16Ij5O4fXKLO50+H+MPUirBp/8zTEs4l0M0gQA="
    static let chefTimeDigest = "FAr/r1tJbF6KHh1N768bt919alGbvIm8rDZ6dXeNs3UDjcSNilfd/8YJ824VEdTUXOqsVWH7679LLbjC1ujSgQ=="

    static func check(_ source: String, file: String, hashes: [String: String], checksum: String, digest: String, ddl: [String]) throws {
        let model = try SwiftDataModelReader.parse([(source, file)])
        #expect(CoreDataVersionHashes.hashes(for: model).mapValues { $0.base64EncodedString() } == hashes)
        let metadata = CoreDataMetadata(model: model)
        #expect(metadata.checksum == checksum)
        #expect(metadata.hashesDigest == digest)
        #expect(metadata.frameworkVersion == CoreDataMetadata.swiftDataFrameworkVersion)
        #expect(model.versionIdentifiers == ["1.0.0"])
        let statements = try CoreDataSchema(model).statements(modelCache: true) + CoreDataSchema.historyStatements
        #expect(statements == ddl)
        // The model as XML reads back to the same hashes and schema.
        let back = try CoreDataModelReader.parse(Data(CoreDataModelWriter.contents(of: model).utf8), file: "\(file).xcdatamodel/contents")
        #expect(CoreDataVersionHashes.hashes(for: back).mapValues { $0.base64EncodedString() } == hashes)
        #expect(try CoreDataSchema(back).statements(modelCache: true) + CoreDataSchema.historyStatements == ddl)
    }

    @Test("swiftdata-metacocktails: hashes, digests and schema from the @Model source")
    func metaCocktails() throws {
        try Self.check(Self.metaCocktailsSource, file: "Cocktail.swift", hashes: Self.metaCocktailsHashes,
                       checksum: Self.metaCocktailsChecksum, digest: Self.metaCocktailsDigest, ddl: Self.metaCocktailsDDL)
    }

    @Test("swiftdata-cheftime: hashes, digests and schema from the @Model source")
    func chefTime() throws {
        try Self.check(Self.chefTimeSource, file: "SDRecipe.swift", hashes: Self.chefTimeHashes,
                       checksum: Self.chefTimeChecksum, digest: Self.chefTimeDigest, ddl: Self.chefTimeDDL)
    }

    /// swiftdata-cheftime: each of its 109 `[Data] = []` values, byte for byte.
    static let emptyArrayArchive = "62706C6973743030D4010203040506070A582476657273696F6E592461726368697665725424746F7058246F626A6563747312000186A05F100F4E534B657965644172636869766572D1080954726F6F748001A20B0C55246E756C6C425B5D08111A24293237494C5153565C0000000000000101000000000000000D0000000000000000000000000000005F"

    @Test("an array of values: the JSON of its elements archived as SwiftData archives it, `[]` byte for byte")
    func archivedArrays() throws {
        let empty = KeyedArchive.archive(json: Array("[]".utf8))
        #expect(empty.map { String(format: "%02X", $0) }.joined() == Self.emptyArrayArchive)
        let chef = try SwiftDataModelReader.parse([(Self.chefTimeSource, "SDRecipe.swift")])
        #expect(chef["SDStep"]?.attributes.first { $0.name == "imageData" }?.defaultValue == .binary(empty))
        // A longer array: Foundation's archive layout, the data's length in an integer object.
        let tags = try KeyedArchive.archive([.text("a/b"), .text("\"quoted\""), .text(String(repeating: "x", count: 300))], element: .string).get()
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(tags), format: nil) as? [String: Any])
        let objects = try #require(plist["$objects"] as? [Any])
        #expect(plist["$archiver"] as? String == "NSKeyedArchiver" && objects.first as? String == "$null")
        let json = try #require(objects.last as? Data)
        #expect(String(decoding: json, as: UTF8.self) == #"["a\/b","\"quoted\"","\#(String(repeating: "x", count: 300))"]"#)
        #expect(try JSONSerialization.jsonObject(with: json) as? [String] == ["a/b", "\"quoted\"", String(repeating: "x", count: 300)])
        // Typed elements as JSONEncoder writes them; an element that is not one is refused.
        let numbers = try KeyedArchive.archive([.text("1"), .integer(2)], element: .integer64).get()
        let numbersJSON = try #require((try PropertyListSerialization.propertyList(from: Data(numbers), format: nil) as? [String: Any])?["$objects"] as? [Any])
        #expect(numbersJSON.last as? Data == Data("[1,2]".utf8))
        #expect(throws: ConversionFailure.self) { try KeyedArchive.archive([.text("two")], element: .integer64).get() }
    }

    @Test("composites: a struct's elements by dotted name, an enum's raw value or cases, arrays of values archived")
    func composites() throws {
        let model = try SwiftDataModelReader.parse([(Self.metaCocktailsSource, "Cocktail.swift")])
        let cocktail = try #require(model["Cocktail"])
        let names = cocktail.attributes.map(\.name)
        #expect(names.contains("author.person") && names.contains("glasswareType") && names.contains("historicSpec.algonquin"))
        #expect(!names.contains("tags.flavors"))  // @Transient
        let author = try #require(cocktail.composites.first { $0.name == "author" })
        #expect(author.isOptional && author.kind == .structure)
        let glass = try #require(cocktail.composites.first { $0.name == "glasswareType" })
        #expect(glass.kind == .rawValue(cases: [.init("coupe", rawValue: "Coupe"), .init("rocks", rawValue: "Rocks")]) && !glass.isOptional)
        let collection = try #require(cocktail.composites.first { $0.name == "collection" })
        #expect(collection.kind == .rawValue(cases: [.init("all", rawValue: "0"), .init("deathAndCo", rawValue: "1"), .init("williamsAndGraham", rawValue: "2"), .init("originals", rawValue: "3"),
                                                     .init("milkAndHoney", rawValue: "4"), .init("custom", rawValue: "5"), .init("house", rawValue: "6")]))
        #expect(cocktail.attributes.first { $0.name == "collection" }?.type == .integer64)
        #expect(cocktail.attributes.first { $0.name == "buildOrder.instructions" }?.type == .binary)
        let chef = try SwiftDataModelReader.parse([(Self.chefTimeSource, "SDRecipe.swift")])
        #expect(chef["SDRecipe"]?.attributes.first { $0.name == "imageData" }?.type == .transformable)
        #expect(chef["SDFolder"]?.composites.first?.kind == .caseName(cases: ["systemAll", "systemStandard", "systemRecentlyDeleted", "user"]))
    }
}

/// The statements every SwiftData store these tests restate ends its schema with, the same in each
/// of the six (two shared cases, four found stores): Core Data's own tables, then its
/// persistent-history tables and their indexes, in the order `sqlite_master` lists them.
enum SwiftDataStoreDDL {
    static let bookkeeping: [String] = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]
}
