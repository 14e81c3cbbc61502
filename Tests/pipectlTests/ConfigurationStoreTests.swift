import Foundation
import Pipeline
import CoreDataFormat
import Testing
import SQLite

/// `store: { configuration: Content }`: the store Core Data writes for
/// `addPersistentStore(ofType:configurationName: "Content", at:options:)`, read back with SQL;
/// and `inspect --configuration`. The model (Fixtures/configurations/Kitchen.xcdatamodeld, our
/// own) has Content = Ingredient, Recipe and User = Note; Note sorts between the two, so a store
/// numbering the whole model (Ingredient 1, Note 2, Recipe 3) and one numbering the configuration
/// (Ingredient 1, Recipe 2) differ. Which one Core Data writes no real store has shown yet:
/// docs/coredata.md, "Configuration stores".
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
        #expect(tables == ["ZINGREDIENT", "ZRECIPE", "Z_METADATA", "Z_PRIMARYKEY"].map { [Value.text($0)] })
        #expect(try store.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
            [.integer(1), .text("Ingredient"), .integer(0), .integer(3)],
            [.integer(2), .text("Recipe"), .integer(0), .integer(2)],
        ])
        #expect(try store.rows("SELECT Z_ENT, ZNAME, ZSERVINGS FROM ZRECIPE ORDER BY ZNAME") == [
            [.integer(2), .text("Greek Salad"), .integer(4)], [.integer(2), .text("Shakshuka"), .integer(2)],
        ])
        #expect(try store.rows("""
            SELECT i.Z_ENT, i.ZNAME, i.ZAMOUNT, r.ZNAME FROM ZINGREDIENT i JOIN ZRECIPE r ON r.Z_PK = i.ZRECIPE ORDER BY i.ZNAME
            """) == [
            [.integer(1), .text("Egg"), .text("4"), .text("Shakshuka")],
            [.integer(1), .text("Feta"), .text("200 g"), .text("Greek Salad")],
            [.integer(1), .text("Onion"), .text("1"), .text("Shakshuka")],
        ])

        // The hashes are the model's own for the configuration's entities: the same bytes the
        // whole model gives them, and none for Note.
        let rows = try store.rows("SELECT Z_PLIST FROM Z_METADATA")
        guard case .binary(let bytes) = try #require(rows.first?.first) else { Issue.record("Z_PLIST is no blob"); return }
        let plist = try #require(PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any])
        let hashes = try #require(plist["NSStoreModelVersionHashes"] as? [String: Data])
        let whole = try CoreDataModelReader.read(ws.root.appendingPathComponent("kitchen/Kitchen.xcdatamodeld"))
        let wholeHashes = CoreDataVersionHashes.hashes(for: whole)
        #expect(hashes.keys.sorted() == ["Ingredient", "Recipe"])
        #expect(hashes["Ingredient"] == wholeHashes["Ingredient"])
        #expect(hashes["Recipe"] == wholeHashes["Recipe"])
        #expect(plist["NSStoreType"] as? String == "SQLite")
    }

    @Test("the model file's configurations are read in file order, with their member entities")
    func configurationsAreRead() throws {
        let model = try CoreDataModelReader.read(Self.fixtures.appendingPathComponent("Kitchen.xcdatamodeld"))
        #expect(model.configurations == [ModelConfiguration(name: "Content", entities: ["Ingredient", "Recipe"]),
                                         ModelConfiguration(name: "User", entities: ["Note"])])
        #expect(model.configuration == nil)
        let content = try model.restricted(to: "Content")
        #expect(content.entities.map(\.name) == ["Ingredient", "Recipe"])
        #expect(content.configuration == "Content")
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
            kitchen/content.yaml:21:7: error: pipeline: entity 'Note' is not in configuration 'Content', so its store has no table for it (the configuration's entities: Ingredient, Recipe)
                  Note: { recipeName: recipe, text: amount }
                  ^

            """)
        #expect(try ws.bytes("kitchen/Content.sqlite") == before)
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
        let modelSection = String(match.stdout[try #require(match.stdout.range(of: "model: "))!.lowerBound...])
        #expect(modelSection == """
            model: kitchen/Kitchen.xcdatamodeld
            configuration: Content (its entities only)
              entity      version hash  Z_PRIMARYKEY
              Ingredient  match         match
              Recipe      match         match
            match: Core Data opens this store with this model without migrating
            rows: every row is as Core Data writes it for this model

            """)

        let other = try ws.run("inspect", "--model", "kitchen/Kitchen.xcdatamodeld", "--configuration", "User", "kitchen/Content.sqlite")
        #expect(other.status == 68)
        #expect(other.stdout.contains("""
              Ingredient  missing in model  missing in model
              Note        missing in store  missing in store
              Recipe      missing in model  missing in model
            """), "\(other.stdout)")
    }

    @Test("inspect without --configuration names the configuration a store is, and does not call it a match")
    func inspectWithoutConfiguration() throws {
        let ws = try workspace()
        #expect(try ws.run("run", "-q", "kitchen/content.yaml").status == 0)
        let result = try ws.run("inspect", "--model", "kitchen/Kitchen.xcdatamodeld", "kitchen/Content.sqlite")
        #expect(result.status == 68)
        #expect(result.stdout.contains("  Note        missing in store  missing in store\n"), "\(result.stdout)")
        #expect(result.stdout.contains("""
            configuration: the store is the model's configuration 'Content' (its entities only): check it with --configuration Content

            """), "\(result.stdout)")
        #expect(!result.stdout.contains("match: Core Data opens"))

        let json = try ws.run("inspect", "--json", "--model", "kitchen/Kitchen.xcdatamodeld", "kitchen/Content.sqlite")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let model = try #require(object["model"] as? [String: Any])
        #expect(model["match"] as? Bool == false)
        #expect(model["matchingConfigurations"] as? [String] == ["Content"])
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
