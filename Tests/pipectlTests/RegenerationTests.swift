import Foundation
import Pipeline
import Testing
import SQLite

/// Regenerating a store from sources that correct each other (issue 35): a record given again
/// under `on_duplicate: update` replaces what it says, lists included, so that a corrections
/// source gives the store a single source of the corrected data gives.
@Suite struct RegenerationTests {
    /// pipelines/recipes.yaml's recipes, corrected: Shakshuka's tags, steps, amounts (one
    /// ingredient gone, one new) and kcal changed; Greek Salad as it was; Lentil Soup's steps
    /// reversed, its tags gone, its ingredients now one no other recipe uses ("Lentils", made by
    /// its link only, is then linked from nothing: a single source would not have made it).
    static let corrected = """
        { "recipes": [
          { "name": "Shakshuka", "servings": 2, "category": "Breakfast", "tags": ["quick", "spicy"],
            "steps": [ { "text": "Toast the cumin." }, { "text": "Soften the onion and pepper in olive oil." },
                       { "text": "Crack in the eggs, cover, cook until set." } ],
            "ingredients": [ { "name": "Egg", "amount": "6" }, { "name": "Onion", "amount": "1" }, { "name": "Pepper", "amount": "2" } ],
            "kcal": 350 },
          { "name": "Greek Salad", "servings": 4, "category": "Salads", "tags": ["vegetarian", "quick", "no-cook"],
            "steps": [ { "text": "Chop tomatoes, cucumber and onion." }, { "text": "Top with feta and olives; dress with oil." } ],
            "ingredients": [ { "name": "Tomato", "amount": "3" }, { "name": "Feta", "amount": "200 g" }, { "name": "Onion", "amount": "1/2" } ],
            "kcal": 280 },
          { "name": "Lentil Soup", "servings": 6, "category": "Soups", "tags": [],
            "steps": [ { "text": "Add lentils and stock; simmer 30 minutes." }, { "text": "Sweat onion, carrot and celery." } ],
            "ingredients": [ { "name": "Red lentils", "amount": "300 g" } ],
            "kcal": 250 }
        ] }
        """

    /// The recipes pipeline with a `corrections` source after its recipes, under `policy`, and
    /// the same pipeline reading the corrected recipes alone (`Single.sqlite`).
    func corrections(_ policy: String, corrections: String = corrected) throws -> (Workspace, Pipectl.Result, Pipectl.Result) {
        let ws = try Workspace()
        let yaml = try String(decoding: ws.bytes("pipelines/recipes.yaml"), as: UTF8.self)
        let start = try #require(yaml.range(of: "  - name: recipes\n"))
        let recipes = String(yaml[start.lowerBound...])
        let source = recipes.replacingOccurrences(of: "name: recipes\n", with: "name: corrections\n    on_duplicate: \(policy)\n")
            .replacingOccurrences(of: "data/recipes.json", with: "data/corrections.json")
        try ws.write(corrections, to: "pipelines/data/corrections.json")
        try ws.write(yaml.replacingOccurrences(of: "Recipes.sqlite", with: "Corrected.sqlite") + source, to: "pipelines/corrected.yaml")
        try ws.write(yaml.replacingOccurrences(of: "Recipes.sqlite", with: "Single.sqlite")
                        .replacingOccurrences(of: "data/recipes.json", with: "data/corrections.json"), to: "pipelines/single.yaml")
        let corrected = try ws.run("run", "pipelines/corrected.yaml")
        let single = try ws.run("run", "-q", "pipelines/single.yaml")
        return (ws, corrected, single)
    }

    /// Everything the app sees of each recipe, by keys: tags, steps in order with their order
    /// keys, ingredients and amounts, nutrition; then the row counts (an orphan shows there).
    static func content(_ store: SQLiteStore) throws -> [[Value]] {
        try store.rows("""
            SELECT r.ZNAME, r.ZSERVINGS,
              (SELECT group_concat(name, ',') FROM (SELECT t.ZNAME AS name FROM Z_3TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_8TAGS
                                                    WHERE j.Z_3RECIPES = r.Z_PK ORDER BY t.ZNAME)),
              (SELECT group_concat(step, ' | ') FROM (SELECT s.Z_FOK_RECIPE || ' ' || s.ZTEXT AS step FROM ZENTRY s
                                                      WHERE s.ZRECIPE = r.Z_PK ORDER BY s.Z_FOK_RECIPE)),
              (SELECT group_concat(item, ', ') FROM (SELECT i.ZNAME || ' ' || ri.ZAMOUNT AS item FROM ZRECIPEINGREDIENT ri
                                                     JOIN ZINGREDIENT i ON i.Z_PK = ri.ZINGREDIENT WHERE ri.ZRECIPE = r.Z_PK ORDER BY i.ZNAME)),
              (SELECT n.ZKCAL FROM ZNUTRITION n WHERE n.Z_PK = r.ZNUTRITION AND n.ZRECIPE = r.Z_PK)
            FROM ZENTRY r WHERE r.ZNAME IS NOT NULL ORDER BY r.ZNAME
            """) + store.rows("""
            SELECT (SELECT count(*) FROM ZENTRY WHERE ZTEXT IS NOT NULL), (SELECT count(*) FROM ZRECIPEINGREDIENT),
                   (SELECT count(*) FROM ZNUTRITION), (SELECT group_concat(ZNAME, ',') FROM (SELECT ZNAME FROM ZINGREDIENT ORDER BY ZNAME)),
                   (SELECT count(*) FROM ZTAG), (SELECT count(*) FROM Z_3TAGS)
            """)
    }

    @Test("a corrections source under on_duplicate: update gives the store the corrected data gives alone")
    func correctionsReplace() throws {
        let (ws, corrected, single) = try corrections("update")
        #expect(corrected.status == 0, "\(corrected.stderr)")
        #expect(single.status == 0, "\(single.stderr)")
        let store = try ws.store("build/Corrected.sqlite")
        let content = try Self.content(store)
        #expect(content == (try Self.content(ws.store("build/Single.sqlite"))))
        let expected: [[Value]] = [
            [.text("Greek Salad"), .integer(4), .text("no-cook,quick,vegetarian"),
             .text("2048 Chop tomatoes, cucumber and onion. | 3072 Top with feta and olives; dress with oil."),
             .text("Feta 200 g, Onion 1/2, Tomato 3"), .integer(280)],
            // Its tags from the recipes' side replaced; 'winter', given from the tags' side, kept.
            [.text("Lentil Soup"), .integer(6), .text("winter"),
             .text("2048 Add lentils and stock; simmer 30 minutes. | 3072 Sweat onion, carrot and celery."),
             .text("Red lentils 300 g"), .integer(250)],
            [.text("Shakshuka"), .integer(2), .text("quick,spicy,winter"),
             .text("2048 Toast the cumin. | 3072 Soften the onion and pepper in olive oil. | 4096 Crack in the eggs, cover, cook until set."),
             .text("Egg 6, Onion 1, Pepper 2"), .integer(350)],
            [.integer(7), .integer(7), .integer(3), .text("Egg,Feta,Onion,Pepper,Red lentils,Tomato"), .integer(6), .integer(7)],
        ]
        #expect(content == expected)
        // The removed rows are counted and named; the identical recipe is no update.
        #expect(corrected.stdout.contains("removed by updates: Ingredient 1, RecipeIngredient 3, Step 5\n"), "\(corrected.stdout)")
        #expect(corrected.stdout.contains("  Recipe                         3        1        2        0\n"), "\(corrected.stdout)")
        // The one-to-one detail is written over in place: no orphan, no new row.
        #expect(try store.rows("SELECT Z_PK, ZKCAL FROM ZNUTRITION ORDER BY Z_PK") == [[.integer(1), .integer(350)], [.integer(2), .integer(280)],
                                                                                     [.integer(3), .integer(250)]])
        #expect(try Pipectl.run(["diff", "build/Corrected.sqlite", "build/Single.sqlite", "--pipeline", "pipelines/single.yaml"],
                                in: ws.root).status == 0)
        #expect(try Pipectl.run(["inspect", "build/Corrected.sqlite", "--model", "pipelines/model/Recipes.xcdatamodeld"],
                                in: ws.root).status == 0)
    }

    @Test("on_duplicate: merge adds the lists a record gives again to the stored ones")
    func correctionsMerge() throws {
        let (ws, corrected, _) = try corrections("merge")
        #expect(corrected.status == 0, "\(corrected.stderr)")
        let store = try ws.store("build/Corrected.sqlite")
        #expect(try store.rows("""
            SELECT group_concat(name, ',') FROM (SELECT t.ZNAME AS name FROM Z_3TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_8TAGS
            JOIN ZENTRY r ON r.Z_PK = j.Z_3RECIPES WHERE r.ZNAME = 'Shakshuka' ORDER BY t.ZNAME)
            """) == [[.text("quick,spicy,vegetarian,winter")]])
        // Steps without a key are added again, after the stored ones.
        #expect(try store.rows("SELECT count(*) FROM ZENTRY s JOIN ZENTRY r ON r.Z_PK = s.ZRECIPE WHERE r.ZNAME = 'Shakshuka'")
                == [[.integer(6)]])
        #expect(try store.rows("""
            SELECT ri.ZAMOUNT FROM ZRECIPEINGREDIENT ri JOIN ZENTRY r ON r.Z_PK = ri.ZRECIPE JOIN ZINGREDIENT i ON i.Z_PK = ri.ZINGREDIENT
            WHERE r.ZNAME = 'Shakshuka' AND i.ZNAME IN ('Egg', 'Tomato') ORDER BY i.ZNAME
            """) == [[.text("4")], [.text("400 g")]])
        #expect(!corrected.stdout.contains("removed by updates"))
    }

    @Test("a record given again as it is under update changes nothing: same rows, counted present")
    func identicalUpdate() throws {
        let recipes = try String(decoding: Data(contentsOf: Pipectl.repository.appendingPathComponent("pipelines/data/recipes.json")),
                                 as: UTF8.self)
        let (same, corrected, _) = try corrections("update", corrections: recipes)
        #expect(corrected.status == 0, "\(corrected.stderr)")
        #expect(corrected.stdout.contains("  Recipe                         3        3        0        0\n"), "\(corrected.stdout)")
        let before = try same.store("build/Corrected.sqlite").rows("SELECT Z_PK, Z_ENT, ZNAME, ZTEXT, Z_FOK_RECIPE FROM ZENTRY ORDER BY Z_PK")
        // A store of the recipes alone holds the same rows, row for row.
        try same.write(String(decoding: try same.bytes("pipelines/recipes.yaml"), as: UTF8.self)
                        .replacingOccurrences(of: "Recipes.sqlite", with: "Alone.sqlite"), to: "pipelines/alone.yaml")
        #expect(try same.run("run", "-q", "pipelines/alone.yaml").status == 0)
        #expect(try same.store("build/Alone.sqlite").rows("SELECT Z_PK, Z_ENT, ZNAME, ZTEXT, Z_FOK_RECIPE FROM ZENTRY ORDER BY Z_PK") == before)
        #expect(!corrected.stdout.contains("removed by updates"))
    }

    @Test("update on SwiftData's shapes: a to-many without inverse replaced, keyed records unlinked, a placeholder linked from nothing removed")
    func swiftDataShapes() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData

            @Model final class Playlist {
                @Attribute(.unique) var name: String
                @Relationship(deleteRule: .cascade) var tracks: [Track] = []
                @Relationship(inverse: \\Album.playlist) var albums: [Album] = []
            }

            @Model final class Track {
                var title: String
                var seconds: Int = 0
            }

            @Model final class Album {
                @Attribute(.unique) var title: String
                var year: Int = 0
                var playlist: Playlist?
            }
            """, to: "Models/Music.swift")
        try ws.write("""
            [{"title": "Blue", "year": 1971}, {"title": "Hejira", "year": 1976}]
            """, to: "albums.json")
        try ws.write("""
            [{"name": "Morning", "tracks": [{"title": "Intro", "seconds": 120}, {"title": "Coffee", "seconds": 95}], "albums": ["Blue", "Court"]},
             {"name": "Night", "tracks": [{"title": "Moon", "seconds": 300}], "albums": ["Hejira"]}]
            """, to: "playlists.json")
        try ws.write("""
            [{"name": "Morning", "tracks": [{"title": "Coffee", "seconds": 95}, {"title": "Outro", "seconds": 60}], "albums": ["Hejira"]},
             {"name": "Night", "tracks": [{"title": "Moon", "seconds": 300}], "albums": []}]
            """, to: "corrections.json")
        let playlists = """
                read: { json: playlists.json }
                load:
                  Playlist:
                    name: name
                    tracks: { Track: { each: tracks, title: title, seconds: seconds } }
                    albums: { Album: { title: albums } }
            """
        let pipeline = """
            version: 1
            name: music
            store: { path: STORE, layout: coredata, model: Models }
            sources:
              - name: albums
                read: { json: albums.json }
                load: { Album: { title: title, year: year } }
              - name: playlists

            """
        try ws.write(pipeline.replacingOccurrences(of: "STORE", with: "corrected.store") + playlists
                        + "\n  - name: corrections\n    on_duplicate: update\n"
                        + playlists.replacingOccurrences(of: "playlists.json", with: "corrections.json"), to: "corrected.yaml")
        try ws.write(pipeline.replacingOccurrences(of: "STORE", with: "single.store")
                        + playlists.replacingOccurrences(of: "playlists.json", with: "corrections.json"), to: "single.yaml")
        let corrected = try ws.run("run", "corrected.yaml")
        #expect(corrected.status == 0, "\(corrected.stderr)")
        #expect(try ws.run("run", "-q", "single.yaml").status == 0)
        func content(_ path: String) throws -> [[Value]] {
            let store = try ws.store(path)
            return try store.rows("""
                SELECT p.ZNAME, (SELECT group_concat(t, ', ') FROM (SELECT ZTITLE || ' ' || ZSECONDS AS t FROM ZTRACK
                                                                   WHERE Z2TRACKS = p.Z_PK ORDER BY Z_PK)),
                       (SELECT group_concat(ZTITLE, ', ') FROM (SELECT ZTITLE FROM ZALBUM WHERE ZPLAYLIST = p.Z_PK ORDER BY ZTITLE))
                FROM ZPLAYLIST p ORDER BY p.ZNAME
                """) + store.rows("SELECT ZTITLE, ZYEAR, ZPLAYLIST IS NULL FROM ZALBUM ORDER BY ZTITLE")
                + store.rows("SELECT count(*) FROM ZTRACK")
        }
        let expected: [[Value]] = [
            [.text("Morning"), .text("Coffee 95, Outro 60"), .text("Hejira")],
            [.text("Night"), .text("Moon 300"), .null],
            // Blue, loaded by its own source, stays unlinked; Court, which only the first
            // playlists' link made, is linked from nothing now and is gone.
            [.text("Blue"), .integer(1971), .integer(1)], [.text("Hejira"), .integer(1976), .integer(0)],
            [.integer(3)],
        ]
        #expect(try content("corrected.store") == expected)
        #expect(try content("single.store") == expected)
        #expect(corrected.stdout.contains("removed by updates: Track 2, Album 1\n") || corrected.stdout.contains("removed by updates: Album 1, Track 2\n"),
                "\(corrected.stdout)")
        #expect(try ws.run("inspect", "corrected.store", "--model", "Models").status == 0)
    }

    @Test("a to-one an update moves away from a record only links made removes that record; values alone remove nothing")
    func movedLinkRemovesPlaceholder() throws {
        let ws = try Workspace()
        try ws.write("name,unit,note\nMilk,l,x\nFlour,kgg,y\n", to: "items.csv")
        try ws.write("name,unit,note\nFlour,kg,y\nMilk,l,z\n", to: "fixes.csv")
        try ws.write("""
            version: 1
            name: units
            store: { path: store.sqlite, layout: sqlite }
            entities:
              Unit: { unique: name, attributes: { name: string } }
              Item:
                unique: name
                attributes: { name: string, note: string }
                relationships: { unit: { to: Unit, inverse: items } }
            sources:
              - name: items
                read: { csv: items.csv }
                load: { Item: { name: name, note: note, unit: { Unit: { name: unit } } } }
              - name: fixes
                read: { csv: fixes.csv }
                on_duplicate: update
                load: { Item: { name: name, note: note, unit: { Unit: { name: unit } } } }

            """, to: "units.yaml")
        let run = try ws.run("run", "units.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ws.store("store.sqlite").rows("SELECT name FROM Unit ORDER BY name") == [[.text("kg")], [.text("l")]])
        #expect(try ws.store("store.sqlite").rows("SELECT i.name, u.name, i.note FROM Item i JOIN Unit u ON u.id = i.unit_id ORDER BY i.name")
                == [[.text("Flour"), .text("kg"), .text("y")], [.text("Milk"), .text("l"), .text("z")]])
        #expect(run.stdout.contains("removed by updates: Unit 1\n"), "\(run.stdout)")
    }
}
