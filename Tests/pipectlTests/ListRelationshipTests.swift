import Foundation
import SinksSQLite
import Testing
import SQLite

/// To-many relationships loaded from lists (issue 22): nested JSON arrays through `each:`, lists of
/// keys for a many-to-many, ordered lists, through the built binary into stores read back with SQL.
@Suite struct ListRelationshipTests {
    func recipes(layout: String = "coredata", edit: ((String) -> String)? = nil) throws -> (Workspace, SQLiteStore?, Pipectl.Result) {
        let ws = try Workspace()
        var yaml = try String(decoding: ws.bytes("pipelines/recipes.yaml"), as: UTF8.self)
        if layout != "coredata" { yaml = yaml.replacingOccurrences(of: "layout: coredata", with: "layout: \(layout)") }
        if let edit { yaml = edit(yaml) }
        try ws.write(yaml, to: "pipelines/recipes.yaml")
        let run = try ws.run("run", "-q", "pipelines/recipes.yaml")
        return (ws, run.status == 0 ? try ws.store("build/Recipes.sqlite") : nil, run)
    }

    @Test("pipelines/recipes.yaml: every relationship shape, read back from both sides")
    func recipesExample() throws {
        let (ws, opened, run) = try recipes()
        let store = try #require(opened, "\(run.stderr)")
        // The summary counts the links per relationship; a many-to-many's on both sides.
        let summary = try ws.run("run", "pipelines/recipes.yaml")
        #expect(summary.stdout.contains("links: Category.parent 2, Nutrition.recipe 3, Recipe.category 3, Recipe.nutrition 3, "
                                        + "Recipe.tags 8, RecipeIngredient.ingredient 8, RecipeIngredient.recipe 8, Step.recipe 7, "
                                        + "Tag.recipes 8"), "\(summary.stdout)")
        // A recipe ingredient's ingredient, found by name to make its key, is linked as found:
        // created at its first use, already present at the three others (Onion twice, Tomato once).
        let ingredients = summary.stdout.split(separator: "\n").first { $0.hasPrefix("  Ingredient ") }?.split(separator: " ")
        #expect(ingredients == ["Ingredient", "5", "3", "0", "0"], "\(summary.stdout)")
        // One-to-many from a nested array, ordered: each step points at its recipe, in the JSON's
        // order, with Core Data's order keys 2048, 3072, ... per recipe (bookmarks-ddg's rule).
        #expect(try store.rows("""
            SELECT r.ZNAME, s.ZTEXT, s.Z_FOK_RECIPE FROM ZENTRY s JOIN ZENTRY r ON r.Z_PK = s.ZRECIPE
            WHERE r.ZNAME = 'Greek Salad' ORDER BY s.Z_FOK_RECIPE
            """) == [[.text("Greek Salad"), .text("Chop tomatoes, cucumber and onion."), .integer(2048)],
                     [.text("Greek Salad"), .text("Top with feta and olives; dress with oil."), .integer(3072)]])
        #expect(try store.rows("SELECT count(*), min(Z_FOK_RECIPE), max(Z_FOK_RECIPE) FROM ZENTRY WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Step')")
                == [[.integer(7), .integer(2048), .integer(4096)]])
        // A join entity per element, its to-one back to the recipe set by the recipe, its
        // ingredient found or created by name: "Onion" once, used by three recipes.
        #expect(try store.rows("""
            SELECT r.ZNAME, i.ZNAME, ri.ZAMOUNT FROM ZRECIPEINGREDIENT ri JOIN ZENTRY r ON r.Z_PK = ri.ZRECIPE
            JOIN ZINGREDIENT i ON i.Z_PK = ri.ZINGREDIENT WHERE i.ZNAME = 'Onion' ORDER BY r.ZNAME
            """) == [[.text("Greek Salad"), .text("Onion"), .text("1/2")], [.text("Lentil Soup"), .text("Onion"), .text("1")],
                     [.text("Shakshuka"), .text("Onion"), .text("1")]])
        #expect(try store.rows("SELECT count(*) FROM ZINGREDIENT") == [[.integer(5)]])
        // Many-to-many: Core Data's join table, one row per recipe and tag, the tags the XML loaded.
        #expect(try store.rows("SELECT sql FROM sqlite_master WHERE name = 'Z_3TAGS'")
                == [[.text("CREATE TABLE Z_3TAGS ( Z_3RECIPES INTEGER, Z_8TAGS INTEGER, PRIMARY KEY (Z_3RECIPES, Z_8TAGS) )")]])
        #expect(try store.rows("""
            SELECT t.ZNAME, group_concat(r.ZNAME, ', ') FROM (SELECT * FROM Z_3TAGS ORDER BY Z_3RECIPES) j
            JOIN ZENTRY r ON r.Z_PK = j.Z_3RECIPES JOIN ZTAG t ON t.Z_PK = j.Z_8TAGS GROUP BY t.ZNAME ORDER BY t.ZNAME
            """) == [[.text("no-cook"), .text("Greek Salad")], [.text("quick"), .text("Shakshuka, Greek Salad")],
                     [.text("vegan"), .text("Lentil Soup")], [.text("vegetarian"), .text("Shakshuka, Greek Salad")],
                     [.text("winter"), .text("Lentil Soup, Shakshuka")]])
        #expect(try store.rows("SELECT count(*) FROM ZTAG") == [[.integer(5)]])
        // One-to-one owned by the recipe: both foreign keys.
        #expect(try store.rows("""
            SELECT r.ZNAME, n.ZKCAL FROM ZENTRY r JOIN ZNUTRITION n ON n.Z_PK = r.ZNUTRITION AND n.ZRECIPE = r.Z_PK ORDER BY r.ZNAME
            """) == [[.text("Greek Salad"), .integer(280)], [.text("Lentil Soup"), .integer(250)], [.text("Shakshuka"), .integer(320)]])
        // Self-referencing: a category's parent, and the recipes of each category.
        #expect(try store.rows("""
            SELECT c.ZNAME, p.ZNAME FROM ZCATEGORY c LEFT JOIN ZCATEGORY p ON p.Z_PK = c.ZPARENT ORDER BY c.ZNAME
            """) == [[.text("Breakfast"), .text("Mains")], [.text("Mains"), .null], [.text("Salads"), .null], [.text("Soups"), .text("Mains")]])
        #expect(try store.rows("SELECT c.ZNAME, r.ZNAME FROM ZENTRY r JOIN ZCATEGORY c ON c.Z_PK = r.ZCATEGORY ORDER BY r.ZNAME")
                == [[.text("Salads"), .text("Greek Salad")], [.text("Soups"), .text("Lentil Soup")], [.text("Breakfast"), .text("Shakshuka")]])
        // Z_MAX counts the rows of each root table, the abstract Entry's holding recipes and steps.
        #expect(try store.rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_SUPER = 0 ORDER BY Z_ENT") == [
            [.text("Category"), .integer(4)], [.text("Entry"), .integer(10)], [.text("Ingredient"), .integer(5)],
            [.text("Nutrition"), .integer(3)], [.text("RecipeIngredient"), .integer(8)], [.text("Tag"), .integer(5)]])
    }

    @Test("the model of pipelines/recipes.yaml inspects as a match with its store")
    func recipesStoreMatchesItsModel() throws {
        let (ws, opened, run) = try recipes()
        _ = try #require(opened, "\(run.stderr)")
        let inspect = try ws.run("inspect", "build/Recipes.sqlite", "--model", "pipelines/model/Recipes.xcdatamodeld")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
    }

    @Test("the plain layout: a join table with both rows' ids, a position column for an ordered list")
    func plainLayout() throws {
        let (_, opened, run) = try recipes(layout: "sqlite")
        let store = try #require(opened, "\(run.stderr)")
        #expect(try store.rows("SELECT sql FROM sqlite_master WHERE name = 'Recipe_tags'") == [[.text(
            #"CREATE TABLE "Recipe_tags" ("recipes_id" INTEGER NOT NULL REFERENCES "Recipe"("id"), "tags_id" INTEGER NOT NULL REFERENCES "Tag"("id"), PRIMARY KEY ("recipes_id", "tags_id"))"#)]])
        #expect(try store.rows("""
            SELECT r.name, group_concat(t.name, ', ') FROM (SELECT * FROM Recipe_tags ORDER BY tags_id) j
            JOIN Recipe r ON r.id = j.recipes_id JOIN Tag t ON t.id = j.tags_id GROUP BY r.name ORDER BY r.name
            """) == [[.text("Greek Salad"), .text("vegetarian, quick, no-cook")], [.text("Lentil Soup"), .text("vegan, winter")],
                     [.text("Shakshuka"), .text("vegetarian, quick, winter")]])
        #expect(try store.rows("""
            SELECT s.recipe_position, s.text FROM Step s JOIN Recipe r ON r.id = s.recipe_id WHERE r.name = 'Shakshuka' ORDER BY s.recipe_position
            """) == [[.integer(1), .text("Soften the onion and pepper in olive oil.")],
                     [.integer(2), .text("Add tomatoes and spices; simmer 10 minutes.")],
                     [.integer(3), .text("Crack in the eggs, cover, cook until set.")]])
    }

    @Test("a bad value in one element rejects the whole record: none of its children or links are written")
    func rejectedElementWritesNothing() throws {
        let ws = try Workspace()
        let json = try String(decoding: ws.bytes("pipelines/data/recipes.json"), as: UTF8.self)
        // Nutrition.kcal is an Integer 32: "lots" cannot be one.
        try ws.write(json.replacingOccurrences(of: "\"kcal\": 250", with: "\"kcal\": \"lots\""), to: "pipelines/data/recipes.json")
        let run = try ws.run("run", "pipelines/recipes.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("Nutrition.kcal"), "\(run.stderr)")
        // The winter tag made the recipe by name: it stays that placeholder, and is listed as one.
        #expect(run.stdout.contains("created by links only") && run.stdout.contains("Recipe 1"), "\(run.stdout)")
        let store = try ws.store("build/Recipes.sqlite")
        #expect(try store.rows("SELECT ZNUTRITION, ZCATEGORY FROM ZENTRY WHERE ZNAME = 'Lentil Soup'") == [[.null, .null]])
        // Its steps, its lentils and its join rows are not there either; "vegan" came from tags.xml.
        #expect(try store.rows("SELECT count(*) FROM ZENTRY WHERE ZTEXT LIKE '%lentils%' OR ZTEXT LIKE 'Sweat%'") == [[.integer(0)]])
        #expect(try store.rows("SELECT count(*) FROM ZINGREDIENT WHERE ZNAME = 'Lentils'") == [[.integer(0)]])
        #expect(try store.rows("SELECT count(*) FROM Z_3TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_8TAGS WHERE t.ZNAME = 'vegan'") == [[.integer(0)]])
    }

    @Test("missing: reject inside an each: rejects the record that lists the unknown key, with the closest one")
    func missingRejectInAList() throws {
        let ws = try Workspace()
        var yaml = try String(decoding: ws.bytes("pipelines/recipes.yaml"), as: UTF8.self)
        yaml = yaml.replacingOccurrences(of: "tags: { Tag: { name: tags } }", with: "tags: { Tag: { name: tags }, missing: reject }")
        try ws.write(yaml, to: "pipelines/recipes.yaml")
        let json = try String(decoding: ws.bytes("pipelines/data/recipes.json"), as: UTF8.self)
        try ws.write(json.replacingOccurrences(of: "[\"vegan\"]", with: "[\"vegann\"]"), to: "pipelines/data/recipes.json")
        let run = try ws.run("run", "pipelines/recipes.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("no Tag name=vegann in the store; did you mean 'vegan'?"), "\(run.stderr)")
        let store = try ws.store("build/Recipes.sqlite")
        #expect(try store.rows("SELECT count(*) FROM ZENTRY WHERE ZTEXT LIKE 'Sweat%'") == [[.integer(0)]])
        #expect(try store.rows("SELECT ZNUTRITION FROM ZENTRY WHERE ZNAME = 'Lentil Soup'") == [[.null]])
        #expect(try store.rows("SELECT count(*) FROM ZTAG") == [[.integer(5)]])
    }

    /// A pipeline loading data/menu.csv's recipes, its `tags` cells split at ";", and `link`
    /// (line 13, column 5) reading them; `key`: the other entity found by name.
    static func menuPipeline(key: String, link: String) -> String {
        """
        version: 1
        name: menu
        store: { path: ../build/Menu.sqlite, layout: coredata, model: model/Recipes.xcdatamodeld }
        entities: { Recipe: { unique: name }, \(key): { unique: name } }
        sources:
          - name: menu
            read: { csv: data/menu.csv }
            transform:
              - split: { fields: [tags], separator: ";" }
            load:
              Recipe:
                name: name
                \(link)

        """
    }

    @Test("a CSV cell split into a list links one record per element; an empty cell links none")
    func splitCellManyToMany() throws {
        let ws = try Workspace()
        try ws.write("""
            name,tags
            Toast,"quick; breakfast ;"
            Soup,
            Tea,quick

            """, to: "pipelines/data/menu.csv")
        try ws.write(Self.menuPipeline(key: "Tag", link: "tags: { Tag: { name: tags } }"), to: "pipelines/menu.yaml")
        let run = try ws.run("run", "-q", "pipelines/menu.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/Menu.sqlite")
        #expect(try store.rows("""
            SELECT r.ZNAME, group_concat(t.ZNAME, ', ') FROM ZENTRY r LEFT JOIN (SELECT * FROM Z_3TAGS ORDER BY Z_8TAGS) j
            ON j.Z_3RECIPES = r.Z_PK LEFT JOIN ZTAG t ON t.Z_PK = j.Z_8TAGS GROUP BY r.ZNAME ORDER BY r.ZNAME
            """) == [[.text("Soup"), .null], [.text("Tea"), .text("quick")], [.text("Toast"), .text("quick, breakfast")]])
    }

    @Test("a join entity keyed by its two links is found again: in its own list, by a later source, by a list replaced")
    func joinEntityKeysFoundAgain() throws {
        // 31 recipes; every third lists 20 ingredients (more than the key index keeps together),
        // the others 5, and the last 300 (more records than a batch between the threads holds);
        // R1 names I0 twice. Then a CSV corrects recipe ingredients by their keys, and a
        // corrections source replaces R3's list.
        let ws = try Workspace()
        func ingredients(_ k: Int) -> [(String, String)] {
            (0..<(k == 30 ? 300 : k % 3 == 0 ? 20 : 5)).map { ("I\($0)", "\(k)-\($0)") } + (k == 1 ? [("I0", "again")] : [])
        }
        let recipes = (0..<31).map { k in
            let list = ingredients(k).map { #"{"name": "\#($0.0)", "amount": "\#($0.1)"}"# }.joined(separator: ", ")
            return #"{"name": "R\#(k)", "ingredients": [\#(list)]}"#
        }
        try ws.write(#"{"recipes": [\#(recipes.joined(separator: ",\n"))]}"#, to: "pipelines/data/many.json")
        try ws.write("""
            recipe,ingredient,amount
            R0,I17,fixed
            R0,I2,fixed
            R14,I3,fixed
            R29,I4,fixed
            R5,I12,new
            R5,I12,again

            """, to: "pipelines/data/fixes.csv")
        try ws.write(#"{"recipes": [{"name": "R3", "ingredients": [{"name": "I19", "amount": "c19"}, {"name": "I0", "amount": "c0"}, {"name": "I25", "amount": "c25"}]}]}"#,
                     to: "pipelines/data/corrections.json")
        let load = "{ Recipe: { name: name, ingredients: { RecipeIngredient: { each: ingredients, amount: amount, ingredient: { Ingredient: { name: name } } } } } }"
        try ws.write("""
            version: 1
            name: many
            store: { path: ../build/Many.sqlite, layout: coredata, model: model/Recipes.xcdatamodeld }
            entities:
              Recipe: { unique: name }
              Ingredient: { unique: name }
              RecipeIngredient: { unique: [recipe, ingredient] }
            sources:
              - name: recipes
                read: { json: data/many.json, records: recipes }
                load: \(load)
              - name: fixes
                read: { csv: data/fixes.csv }
                on_duplicate: update
                load:
                  RecipeIngredient: { recipe: { Recipe: { name: recipe } }, ingredient: { Ingredient: { name: ingredient } }, amount: amount }
              - name: corrections
                read: { json: data/corrections.json, records: recipes }
                on_duplicate: update
                load: \(load)

            """, to: "pipelines/many.yaml")
        let run = try ws.run("run", "-q", "pipelines/many.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/Many.sqlite")
        var expected: [[String]: String] = [:]
        for k in 0..<31 where k != 3 {
            for (name, amount) in ingredients(k) where expected[["R\(k)", name]] == nil { expected[["R\(k)", name]] = amount }
        }
        for (recipe, name, amount) in [("R0", "I17", "fixed"), ("R0", "I2", "fixed"), ("R14", "I3", "fixed"), ("R29", "I4", "fixed"),
                                       ("R5", "I12", "again"), ("R3", "I19", "c19"), ("R3", "I0", "c0"), ("R3", "I25", "c25")] {
            expected[[recipe, name]] = amount
        }
        let rows = try store.rows("""
            SELECT r.ZNAME, i.ZNAME, ri.ZAMOUNT FROM ZRECIPEINGREDIENT ri JOIN ZENTRY r ON r.Z_PK = ri.ZRECIPE
            JOIN ZINGREDIENT i ON i.Z_PK = ri.ZINGREDIENT
            """)
        var found: [[String]: String] = [:]
        for row in rows {
            guard case .text(let recipe) = row[0], case .text(let name) = row[1], case .text(let amount) = row[2] else {
                Issue.record("a recipe ingredient without its recipe, ingredient or amount: \(row)"); continue
            }
            #expect(found.updateValue(amount, forKey: [recipe, name]) == nil, "\(recipe), \(name) twice")
        }
        #expect(rows.count == 10 * 20 + 20 * 5 + 300 + 1 - 17)
        #expect(found == expected)
    }

    @Test("a list's join rows are added several to a statement: every pair in list order, a pair given twice once")
    func joinRowsOfLongLists() throws {
        // Eight rows go in one statement: eleven tags are eight and three (t1 twice in the first
        // statement, t3 again in the second), nine are eight and one.
        let eleven = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t1", "t8", "t9", "t3"]
        let nine = (11...19).map { "t\($0)" }
        let ws = try Workspace()
        try ws.write("name,tags\nLong,\(eleven.joined(separator: ";"))\nNine,\(nine.joined(separator: ";"))\nOne,t2\n",
                     to: "pipelines/data/menu.csv")
        try ws.write(Self.menuPipeline(key: "Tag", link: "tags: { Tag: { name: tags } }"), to: "pipelines/menu.yaml")
        let run = try ws.run("run", "-q", "pipelines/menu.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/Menu.sqlite")
        let rows = try store.rows("""
            SELECT r.ZNAME, t.ZNAME FROM Z_3TAGS j JOIN ZENTRY r ON r.Z_PK = j.Z_3RECIPES JOIN ZTAG t ON t.Z_PK = j.Z_8TAGS ORDER BY j.rowid
            """)
        let pairs = (1...9).map { ("Long", "t\($0)") } + nine.map { ("Nine", $0) } + [("One", "t2")]
        #expect(rows == pairs.map { [.text($0.0), .text($0.1)] })
    }

    /// DuckDuckGo's bookmarks model (version 4, restated from the bookmarks-ddg case): one entity
    /// with an ordered self-referencing one-to-many (children <-> parent) and a self-referencing
    /// many-to-many with one ordered side (favorites <-> favoriteFolders).
    static let bookmarksModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="21754" systemVersion="22G90" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="BookmarkEntity" representedClassName="BookmarkEntity" syncable="YES">
                <attribute name="isFolder" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="isPendingDeletion" optional="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES" versionHashModifier="3"/>
                <attribute name="modifiedAt" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="url" optional="YES" attributeType="String" versionHashModifier="3"/>
                <attribute name="uuid" attributeType="String" versionHashModifier="3"/>
                <relationship name="children" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="BookmarkEntity" inverseName="parent" inverseEntity="BookmarkEntity"/>
                <relationship name="favoriteFolders" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="BookmarkEntity" inverseName="favorites" inverseEntity="BookmarkEntity" elementID="favoriteFolder"/>
                <relationship name="favorites" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="BookmarkEntity" inverseName="favoriteFolders" inverseEntity="BookmarkEntity"/>
                <relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="BookmarkEntity" inverseName="children" inverseEntity="BookmarkEntity"/>
                <fetchIndex name="byUUID">
                    <fetchIndexElement property="uuid" type="Binary" order="ascending"/>
                    <fetchIndexElement property="isPendingDeletion" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byURL">
                    <fetchIndexElement property="url" type="Binary" order="ascending"/>
                    <fetchIndexElement property="isPendingDeletion" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byIsPendingDeletion">
                    <fetchIndexElement property="isPendingDeletion" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
        </model>

        """

    @Test("ordered to-many and ordered many-to-many as the store Core Data wrote (bookmarks-ddg): same DDL, same Z_FOK_ values")
    func bookmarksAsCoreDataWroteThem() throws {
        let ws = try Workspace()
        try ws.write(Self.bookmarksModel, to: "Bookmarks.xcdatamodel/contents")
        // The case's test tree: bookmarks_root { 1, 2, 3 { 31, 32, 33 }, 4, 5 }, and favorites_root
        // whose favorites are 5, 4, 33, 32, 2. Each record lists records loaded before it.
        let leaves = ["1", "2", "31", "32", "33", "4", "5"].map { #"{"uuid": "\#($0)", "title": "\#($0)", "isFolder": false}"# }
        try ws.write("""
            [\(leaves.joined(separator: ",\n ")),
             {"uuid": "3", "title": "3", "isFolder": true, "children": ["31", "32", "33"]},
             {"uuid": "b", "title": "bookmarks_root", "isFolder": true, "children": ["1", "2", "3", "4", "5"]},
             {"uuid": "f", "title": "favorites_root", "isFolder": true, "favorites": ["5", "4", "33", "32", "2"]}]
            """, to: "bookmarks.json")
        try ws.write("""
            version: 1
            name: bookmarks
            store: { path: Bookmarks.sqlite, layout: coredata, model: Bookmarks.xcdatamodel }
            entities: { BookmarkEntity: { unique: uuid } }
            sources:
              - name: bookmarks
                read: { json: bookmarks.json }
                load:
                  BookmarkEntity:
                    uuid: uuid
                    title: title
                    isFolder: isFolder
                    children: { BookmarkEntity: { uuid: children }, missing: reject }
                    favorites: { BookmarkEntity: { uuid: favorites }, missing: reject }

            """, to: "bookmarks.yaml")
        let run = try ws.run("run", "-q", "bookmarks.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("Bookmarks.sqlite")
        // The case's schema.sql, table and index for table and index.
        #expect(try store.rows("SELECT sql FROM sqlite_master WHERE name IN ('ZBOOKMARKENTITY', 'Z_1FAVORITES', 'Z_1FAVORITES_Z_1FAVORITES_INDEX') ORDER BY name") == [
            [.text("CREATE TABLE ZBOOKMARKENTITY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZISFOLDER INTEGER, ZISPENDINGDELETION INTEGER, ZPARENT INTEGER, Z_FOK_PARENT INTEGER, ZMODIFIEDAT TIMESTAMP, ZTITLE VARCHAR, ZURL VARCHAR, ZUUID VARCHAR )")],
            [.text("CREATE TABLE Z_1FAVORITES ( Z_1FAVORITEFOLDERS INTEGER, Z_1FAVORITES INTEGER, Z_FOK_1FAVORITES INTEGER, PRIMARY KEY (Z_1FAVORITEFOLDERS, Z_1FAVORITES) )")],
            [.text("CREATE INDEX Z_1FAVORITES_Z_1FAVORITES_INDEX ON Z_1FAVORITES (Z_1FAVORITES, Z_1FAVORITEFOLDERS)")],
        ])
        // The case's samples.txt, by title: each parent's children 2048, 3072, ... in order.
        #expect(try store.rows("""
            SELECT p.ZTITLE, c.ZTITLE, c.Z_FOK_PARENT FROM ZBOOKMARKENTITY c JOIN ZBOOKMARKENTITY p ON p.Z_PK = c.ZPARENT
            ORDER BY p.ZTITLE, c.Z_FOK_PARENT
            """) == [["3", "31", 2048], ["3", "32", 3072], ["3", "33", 4096], ["bookmarks_root", "1", 2048], ["bookmarks_root", "2", 3072],
                     ["bookmarks_root", "3", 4096], ["bookmarks_root", "4", 5120], ["bookmarks_root", "5", 6144]]
                     .map { [.text($0[0] as! String), .text($0[1] as! String), .integer(Int64($0[2] as! Int))] })
        #expect(try store.rows("SELECT count(*) FROM ZBOOKMARKENTITY WHERE ZPARENT IS NULL AND Z_FOK_PARENT IS NULL") == [[.integer(2)]])
        // The folder in Z_1FAVORITEFOLDERS, the favorite in Z_1FAVORITES, ordered by Z_FOK_1FAVORITES.
        #expect(try store.rows("""
            SELECT f.ZTITLE, b.ZTITLE, j.Z_FOK_1FAVORITES FROM Z_1FAVORITES j JOIN ZBOOKMARKENTITY f ON f.Z_PK = j.Z_1FAVORITEFOLDERS
            JOIN ZBOOKMARKENTITY b ON b.Z_PK = j.Z_1FAVORITES ORDER BY j.Z_FOK_1FAVORITES
            """) == [("5", 2048), ("4", 3072), ("33", 4096), ("32", 5120), ("2", 6144)].map {
                [.text("favorites_root"), .text($0.0), .integer($0.1)]
            })
    }
    @Test("diff --pipeline compares to-many relationships by the linked keys: sets sorted, ordered lists in order")
    func diffComparesToManyRelationships() throws {
        let (ws, opened, run) = try recipes()
        _ = try #require(opened, "\(run.stderr)")
        try FileManager.default.moveItem(at: ws.build.appendingPathComponent("Recipes.sqlite"), to: ws.root.appendingPathComponent("old.sqlite"))
        var json = try String(decoding: ws.bytes("pipelines/data/recipes.json"), as: UTF8.self)
        json = json.replacingOccurrences(of: #""Feta", "amount": "200 g""#, with: #""Feta", "amount": "250 g""#)
            .replacingOccurrences(of: #""tags": ["vegetarian", "quick", "no-cook"]"#, with: #""tags": ["vegetarian", "no-cook"]"#)
        try ws.write(json, to: "pipelines/data/recipes.json")
        #expect(try ws.run("run", "-q", "pipelines/recipes.yaml").status == 0)
        let diff = try ws.run("diff", "old.sqlite", "build/Recipes.sqlite", "--pipeline", "pipelines/recipes.yaml")
        #expect(diff.status == 1, "\(diff.stderr)")
        #expect(diff.stdout.contains("~ Recipe name=Greek Salad: tags [no-cook, quick, vegetarian] -> [no-cook, vegetarian]"), "\(diff.stdout)")
        #expect(diff.stdout.contains("~ Tag name=quick: recipes [Greek Salad, Shakshuka] -> [Shakshuka]"), "\(diff.stdout)")
        // The join entity is matched by its key over relationships, shown by the linked keys.
        #expect(diff.stdout.contains("RecipeIngredient (by recipe, ingredient): 0 added, 0 removed, 1 changed, 7 unchanged"), "\(diff.stdout)")
        #expect(diff.stdout.contains("~ RecipeIngredient recipe=Greek Salad, ingredient=Feta: amount 200 g -> 250 g"), "\(diff.stdout)")
        // The same stores without the pipeline: the join table's rows, each side by its record's key.
        let plain = try ws.run("diff", "old.sqlite", "build/Recipes.sqlite")
        #expect(plain.status == 1, "\(plain.stderr)")
        #expect(plain.stdout.contains("- Z_3TAGS Recipe=Greek Salad, Tag=quick"), "\(plain.stdout)")
    }
    @Test("the report's entity sheets show a relationship as the linked record's key, a many-to-many as the keys it links")
    func reportShowsRelationshipsByKey() throws {
        let ws = try Workspace()
        let run = try ws.run("run", "-q", "pipelines/recipes.yaml", "--report", "build/recipes.xlsx")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ws.run("run", "-q", "pipelines/recipes.yaml", "--report", "build/recipes.json").status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: ws.bytes("build/recipes.json")) as? [String: Any])
        let links = try #require(json["links"] as? [[String: Any]])
        #expect(links.first { $0["relationship"] as? String == "Recipe.tags" }?["count"] as? Int == 8)
        #expect(links.first { $0["relationship"] as? String == "Step.recipe" }?["count"] as? Int == 7)
        let workbook = try Workbook(ws.root.appendingPathComponent("build/recipes.xlsx"))
        let names = try workbook.sheetNames()
        let recipe = try workbook.sheet(try #require(names.firstIndex(of: "Recipe")) + 1)
        for cell in ["Shakshuka", "Category name=Breakfast", "Nutrition row 1", "[quick, vegetarian, winter]", "3 records"] {
            #expect(recipe.contains("<t>\(cell)</t>"), "\(cell) in \(recipe)")
        }
        let uses = try workbook.sheet(try #require(names.firstIndex(of: "RecipeIngredient")) + 1)
        #expect(uses.contains("<t>Ingredient name=Feta</t>") && uses.contains("<t>Recipe name=Greek Salad</t>"), "\(uses)")
        #expect(!uses.contains("<t>Recipe row"), "\(uses)")
    }
    @Test("a list where one value is wanted: a split field is an error validate names, a JSON array a rejection that says so")
    func listsWhereOneValueIsWanted() throws {
        let ws = try Workspace()
        try ws.write("name,tags\nToast,quick;breakfast\n", to: "pipelines/data/menu.csv")
        try ws.write(Self.menuPipeline(key: "Category", link: "category: { Category: { name: tags } }"), to: "pipelines/menu.yaml")
        let validate = try ws.run("validate", "pipelines/menu.yaml")
        #expect(validate.status == 65)
        #expect(validate.stderr.contains("pipelines/menu.yaml:13:39: error: pipeline: field 'tags' is a list (a 'split' step makes it one), "
                                         + "and 'Category.name' takes one value"), "\(validate.stderr)")
        // In JSON a field is a list when the data says so: the record is rejected, and why.
        let json = try String(decoding: ws.bytes("pipelines/data/recipes.json"), as: UTF8.self)
        try ws.write(json.replacingOccurrences(of: #""category": "Soups""#, with: #""category": ["Soups", "Mains"]"#),
                     to: "pipelines/data/recipes.json")
        let run = try ws.run("run", "pipelines/recipes.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("Category.name (string): the field holds a list of 2 values, and an attribute takes one; "
                                    + "load a list through a to-many relationship"), "\(run.stderr)")
    }
    /// A child of the recipe (Step), and a record two links down that a child would create
    /// (RecipeIngredient's Ingredient), each given a required attribute that no load sets: the
    /// sink finds it, not the load.
    @Test("a child without a value its entity requires rejects the record before any of it is written", arguments: [
        (#"<attribute name="text" optional="YES" attributeType="String"/>"#, #"<attribute name="minutes" attributeType="Integer 16"/>"#, "Step.minutes"),
        (#"<relationship name="uses""#, #"<attribute name="origin" attributeType="String"/>"#, "Ingredient.origin"),
    ])
    func childMissingARequiredValue(before anchor: String, add attribute: String, named name: String) throws {
        let ws = try Workspace()
        let modelPath = "pipelines/model/Recipes.xcdatamodeld/Recipes.xcdatamodel/contents"
        let model = try String(decoding: ws.bytes(modelPath), as: UTF8.self)
        #expect(model.components(separatedBy: anchor).count == 2)
        try ws.write(model.replacingOccurrences(of: anchor, with: attribute + anchor), to: modelPath)
        // Every recipe is rejected, which fails a run (exit 67, no store) unless allow_empty: true.
        let failed = try ws.run("run", "pipelines/recipes.yaml")
        #expect(failed.status == 67 && !ws.exists("build/Recipes.sqlite"), "\(failed.stderr)")
        let pipeline = try String(decoding: ws.bytes("pipelines/recipes.yaml"), as: UTF8.self)
        try ws.write(pipeline + "allow_empty: true\n", to: "pipelines/recipes.yaml")
        let run = try ws.run("run", "pipelines/recipes.yaml")
        #expect(run.stderr.contains("\(name) is required and has no default, but the record gives no value"), "\(run.stderr)")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/Recipes.sqlite")
        // Every recipe was rejected: no step, no ingredient, no join entity, no nutrition written;
        // the two recipes the winter tag names stay its placeholders.
        #expect(try store.rows("SELECT ZNAME, ZNUTRITION, ZCATEGORY FROM ZENTRY ORDER BY ZNAME")
                == [[.text("Lentil Soup"), .null, .null], [.text("Shakshuka"), .null, .null]])
        for table in ["ZINGREDIENT", "ZRECIPEINGREDIENT", "ZNUTRITION"] {
            #expect(try store.rows("SELECT count(*) FROM \(table)") == [[.integer(0)]], "\(table)")
        }
        #expect(try store.rows("SELECT count(*) FROM Z_3TAGS") == [[.integer(2)]])
    }

    @Test("XML: repeated elements with attributes or children are a list of objects for each:, plain repeated ones a list of keys")
    func xmlListsOfObjects() throws {
        let ws = try Workspace()
        try ws.write("""
            <recipes>
              <recipe name="Pesto">
                <tag>quick</tag><tag>vegetarian</tag>
                <ingredient name="Basil" amount="50 g"/>
                <ingredient><name>Pine nuts</name><amount>30 g</amount></ingredient>
              </recipe>
            </recipes>
            """, to: "pipelines/data/more.xml")
        try ws.write("""
            version: 1
            name: more
            store: { path: ../build/More.sqlite, layout: sqlite, model: model/Recipes.xcdatamodeld }
            entities: { Recipe: { unique: name }, Tag: { unique: name }, Ingredient: { unique: name },
                        RecipeIngredient: { unique: [recipe, ingredient] } }
            sources:
              - name: recipes
                read: { xml: data/more.xml, record: recipe }
                load:
                  Recipe:
                    name: name
                    tags: { Tag: { name: tag } }
                    ingredients:
                      RecipeIngredient:
                        each: ingredient
                        amount: amount
                        ingredient: { Ingredient: { name: name } }

            """, to: "pipelines/more.yaml")
        let run = try ws.run("run", "-q", "pipelines/more.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/More.sqlite")
        #expect(try store.rows("""
            SELECT r.name, i.name, u.amount FROM RecipeIngredient u JOIN Recipe r ON r.id = u.recipe_id
            JOIN Ingredient i ON i.id = u.ingredient_id ORDER BY u.id
            """) == [[.text("Pesto"), .text("Basil"), .text("50 g")], [.text("Pesto"), .text("Pine nuts"), .text("30 g")]])
        #expect(try store.rows("SELECT t.name FROM Recipe_tags j JOIN Tag t ON t.id = j.tags_id ORDER BY t.id")
                == [[.text("quick")], [.text("vegetarian")]])
    }
    /// swiftdata-metacocktails' persistent-history tables and Z_PRIMARYKEY rows, restated: what
    /// SwiftData (and Core Data with history tracking on) adds to a store.
    static let historyTables = [
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 2), (16002, 'TRANSACTION', 0, 1), (16003, 'TRANSACTIONSTRING', 0, 1)",
        "INSERT INTO ACHANGE (Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (16001, 0, 3, 1, 1), (16001, 0, 3, 2, 1)",
        "INSERT INTO ATRANSACTION (Z_ENT, ZTIMESTAMP) VALUES (16002, 786000000)",
        "INSERT INTO ATRANSACTIONSTRING (Z_ENT, ZNAME) VALUES (16003, 'com.example.recipes')",
    ]

    @Test("inspect --model: Core Data's persistent-history entities are its own, listed apart, and the store still matches")
    func historyEntitiesAreCoreDatas() throws {
        let (ws, opened, run) = try recipes()
        _ = try #require(opened, "\(run.stderr)")
        let sqlite = try Pipectl.runTool("sqlite3", ["build/Recipes.sqlite"] + Self.historyTables.map { $0 + ";" }, in: ws.root)
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        let inspect = try ws.run("inspect", "build/Recipes.sqlite", "--model", "pipelines/model/Recipes.xcdatamodeld")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.stdout.contains("entities: 8 (Z_PRIMARYKEY)"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("Core Data's persistent history: 3 entities"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("16001  CHANGE"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("ACHANGE"), "\(inspect.stdout)")
        #expect(!inspect.stdout.contains("missing in model"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("match: Core Data opens this store with this model without migrating"), "\(inspect.stdout)")
    }
    @Test("store: { history: true } writes Core Data's history tables empty, as swiftdata-metacocktails' store has them")
    func historyTablesWritten() throws {
        let (ws, opened, run) = try recipes(edit: { $0.replacingOccurrences(of: "  layout: coredata\n", with: "  layout: coredata\n  history: true\n") })
        let store = try #require(opened, "\(run.stderr)")
        let expected = Self.historyTables.prefix(3) + [
            "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
            "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
            "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
            "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
            "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
            "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
            "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        ]
        // The last statements of sqlite_master, in the real store's order.
        let all = try store.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").compactMap { row -> String? in
            if case .text(let sql) = row[0] { sql } else { nil }
        }
        #expect(Array(all.suffix(expected.count)) == Array(expected))
        #expect(try store.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT") == [
            [.integer(16001), .text("CHANGE"), .integer(0), .integer(0)],
            [.integer(16002), .text("TRANSACTION"), .integer(0), .integer(0)],
            [.integer(16003), .text("TRANSACTIONSTRING"), .integer(0), .integer(0)],
        ])
        let inspect = try ws.run("inspect", "build/Recipes.sqlite", "--model", "pipelines/model/Recipes.xcdatamodeld")
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.stdout.contains("Core Data's persistent history: 3 entities"), "\(inspect.stdout)")
        // Only the coredata layout has them.
        let plain = try recipes(layout: "sqlite", edit: { $0.replacingOccurrences(of: "  layout: sqlite\n", with: "  layout: sqlite\n  history: true\n") })
        #expect(plain.2.status == 65)
        #expect(plain.2.stderr.contains("'history' writes Core Data's persistent-history tables: it needs 'layout: coredata'"), "\(plain.2.stderr)")
    }
}
