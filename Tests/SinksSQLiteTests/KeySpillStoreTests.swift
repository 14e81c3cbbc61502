import Foundation
import Diagnostics
import Pipeline
@testable import SinksSQLite
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("Unique keys past the memory limit: the same store and the same log")
struct KeySpillStoreTests {
    /// 6,000 items with duplicates of every kind (identical, conflicting, far apart, in the same
    /// run and across runs), non-ASCII names and canonically equivalent spellings.
    static let records: [EntityRecord] = (0..<6000).map { line in
        let n = line % 7 == 3 ? line / 2 : line  // a duplicate of an earlier name
        let name = n % 5 == 0 ? "Crème \(n)" : "Item \(n)"
        let spelled = line % 11 == 0 ? name.replacingOccurrences(of: "è", with: "e\u{300}") : name
        return Grocery.item(spelled, quantity: Double(line % 3), unit: "unit \(n % 40)", home: "home \(n % 9)",
                            shop: line % 13 == 0 ? nil : "shop \(n % 300)", line: line + 2)
    }

    func build(_ target: URL, limits: KeyIndex.Limits, onDuplicate: DuplicatePolicy) throws -> ImportLog {
        let sink = try SQLiteSink(settings: StoreSettings(path: target), model: Grocery.model, keyLimits: limits)
        let log = Grocery.log()
        for record in Self.records { try sink.write(record, onDuplicate: onDuplicate, log: log) }
        try sink.finish(log: log)
        return log
    }

    /// Recipes listing ingredient uses whose key is their two links (`recipe, ingredient`): an
    /// ingredient given twice in a recipe finds its use again.
    static let recipes = StoreModel(entities: [
        Entity(name: "Recipe", attributes: [Attribute(name: "name", type: .string)],
               relationships: [Relationship(name: "uses", destination: "Use", inverse: "recipe", isToMany: true)],
               uniqueKey: ["name"]),
        Entity(name: "Ingredient", attributes: [Attribute(name: "name", type: .string)],
               relationships: [Relationship(name: "uses", destination: "Use", inverse: "ingredient", isToMany: true)],
               uniqueKey: ["name"]),
        Entity(name: "Use", attributes: [Attribute(name: "amount", type: .string)],
               relationships: [Relationship(name: "recipe", destination: "Recipe", inverse: "uses"),
                               Relationship(name: "ingredient", destination: "Ingredient", inverse: "uses")],
               uniqueKey: ["recipe", "ingredient"]),
    ])

    @Test("keys of two links on disk: the same store and log as in memory", arguments: [DuplicatePolicy.keep, .update])
    func linkKeysSpilled(onDuplicate: DuplicatePolicy) throws {
        func build(_ target: URL, limits: KeyIndex.Limits) throws -> ImportLog {
            let sink = try SQLiteSink(settings: StoreSettings(path: target), model: Self.recipes, keyLimits: limits)
            let log = ImportLog(sourceNames: ["recipes"], entityNames: ["Recipe", "Ingredient", "Use"])
            for n in 0..<2000 {
                let at = Location(file: "recipes.json", line: n + 2)
                let uses = [n % 50, (n * 7) % 50, n % 50].enumerated().map { k, i in
                    EntityRecord(entity: 2, values: [.text("\(k + 1) g")],
                                 links: [nil, EntityRecord(entity: 1, values: [.text("ingredient \(i)")], links: [nil], location: at)], location: at)
                }
                // Every recipe a second time, far apart: found by its key.
                try sink.write(EntityRecord(entity: 0, values: [.text("recipe \(n % 1500)")], links: [nil], lists: [uses], location: at),
                               onDuplicate: onDuplicate, log: log)
            }
            try sink.finish(log: log)
            return log
        }
        try withScratchFolder { folder in
            let inMemory = folder.appendingPathComponent("memory.sqlite")
            let spilled = folder.appendingPathComponent("spilled.sqlite")
            let memoryLog = try build(inMemory, limits: .standard)
            let spillLog = try build(spilled, limits: .init(memoryKeys: 100, runKeys: 64))
            #expect(try Data(contentsOf: spilled) == (try Data(contentsOf: inMemory)))
            #expect(spillLog.entities == memoryLog.entities)
            let store = try SQLiteStore(readingAt: spilled)
            // One use per recipe and ingredient: a recipe's ingredient given twice is one use.
            let uses = try store.rows("SELECT count(*), count(DISTINCT recipe_id || ',' || ingredient_id) FROM Use")
            #expect(uses.first?[0] == uses.first?[1], "\(uses)")
        }
    }

    @Test("a store built with keys on disk is byte for byte the one built in memory", arguments: [DuplicatePolicy.keep, .update])
    func sameStore(onDuplicate: DuplicatePolicy) throws {
        try withScratchFolder { folder in
            let inMemory = folder.appendingPathComponent("memory.sqlite")
            let spilled = folder.appendingPathComponent("spilled.sqlite")
            let memoryLog = try build(inMemory, limits: .standard, onDuplicate: onDuplicate)
            let spillLog = try build(spilled, limits: .init(memoryKeys: 100, runKeys: 64), onDuplicate: onDuplicate)

            #expect(try Data(contentsOf: spilled) == (try Data(contentsOf: inMemory)))
            #expect(spillLog.entities == memoryLog.entities)
            #expect(spillLog.duplicates.count == memoryLog.duplicates.count)
            #expect(spillLog.duplicates.count > 800)
            for (a, b) in zip(spillLog.duplicates, memoryLog.duplicates) {
                #expect(a.key == b.key && a.first == b.first && a.again == b.again)
                #expect(a.differences.map(\.again) == b.differences.map(\.again))
            }
            let counts = try SQLiteStore(readingAt: spilled).rows("SELECT count(*), count(DISTINCT name) FROM Item")
            #expect(counts == [[.integer(Int64(memoryLog.entities[Grocery.item].inserted)), .integer(Int64(memoryLog.entities[Grocery.item].inserted))]])
            // Only the store is left: the keys' temporary file went with the run.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["memory.sqlite", "spilled.sqlite"])
        }
    }
}
