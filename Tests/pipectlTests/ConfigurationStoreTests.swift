import Foundation
import Pipeline
import CoreDataFormat
import Testing
import SQLite

/// `store: { configuration: Content }`: the store Core Data writes for
/// `addPersistentStore(ofType:configurationName: "Content", at:options:)`, read back with SQL;
/// and `inspect --configuration`. The model (Fixtures/configurations/Kitchen.xcdatamodeld, our
/// own) has Content = Ingredient, Recipe and User = Note. Core Data lays out a configuration's
/// store as the whole model's (its SQL model ignores the configuration name; docs/coredata.md,
/// "Configuration stores", names the evidence and says no real store confirms it yet): Note keeps
/// its table and number, between the two (Ingredient 1, Note 2, Recipe 3), and holds no rows.
@Suite struct ConfigurationStoreTests {
    static let fixtures = Pipectl.repository.appendingPathComponent("Tests/pipectlTests/Fixtures/configurations")

    /// A workspace with the fixtures under `kitchen/`.
    func workspace() throws -> Workspace {
        let ws = try Workspace()
        try FileManager.default.copyItem(at: Self.fixtures, to: ws.root.appendingPathComponent("kitchen"))
        return ws
    }

    func pipeline(_ ws: Workspace) throws -> String {
        try String(decoding: ws.bytes("kitchen/content.yaml"), as: UTF8.self)
    }

    @Test("a configuration store has tables, Z_PRIMARYKEY rows and version hashes for the configuration's entities only")
    func contentStore() throws {
        let ws = try workspace()
        let run = try ws.run("run", "-q", "kitchen/content.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("kitchen/Content.sqlite")

        let tables = try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(tables == ["ZINGREDIENT", "ZNOTE", "ZRECIPE", "Z_METADATA", "Z_PRIMARYKEY"].map { [Value.text($0)] })
        #expect(try store.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
            [.integer(1), .text("Ingredient"), .integer(0), .integer(3)],
            [.integer(2), .text("Note"), .integer(0), .integer(0)],
            [.integer(3), .text("Recipe"), .integer(0), .integer(2)],
        ])
        #expect(try store.rows("SELECT count(*) FROM ZNOTE") == [[.integer(0)]])
        #expect(try store.rows("SELECT Z_ENT, ZNAME, ZSERVINGS FROM ZRECIPE ORDER BY ZNAME") == [
            [.integer(3), .text("Greek Salad"), .integer(4)], [.integer(3), .text("Shakshuka"), .integer(2)],
        ])
        #expect(try store.rows("""
            SELECT i.Z_ENT, i.ZNAME, i.ZAMOUNT, r.ZNAME FROM ZINGREDIENT i JOIN ZRECIPE r ON r.Z_PK = i.ZRECIPE ORDER BY i.ZNAME
            """) == [
            [.integer(1), .text("Egg"), .text("4"), .text("Shakshuka")],
            [.integer(1), .text("Feta"), .text("200 g"), .text("Greek Salad")],
            [.integer(1), .text("Onion"), .text("1"), .text("Shakshuka")],
        ])

        // The hashes are the whole model's, Note's too: Core Data writes the coordinator's model's.
        let rows = try store.rows("SELECT Z_PLIST FROM Z_METADATA")
        guard case .binary(let bytes) = try #require(rows.first?.first) else { Issue.record("Z_PLIST is no blob"); return }
        let plist = try #require(PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any])
        let hashes = try #require(plist["NSStoreModelVersionHashes"] as? [String: Data])
        let whole = try CoreDataModelReader.read(ws.root.appendingPathComponent("kitchen/Kitchen.xcdatamodeld"))
        #expect(hashes == CoreDataVersionHashes.hashes(for: whole))
        #expect(hashes.keys.sorted() == ["Ingredient", "Note", "Recipe"])
        #expect(plist["NSStoreType"] as? String == "SQLite")
    }

    @Test("the model file's configurations are read in file order, with their member entities")
    func configurationsAreRead() throws {
        let model = try CoreDataModelReader.read(Self.fixtures.appendingPathComponent("Kitchen.xcdatamodeld"))
        #expect(model.configurations == [ModelConfiguration(name: "Content", entities: ["Ingredient", "Recipe"]),
                                         ModelConfiguration(name: "User", entities: ["Note"])])
        #expect(model.configuration == nil)
        let content = try model.configured(as: "Content")
        #expect(content.entities.map(\.name) == ["Ingredient", "Note", "Recipe"])
        #expect(content.configuration == "Content")
        #expect(content.configurationEntities == ["Ingredient", "Recipe"])
        #expect(content.entitiesOutsideConfiguration == ["Note"])
    }

    @Test("a load into an entity outside the configuration is an error at its line, and the previous store stays")
    func loadOutsideTheConfiguration() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "kitchen/content.yaml").status == 0)
        let before = try ws.bytes("kitchen/Content.sqlite")
        try ws.write(try pipeline(ws) + """
              - name: notes
                read: { csv: recipes.csv }
                load:
                  Note: { recipeName: recipe, text: amount }

            """, to: "kitchen/content.yaml")
        let result = try ws.run("run", "kitchen/content.yaml")
        #expect(result.status == 65)
        #expect(result.stderr == """
            kitchen/content.yaml:21:7: error: pipeline: entity 'Note' is not in configuration 'Content': the app never reads it from this store (the configuration's entities: Ingredient, Recipe)
                  Note: { recipeName: recipe, text: amount }
                  ^

            """)
        #expect(try ws.bytes("kitchen/Content.sqlite") == before)
    }

    @Test("a link into an entity outside the configuration is an error at its line")
    func linkOutsideTheConfiguration() throws {
        let ws = try workspace()
        try ws.write(try pipeline(ws).replacingOccurrences(of: "recipe: { Recipe: { name: recipe, servings: servings } }", with: """
            recipe: { Recipe: { name: recipe, servings: servings, notes: { Note: { text: amount } } } }
            """), to: "kitchen/content.yaml")
        let result = try ws.run("run", "kitchen/content.yaml")
        #expect(result.status == 65)
        #expect(result.stderr == """
            kitchen/content.yaml:17:72: error: pipeline: entity 'Note' is not in configuration 'Content': the app never reads it from this store (the configuration's entities: Ingredient, Recipe)
                    recipe: { Recipe: { name: recipe, servings: servings, notes: { Note: { text: amount } } } }
                                                                                   ^

            """)
        #expect(!ws.exists("kitchen/Content.sqlite"))
    }

    @Test("a configuration the model does not have is named with the ones it has")
    func unknownConfiguration() throws {
        let ws = try workspace()
        try ws.write(try pipeline(ws).replacingOccurrences(of: "configuration: Content", with: "configuration: Contnet"),
                     to: "kitchen/content.yaml")
        let result = try ws.run("run", "kitchen/content.yaml")
        #expect(result.status == 65)
        #expect(result.stderr == """
            kitchen/content.yaml:9:18: error: pipeline: the model has no configuration 'Contnet'; did you mean 'Content'? (configurations: Content, User; leave 'configuration' out for the whole model)
              configuration: Contnet
                             ^

            """)
        #expect(!ws.exists("kitchen/Content.sqlite"))
    }

    @Test("inspect --configuration says match for the configuration's store, and mismatch for another configuration")
    func inspectConfiguration() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "kitchen/content.yaml").status == 0)
        let match = try ws.run("inspect", "--model", "kitchen/Kitchen.xcdatamodeld", "--configuration", "Content", "kitchen/Content.sqlite")
        #expect(match.status == 0, "\(match.stdout)\(match.stderr)")
        let start = try #require(match.stdout.range(of: "model: "))
        let modelSection = String(match.stdout[start.lowerBound...])
        #expect(modelSection == """
            model: kitchen/Kitchen.xcdatamodeld
            configuration: Content (Ingredient, Recipe)
              entity      version hash  Z_PRIMARYKEY
              Ingredient  match         match
              Note        match         match
              Recipe      match         match
            match: Core Data opens this store with this model without migrating
            rows: every row is as Core Data writes it for this model

            """)

        let other = try ws.run("inspect", "--model", "kitchen/Kitchen.xcdatamodeld", "--configuration", "User", "kitchen/Content.sqlite")
        #expect(other.status == 68)
        #expect(other.stdout.contains("""
            configuration: User (Note)
            """), "\(other.stdout)")
        #expect(other.stdout.contains("""
            mismatch: rows in entities outside configuration 'User' (Ingredient 3, Recipe 2): the app reads those entities from another store and never sees these rows

            """), "\(other.stdout)")

        let unknown = try ws.run("inspect", "--model", "kitchen/Kitchen.xcdatamodeld", "--configuration", "Usr", "kitchen/Content.sqlite")
        #expect(unknown.status == 65)
        #expect(unknown.stderr == """
            kitchen/Kitchen.xcdatamodeld: error: inspect: the model has no configuration 'Usr'; did you mean 'User'? (configurations: Content, User; leave 'configuration' out for the whole model)

            """)
    }

    @Test("inspect without --configuration names the configuration whose store it is")
    func inspectWithoutConfiguration() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "kitchen/content.yaml").status == 0)
        let result = try ws.run("inspect", "--model", "kitchen/Kitchen.xcdatamodeld", "kitchen/Content.sqlite")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("""
            match: Core Data opens this store with this model without migrating
            configuration: every row is in configuration 'Content': the store of that configuration (check it with --configuration Content)

            """), "\(result.stdout)")

        let json = try ws.run("inspect", "--json", "--model", "kitchen/Kitchen.xcdatamodeld", "kitchen/Content.sqlite")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let model = try #require(object["model"] as? [String: Any])
        #expect(model["match"] as? Bool == true)
        #expect(model["holdingConfigurations"] as? [String] == ["Content"])
    }

    @Test("--configuration needs --model")
    func configurationNeedsModel() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "kitchen/content.yaml").status == 0)
        let result = try ws.run("inspect", "--configuration", "Content", "kitchen/Content.sqlite")
        #expect(result.status == 64)
        #expect(result.stderr.contains("--configuration names a configuration of the model: give the model with --model"), "\(result.stderr)")
    }
}
