import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("SQLite sink: writing records")
struct SQLiteSinkWriteTests {
    @Test("linked records are found or created by their unique key")
    func findOrCreateLinks() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, [
                Grocery.item("Milk", unit: "l", home: "Fridge", line: 2),
                Grocery.item("Juice", unit: "l", home: "Fridge", shop: "3", line: 3),
                Grocery.item("Flour", unit: "kg", line: 4),
            ])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT id, name FROM Unit ORDER BY id") == [[.integer(1), .text("l")], [.integer(2), .text("kg")]])
            #expect(try store.rows("SELECT id, summary, storedIn FROM LocationAtHome") == [[.integer(1), .null, .text("Fridge")]])
            #expect(try store.rows("SELECT id, aisle FROM LocationAtShop") == [[.integer(1), .text("3")]])
            #expect(try store.rows("SELECT name, unit_id, locationAtHome_id, locationAtShop_id FROM Item ORDER BY id") == [
                [.text("Milk"), .integer(1), .integer(1), .null],
                [.text("Juice"), .integer(1), .integer(1), .integer(1)],
                [.text("Flour"), .integer(2), .null, .null],
            ])
            #expect(log.entities[Grocery.unit] == counts(inserted: 2, alreadyPresent: 1))
            #expect(log.entities[Grocery.home] == counts(inserted: 1, alreadyPresent: 1))
            #expect(log.entities[Grocery.shop] == counts(inserted: 1))
            #expect(log.entities[Grocery.item] == counts(inserted: 3))
            #expect(log.sources[0] == counts(inserted: 7, alreadyPresent: 2))
            #expect(log.skips.isEmpty && log.duplicates.isEmpty)
        }
    }

    /// Records as the runner hands them over, each with its key's hash: an ASCII key of up to 24
    /// bytes is bound from the bytes beside its hash (without a copy), longer and non-ASCII keys
    /// from their text. Every row must keep its own name, with duplicates in between.
    @Test("keys bound from the bytes beside their hash stay each row's own")
    func keysBoundFromTheirHash() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            var names: [String] = []
            for k in 0..<600 {
                let base = String(repeating: "abcdefghij", count: 3)
                names.append(k % 5 == 4 ? "Crème \(k)" : "\(k)-" + base.prefix(k % 30))
            }
            var records: [EntityRecord] = []
            for (k, name) in names.enumerated() {
                for again in [false, true] where !again || k % 7 == 0 {
                    var record = Grocery.item(name, unit: k % 2 == 0 ? "kg" : "l", line: 2 + k)
                    record.hashKey(at: 0)
                    record.links[0]?.hashKey(at: 0)
                    records.append(record)
                }
            }
            let log = try buildStore(at: target, records)
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT name FROM Item ORDER BY id") == names.map { [.text($0)] })
            #expect(try store.rows("SELECT name FROM Unit ORDER BY id") == [[.text("kg")], [.text("l")]])
            #expect(log.entities[Grocery.item] == counts(inserted: 600, alreadyPresent: 86))
        }
    }

    @Test("a record with an empty unique key is skipped and reported, never inserted")
    func emptyKey() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, [
                Grocery.item("", quantity: 2, line: 2),
                Grocery.item(nil, line: 3),
                Grocery.item("Milk", line: 4),
            ])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT name FROM Item") == [[.text("Milk")]])
            #expect(log.entities[Grocery.item] == counts(inserted: 1, skipped: 2))
            #expect(log.skips.map { "\($0.entity) \($0.location): \($0.reason)" } == [
                "Item items.csv:2: Item has an empty unique key 'name'",
                "Item items.csv:3: Item has an empty unique key 'name'",
            ])
        }
    }

    @Test("an empty cell for an optional to-one is no link: the link stays empty and nothing is skipped")
    func emptyLinkedKey() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, [
                Grocery.item("Salt", unit: "", line: 2),
                Grocery.item("Pepper", unit: "g", line: 3),
            ])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT name, unit_id FROM Item ORDER BY id") == [[.text("Salt"), .null], [.text("Pepper"), .integer(1)]])
            #expect(try store.scalar("SELECT count(*) FROM Unit") == .integer(1))
            #expect(log.entities[Grocery.unit] == counts(inserted: 1))
            #expect(log.entities[Grocery.item] == counts(inserted: 2))
            #expect(log.skips.isEmpty)
        }
    }

    @Test("a duplicate with the same values is counted as already present and listed without differences")
    func identicalDuplicate() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, [
                Grocery.item("Milk", quantity: 2, added: 700_000_000, unit: "l", line: 2),
                Grocery.item("Milk", quantity: 2, added: 700_000_000, unit: "l", line: 3),
                // Slots the load leaves out are not compared.
                Grocery.item("Milk", line: 4),
            ])
            #expect(log.entities[Grocery.item] == counts(inserted: 1, alreadyPresent: 2))
            #expect(log.duplicates.map { "\($0.key) \($0.first.line ?? 0) \($0.again.line ?? 0) \($0.differences.count)" }
                        == ["name=Milk 2 3 0", "name=Milk 2 4 0"])
            #expect(try SQLiteStore(readingAt: target).scalar("SELECT count(*) FROM Item") == .integer(1))
        }
    }

    @Test("a duplicate with other values is reported with both locations and the differences; the first stays")
    func conflictingDuplicateKeep() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, [
                Grocery.item("Milk", quantity: 2, added: 0, unit: "l", line: 2),
                Grocery.item("Milk", quantity: 1.5, added: 86_400, unit: "ml", home: "Fridge", line: 5),
            ])
            #expect(log.entities[Grocery.item] == counts(inserted: 1, alreadyPresent: 1))
            #expect(log.duplicates.count == 1)
            let duplicate = try #require(log.duplicates.first)
            #expect(duplicate.entity == "Item")
            #expect(duplicate.key == "name=Milk")
            #expect(duplicate.first.description == "items.csv:2")
            #expect(duplicate.again.description == "items.csv:5")
            #expect(!duplicate.updated)
            #expect(duplicate.differences.map { "\($0.attribute): \($0.first) -> \($0.again)" } == [
                "quantity: 2 -> 1.5",
                "added: 2001-01-01T00:00:00Z -> 2001-01-02T00:00:00Z",
                "unit: name=l -> name=ml",
                "locationAtHome:  -> storedIn=Fridge",
            ])
            // The kept-first duplicate creates none of the records only it mentions: no orphans.
            #expect(log.entities[Grocery.unit] == counts(inserted: 1))
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT name FROM Unit") == [[.text("l")]])
            #expect(try store.scalar("SELECT count(*) FROM LocationAtHome") == .integer(0))
            #expect(try store.rows("SELECT quantity, added, unit_id, locationAtHome_id FROM Item")
                        == [[.double(2), .double(0), .integer(1), .null]])
        }
    }

    @Test("on_duplicate: update writes the given values over the stored ones and keeps the rest")
    func conflictingDuplicateUpdate() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, [
                Grocery.item("Milk", quantity: 2, added: 0, unit: "l", line: 2),
                Grocery.item("Milk", quantity: 3, unit: "ml", line: 3),
                Grocery.item("Milk", quantity: 3, unit: "ml", line: 4),
            ], onDuplicate: .update)
            #expect(log.entities[Grocery.item] == counts(inserted: 1, alreadyPresent: 1, updated: 1))
            // The third record repeats the updated values: a duplicate with nothing to update.
            #expect(log.duplicates.map(\.updated) == [true, false])
            #expect(log.duplicates.first?.differences.map(\.attribute) == ["quantity", "unit"])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT name, quantity, listed, collected, added, unit_id FROM Item") == [
                [.text("Milk"), .double(3), .integer(1), .integer(0), .double(0), .integer(2)],
            ])
        }
    }

    @Test("linked records are never updated")
    func linkedRecordsNotUpdated() throws {
        let model = StoreModel(entities: [
            Entity(name: "Unit", attributes: [Attribute(name: "name", type: .string), Attribute(name: "plural", type: .string)],
                   uniqueKey: ["name"]),
            Entity(name: "Item", attributes: [Attribute(name: "name", type: .string)],
                   relationships: [Relationship(name: "unit", destination: "Unit")], uniqueKey: ["name"]),
        ])
        func item(_ name: String, unit: String, plural: String, line: Int) -> EntityRecord {
            EntityRecord(entity: 1, values: [.text(name)],
                         links: [EntityRecord(entity: 0, values: [.text(unit), .text(plural)], links: [], location: Grocery.at(line))],
                         location: Grocery.at(line))
        }
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, model: model, [
                item("Milk", unit: "l", plural: "litres", line: 2),
                item("Juice", unit: "l", plural: "liters", line: 3),
            ], onDuplicate: .update)
            #expect(log.duplicates.isEmpty)
            #expect(try SQLiteStore(readingAt: target).rows("SELECT name, plural FROM Unit") == [[.text("l"), .text("litres")]])
        }
    }

    @Test("attributes the record leaves out get their defaults, else NULL")
    func defaults() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: target, [
                Grocery.item("Milk", line: 2),
                EntityRecord(entity: Grocery.item, values: [.text("Eggs"), .double(12), .bool(false), .bool(true), .null],
                             links: [nil, nil, nil], location: Grocery.at(3)),
            ])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT name, quantity, listed, collected, added FROM Item ORDER BY id") == [
                [.text("Milk"), .double(1), .integer(1), .integer(0), .null],
                [.text("Eggs"), .double(12), .integer(0), .integer(1), .null],
            ])
        }
    }

    @Test("values are stored by their type")
    func valueTypes() throws {
        let model = StoreModel(entities: [Entity(name: "Everything", attributes: [
            Attribute(name: "s", type: .string), Attribute(name: "empty", type: .string), Attribute(name: "i", type: .integer64),
            Attribute(name: "dec", type: .decimal), Attribute(name: "whole", type: .decimal), Attribute(name: "dbl", type: .double),
            Attribute(name: "b", type: .bool), Attribute(name: "d", type: .date), Attribute(name: "bin", type: .binary),
            Attribute(name: "none", type: .binary), Attribute(name: "u", type: .uuid),
        ])])
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: target, model: model, [
                EntityRecord(entity: 0, values: [
                    .text("Grüße \u{0} ok"), .text(""), .integer(-9_007_199_254_740_993),
                    .decimal(Decimal(string: "2.50")!), .decimal(Decimal(3)), .double(0.1),
                    .bool(true), .date(-86_400.5), .binary([0, 1, 255]), .binary([]), .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
                ], links: [], location: Grocery.at(2)),
            ])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT s, empty, i, dec, whole, dbl, b, d, bin, none, u FROM Everything") == [[
                .text("Grüße \u{0} ok"), .text(""), .integer(-9_007_199_254_740_993),
                .double(2.5), .integer(3), .double(0.1),
                .integer(1), .double(-86_400.5), .binary([0, 1, 255]), .binary([]), .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
            ]])
        }
    }

    @Test("composite unique keys")
    func compositeKey() throws {
        let model = StoreModel(entities: [Entity(name: "Shelf", attributes: [
            Attribute(name: "aisle", type: .integer64), Attribute(name: "shop", type: .string), Attribute(name: "label", type: .string),
        ], uniqueKey: ["aisle", "shop"])])
        func shelf(_ aisle: Int64?, _ shop: String, _ label: String, line: Int) -> EntityRecord {
            EntityRecord(entity: 0, values: [aisle.map(Value.integer) ?? .null, .text(shop), .text(label)], links: [],
                         location: Grocery.at(line))
        }
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, model: model, [
                shelf(1, "North", "Dairy", line: 2), shelf(1, "South", "Bread", line: 3),
                shelf(1, "North", "Milk", line: 4), shelf(nil, "North", "?", line: 5),
            ])
            #expect(try SQLiteStore(readingAt: target).rows("SELECT aisle, shop, label FROM Shelf ORDER BY id") == [
                [.integer(1), .text("North"), .text("Dairy")], [.integer(1), .text("South"), .text("Bread")],
            ])
            #expect(log.entities[0] == counts(inserted: 2, alreadyPresent: 1, skipped: 1))
            #expect(log.duplicates.map { "\($0.key): \($0.differences.map { "\($0.attribute) \($0.first) -> \($0.again)" })" }
                        == [#"aisle=1, shop=North: ["label Dairy -> Milk"]"#])
            #expect(log.skips.map(\.reason) == ["Shelf has an empty unique key 'aisle, shop' ('aisle' empty)"])
        }
    }

    @Test("an entity without a unique key gets every record")
    func noUniqueKey() throws {
        let model = StoreModel(entities: [Entity(name: "Note", attributes: [Attribute(name: "text", type: .string)])])
        let note = EntityRecord(entity: 0, values: [.text("same")], links: [], location: Grocery.at(2))
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, model: model, [note, note, EntityRecord(entity: 0, values: [.null], links: [], location: Grocery.at(3))])
            #expect(try SQLiteStore(readingAt: target).rows("SELECT id, text FROM Note") == [
                [.integer(1), .text("same")], [.integer(2), .text("same")], [.integer(3), .null],
            ])
            #expect(log.entities[0] == counts(inserted: 3))
        }
    }

    @Test("SQL keywords as entity and attribute names")
    func keywordNames() throws {
        let model = StoreModel(entities: [Entity(name: "Order", attributes: [
            Attribute(name: "group", type: .string, isIndexed: true), Attribute(name: "select", type: .integer64),
        ], uniqueKey: ["group"])])
        func order(_ group: String, _ select: Int64, line: Int) -> EntityRecord {
            EntityRecord(entity: 0, values: [.text(group), .integer(select)], links: [], location: Grocery.at(line))
        }
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            let log = try buildStore(at: target, model: model, [order("a", 1, line: 2), order("b", 2, line: 3), order("a", 3, line: 4)],
                                     onDuplicate: .update)
            #expect(try SQLiteStore(readingAt: target).rows(#"SELECT "group", "select" FROM "Order" ORDER BY "id""#) == [
                [.text("a"), .integer(3)], [.text("b"), .integer(2)],
            ])
            #expect(log.entities[0] == counts(inserted: 2, updated: 1))
        }
    }

    @Test("a required attribute without a value or default rejects the record")
    func requiredWithoutValue() throws {
        let model = StoreModel(entities: [Entity(name: "Product", attributes: [
            Attribute(name: "name", type: .string), Attribute(name: "code", type: .string, isOptional: false),
        ], uniqueKey: ["name"])])
        try withScratchFolder { folder in
            let sink = try SQLiteSink(settings: StoreSettings(path: folder.appendingPathComponent("store.sqlite")), model: model)
            let log = Grocery.log(model)
            #expect {
                try sink.write(EntityRecord(entity: 0, values: [.text("Tea"), nil], links: [], location: Grocery.at(3)),
                               onDuplicate: .keep, log: log)
            } throws: { error in
                (error as? Rejection)?.description
                    == "items.csv:3: rejected: sqlite: field 'code': Product.code is required and has no default, but the record gives no value"
            }
            // The key was not taken by the rejected record.
            try sink.write(EntityRecord(entity: 0, values: [.text("Tea"), .text("T1")], links: [], location: Grocery.at(4)),
                           onDuplicate: .keep, log: log)
            #expect(log.entities[0] == counts(inserted: 1))
            sink.discard()
        }
    }

    @Test("records that do not fit the model are errors at the record")
    func recordsNotFittingTheModel() throws {
        try withScratchFolder { folder in
            let sink = try SQLiteSink(settings: StoreSettings(path: folder.appendingPathComponent("store.sqlite")), model: Grocery.model)
            defer { sink.discard() }
            let log = Grocery.log()
            let wrongTarget = EntityRecord(
                entity: Grocery.item, values: [.text("Milk"), nil, nil, nil, nil],
                links: [EntityRecord(entity: Grocery.home, values: [nil, .text("Fridge")], links: [], location: Grocery.at(2)), nil, nil],
                location: Grocery.at(2))
            let toMany = EntityRecord(entity: Grocery.unit, values: [.text("l")], links: [Grocery.item("Milk", line: 3)],
                                      location: Grocery.at(3))
            let cases: [(EntityRecord, PipelineError.Code, String)] = [
                (wrongTarget, .pipelineWrongDestination, "items.csv:2"),
                (toMany, .recordToManyAsLink, "items.csv:3"),
                (EntityRecord(entity: Grocery.location, values: [nil], links: [], location: Grocery.at(4)), .recordAbstractEntity, "items.csv:4"),
                (EntityRecord(entity: 9, values: [], links: [], location: Grocery.at(5)), .recordUnknownEntity, "items.csv:5"),
                (EntityRecord(entity: Grocery.unit, values: [], links: [], location: Grocery.at(6)), .recordShapeMismatch, "items.csv:6"),
            ]
            for (record, code, location) in cases {
                expectError(pipelineError { try sink.write(record, onDuplicate: .keep, log: log) }, code, at: location)
            }
        }
    }

    /// A use's key names its ingredient, looked up by the ingredient's own key before the use is
    /// stored: the ingredient is read in place there, and checked as a stored record is.
    @Test("a linked record that does not fit the model is an error at it where its key is looked up for another's")
    func linkedRecordNotFittingTheModel() throws {
        try withScratchFolder { folder in
            let sink = try SQLiteSink(settings: StoreSettings(path: folder.appendingPathComponent("store.sqlite")), model: KeySpillStoreTests.recipes)
            defer { sink.discard() }
            let log = ImportLog(sourceNames: ["recipes"], entityNames: ["Recipe", "Ingredient", "Use"])
            let ingredient = EntityRecord(entity: 1, values: [], links: [nil], location: Location(file: "recipes.json", line: 3))
            let use = EntityRecord(entity: 2, values: [.text("1 g")], links: [nil, ingredient], location: Location(file: "recipes.json", line: 2))
            let recipe = EntityRecord(entity: 0, values: [.text("Soup")], links: [nil], lists: [[use]], location: Location(file: "recipes.json", line: 1))
            expectError(pipelineError { try sink.write(recipe, onDuplicate: .keep, log: log) }, .recordShapeMismatch, at: "recipes.json:3")
        }
    }
}

func counts(inserted: Int = 0, alreadyPresent: Int = 0, updated: Int = 0, skipped: Int = 0) -> ImportLog.Counts {
    var counts = ImportLog.Counts()
    counts.inserted = inserted
    counts.alreadyPresent = alreadyPresent
    counts.updated = updated
    counts.skipped = skipped
    return counts
}
