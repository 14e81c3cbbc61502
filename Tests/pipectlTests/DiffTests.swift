import Foundation
import XCTest

/// `pipectl diff OLD NEW`: the CI gate between the store that shipped and a regenerated one.
final class DiffTests: XCTestCase {
    /// Two grocery stores of `pipeline`: `build/old.sqlite` from the data as it is, and the
    /// pipeline's own store after Pale ale changed quantity and unit and Nutmeg went.
    private func twoStores(_ pipeline: String, store: String) throws -> Workspace {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", pipeline).status, 0)
        try FileManager.default.copyItem(at: ws.root.appendingPathComponent(store), to: ws.root.appendingPathComponent("build/old.sqlite"))
        var csv = try String(decoding: ws.bytes("pipelines/data/grocery.csv"), as: UTF8.self)
        csv = csv.replacingOccurrences(of: "Pale ale;12;bottle;", with: "Pale ale;13;can;")
            .replacingOccurrences(of: "Nutmeg;200\u{A0};\tg;Spice rack;Aisle 10: Herbs & Spices;03/03/2026\r\n", with: "")
        try ws.write(csv, to: "pipelines/data/grocery.csv")
        XCTAssertEqual(try ws.run("run", "-q", pipeline).status, 0)
        return ws
    }

    func testCoreDataStoresWithTheirPipeline() throws {
        let ws = try twoStores("pipelines/grocery.yaml", store: "build/Grocery.sqlite")
        let result = try ws.run("diff", "build/old.sqlite", "build/Grocery.sqlite", "--pipeline", "pipelines/grocery.yaml")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stdout, """
            Item (by name): 0 added, 1 removed, 1 changed, 412 unchanged
            LocationAtHome (by storedIn): no changes, 18 record(s)
            LocationAtShop (by aisle): no changes, 17 record(s)
            Unit (by name): no changes, 11 record(s)
            - Item name=Nutmeg
            ~ Item name=Pale ale: quantity 12 -> 13, unit bottle -> can

            """)

        let same = try ws.run("diff", "build/Grocery.sqlite", "build/Grocery.sqlite", "--pipeline", "pipelines/grocery.yaml")
        XCTAssertEqual(same.status, 0, same.stdout)
        let quiet = try ws.run("diff", "-q", "build/old.sqlite", "build/Grocery.sqlite", "--pipeline", "pipelines/grocery.yaml")
        XCTAssertEqual(quiet.status, 1)
        XCTAssertEqual(quiet.stdout, "")
    }

    func testPlainStoresWithoutAPipeline() throws {
        let ws = try twoStores("pipelines/grocery-sqlite.yaml", store: "build/grocery-sqlite.sqlite")
        let result = try ws.run("diff", "build/old.sqlite", "build/grocery-sqlite.sqlite", "--json")
        XCTAssertEqual(result.status, 1, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let changes = try XCTUnwrap(json["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.map { "\($0["kind"] ?? "") \($0["entity"] ?? "") \($0["key"] ?? "")" },
                       ["removed Item name=Nutmeg", "changed Item name=Pale ale"])
        // The foreign key unit_id compares as the unit's name.
        XCTAssertEqual(changes[1]["fields"] as? [[String: String]], [["name": "quantity", "old": "12", "new": "13"],
                                                                     ["name": "unit", "old": "bottle", "new": "can"]])
    }

    /// A Core Data store with a many-to-many relationship (Recipe.tags <-> Tag.recipes) compared
    /// without its pipeline: entity by entity, keys from the uniqueness constraints' indexes; the
    /// join table's rows are pairs of keys, not a query without columns.
    func testJoinTablesWithoutAPipeline() throws {
        let ws = try Workspace()
        try ws.write("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
                <entity name="Recipe" representedClassName="Recipe" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="recipes" inverseEntity="Tag"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="recipes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Recipe" inverseName="tags" inverseEntity="Recipe"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
            </model>

            """, to: "Recipes.xcdatamodel/contents")
        try ws.write("name\nSoup\nSalad\n", to: "recipes.csv")
        try ws.write("name\nvegan\nquick\n", to: "tags.csv")
        try ws.write("""
            version: 1
            name: recipes
            store: { path: build/Recipes.sqlite, layout: coredata, model: Recipes.xcdatamodel }
            entities: { Recipe: { unique: name }, Tag: { unique: name } }
            sources:
              - { name: recipes, read: { csv: recipes.csv }, load: { Recipe: { name: name } } }
              - { name: tags, read: { csv: tags.csv }, load: { Tag: { name: name } } }

            """, to: "recipes.yaml")
        XCTAssertEqual(try ws.run("run", "-q", "recipes.yaml").status, 0)
        let path = ws.root.appendingPathComponent("build/Recipes.sqlite").path
        let table = try XCTUnwrap(try Pipectl.runTool("sqlite3", [path, "SELECT name FROM sqlite_master WHERE name LIKE 'Z\\_1%' ESCAPE '\\' AND type = 'table'"], in: ws.root).stdout
            .split(separator: "\n").first.map(String.init))
        XCTAssertEqual(table, "Z_1TAGS")
        // Soup is vegan and quick; then Salad becomes vegan and Soup is no longer quick.
        let pairs = "(SELECT Z_PK FROM ZRECIPE WHERE ZNAME = 'Soup'), (SELECT Z_PK FROM ZTAG WHERE ZNAME = 'vegan')"
        XCTAssertEqual(try Pipectl.runTool("sqlite3", [path, "INSERT INTO Z_1TAGS VALUES (\(pairs)); INSERT INTO Z_1TAGS VALUES ((SELECT Z_PK FROM ZRECIPE WHERE ZNAME = 'Soup'), (SELECT Z_PK FROM ZTAG WHERE ZNAME = 'quick'))"], in: ws.root).status, 0)
        try FileManager.default.copyItem(atPath: path, toPath: ws.root.appendingPathComponent("build/old.sqlite").path)
        XCTAssertEqual(try Pipectl.runTool("sqlite3", [path, "DELETE FROM Z_1TAGS WHERE Z_2TAGS = (SELECT Z_PK FROM ZTAG WHERE ZNAME = 'quick'); INSERT INTO Z_1TAGS VALUES ((SELECT Z_PK FROM ZRECIPE WHERE ZNAME = 'Salad'), (SELECT Z_PK FROM ZTAG WHERE ZNAME = 'vegan'))"], in: ws.root).status, 0)

        let result = try ws.run("diff", "build/old.sqlite", "build/Recipes.sqlite")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stdout, """
            Recipe (by name): no changes, 2 record(s)
            Tag (by name): no changes, 2 record(s)
            Z_1TAGS (by whole row): 1 added, 1 removed, 0 changed, 1 unchanged
            + Z_1TAGS Recipe=Salad, Tag=vegan
            - Z_1TAGS Recipe=Soup, Tag=quick

            """)
        XCTAssertEqual(try ws.run("diff", "build/Recipes.sqlite", "build/Recipes.sqlite").status, 0)

        // inspect counts the join table's rows, naming the entities its columns hold.
        let inspect = try ws.run("inspect", "build/Recipes.sqlite")
        XCTAssertTrue(inspect.stdout.contains("\njoin tables: 1 (many-to-many)\n  table    between      rows\n  Z_1TAGS  Recipe, Tag     2\n"),
                      inspect.stdout)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try ws.run("inspect", "--json", "build/Recipes.sqlite").stdout.utf8)) as? [String: Any])
        let join = try XCTUnwrap((json["joinTables"] as? [[String: Any]])?.first)
        XCTAssertEqual(join["table"] as? String, "Z_1TAGS")
        XCTAssertEqual(join["entities"] as? [String], ["Recipe", "Tag"])
        XCTAssertEqual(join["rows"] as? Int, 2)
    }

    /// Two recipes stores: `build/old.sqlite` from the data as it is, and `build/Recipes.sqlite`
    /// after Shakshuka's three steps were given in reverse order (nothing else changed).
    private func reversedSteps() throws -> Workspace {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/recipes.yaml").status, 0)
        try FileManager.default.copyItem(at: ws.root.appendingPathComponent("build/Recipes.sqlite"), to: ws.root.appendingPathComponent("build/old.sqlite"))
        let steps = ["        { \"text\": \"Soften the onion and pepper in olive oil.\" },\n",
                     "        { \"text\": \"Add tomatoes and spices; simmer 10 minutes.\" },\n",
                     "        { \"text\": \"Crack in the eggs, cover, cook until set.\" }\n"]
        let json = try String(decoding: ws.bytes("pipelines/data/recipes.json"), as: UTF8.self)
        XCTAssertTrue(json.contains(steps.joined()))
        let reversed = steps.reversed().map { $0.hasSuffix("},\n") ? $0 : $0.replacingOccurrences(of: "}\n", with: "},\n") }.joined()
        try ws.write(json.replacingOccurrences(of: steps.joined(), with: String(reversed.dropLast(2)) + "\n"), to: "pipelines/data/recipes.json")
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/recipes.yaml").status, 0)
        return ws
    }

    /// An ordered relationship's order is what the app shows: reversing a recipe's steps is a
    /// change (exit 1), said of the recipe; the steps themselves are the same records.
    func testReorderedStepsWithThePipeline() throws {
        let ws = try reversedSteps()
        let result = try ws.run("diff", "build/old.sqlite", "build/Recipes.sqlite", "--pipeline", "pipelines/recipes.yaml")
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout, """
            Category (by name): no changes, 4 record(s)
            Ingredient (by name): no changes, 5 record(s)
            Nutrition (by whole row): no changes, 3 record(s)
            Recipe (by name): 0 added, 0 removed, 1 changed, 2 unchanged
            RecipeIngredient (by recipe, ingredient): no changes, 8 record(s)
            Step (by whole row): no changes, 7 record(s)
            Tag (by name): no changes, 5 record(s)
            ~ Recipe name=Shakshuka: steps reordered

            """)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try ws.run("diff", "--json", "build/old.sqlite", "build/Recipes.sqlite",
                                                                                    "--pipeline", "pipelines/recipes.yaml").stdout.utf8)) as? [String: Any])
        let change = try XCTUnwrap((json["changes"] as? [[String: Any]])?.first)
        let field = try XCTUnwrap((change["fields"] as? [[String: Any]])?.first)
        XCTAssertEqual(field["name"] as? String, "steps")
        XCTAssertEqual(field["reordered"] as? Bool, true)
        // Steps have no key: each is its values (Entry's note is empty, so left out).
        XCTAssertEqual(field["old"] as? String, "[(text='Soften the onion and pepper in olive oil.'), (text='Add tomatoes and spices; simmer 10 minutes.'), "
                       + "(text='Crack in the eggs, cover, cook until set.')]")
        XCTAssertEqual(field["new"] as? String, "[(text='Crack in the eggs, cover, cook until set.'), (text='Add tomatoes and spices; simmer 10 minutes.'), "
                       + "(text='Soften the onion and pepper in olive oil.')]")

        // Only the order counts, not the order keys: the same order spaced otherwise is no change.
        let path = ws.root.appendingPathComponent("build/spaced.sqlite").path
        try FileManager.default.copyItem(atPath: ws.root.appendingPathComponent("build/Recipes.sqlite").path, toPath: path)
        XCTAssertEqual(try Pipectl.runTool("sqlite3", [path, "UPDATE ZENTRY SET Z_FOK_RECIPE = Z_FOK_RECIPE * 3 + 7 WHERE Z_FOK_RECIPE IS NOT NULL"], in: ws.root).status, 0)
        let spaced = try ws.run("diff", "build/Recipes.sqlite", "build/spaced.sqlite", "--pipeline", "pipelines/recipes.yaml")
        XCTAssertEqual(spaced.status, 0, spaced.stdout)
        let spacedWithoutPipeline = try ws.run("diff", "build/Recipes.sqlite", "build/spaced.sqlite")
        XCTAssertEqual(spacedWithoutPipeline.status, 0, spacedWithoutPipeline.stdout)
    }

    /// Without its pipeline, a Core Data store is compared entity by entity (Z_ENT), not table by
    /// table: Recipe and Step share ZENTRY (their parent Entry's table) and are not mixed.
    func testCoreDataStoreEntityByEntityWithoutAPipeline() throws {
        let ws = try reversedSteps()
        let result = try ws.run("diff", "build/old.sqlite", "build/Recipes.sqlite")
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertFalse(result.stdout.contains("ZENTRY"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Recipe (by name): 0 added, 0 removed, 1 changed, 2 unchanged\n"), result.stdout)
        // Without the model, the ordered to-many is named by the to-one of its records.
        XCTAssertTrue(result.stdout.contains("~ Recipe name=Shakshuka: Step.recipe reordered\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Step (by whole row): no changes, 7 record(s)\n"), result.stdout)

        // With the app's model, keys come from its uniqueness constraints.
        let model = try ws.run("diff", "build/old.sqlite", "build/Recipes.sqlite", "--model", "pipelines/model/Recipes.xcdatamodeld")
        XCTAssertEqual(model.status, 1, model.stdout + model.stderr)
        XCTAssertTrue(model.stdout.contains("~ Recipe name=Shakshuka: steps reordered\n"), model.stdout)
        XCTAssertTrue(model.stdout.contains("Step (by whole row): no changes, 7 record(s)\n"), model.stdout)
        XCTAssertEqual(try ws.run("diff", "build/Recipes.sqlite", "build/Recipes.sqlite", "--model", "pipelines/model/Recipes.xcdatamodeld").status, 0)
    }

    /// DuckDuckGo's bookmarks store as Core Data wrote it (bookmarks-ddg, version 4: its rows,
    /// row ids and order keys restated): children ordered by Z_FOK_PARENT, and favorites, an
    /// ordered many-to-many, by Z_FOK_1FAVORITES in the join table. No uniqueness constraint.
    static let bookmarksStore = """
        CREATE TABLE ZBOOKMARKENTITY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZISFOLDER INTEGER, ZISPENDINGDELETION INTEGER, ZPARENT INTEGER, Z_FOK_PARENT INTEGER, ZMODIFIEDAT TIMESTAMP, ZTITLE VARCHAR, ZURL VARCHAR, ZUUID VARCHAR );
        CREATE TABLE Z_1FAVORITES ( Z_1FAVORITEFOLDERS INTEGER, Z_1FAVORITES INTEGER, Z_FOK_1FAVORITES INTEGER, PRIMARY KEY (Z_1FAVORITEFOLDERS, Z_1FAVORITES) );
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
        CREATE INDEX ZBOOKMARKENTITY_ZPARENT_INDEX ON ZBOOKMARKENTITY (ZPARENT);
        CREATE INDEX Z_1FAVORITES_Z_1FAVORITES_INDEX ON Z_1FAVORITES (Z_1FAVORITES, Z_1FAVORITEFOLDERS);
        INSERT INTO Z_PRIMARYKEY VALUES (1, 'BookmarkEntity', 0, 10);
        INSERT INTO ZBOOKMARKENTITY VALUES
          (1, 1, 1, 0, 0, 5, 5120, 723485158.135948, '4', '4', '4'), (2, 1, 1, 0, 0, 5, 2048, 723485158.135943, '1', '1', '1'),
          (3, 1, 1, 1, 0, NULL, NULL, NULL, 'favorites_root', NULL, 'favorites_root'), (4, 1, 1, 1, 0, 5, 4096, 723485158.135933, '3', NULL, '3'),
          (5, 1, 1, 1, 0, NULL, NULL, NULL, 'bookmarks_root', NULL, 'bookmarks_root'), (6, 1, 1, 1, 0, 4, 2048, 723485158.135921, '31', NULL, '31'),
          (7, 1, 1, 0, 0, 4, 3072, 723485158.135916, '32', '32', '32'), (8, 1, 1, 0, 0, 5, 6144, 723485158.13591, '5', '5', '5'),
          (9, 1, 1, 0, 0, 5, 3072, 723485158.135903, '2', '2', '2'), (10, 1, 1, 0, 0, 4, 4096, 723485158.135888, '33', '33', '33');
        INSERT INTO Z_1FAVORITES VALUES (3, 8, 2048), (3, 1, 3072), (3, 10, 4096), (3, 7, 5120), (3, 9, 6144);
        """

    /// A real store's ordered many-to-many: favorites 5, 4, 33, 32, 2 become 2, 32, 33, 4, 5. The
    /// join table was compared as its order keys alone, as a set: "no changes", exit 0.
    func testCoreDataBookmarksReorderedWithoutAPipeline() throws {
        let ws = try Workspace()
        try FileManager.default.createDirectory(at: ws.build, withIntermediateDirectories: true)
        for name in ["old", "new", "spaced"] {
            XCTAssertEqual(try Pipectl.runTool("sqlite3", ["build/\(name).sqlite", Self.bookmarksStore], in: ws.root).status, 0)
        }
        XCTAssertEqual(try Pipectl.runTool("sqlite3", ["build/new.sqlite", "UPDATE Z_1FAVORITES SET Z_FOK_1FAVORITES = 8192 - Z_FOK_1FAVORITES"], in: ws.root).status, 0)
        // The same order with other order keys, as another run of Core Data might number them.
        XCTAssertEqual(try Pipectl.runTool("sqlite3", ["build/spaced.sqlite", "UPDATE Z_1FAVORITES SET Z_FOK_1FAVORITES = Z_FOK_1FAVORITES * 2 + 1; "
                                                       + "UPDATE ZBOOKMARKENTITY SET Z_FOK_PARENT = Z_FOK_PARENT / 1024"], in: ws.root).status, 0)

        let result = try ws.run("diff", "build/old.sqlite", "build/new.sqlite")
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        // Without a constraint, bookmarks are matched as whole rows and shown by row id in the join table.
        XCTAssertEqual(result.stdout, """
            BookmarkEntity (by whole row): no changes, 10 record(s)
            Z_1FAVORITES (by whole row): 4 added, 4 removed, 0 changed, 1 unchanged
            - Z_1FAVORITES BookmarkEntity=3, BookmarkEntity=1, place=1
            + Z_1FAVORITES BookmarkEntity=3, BookmarkEntity=1, place=3
            + Z_1FAVORITES BookmarkEntity=3, BookmarkEntity=7, place=1
            - Z_1FAVORITES BookmarkEntity=3, BookmarkEntity=7, place=3
            - Z_1FAVORITES BookmarkEntity=3, BookmarkEntity=8, place=0
            + Z_1FAVORITES BookmarkEntity=3, BookmarkEntity=8, place=4
            + Z_1FAVORITES BookmarkEntity=3, BookmarkEntity=9, place=0
            - Z_1FAVORITES BookmarkEntity=3, BookmarkEntity=9, place=4

            """)
        let spaced = try ws.run("diff", "build/old.sqlite", "build/spaced.sqlite")
        XCTAssertEqual(spaced.status, 0, spaced.stdout)

        // With the app's model, the favorites are a list of the folder: in order.
        try ws.write(ListRelationshipTests.bookmarksModel, to: "Bookmarks.xcdatamodel/contents")
        let model = try ws.run("diff", "build/old.sqlite", "build/new.sqlite", "--model", "Bookmarks.xcdatamodel")
        XCTAssertEqual(model.status, 1, model.stdout + model.stderr)
        XCTAssertTrue(model.stdout.hasPrefix("BookmarkEntity (by whole row): 1 added, 1 removed, 0 changed, 9 unchanged\n"), model.stdout)
        XCTAssertTrue(model.stdout.contains("- BookmarkEntity isFolder=true, isPendingDeletion=false, modifiedAt=, title=favorites_root, url=, "
                                            + "uuid=favorites_root, parent=, children=[], favoriteFolders=[], favorites=[(isFolder=0, "
                                            + "isPendingDeletion=0, modifiedAt=723485158.13591, title='5', url='5', uuid='5'), "), model.stdout)
        XCTAssertEqual(try ws.run("diff", "build/old.sqlite", "build/spaced.sqlite", "--model", "Bookmarks.xcdatamodel").status, 0)
    }

    /// A SwiftData store's schema (swiftdata-metacocktails, restated with the columns used here):
    /// #Unique constraints as Z_<Entity>_UNIQUE_ indexes (which spell cocktailName), a to-many
    /// without inverse (Cocktail.spec, the hidden ZINGREDIENT.Z1SPEC), a to-one named after its
    /// entity, a many-to-many, and the persistent-history tables.
    func testSwiftDataStoreWithoutAModel() throws {
        let ws = try Workspace()
        try FileManager.default.createDirectory(at: ws.build, withIntermediateDirectories: true)
        let store = """
            CREATE TABLE ZCOCKTAIL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOCKTAILNAME VARCHAR, ZGLASSWARETYPE VARCHAR );
            CREATE TABLE Z_1GARNISH ( Z_1COCKTAILS INTEGER, Z_2GARNISH INTEGER, PRIMARY KEY (Z_1COCKTAILS, Z_2GARNISH) );
            CREATE TABLE ZGARNISH ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE TABLE ZINGREDIENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZINGREDIENTBASE INTEGER, Z1SPEC INTEGER, ZVALUE FLOAT, ZUNIT VARCHAR, ZID BLOB );
            CREATE TABLE ZINGREDIENTBASE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE INDEX Z_1GARNISH_Z_2GARNISH_INDEX ON Z_1GARNISH (Z_2GARNISH, Z_1COCKTAILS);
            CREATE INDEX Z_Cocktail_SwiftDataIndexOnBinarycocktailName ON ZCOCKTAIL (ZCOCKTAILNAME COLLATE BINARY ASC);
            CREATE UNIQUE INDEX Z_Cocktail_UNIQUE_cocktailName ON ZCOCKTAIL (ZCOCKTAILNAME COLLATE BINARY ASC);
            CREATE UNIQUE INDEX Z_Garnish_UNIQUE_name ON ZGARNISH (ZNAME COLLATE BINARY ASC);
            CREATE INDEX ZINGREDIENT_ZINGREDIENTBASE_INDEX ON ZINGREDIENT (ZINGREDIENTBASE);
            CREATE INDEX ZINGREDIENT_Z1SPEC_INDEX ON ZINGREDIENT (Z1SPEC);
            CREATE UNIQUE INDEX Z_IngredientBase_UNIQUE_name ON ZINGREDIENTBASE (ZNAME COLLATE BINARY ASC);
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
            INSERT INTO Z_PRIMARYKEY VALUES (1, 'Cocktail', 0, 2), (2, 'Garnish', 0, 2), (3, 'Ingredient', 0, 3), (4, 'IngredientBase', 0, 2), (16001, 'CHANGE', 0, 0);
            INSERT INTO ZCOCKTAIL VALUES (1, 1, 1, 'Gimlet', 'Coupe'), (2, 1, 1, 'Negroni', 'Rocks');
            INSERT INTO ZGARNISH VALUES (1, 2, 1, 'Lime'), (2, 2, 1, 'Orange');
            INSERT INTO Z_1GARNISH VALUES (1, 1), (2, 2);
            INSERT INTO ZINGREDIENTBASE VALUES (1, 4, 1, 'Gin'), (2, 4, 1, 'Lime juice');
            INSERT INTO ZINGREDIENT VALUES (1, 3, 1, 1, 1, 2.0, 'oz', NULL), (2, 3, 1, 2, 1, 0.75, 'oz', NULL), (3, 3, 1, 1, 2, 1.0, 'oz', NULL);
            """
        for name in ["old", "new"] { XCTAssertEqual(try Pipectl.runTool("sqlite3", ["build/\(name).sqlite", store], in: ws.root).status, 0) }
        XCTAssertEqual(try Pipectl.runTool("sqlite3", ["build/new.sqlite", "UPDATE ZINGREDIENT SET ZVALUE = 2.5 WHERE Z_PK = 1; "
                                                       + "UPDATE Z_1GARNISH SET Z_2GARNISH = 2 WHERE Z_1COCKTAILS = 1"], in: ws.root).status, 0)
        let result = try ws.run("diff", "build/old.sqlite", "build/new.sqlite")
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        // Links by the related record's key, not the row id: before, 'ZINGREDIENTBASE=1, Z1SPEC=1'.
        XCTAssertEqual(result.stdout, """
            Cocktail (by cocktailName): no changes, 2 record(s)
            Garnish (by name): no changes, 2 record(s)
            Ingredient (by whole row): 1 added, 1 removed, 0 changed, 2 unchanged
            IngredientBase (by name): no changes, 2 record(s)
            ACHANGE (by whole row): no changes, 0 record(s)
            Z_1GARNISH (by whole row): 1 added, 1 removed, 0 changed, 1 unchanged
            - Ingredient Cocktail.spec=Gimlet, ingredientbase=Gin, unit=oz, value=2
            + Ingredient Cocktail.spec=Gimlet, ingredientbase=Gin, unit=oz, value=2.5
            - Z_1GARNISH Cocktail=Gimlet, Garnish=Lime
            + Z_1GARNISH Cocktail=Gimlet, Garnish=Orange

            """)
    }

    /// A workout app keeping its exercises' order in an `order: Int` (as SwiftData apps do),
    /// written by `position: order`: `Workout.exercises` is not an ordered relationship.
    private func workouts(reversed: Bool) -> String {
        let legs = ["Squat", "Lunge", "Calf raise"]
        let exercises = (reversed ? legs.reversed() : legs).map { "{ \"title\": \"\($0)\" }" }.joined(separator: ", ")
        return "{ \"workouts\": [ { \"name\": \"Legs\", \"exercises\": [\(exercises)] }, "
            + "{ \"name\": \"Arms\", \"exercises\": [{ \"title\": \"Curl\" }] } ] }\n"
    }

    func testPositionsWrittenByPositionAreTheOrder() throws {
        let ws = try Workspace()
        try ws.write("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
                <entity name="Exercise" representedClassName="Exercise" syncable="YES">
                    <attribute name="order" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="workout" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Workout" inverseName="exercises" inverseEntity="Workout"/>
                </entity>
                <entity name="Workout" representedClassName="Workout" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="exercises" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Exercise" inverseName="workout" inverseEntity="Exercise"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
            </model>

            """, to: "Workouts.xcdatamodel/contents")
        try ws.write("""
            version: 1
            name: workouts
            store: { path: build/Workouts.sqlite, layout: coredata, model: Workouts.xcdatamodel }
            entities: { Workout: { unique: name } }
            sources:
              - name: workouts
                read: { json: workouts.json, records: workouts }
                load: { Workout: { name: name, exercises: { Exercise: { each: exercises, position: order, title: title } } } }

            """, to: "workouts.yaml")
        try ws.write(workouts(reversed: false), to: "workouts.json")
        XCTAssertEqual(try ws.run("run", "-q", "workouts.yaml").status, 0)
        try FileManager.default.copyItem(at: ws.root.appendingPathComponent("build/Workouts.sqlite"), to: ws.root.appendingPathComponent("build/old.sqlite"))
        try ws.write(workouts(reversed: true), to: "workouts.json")
        XCTAssertEqual(try ws.run("run", "-q", "workouts.yaml").status, 0)

        // With the pipeline, `order` is known as the exercises' places: said of the workout.
        let result = try ws.run("diff", "build/old.sqlite", "build/Workouts.sqlite", "--pipeline", "workouts.yaml")
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout, """
            Exercise (by whole row): no changes, 4 record(s)
            Workout (by name): 0 added, 0 removed, 1 changed, 1 unchanged
            ~ Workout name=Legs: exercises reordered

            """)
        // Without it, `order` is an attribute like any other: each exercise whose place changed.
        let plain = try ws.run("diff", "build/old.sqlite", "build/Workouts.sqlite")
        XCTAssertEqual(plain.status, 1, plain.stdout + plain.stderr)
        XCTAssertTrue(plain.stdout.contains("Exercise (by whole row): 2 added, 2 removed, 0 changed, 2 unchanged\n"), plain.stdout)
        XCTAssertTrue(plain.stdout.contains("- Exercise order=0, title=Squat, workout=Legs\n"), plain.stdout)
        XCTAssertTrue(plain.stdout.contains("+ Exercise order=2, title=Squat, workout=Legs\n"), plain.stdout)
        XCTAssertEqual(try ws.run("diff", "build/Workouts.sqlite", "build/Workouts.sqlite", "--pipeline", "workouts.yaml").status, 0)
    }

    func testAFileThatIsNotAStore() throws {
        let ws = try Workspace()
        let result = try ws.run("diff", "pipelines/grocery.yaml", "pipelines/grocery.yaml")
        XCTAssertEqual(result.status, 66)
        XCTAssertTrue(result.stderr.hasPrefix("pipelines/grocery.yaml: error: diff: "), result.stderr)
        let missing = try ws.run("diff", "build/none.sqlite", "pipelines/grocery.yaml")
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr, "build/none.sqlite: error: diff: no such file\n")
        let folder = try ws.run("diff", "pipelines", "pipelines/grocery.yaml")
        XCTAssertEqual(folder.status, 66)
        XCTAssertEqual(folder.stderr, "pipelines: error: diff: this is a folder, not a SQLite database\n")
    }

    /// 1 means "the stores differ" and nothing else: output that cannot be written is an I/O
    /// error, not a crash (it was: FileHandle.write traps on a full disk) nor a 1.
    func testOutputThatCannotBeWrittenIsAnIOError() throws {
        let ws = try Workspace()
        XCTAssertEqual(try ws.run("run", "-q", "pipelines/grocery-sqlite.yaml").status, 0)
        let full = FileHandle(forWritingAtPath: "/dev/full")
        try XCTSkipIf(full == nil, "no /dev/full on this system (Linux has one)")
        let result = try Pipectl.run(["diff", "--json", "build/grocery-sqlite.sqlite", "build/grocery-sqlite.sqlite"], in: ws.root, standardOutput: full)
        XCTAssertEqual(result.status, 74, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("error: pipectl: cannot write to standard output: "), result.stderr)
    }
}
