import Foundation
import Pipeline
import SinksSQLite
import Testing

/// What loading real apps' seeds taught (issue 34, item 7; docs/coredata.md, "Real apps tried"),
/// each restated with data and a model of our own in the shape the app has: the store's values
/// asserted by SQL, and `inspect --model` passing every row.
@Suite struct RealAppsTests {
    /// The JSON text inside a SwiftData array attribute's keyed archive.
    private func archivedJSON(_ value: Value) -> String {
        guard case .binary(let bytes) = value,
              let archive = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any],
              let json = (archive["$objects"] as? [Any])?.last as? Data else { return "not an archive: \(value)" }
        return String(decoding: json, as: UTF8.self)
    }

    /// The output with the workspace's folder left out of paths.
    private func relative(_ text: String, _ ws: Workspace) -> String {
        text.replacingOccurrences(of: ws.root.path + "/", with: "")
    }

    private func inspectPasses(_ ws: Workspace, _ store: String, model: String) throws {
        let inspect = try ws.run("inspect", store, "--model", model)
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.stdout.contains("rows: every row is as Core Data writes it for this model"), "\(inspect.stdout)")
    }

    // davidgfitzgerald/organise: the live schema is V1, chosen by typealiases, while the migration
    // plan lists V1 then V2; the habits and their completions are two arrays of one JSON file,
    // linked by a habitId field.
    static let choresSource = #"""
        import Foundation
        import SwiftData

        // The app's current classes.
        typealias Chore = ChoresV1.Chore
        typealias Tick = ChoresV1.Tick

        let schema = Schema([
            Chore.self,
            Tick.self
        ])

        enum ChoresV1: VersionedSchema {
            static var versionIdentifier = Schema.Version(0, 1, 0)
            static var models: [any PersistentModel.Type] { [Chore.self, Tick.self] }
        }

        extension ChoresV1 {
            @Model class Chore: Identifiable {
                var id: UUID
                var title: String
                var streak: Int
                var pinned: Bool
                @Relationship(deleteRule: .cascade, inverse: \Tick.chore)
                var ticks: [Tick] = []
                init(title: String) { self.id = UUID(); self.title = title; self.streak = 0; self.pinned = false }
            }

            @Model final class Tick {
                var id: UUID
                @Relationship var chore: Chore?
                var doneAt: Date
                var done: Bool
                init(chore: Chore, doneAt: Date) { self.id = UUID(); self.chore = chore; self.doneAt = doneAt; self.done = true }
            }
        }

        enum ChoresV2: VersionedSchema {
            static var versionIdentifier = Schema.Version(0, 2, 0)
            static var models: [any PersistentModel.Type] { [Chore.self, Tick.self] }
        }

        extension ChoresV2 {
            @Model class Chore {
                var id: UUID
                var title: String
                var streak: Int
                @Relationship(deleteRule: .cascade, inverse: \Tick.chore)
                var ticks: [Tick] = []
                init(title: String) { self.id = UUID(); self.title = title; self.streak = 0 }
            }

            @Model final class Tick {
                var id: UUID
                var chore: Chore
                var doneAt: Date
                var done: Bool
                init(chore: Chore, doneAt: Date) { self.id = UUID(); self.chore = chore; self.doneAt = doneAt; self.done = true }
            }
        }

        enum ChoresPlan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [ChoresV1.self, ChoresV2.self] }
            static var stages: [MigrationStage] { [] }
        }

        let container = try! ModelContainer(for: schema, migrationPlan: ChoresPlan.self)
        """#

    @Test("a VersionedSchema picked by typealiases in the app's Schema list is the model, not the migration plan's last; a to-one from a key field across two arrays of one file")
    func typealiasPicksTheLiveSchema() throws {
        let ws = try Workspace()
        try ws.write(Self.choresSource, to: "Models/Chores.swift")
        let model = try ws.run("model", "Models")
        #expect(model.status == 0, "\(model.stderr)")
        #expect(relative(model.stdout, ws).contains("read: ChoresV1, version 0.1.0: the Schema at Models/Chores.swift:8:14 lists Chore, "
                                      + "which the typealias at Models/Chores.swift:5:11 makes ChoresV1.Chore"), "\(model.stdout)")
        #expect(model.stdout.contains("  pinned: Boolean, required\n"), "\(model.stdout)")
        try ws.write("""
            {"chores": [
              {"id": "A1B2C3D4-0000-4000-8000-000000000001", "title": "Water plants", "streak": 12, "createdAt": "2025-01-01T00:00:00Z"},
              {"id": "A1B2C3D4-0000-4000-8000-000000000002", "title": "Stretch", "streak": 3, "createdAt": "2025-01-01T00:00:00Z"}],
             "ticks": [
              {"choreId": "A1B2C3D4-0000-4000-8000-000000000002", "doneAt": "2025-03-05T22:00:00.250Z"},
              {"choreId": "A1B2C3D4-0000-4000-8000-000000000001", "doneAt": "2025-03-04T05:06:07.891Z"},
              {"choreId": "A1B2C3D4-0000-4000-8000-00000000FFFF", "doneAt": "2025-03-04T05:06:07.891Z"}]}
            """, to: "chores.json")
        try ws.write("""
            version: 1
            name: chores
            store: { path: default.store, layout: coredata, model: Models }
            entities: { Chore: { unique: id } }
            sources:
              - name: chores
                read: { json: chores.json, records: chores }
                load:
                  Chore: { id: id, title: title, streak: { value: 0 }, pinned: { value: false } }
              - name: ticks
                read: { json: chores.json, records: ticks }
                transform: [ { uuid: { field: id, from: [choreId, doneAt] } } ]
                load:
                  Tick: { id: id, doneAt: doneAt, done: { value: true }, chore: { Chore: { id: choreId }, missing: reject } }
            """, to: "chores.yaml")
        let run = try ws.run("run", "chores.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        // The tick naming no chore is left out, as the app's loader skips it.
        #expect(run.stderr.contains("no Chore id=A1B2C3D4-0000-4000-8000-00000000FFFF in the store"), "\(run.stderr)")
        let store = try ws.store("default.store")
        #expect(try store.rows("SELECT hex(ZID), ZTITLE, typeof(ZSTREAK), ZSTREAK, typeof(ZPINNED), ZPINNED FROM ZCHORE ORDER BY Z_PK") == [
            [.text("A1B2C3D4000040008000000000000001"), .text("Water plants"), .text("integer"), .integer(0), .text("integer"), .integer(0)],
            [.text("A1B2C3D4000040008000000000000002"), .text("Stretch"), .text("integer"), .integer(0), .text("integer"), .integer(0)],
        ])
        // ISO 8601 with milliseconds and Z, as seconds since 2001 to the millisecond; each tick
        // points at the chore its choreId names.
        #expect(try store.rows("""
            SELECT c.ZTITLE, typeof(t.ZDONEAT), t.ZDONEAT, t.ZDONE, lower(hex(t.ZID)) FROM ZTICK t JOIN ZCHORE c ON c.Z_PK = t.ZCHORE ORDER BY t.Z_PK
            """) == [
            [.text("Stretch"), .text("real"), .double(762_904_800.25), .integer(1), .text("28a90c8e021358e7ac22758f6ac8c686")],
            [.text("Water plants"), .text("real"), .double(762_757_567.891), .integer(1), .text("848843069b865782a7a9870aa80ae0d5")],
        ])
        try inspectPasses(ws, "default.store", model: "Models")
        let inspect = try ws.run("inspect", "default.store", "--model", "Models")
        #expect(inspect.stdout.contains("NSStoreModelVersionIdentifiers: [\"0.1.0\"]"), "\(inspect.stdout)")

        // A list naming classes of two schemas is an error naming both.
        try ws.write(Self.choresSource.replacingOccurrences(of: "    Tick.self\n])", with: "    ChoresV2.Tick.self\n])"), to: "Models/Chores.swift")
        let mixed = try ws.run("model", "Models")
        #expect(mixed.status == 65)
        #expect(relative(mixed.stderr, ws).contains("error: model: the app's model lists classes of two VersionedSchemas: the Schema at Models/Chores.swift:8:14 lists Chore, "
                                      + "which the typealias at Models/Chores.swift:5:11 makes ChoresV1.Chore, and the Schema at Models/Chores.swift:8:14 "
                                      + "lists ChoresV2.Tick; list the classes of one"), "\(mixed.stderr)")
    }

    // coldrifting/thymesaver: Codable @Model classes whose JSON keys differ from the properties,
    // enums by raw value with a fallback where the key is absent, a non-optional to-one from a
    // storeId field of another file, and the model list in a variable.
    @Test("Codable @Model with CodingKeys, string-raw enums, a required to-one from another file's key, the model list in a variable")
    func codableModelsAndRawEnums() throws {
        let ws = try Workspace()
        try ws.write("""
            import Foundation
            import SwiftData

            let modelTypes: [any PersistentModel.Type] = [Shop.self, Aisle.self, Product.self]
            let schema = Schema(modelTypes)

            @Model final class Shop: Codable {
                private(set) var uuid: UUID
                var name: String
                var selected: Bool
                var aisles: [Aisle]
                enum CodingKeys: CodingKey { case shopId, shopName, selected }
                required init(from decoder: Decoder) throws { fatalError() }
                func encode(to encoder: Encoder) throws {}
            }

            @Model final class Aisle {
                private(set) var uuid: UUID
                var name: String
                var shop: Shop
                var order: Int
                init(name: String, shop: Shop, order: Int = -1) { self.uuid = UUID(); self.name = name; self.shop = shop; self.order = order }
            }

            @Model final class Product: Codable {
                private(set) var uuid: UUID
                var name: String
                var temp: Temp
                var unit: Unit
                enum CodingKeys: CodingKey { case productId, productName, productTemp, unit }
                required init(from decoder: Decoder) throws { fatalError() }
                func encode(to encoder: Encoder) throws {}
            }

            // In the source, in no list: no entity.
            @Model final class Draft { var text: String = "" }

            enum Temp: String, Codable { case ambient = "Ambient", chilled = "Chilled", frozen = "Frozen" }
            enum Unit: String, Codable, CaseIterable { case count = "Count", cups = "VolumeCups", pounds = "WeightPounds" }
            """, to: "Models/Shop.swift")
        try ws.write(#"[{"shopId": 0, "shopName": "Corner", "selected": true}, {"shopId": 1, "shopName": "Market"}]"#, to: "shops.json")
        try ws.write("""
            [{"aisleId": 1, "shopId": 0, "aisleName": "Fruit", "aisleOrder": 0},
             {"aisleId": 2, "shopId": 1, "aisleName": "Bakery", "aisleOrder": 0},
             {"aisleId": 3, "shopId": 0, "aisleName": "Dairy", "aisleOrder": 1}]
            """, to: "aisles.json")
        try ws.write("""
            [{"productId": 1, "productName": "Milk", "productTemp": "Chilled", "unit": "VolumeCups"},
             {"productId": 2, "productName": "Rice", "unit": "WeightPounds"},
             {"productId": 17, "productName": "Peas", "productTemp": "Frozen", "unit": "Count"}]
            """, to: "products.json")
        // The app's UUID(number:): eight zero bytes, then the Int64 little-endian; here for ids below 256.
        let hex = (0..<256).map { "\"\($0)\": \"\(String(format: "%02X", $0))\"" }.joined(separator: ", ")
        func uuid(_ field: String, into out: String) -> String {
            """
                  - map: { fields: [\(field)], values: { \(hex) } }
                  - template: { field: \(out), value: "00000000-0000-0000-{\(field)}00-000000000000" }
            """
        }
        try ws.write("""
            version: 1
            name: shops
            store: { path: default.store, layout: coredata, model: Models }
            entities: { Shop: { unique: uuid }, Aisle: { unique: uuid }, Product: { unique: uuid } }
            on_reject: fail
            sources:
              - name: shops
                read: { json: shops.json }
                transform:
            \(uuid("shopId", into: "uuid"))
                  - default: { selected: "false" }
                load: { Shop: { uuid: uuid, name: shopName, selected: selected } }
              - name: aisles
                read: { json: aisles.json }
                transform:
            \(uuid("aisleId", into: "uuid"))
            \(uuid("shopId", into: "shop"))
                load: { Aisle: { uuid: uuid, name: aisleName, order: aisleOrder, shop: { Shop: { uuid: shop }, missing: reject } } }
              - name: products
                read: { json: products.json }
                transform:
            \(uuid("productId", into: "uuid"))
                  - default: { productTemp: Ambient }
                load: { Product: { uuid: uuid, name: productName, temp: productTemp, unit: unit } }
            """, to: "shops.yaml")
        let model = try ws.run("model", "Models")
        #expect(relative(model.stdout, ws).contains("read: the models Schema at Models/Shop.swift:4:5 lists, and the @Model classes they reach"), "\(model.stdout)")
        #expect(!model.stdout.contains("Draft"), "\(model.stdout)")
        let run = try ws.run("run", "-q", "shops.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("default.store")
        #expect(try store.rows("SELECT hex(ZUUID), ZNAME, typeof(ZSELECTED), ZSELECTED FROM ZSHOP ORDER BY Z_PK") == [
            [.text("00000000000000000000000000000000"), .text("Corner"), .text("integer"), .integer(1)],
            [.text("00000000000000000100000000000000"), .text("Market"), .text("integer"), .integer(0)],
        ])
        #expect(try store.rows("SELECT hex(a.ZUUID), a.ZNAME, typeof(a.ZORDER), a.ZORDER, s.ZNAME FROM ZAISLE a JOIN ZSHOP s ON s.Z_PK = a.ZSHOP ORDER BY a.Z_PK") == [
            [.text("00000000000000000100000000000000"), .text("Fruit"), .text("integer"), .integer(0), .text("Corner")],
            [.text("00000000000000000200000000000000"), .text("Bakery"), .text("integer"), .integer(0), .text("Market")],
            [.text("00000000000000000300000000000000"), .text("Dairy"), .text("integer"), .integer(1), .text("Corner")],
        ])
        // A raw-value enum keeps its raw value; the absent temperature takes the app's fallback.
        #expect(try store.rows("SELECT hex(ZUUID), ZNAME, ZTEMP, ZUNIT FROM ZPRODUCT ORDER BY Z_PK") == [
            [.text("00000000000000000100000000000000"), .text("Milk"), .text("Chilled"), .text("VolumeCups")],
            [.text("00000000000000000200000000000000"), .text("Rice"), .text("Ambient"), .text("WeightPounds")],
            [.text("00000000000000001100000000000000"), .text("Peas"), .text("Frozen"), .text("Count")],
        ])
        #expect(try store.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'ZDRAFT'") == .integer(0))
        try inspectPasses(ws, "default.store", model: "Models")
    }

    // delawaremathguy/ShoppingList17: locations with their items nested, an optional to-many with
    // an inverse (fileprivate), a default on every property, the sentinel location the app makes
    // its own, and positions the app numbers itself.
    @Test("nested JSON arrays into an optional to-many with inverse; initial values fill what the seed leaves out, = \"\" an empty name as ''")
    func nestedListsAndDefaults() throws {
        let ws = try Workspace()
        try ws.write("""
            import Foundation
            import SwiftData

            let kBackShelfPosition: Int = Int(INT32_MAX)

            @Model public class Shelf {
                let referenceID: UUID = UUID()
                var name: String = ""
                var position: Int = 1
                var red: Double = 0.85
                var opacity: Double = 1.0
                @Relationship(deleteRule: .noAction, inverse: \\Thing.shelf)
                fileprivate var thingsOptional: [Thing]?
                init() {}
            }

            @Model public class Thing {
                let referenceID: UUID = UUID()
                var name: String = ""
                var quantity: Int = 1
                var onList: Bool = true
                var lastBought: Date?
                @Relationship(deleteRule: .nullify)
                var shelf: Shelf?
                init() {}
            }
            """, to: "Models/Shelves.swift")
        try ws.write("""
            [{"id": "5C1E0000-0000-4000-8000-000000000001", "name": "Back", "order": 2147483647, "red": 0.5, "opacity": 0.5,
              "items": [{"id": "7E100000-0000-4000-8000-000000000001", "name": "Mop", "quantity": 1, "onList": true}]},
             {"id": "5C1E0000-0000-4000-8000-000000000002", "name": "Dairy", "order": 40, "red": 1, "opacity": 0.25,
              "items": [{"id": "7E100000-0000-4000-8000-000000000002", "name": "Milk", "quantity": 2, "onList": false},
                        {"id": "7E100000-0000-4000-8000-000000000003", "name": ""}]},
             {"id": "5C1E0000-0000-4000-8000-000000000003", "name": "Fruit", "order": 7, "red": 0, "opacity": 1, "items": []}]
            """, to: "shelves.json")
        let things = "thingsOptional: { Thing: { each: items, referenceID: id, name: name, quantity: quantity, onList: onList } }"
        try ws.write("""
            version: 1
            name: shelves
            store: { path: default.store, layout: coredata, model: Models }
            entities: { Shelf: { unique: referenceID }, Thing: { unique: referenceID } }
            on_reject: fail
            sources:
              - name: shelves
                read: { json: shelves.json }
                transform:
                  - drop: { order: "2147483647" }
                  - map: { fields: [order], values: { "7": "1", "40": "2" } }   # the app numbers them 1, 2, ... in order
                load:
                  Shelf: { referenceID: id, name: name, position: order, red: red, opacity: opacity, \(things) }
              - name: back-shelf
                read: { json: shelves.json }
                transform: [ { keep: { order: "2147483647" } } ]
                load:
                  Shelf: { referenceID: id, name: { value: Back shelf }, position: order, \(things) }
            """, to: "shelves.yaml")
        let model = try ws.run("model", "Models")
        #expect(model.stdout.contains("  name: String, required, default \"\"\n"), "\(model.stdout)")
        let run = try ws.run("run", "-q", "shelves.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("default.store")
        // JSON 1 and 0 into a Double are REAL; the back shelf keeps the model's colours.
        #expect(try store.rows("""
            SELECT hex(ZREFERENCEID), ZNAME, ZPOSITION, typeof(ZRED), ZRED, typeof(ZOPACITY), ZOPACITY FROM ZSHELF ORDER BY ZPOSITION
            """) == [
            [.text("5C1E0000000040008000000000000003"), .text("Fruit"), .integer(1), .text("real"), .double(0), .text("real"), .double(1)],
            [.text("5C1E0000000040008000000000000002"), .text("Dairy"), .integer(2), .text("real"), .double(1), .text("real"), .double(0.25)],
            [.text("5C1E0000000040008000000000000001"), .text("Back shelf"), .integer(2_147_483_647), .text("real"), .double(0.85),
             .text("real"), .double(1)],
        ])
        // The name "" is the empty string (the model's initial value), not NULL and not a
        // rejection; absent quantity and onList take theirs.
        #expect(try store.rows("""
            SELECT hex(t.ZREFERENCEID), typeof(t.ZNAME), t.ZNAME, t.ZQUANTITY, t.ZONLIST, t.ZLASTBOUGHT, s.ZNAME
            FROM ZTHING t JOIN ZSHELF s ON s.Z_PK = t.ZSHELF ORDER BY t.ZREFERENCEID
            """) == [
            [.text("7E100000000040008000000000000001"), .text("text"), .text("Mop"), .integer(1), .integer(1), .null, .text("Back shelf")],
            [.text("7E100000000040008000000000000002"), .text("text"), .text("Milk"), .integer(2), .integer(0), .null, .text("Dairy")],
            [.text("7E100000000040008000000000000003"), .text("text"), .text(""), .integer(1), .integer(1), .null, .text("Dairy")],
        ])
        try inspectPasses(ws, "default.store", model: "Models")
    }

    // adin-apple/Operation-PalRepo: arrays of Codable structs, whose elements SwiftData decodes
    // by the struct's own property names and types.
    static let crittersSource = """
        import Foundation
        import SwiftData

        @Model class Critter {
            var critterID: Int
            var name: String
            var moves: [Move]
            var drops: [String]
            var stats: Stats
            var aura: Aura?
            var wiki: URL
            init() { fatalError() }
        }

        struct Move: Codable, Hashable {
            var moveName: String
            var power: Int
            var cooldown: Double
            var note: String?
            var learned: Bool
        }

        struct Stats: Codable {
            let hp: Int
            let defense: Int
        }

        struct Aura: Codable {
            var auraName: String
            var tech: String?
        }
        """

    /// A pipeline loading critters.json into the critters model, `moves` as given; more lines
    /// of `Critter` may follow.
    static func crittersPipeline(moves: String) -> String {
        """
        version: 1
        name: critters
        store: { path: default.store, layout: coredata, model: Models }
        entities: { Critter: { unique: critterID } }
        sources:
          - name: critters
            read: { json: critters.json }
            load:
              Critter:
                critterID: id
                name: name
                wiki: wiki
                moves: \(moves)
                drops: drops
                stats.hp: stats.hp
                stats.defense: stats.defense

        """
    }

    @Test("an array of structs: each element archived as the struct's properties with their types (numbers as numbers); a field the struct lacks is rejected, a struct inside a struct refused")
    func arraysOfStructsAreTyped() throws {
        let ws = try Workspace()
        try ws.write(Self.crittersSource, to: "Models/Critter.swift")
        try ws.write(#"""
            [{"id": 1, "name": "Lamb", "wiki": "https://example.com/wiki/Lamb/",
              "moves": [{"moveName": "Roll", "power": 35, "cooldown": 1.5, "learned": true},
                        {"moveName": "Zap \"big\"", "power": 50, "cooldown": 2.5, "note": "slow", "learned": false}],
              "drops": ["wool", "mutton"], "stats": {"hp": 70, "defense": 60}, "aura": {"name": "Fluffy", "tech": null}},
             {"id": 2, "name": "Fox", "wiki": "https://example.com/wiki/Fox",
              "moves": [{"name": "Bite", "power": 20, "cooldown": 1, "learned": true}],
              "drops": [], "stats": {"hp": 65, "defense": 70}},
             {"id": 3, "name": "Owl", "wiki": "https://example.com/wiki/Owl",
              "moves": [{"moveName": "Hoot", "power": "loud", "cooldown": 1, "learned": true}],
              "drops": [], "stats": {"hp": 60, "defense": 50}},
             {"id": 4, "name": "Eel", "wiki": "https://example.com/wiki/Eel",
              "moves": [{"moveName": "Spark", "cooldown": 3, "learned": true}],
              "drops": [], "stats": {"hp": 50, "defense": 40}}]
            """#, to: "critters.json")
        try ws.write(Self.crittersPipeline(moves: "moves") + """
                    aura.auraName: aura.name
                    aura.tech: aura.tech
            """, to: "critters.yaml")
        let model = try ws.run("model", "Models")
        #expect(model.stdout.contains("  moves: Transformable (an array of struct Move: moveName String, power Int, cooldown Double, note String?, learned Bool), required\n"),
                "\(model.stdout)")
        let run = try ws.run("run", "critters.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        // The JSON's own key names, a number given as text and a missing required property are
        // each refused, with the element's problem: never archived as they came.
        #expect(run.stderr.contains("critters.json:5:2 ([1]): warning: record rejected: sqlite: field 'moves'"), "\(run.stderr)")
        #expect(run.stderr.contains("an element of the list has a field 'name', which is no property of Move (its properties: moveName, power, cooldown, note, learned)"),
                "\(run.stderr)")
        #expect(run.stderr.contains("an element of the list gives 'loud' for 'power' (Int in Move): "), "\(run.stderr)")
        #expect(run.stderr.contains("an element of the list gives no value for 'power', which Move requires (Int)"), "\(run.stderr)")
        let store = try ws.store("default.store")
        let rows = try store.rows("SELECT ZCRITTERID, ZNAME, ZMOVES, ZDROPS, ZHP, ZDEFENSE, ZAURANAME, ZTECH, ZWIKI FROM ZCRITTER ORDER BY Z_PK")
        #expect(rows.count == 1)
        let lamb = try #require(rows.first)
        #expect(lamb[0] == .integer(1) && lamb[1] == .text("Lamb") && lamb[4] == .integer(70) && lamb[5] == .integer(60)
                && lamb[6] == .text("Fluffy") && lamb[7] == .null && lamb[8] == .text("https://example.com/wiki/Lamb/"), "\(lamb)")
        // As JSONEncoder writes [Move]: the properties in declaration order, numbers and Booleans
        // as JSON numbers and Booleans, a nil optional left out.
        #expect(archivedJSON(lamb[2]) == #"[{"moveName":"Roll","power":35,"cooldown":1.5,"learned":true},"#
                + #"{"moveName":"Zap \"big\"","power":50,"cooldown":2.5,"note":"slow","learned":false}]"#)
        #expect(archivedJSON(lamb[3]) == #"["wool","mutton"]"#)
        try inspectPasses(ws, "default.store", model: "Models")

        // A struct holding a struct (PalRepo's PalStats holds an Attack): a composite inside the
        // composite, its element a column of its own name.
        try ws.write(Self.crittersSource.replacingOccurrences(of: "let defense: Int", with: "let attack: Attack")
                        + "\nstruct Attack: Codable { let melee: Int }\n", to: "Models/Critter.swift")
        let yaml = try String(decoding: ws.bytes("critters.yaml"), as: UTF8.self)
        try ws.write(yaml.replacingOccurrences(of: "stats.defense: stats.defense", with: "stats.attack.melee: stats.defense"), to: "critters.yaml")
        let nested = try ws.run("run", "critters.yaml")
        #expect(nested.status == 0, "\(nested.stderr)")
        #expect(try ws.store("default.store").rows("SELECT ZHP, ZMELEE FROM ZCRITTER") == [[.integer(70), .integer(60)]])
        try inspectPasses(ws, "default.store", model: "Models")
        // A type no file declares, inside a struct, says so.
        try ws.write(Self.crittersSource.replacingOccurrences(of: "let defense: Int", with: "let attack: Attack"), to: "Models/Critter.swift")
        let undeclared = try ws.run("validate", "critters.yaml")
        #expect(undeclared.status == 65)
        #expect(relative(undeclared.stderr, ws).contains("Models/Critter.swift:9:9: error: model: Critter.stats: the type 'Attack' of 'Stats.attack' is declared in no file"),
                "\(undeclared.stderr)")
    }

    @Test("each: with property fields renames a list's element keys to the struct's properties, as PalRepo's own decoder does (types: name → typeName)")
    func listElementsRenamed() throws {
        let ws = try Workspace()
        try ws.write(Self.crittersSource, to: "Models/Critter.swift")
        try ws.write(#"""
            [{"id": 1, "name": "Lamb", "wiki": "https://example.com/wiki/Lamb",
              "attacks": [{"title": "Roll", "damage": 35, "cooldown": 1.5, "learned": true},
                          {"title": "Zap", "damage": 50, "cooldown": 2.5, "note": "slow", "learned": false}],
              "drops": [], "stats": {"hp": 70, "defense": 60}},
             {"id": 2, "name": "Fox", "wiki": "https://example.com/wiki/Fox",
              "attacks": [{"title": "Bite", "moveName": "Bite", "damage": 20, "cooldown": 1, "learned": true}],
              "drops": [], "stats": {"hp": 65, "defense": 70}},
             {"id": 3, "name": "Owl", "wiki": "https://example.com/wiki/Owl",
              "attacks": [{"title": "Hoot", "damage": 5, "cooldown": 1, "learned": true, "sound": "loud"}],
              "drops": [], "stats": {"hp": 60, "defense": 50}}]
            """#, to: "critters.json")
        let yaml = Self.crittersPipeline(moves: "{ each: attacks, moveName: title, power: damage }")
        try ws.write(yaml, to: "critters.yaml")
        let run = try ws.run("run", "critters.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        // A key given both renamed and by the property's own name, and a key that is neither, reject their record.
        #expect(run.stderr.contains("critters.json:5:2 ([1]): warning: record rejected: load: field 'attacks'"), "\(run.stderr)")
        #expect(run.stderr.contains("Critter.moves gives its element's 'moveName' twice: as 'title', which the load renames, and as itself"), "\(run.stderr)")
        #expect(run.stderr.contains("an element of the list has a field 'sound', which is no property of Move"), "\(run.stderr)")
        let rows = try ws.store("default.store").rows("SELECT ZNAME, ZMOVES FROM ZCRITTER ORDER BY Z_PK")
        #expect(rows.map { $0[0] } == [.text("Lamb")])
        // Archived as the struct: its own property names, in declaration order.
        #expect(rows.first.map { archivedJSON($0[1]) } == #"[{"moveName":"Roll","power":35,"cooldown":1.5,"learned":true},"#
                + #"{"moveName":"Zap","power":50,"cooldown":2.5,"note":"slow","learned":false}]"#)
        try inspectPasses(ws, "default.store", model: "Models")

        // A property the struct lacks, and an array of another kind, are errors in the pipeline.
        try ws.write(yaml.replacingOccurrences(of: "moveName: title", with: "moveNme: title"), to: "critters.yaml")
        let unknown = try ws.run("validate", "critters.yaml")
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("critters.yaml:13:33: error: pipeline: Move has no property 'moveNme'; did you mean 'moveName'? (its properties: moveName, power, cooldown, note, learned)"),
                "\(unknown.stderr)")
        try ws.write(yaml.replacingOccurrences(of: "drops: drops", with: "drops: { each: drops, name: loot }"), to: "critters.yaml")
        let plain = try ws.run("validate", "critters.yaml")
        #expect(plain.status == 65)
        #expect(plain.stderr.contains("critters.yaml:14:16: error: pipeline: 'Critter.drops' is no array of structs"), "\(plain.stderr)")
    }

    // jrtibbetts/Flips: a Core Data model with several versions, abstract parents, a required
    // String whose default is the empty string, and headerless CSVs whose columns the app reads
    // by position, one column feeding two attributes.
    @Test("a required String with defaultValueString=\"\" takes '' where a row leaves it empty; headerless CSV into sub-entities of abstract parents")
    func emptyStringDefaultInModelFile() throws {
        let ws = try Workspace()
        let bundle = "Words.xcdatamodeld"
        try ws.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Words 2.xcdatamodel</string></dict></plist>
            """, to: "\(bundle)/.xccurrentversion")
        let version2 = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="17709" systemVersion="20C69" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Entry" representedClassName="Entry" isAbstract="YES" syncable="YES" codeGenerationType="class"/>
                <entity name="Word" representedClassName="Word" isAbstract="YES" parentEntity="Entry" syncable="YES" codeGenerationType="class">
                    <attribute name="dictionaryForm" optional="YES" attributeType="String"/>
                    <attribute name="root" attributeType="String" defaultValueString=""/>
                    <attribute name="translation" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Noun" representedClassName="Noun" parentEntity="Word" syncable="YES" codeGenerationType="class">
                    <attribute name="declension" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                    <attribute name="gender" attributeType="String"/>
                    <attribute name="plural" optional="YES" attributeType="String"/>
                    <attribute name="strongPlural" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                </entity>
            </model>
            """
        try ws.write(version2, to: "\(bundle)/Words 2.xcdatamodel/contents")
        // The older version, without the default: not the one read.
        try ws.write(version2.replacingOccurrences(of: #" defaultValueString="""#, with: ""), to: "\(bundle)/Words.xcdatamodel/contents")
        try ws.write("""
            # root, gender, declension, plural, strong plural?, translation
            cat,      m, 1, cait,   false, cat
                  ,   f, 2, nil,    true,  nameless
            abhainn,  f, 5, aibhne, true,  river
            """, to: "nouns.csv")
        try ws.write("""
            version: 1
            name: words
            store: { path: Words.sqlite, layout: coredata, model: \(bundle) }
            sources:
              - name: nouns
                read: { csv: nouns.csv, header: false, delimiter: ",", columns: [root, gender, declension, plural, strongPlural, translation] }
                transform: [ { trim: all }, { drop: { root: { matches: "^#" } } } ]
                load: { Noun: { root: root, dictionaryForm: root, gender: gender, declension: declension, plural: plural, strongPlural: strongPlural, translation: translation } }
            """, to: "words.yaml")
        let model = try ws.run("model", bundle)
        #expect(model.stdout.contains("  root: String, required, default \"\"\n"), "\(model.stdout)")
        let run = try ws.run("run", "-q", "words.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("Words.sqlite")
        let noun: Value = try store.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Noun'") ?? .null
        let expected: [[Value]] = [
            [noun, .text("text"), .text("cat"), .text("cat"), .text("m"), .text("integer"), .integer(1), .text("cait"), .integer(0), .text("cat")],
            [noun, .text("text"), .text(""), .null, .text("f"), .text("integer"), .integer(2), .text("nil"), .integer(1), .text("nameless")],
            [noun, .text("text"), .text("abhainn"), .text("abhainn"), .text("f"), .text("integer"), .integer(5), .text("aibhne"), .integer(1), .text("river")],
        ]
        #expect(try store.rows("""
            SELECT Z_ENT, typeof(ZROOT), ZROOT, ZDICTIONARYFORM, ZGENDER, typeof(ZDECLENSION), ZDECLENSION, ZPLURAL, ZSTRONGPLURAL, ZTRANSLATION
            FROM ZENTRY ORDER BY Z_PK
            """) == expected)
        try inspectPasses(ws, "Words.sqlite", model: bundle)
    }

    // turingschool-examples/fe-apps, What's Cookin' (spoonacular's data): ingredients found by a
    // numeric id, one of them given without its id or name.
    @Test("a key left empty (absent, null, \"\") skips and reports its record, not stored under the key's default")
    func keyWithoutItsValueIsNotItsDefault() throws {
        let ws = try Workspace()
        try ws.write("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Ingredient" representedClassName="Ingredient" syncable="YES" codeGenerationType="class">
                    <attribute name="ingredientID" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="costInCents" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                </entity>
            </model>
            """, to: "Cookin.xcdatamodel/contents")
        try ws.write("""
            {"ingredients": [
              {"id": 20081, "name": "wheat flour", "estimatedCostInCents": 142},
              {"estimatedCostInCents": 205},
              {"id": 18372, "name": "bicarbonate of soda", "estimatedCostInCents": 582},
              {"id": null, "name": "no id"},
              {"id": "", "name": "empty id"}
            ]}
            """, to: "ingredients.json")
        try ws.write("""
            version: 1
            name: cookin
            store: { path: Cookin.sqlite, layout: coredata, model: Cookin.xcdatamodel }
            entities: { Ingredient: { unique: ingredientID } }
            sources:
              - name: ingredients
                read: { json: ingredients.json, records: ingredients }
                load: { Ingredient: { ingredientID: id, name: name, costInCents: estimatedCostInCents } }
            """, to: "cookin.yaml")
        let run = try ws.run("run", "cookin.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("Ingredient skipped (3 records, the first here): Ingredient has an empty unique key 'ingredientID'"), "\(run.stderr)")
        #expect(run.stdout.contains("source ingredients     5         2        0        0        3         0"), "\(run.stdout)")
        let store = try ws.store("Cookin.sqlite")
        #expect(try store.rows("SELECT ZINGREDIENTID, ZNAME, ZCOSTINCENTS FROM ZINGREDIENT ORDER BY Z_PK") == [
            [.integer(20081), .text("wheat flour"), .integer(142)], [.integer(18372), .text("bicarbonate of soda"), .integer(582)]])
    }
}
