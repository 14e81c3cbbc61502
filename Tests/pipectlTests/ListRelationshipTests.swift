import Foundation
import SQLite
import SinksSQLite
import Testing

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
        let (_, opened, run) = try recipes()
        let store = try #require(opened, "\(run.stderr)")
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
                     [.text("vegan"), .text("Lentil Soup")], [.text("vegetarian"), .text("Shakshuka, Greek Salad")]])
        #expect(try store.rows("SELECT count(*) FROM ZTAG") == [[.integer(4)]])
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
            [.text("Nutrition"), .integer(3)], [.text("RecipeIngredient"), .integer(8)], [.text("Tag"), .integer(4)]])
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
            """) == [[.text("Greek Salad"), .text("vegetarian, quick, no-cook")], [.text("Lentil Soup"), .text("vegan")],
                     [.text("Shakshuka"), .text("vegetarian, quick")]])
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
        let store = try ws.store("build/Recipes.sqlite")
        #expect(try store.rows("SELECT count(*) FROM ZENTRY WHERE ZNAME = 'Lentil Soup'") == [[.integer(0)]])
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
        #expect(try store.rows("SELECT count(*) FROM ZENTRY WHERE ZNAME = 'Lentil Soup' OR ZTEXT LIKE 'Sweat%'") == [[.integer(0)]])
        #expect(try store.rows("SELECT count(*) FROM ZTAG") == [[.integer(4)]])
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
        try ws.write("""
            version: 1
            name: menu
            store: { path: ../build/Menu.sqlite, layout: coredata, model: model/Recipes.xcdatamodeld }
            entities: { Recipe: { unique: name }, Tag: { unique: name } }
            sources:
              - name: menu
                read: { csv: data/menu.csv }
                transform:
                  - split: { fields: [tags], separator: ";" }
                load:
                  Recipe:
                    name: name
                    tags: { Tag: { name: tags } }

            """, to: "pipelines/menu.yaml")
        let run = try ws.run("run", "-q", "pipelines/menu.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/Menu.sqlite")
        #expect(try store.rows("""
            SELECT r.ZNAME, group_concat(t.ZNAME, ', ') FROM ZENTRY r LEFT JOIN (SELECT * FROM Z_3TAGS ORDER BY Z_8TAGS) j
            ON j.Z_3RECIPES = r.Z_PK LEFT JOIN ZTAG t ON t.Z_PK = j.Z_8TAGS GROUP BY r.ZNAME ORDER BY r.ZNAME
            """) == [[.text("Soup"), .null], [.text("Tea"), .text("quick")], [.text("Toast"), .text("quick, breakfast")]])
    }
}
