import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import CoreDataFormat
@testable import SwiftDataModel

/// The model read from `@Model` source, checked against the hashes a real SwiftData store holds.
@Suite("SwiftData model from Swift source")
struct SwiftDataModelReaderTests {
    /// The model of the SwiftData store github.com/sergd2005/ResourcesManager committed as
    /// default.store at bc3d34e (framework 1345), restated: three classes with a unique key,
    /// types written and taken from initial values, to-ones without and with a partner, a to-many.
    static let resourcesSource = """
        import Foundation
        import SwiftData

        @Model
        final class Item {
            var id: String { name }                 // computed: not stored
            @Attribute(.unique) var name: String
            var craftingRecipe: CraftingRecipe?
            init(name: String) { self.name = name }
        }

        @Model
        final class Component {
            let id = UUID()
            var count: Int = 1
            var item: Item?
            var craftingRecipe: CraftingRecipe?
            init() {}
        }

        @Model
        final class CraftingRecipe {
            var requiredComponents: [Component] = []
            var producedItemCount = "1"
            var producedItem: Item?
            init() {}
        }
        """

    /// NSStoreModelVersionHashes of that store.
    static let resourcesHashes = [
        "Component": "/IAgOoozmxSP0LbDsOWGomBZFWPPZ4CkBuafGKafhAY=",
        "CraftingRecipe": "rMbIICaQP9i9dKOWWYj/uEDAeUEZzMnWs2Cgp1MQRhc=",
        "Item": "aDosZj1R/mD7pBZf63kAh77Ycdg3umToHrHog2QowqU=",
    ]

    @Test("the hashes of a real SwiftData store, from its @Model source")
    func realStoreHashes() throws {
        let model = try SwiftDataModelReader.parse([(Self.resourcesSource, "Items.swift")])
        #expect(CoreDataVersionHashes.hashes(for: model).mapValues { $0.base64EncodedString() } == Self.resourcesHashes)
        // What the store confirms: non-optional types are required; a to-many array is required
        // and unbounded; two to-ones between Item and CraftingRecipe pair up, as do Component's
        // craftingRecipe and the recipe's requiredComponents; Component.item has no partner.
        let item = try #require(model["Item"]), component = try #require(model["Component"])
        #expect(item.attributes.map(\.name) == ["name"])
        #expect(item.attributes[0].isOptional == false && item.uniquenessConstraints == [["name"]])
        #expect(item.relationships.map { "\($0.name)->\($0.destination).\($0.inverse ?? "-")" } == ["craftingRecipe->CraftingRecipe.producedItem"])
        #expect(component.attributes.map { "\($0.name):\($0.type.rawValue):\($0.isOptional)" } == ["id:uuid:false", "count:integer64:false"])
        #expect(component.relationships.map { "\($0.name).\($0.inverse ?? "-")" } == ["item.-", "craftingRecipe.requiredComponents"])
        let recipe = try #require(model["CraftingRecipe"])
        let components = try #require(recipe.relationships.first { $0.name == "requiredComponents" })
        #expect(components.isToMany && !components.isOptional && components.maxCount == 0 && components.minCount == 0)
    }

    @Test("the model as Xcode's contents XML reads back to the same hashes: from Swift source and from a model file")
    func xmlRoundTrip() throws {
        let fromSwift = try SwiftDataModelReader.parse([(Self.resourcesSource, "Items.swift")])
        let xml = CoreDataModelWriter.contents(of: fromSwift)
        let back = try CoreDataModelReader.parse(Data(xml.utf8), file: "Items.xcdatamodel/contents")
        #expect(CoreDataVersionHashes.hashes(for: back).mapValues { $0.base64EncodedString() } == Self.resourcesHashes)
        #expect(back.versionIdentifiers == ["1.0.0"])
        let grocery = try CoreDataModelReader.parse(Data(CoreDataCases.groceryDudeXML.utf8), file: "GroceryDude.xcdatamodel/contents")
        let again = try CoreDataModelReader.parse(Data(CoreDataModelWriter.contents(of: grocery).utf8), file: "again.xcdatamodel/contents")
        #expect(CoreDataVersionHashes.hashes(for: again) == CoreDataVersionHashes.hashes(for: grocery))
        #expect(try CoreDataSchema(again).statements() == CoreDataSchema(grocery).statements())
    }

    @Test("the model crosses from pipectl-swiftdata to pipectl as JSON whole: composites, enums, defaults, arrays, relationships, versions",
          arguments: ["books", "metacocktails", "cheftime", "myhome", "heritg"])
    func modelCrossesAsJSON(_ name: String) throws {
        let model = switch name {
        case "books": try SwiftDataModelReader.read(Self.repository.appendingPathComponent("pipelines/swiftdata/Models"))
        case "metacocktails": try SwiftDataModelReader.parse([(SwiftDataCasesTests.metaCocktailsSource, "Cocktail.swift")])
        case "cheftime": try SwiftDataModelReader.parse([(SwiftDataCasesTests.chefTimeSource, "SDRecipe.swift")])
        case "myhome": try SwiftDataModelReader.parse([(SwiftDataFoundStoresTests.myHomeV2Source, "Schema.swift")])
        default: try SwiftDataModelReader.parse([(SwiftDataFoundStoresTests.heritgSource, "Models.swift")])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try encoder.encode(ModelReaderAnswer.model(model))
        guard case .model(let back) = try JSONDecoder().decode(ModelReaderAnswer.self, from: json) else {
            Issue.record("not a model")
            return
        }
        // Nothing is lost on the way back: encoding the decoded model gives the same bytes.
        #expect(try encoder.encode(ModelReaderAnswer.model(back)) == json)
        #expect(CoreDataVersionHashes.hashes(for: back) == CoreDataVersionHashes.hashes(for: model))
        #expect(try CoreDataSchema(back).statements() == CoreDataSchema(model).statements())
        #expect(CoreDataModelWriter.contents(of: back) == CoreDataModelWriter.contents(of: model))
        #expect(back.versionIdentifiers == model.versionIdentifiers && back.frameworkVersion == model.frameworkVersion)
    }

    @Test("a folder of @Model sources reached through a symbolic link is read as the folder itself (through the link: 'no @Model class')")
    func folderThroughALink() throws {
        let folder = Self.repository.appendingPathComponent("pipelines/swiftdata/Models")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-link-\(getpid())")
        try? FileManager.default.removeItem(at: scratch)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let link = scratch.appendingPathComponent("Models")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: folder)
        let direct = try SwiftDataModelReader.read(folder)
        #expect(!direct.entities.isEmpty)
        let linked = try SwiftDataModelReader.read(link)
        #expect(linked.entities.map(\.name) == direct.entities.map(\.name))
        #expect(CoreDataVersionHashes.hashes(for: linked) == CoreDataVersionHashes.hashes(for: direct))
        #expect(try CoreDataSchema(linked).statements() == CoreDataSchema(direct).statements())
        // Messages name the files under the path as given.
        let files = Set(linked.entities.flatMap { $0.attributes.compactMap { $0.location?.file } })
        #expect(!files.isEmpty && files.allSatisfy { $0.hasPrefix(link.path + "/") }, "\(files)")
    }

    @Test("a folder without a .swift file is named in the error (it was ': error: ... no @Model class', no file)")
    func folderWithoutSources() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-empty-\(getpid())")
        try? FileManager.default.removeItem(at: scratch)
        let folder = scratch.appendingPathComponent("Models")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Data("notes".utf8).write(to: folder.appendingPathComponent("README.md"))
        let error = #expect(throws: PipelineError.self) { try SwiftDataModelReader.read(folder) }
        #expect(error?.location?.file == folder.path && error?.code == .modelNoModelClass)
        #expect(error?.description.hasPrefix("\(folder.path): error: model: no @Model class: the folder holds no .swift file") == true,
                "\(error.map(String.init(describing:)) ?? "")")
        // Beside a file that has the classes, the empty folder is still a mistake worth naming.
        let models = Self.repository.appendingPathComponent("pipelines/swiftdata/Models")
        #expect(throws: PipelineError.self) { try SwiftDataModelReader.read([models, folder]) }
    }

    @Test("a failure crosses as JSON with its kind, code, location, stage and message")
    func failureCrossesAsJSON() throws {
        let error = PipelineError(.invalidPipeline, code: .modelUntranslatableType, at: Location(file: "Trip.swift", line: 3, column: 9),
                                  stage: "model", "cannot translate the type 'Stop' yet", sourceLine: "    var stop: Stop")
        let json = try JSONEncoder().encode(ModelReaderAnswer.failure(error))
        guard case .failure(let back) = try JSONDecoder().decode(ModelReaderAnswer.self, from: json) else {
            Issue.record("not a failure")
            return
        }
        #expect(back.description == error.description && back.kind == .invalidPipeline && back.code == .modelUntranslatableType)
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("VersionedSchema: classes in an extension of a schema belong to it; the getter form of versionIdentifier; the migration plan's last schema is the model")
    func versionedSchemas() throws {
        let v1 = """
            enum SchemaV1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Recipe.self] }
                @Model final class Recipe {
                    var name: String
                    init(name: String) { self.name = name }
                }
            }
            """
        let v3 = """
            enum SchemaV3: VersionedSchema {
                static var versionIdentifier: Schema.Version { .init(3, 0, 0) }
                static var models: [any PersistentModel.Type] { [Recipe.self] }
            }
            extension SchemaV3 {
                @Model final class Recipe {
                    var name: String
                    var servings: Int = 2
                    var steps: [Step] = []
                }
                @Model final class Step {
                    var text: String
                    var order: Int = 0
                }
            }
            """
        let v2 = """
            enum SchemaV2: VersionedSchema {
                static let versionIdentifier: Schema.Version = Schema.Version(2, 0, 0)
                static var models: [any PersistentModel.Type] { [Recipe.self] }
                @Model final class Recipe {
                    var name: String
                    var minutes: Int = 0
                }
            }
            """
        // The newest version: V3, whose Step is reached through Recipe.steps though `models` lists Recipe only.
        let newest = try SwiftDataModelReader.parse([(v1, "V1.swift"), (v3, "V3.swift"), (v2, "V2.swift")])
        #expect(newest.versionIdentifiers == ["3.0.0"])
        #expect(newest.entities.map(\.name) == ["Recipe", "Step"])
        #expect(newest["Recipe"]?.attributes.map(\.name) == ["name", "servings"])
        #expect(newest["Recipe"]?.relationships.map(\.destination) == ["Step"])
        #expect(newest.origin == "SchemaV3, version 3.0.0: the highest versionIdentifier of 3 VersionedSchemas")
        // A migration plan decides: its last schema, whatever the numbers say.
        let plan = """
            enum RecipesMigrationPlan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [SchemaV1.self, SchemaV3.self, SchemaV2.self] }
                static var stages: [MigrationStage] { [] }
            }
            """
        let planned = try SwiftDataModelReader.parse([(v1, "V1.swift"), (v3, "V3.swift"), (v2, "V2.swift"), (plan, "Plan.swift")])
        #expect(planned.versionIdentifiers == ["2.0.0"])
        #expect(planned["Recipe"]?.attributes.map(\.name) == ["name", "minutes"])
        #expect(planned.origin == "SchemaV2, version 2.0.0: the last schema the migration plan at Plan.swift:2:16 lists")
        // Schema(versionedSchema:) names the current one.
        let container = "let container = try ModelContainer(for: Schema(versionedSchema: SchemaV1.self))\n"
        let first = try SwiftDataModelReader.parse([(v1, "V1.swift"), (v3, "V3.swift"), (v2, "V2.swift"), (container, "App.swift")])
        #expect(first.versionIdentifiers == ["1.0.0"] && first["Recipe"]?.attributes.map(\.name) == ["name"])
    }

    @Test("without a VersionedSchema, the app's Schema([...]) or ModelContainer(for:) list decides, with the classes it reaches; two classes of one name are an error naming both")
    func modelLists() throws {
        let models = """
            @Model final class Cocktail {
                var name: String
                var ingredients: [Ingredient] = []
            }
            @Model final class Ingredient {
                var name: String
            }
            @Model final class OldCocktailIngredient {
                var amount: String
            }
            """
        let app = """
            @main struct CocktailsApp: App {
                var body: some Scene { WindowGroup { ContentView() }.modelContainer(for: [Cocktail.self]) }
            }
            """
        let model = try SwiftDataModelReader.parse([(models, "Models.swift"), (app, "App.swift")])
        #expect(model.entities.map(\.name) == ["Cocktail", "Ingredient"])
        #expect(model.origin == "the models ModelContainer at App.swift:2:58 lists, and the @Model classes they reach")
        // Without any list: every class.
        #expect(try SwiftDataModelReader.parse([(models, "Models.swift")]).entities.count == 3)
        // One name twice.
        let twice = models + "\n@Model final class Ingredient {\n    var label: String\n}\n"
        let error = #expect(throws: PipelineError.self) { try SwiftDataModelReader.parse([(twice, "Models.swift")]) }
        #expect(error?.description.hasPrefix("Models.swift:11:20: error: model: two @Model classes are named 'Ingredient' (Models.swift:5:20 and here)") == true,
                "\(String(describing: error))")
    }

    @Test("a property of a type no file of the source declares says so")
    func undeclaredType() throws {
        let error = #expect(throws: PipelineError.self) {
            try SwiftDataModelReader.parse([("@Model final class Trip {\n    var name: String\n    var gear: Gear\n}\n", "Trip.swift")])
        }
        #expect(error?.message == "Trip.gear: the type 'Gear' is declared in no file of the model's source; "
                    + "add the file that declares it to the model's files (a struct or enum is read from its declaration)")
    }

    @Test("@Relationship's inverse, #Unique, @Transient, static and computed properties")
    func declaredForms() throws {
        let model = try SwiftDataModelReader.parse([("""
            @Model final class Recipe {
                #Unique<Recipe>([\\.name, \\.author])
                var name: String
                var author: String = "anon"
                @Transient var draft = false
                static let kind = "recipe"
                var title: String { name.capitalized }
                @Relationship(deleteRule: .cascade, inverse: \\Tag.recipes) var tags: [Tag]? = []
                @Attribute(.externalStorage) var photo: Data?
            }
            @Model final class Tag {
                var name: String
                var recipes: [Recipe]?
            }
            """, "Recipe.swift")])
        let recipe = try #require(model["Recipe"])
        #expect(recipe.attributes.map(\.name) == ["name", "author", "photo"])
        #expect(recipe.attributes[1].defaultValue == .text("anon"))
        #expect(recipe.attributes[2].allowsExternalBinaryDataStorage)
        #expect(recipe.uniquenessConstraints == [["name", "author"]])
        #expect(recipe.relationships.map { "\($0.name).\($0.inverse ?? "-").\($0.deleteRule.rawValue)" } == ["tags.recipes.cascade"])
        #expect(model["Tag"]?.relationships.first?.inverse == "tags")
    }

    @Test("a type pipectl cannot translate is an error at the property, naming it")
    func untranslatableType() {
        func failure(_ source: String) -> PipelineError? {
            do {
                _ = try SwiftDataModelReader.parse([(source, "Trip.swift")])
                Issue.record("read: \(source)")
            } catch let error as PipelineError {
                return error
            } catch {
                Issue.record("unexpected error: \(error)")
            }
            return nil
        }
        let untyped = failure("@Model final class Trip {\n    var stops = makeStops()\n}\n")
        #expect(untyped?.code == .modelUntypedProperty)
        #expect(untyped?.location?.description == "Trip.swift:2:9")
        #expect(untyped?.message.hasPrefix("Trip.stops: write its type") == true, "\(String(describing: untyped))")
        // A type declared nowhere in the source.
        let undeclared = failure("@Model final class Trip {\n    var name: String\n    var stops: [Stop]\n}\n")
        #expect(undeclared?.code == .modelUndeclaredType)
        #expect(undeclared?.location?.description == "Trip.swift:3:9")
        // An enum whose cases carry values, as a property or inside a struct (a struct holding a
        // struct or a plain enum is read: SwiftDataTests).
        let payload = failure("@Model final class Trip {\n    var leg: Leg\n}\nenum Leg: Codable { case walk(Int), ride }\n")
        #expect(payload?.code == .modelUntranslatableType)
        #expect(payload?.location?.description == "Trip.swift:2:9")
        let nested = failure("@Model final class Trip {\n    var place: Place?\n}\nstruct Place: Codable { var point: Point }\n"
                                 + "struct Point: Codable { var leg: Leg }\nenum Leg: Codable { case walk(Int), ride }\n")
        #expect(nested?.code == .modelUntranslatableType)
        #expect(nested?.location?.description == "Trip.swift:2:9")
        #expect(nested?.message == "Trip.place: pipectl cannot translate 'Leg' yet: its case 'walk' has associated values", "\(String(describing: nested))")
    }

    /// pipelines/model/Grocery.xcdatamodel, written as a SwiftData app writes it.
    static let grocerySource = """
        import Foundation
        import SwiftData

        @Model
        final class Item {
            #Index<Item>([\\.name])
            var added: Date?
            var collected: Bool? = false
            var listed: Bool? = true
            var name: String?
            var quantity: Float? = 1
            var locationAtHome: LocationAtHome?
            var locationAtShop: LocationAtShop?
            var unit: Unit?
        }

        @Model
        class Location {
            var summary: String?
        }

        @Model
        final class LocationAtHome: Location {
            var storedIn: String?
            var items: [Item]?
        }

        @Model
        final class LocationAtShop: Location {
            var aisle: String?
            var items: [Item]?
        }

        @Model
        final class Unit {
            var name: String?
            var items: [Item]?
        }
        """

    @Test("the grocery model as @Model classes is the grocery model file: same hashes, same schema")
    func groceryFromSwift() throws {
        let fromSwift = try SwiftDataModelReader.parse([(Self.grocerySource, "Grocery.swift")])
        // What SwiftData cannot say differently: no abstract classes, and #Index makes a fetch
        // index where the model file marks the attribute indexed. The model file, so restated:
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../pipelines/model/Grocery.xcdatamodeld/Grocery.xcdatamodel/contents").standardized
        let xml = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: #" isAbstract="YES""#, with: "")
            .replacingOccurrences(of: #"<attribute name="name" optional="YES" attributeType="String" indexed="YES"/>"#,
                                  with: #"<attribute name="name" optional="YES" attributeType="String"/><fetchIndex name="SwiftDataIndexOnBinaryname"><fetchIndexElement property="name" type="Binary" order="ascending"/></fetchIndex>"#)
        #expect(xml.contains("SwiftDataIndexOnBinaryname") && !xml.contains("isAbstract"))
        let fromFile = try CoreDataModelReader.parse(Data(xml.utf8), file: "Grocery.xcdatamodel/contents")
        #expect(CoreDataVersionHashes.hashes(for: fromSwift) == CoreDataVersionHashes.hashes(for: fromFile))
        #expect(try CoreDataSchema(fromSwift).statements() == CoreDataSchema(fromFile).statements())
        #expect(fromSwift["LocationAtHome"]?.parent == "Location" && fromSwift.allAttributes(of: "LocationAtShop").map(\.name) == ["summary", "aisle"])
        #expect(try CoreDataSchema(fromSwift).statements().contains("CREATE INDEX Z_Item_SwiftDataIndexOnBinaryname ON ZITEM (ZNAME COLLATE BINARY ASC)"))
    }
}
