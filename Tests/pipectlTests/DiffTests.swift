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
    /// without its pipeline: the join table's rows are pairs of keys, not a query without columns.
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
            ZRECIPE (by ZNAME): no changes, 2 record(s)
            ZTAG (by ZNAME): no changes, 2 record(s)
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
        XCTAssertEqual(try ws.run("diff", "build/Workouts.sqlite", "build/Workouts.sqlite", "--pipeline", "workouts.yaml").status, 0)
    }

    func testAFileThatIsNotAStore() throws {
        let ws = try Workspace()
        let result = try ws.run("diff", "pipelines/grocery.yaml", "pipelines/grocery.yaml")
        XCTAssertEqual(result.status, 66)
        XCTAssertTrue(result.stderr.hasPrefix("pipelines/grocery.yaml: error: diff: "), result.stderr)
        let missing = try ws.run("diff", "build/none.sqlite", "pipelines/grocery.yaml")
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr, "build/none.sqlite: error: diff: no such store\n")
        let folder = try ws.run("diff", "pipelines", "pipelines/grocery.yaml")
        XCTAssertEqual(folder.status, 66)
        XCTAssertEqual(folder.stderr, "pipelines: error: diff: this is a folder, not a store\n")
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
