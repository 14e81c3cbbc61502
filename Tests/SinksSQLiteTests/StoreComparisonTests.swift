import Foundation
import Pipeline
import ReportsXLSX
@testable import SinksSQLite
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("Store comparison: what changed between two stores")
struct StoreComparisonTests {
    let before = [
        Grocery.item("Milk", quantity: 1, added: 0, unit: "l", home: "Fridge", line: 2),
        Grocery.item("Lard", quantity: 1, unit: "g", line: 3),
        Grocery.item("Eggs", quantity: 6, unit: "pcs", line: 4),
    ]
    let after = [
        Grocery.item("Milk", quantity: 2, added: 86_400, unit: "ml", home: "Fridge", line: 2),
        Grocery.item("Eggs", quantity: 6, unit: "pcs", line: 3),
        Grocery.item("Bread", quantity: 1, unit: "pcs", line: 4),
    ]

    private func compare(_ old: [EntityRecord], _ new: [EntityRecord], layout: StoreLayout,
                         withModel: Bool = true, waitingLimit: Int? = nil, readsTableFiles: Bool = true) throws -> StoreChanges {
        try withScratchFolder { folder in
            let (oldURL, newURL) = (folder.appendingPathComponent("old.sqlite"), folder.appendingPathComponent("new.sqlite"))
            for (url, records) in [(oldURL, old), (newURL, new)] {
                let sink = try SQLiteSink(settings: StoreSettings(path: url, layout: layout), model: Grocery.model)
                let log = Grocery.log()
                for record in records { try sink.write(record, onDuplicate: .keep, log: log) }
                try sink.finish(log: log)
            }
            var comparison = withModel ? try StoreComparison(model: Grocery.model, settings: StoreSettings(path: newURL, layout: layout))
                                       : StoreComparison()
            if let waitingLimit { comparison.waitingLimit = waitingLimit }
            comparison.readsTableFiles = readsTableFiles
            return try comparison.compare(old: oldURL, new: newURL)
        }
    }

    @Test("tables read from their files give the changes SQL gives: edited, reordered, linked, repeated, without a model",
          arguments: [StoreLayout.sqlite, .coredata], waitingLimits)
    func tableFilesAndSQL(layout: StoreLayout, waitingLimit: Int?) throws {
        func item(_ i: Int, quantity: Double = 1, unit: String = "pcs") -> EntityRecord {
            Grocery.item("Item \(i)", quantity: quantity, unit: unit, line: i + 2)
        }
        let old = (0..<6_000).map { item($0, unit: $0 % 3 == 0 ? "g" : "pcs") }
        let new = ([5_000, -1] + (0..<6_000).filter { $0 % 13 != 4 && $0 != 5_000 }).map {
            item($0, quantity: $0 % 89 == 0 ? 3 : 1, unit: $0 % 3 == 0 ? ($0 % 7 == 0 ? "kg" : "g") : "pcs")
        }
        for withModel in [true, false] {
            let fromFiles = try compare(old, new, layout: layout, withModel: withModel, waitingLimit: waitingLimit)
            let bySQL = try compare(old, new, layout: layout, withModel: withModel, waitingLimit: waitingLimit, readsTableFiles: false)
            #expect(fromFiles.changes.map(\.description) == bySQL.changes.map(\.description))
            #expect(fromFiles.entities == bySQL.entities && fromFiles.notes == bySQL.notes)
            #expect(fromFiles.changes.count > 400)
        }
        // Repeated rows without a key, links by row id and by another column, links holding text.
        let repeated = ("CREATE TABLE t (name TEXT, n REAL); INSERT INTO t VALUES ('a', 1), ('b', 2.0), ('a', 1), ('c', NULL)",
                        "CREATE TABLE t (name TEXT, n REAL); INSERT INTO t VALUES ('b', 2), ('c', NULL), ('a', 1), ('b', 2), ('b', 2)")
        let numbers = "CREATE TABLE unit (id INTEGER PRIMARY KEY, num INTEGER UNIQUE, name TEXT UNIQUE);"
            + "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT UNIQUE, a INTEGER REFERENCES unit (id), b INTEGER REFERENCES unit (num), t TEXT);"
        let linked = (numbers + "INSERT INTO unit VALUES (1, 10, 'g'), (2, 20, 'kg'); INSERT INTO item VALUES (1, 'x', 1, 2, 'p'), (2, 'y', 2, 10, 'q'), (3, 'z', '2', 10, NULL)",
                      numbers + "INSERT INTO unit VALUES (1, 20, 'g'), (2, 10, 'kg'); INSERT INTO item VALUES (3, 'z', 2, 10, 'r'), (1, 'x', 1, 2, 'p'), (2, 'y', 1, 20, 'q')")
        for (before, after) in [repeated, linked] {
            let fromFiles = try compare(sql: before, after, waitingLimit: waitingLimit)
            let bySQL = try compare(sql: before, after, waitingLimit: waitingLimit, readsTableFiles: false)
            #expect(fromFiles.changes.map(\.description) == bySQL.changes.map(\.description))
            #expect(fromFiles.entities == bySQL.entities && !fromFiles.changes.isEmpty)
        }
    }

    @Test("records of the same bytes in both stores are counted unchanged unread: the changes around them are those SQL gives",
          arguments: [StoreLayout.sqlite, .coredata], waitingLimits)
    func sameBytesAndSQL(layout: StoreLayout, waitingLimit: Int?) throws {
        // The same units and locations in both (the same keys by the same row ids); the items in
        // the same order, but for changed quantities in place, one item replaced by another at
        // its place, one removed with a later one added (the rest out of step), and more at the
        // end. In the coredata layout both kinds of location share a table, told apart by Z_ENT.
        func item(_ i: Int, quantity: Double = 1) -> EntityRecord {
            let n = abs(i)  // the items added (-1, -2) name the same units and locations
            return Grocery.item("Item \(i)", quantity: quantity, unit: n % 3 == 0 ? "g" : "pcs", home: ["Fridge", "Shelf", nil][n % 3],
                                shop: n % 4 == 0 ? nil : "Aisle \(n % 5)", line: n + 2)
        }
        let old = (0..<6_000).map { item($0) }
        var new = (0..<6_000).map { item($0, quantity: $0 % 89 == 0 ? 3 : 1) }
        new[2_000] = item(-1)
        new.remove(at: 4_000)
        new.insert(item(-2), at: 5_000)
        new += (6_000..<6_100).map { item($0) }
        for withModel in [true, false] {
            let fromFiles = try compare(old, new, layout: layout, withModel: withModel, waitingLimit: waitingLimit)
            let bySQL = try compare(old, new, layout: layout, withModel: withModel, waitingLimit: waitingLimit, readsTableFiles: false)
            #expect(fromFiles.changes.map(\.description) == bySQL.changes.map(\.description))
            #expect(fromFiles.entities == bySQL.entities && fromFiles.notes == bySQL.notes)
            guard withModel else { continue }
            let items = try #require(fromFiles.entities.first { $0.name == "Item" })
            // Items -1, -2 and 6,000 to 6,099 added, 2,000 and 4,000 removed, 68 quantities changed.
            #expect((items.added, items.removed, items.changed, items.unchanged) == (102, 2, 68, 5_930))
        }
        // A unit and a location only the new store has (a row id the old one does not key).
        let more = new + [Grocery.item("Item 9999", quantity: 1, unit: "kg", home: "Cellar", line: 9_999)]
        let fromFiles = try compare(old, more, layout: layout, waitingLimit: waitingLimit)
        let bySQL = try compare(old, more, layout: layout, waitingLimit: waitingLimit, readsTableFiles: false)
        #expect(fromFiles.changes.map(\.description) == bySQL.changes.map(\.description))
        #expect(fromFiles.entities == bySQL.entities && fromFiles.changes.count == 175)  // the items' 173 (one more added), kg, Cellar
    }

    @Test("a pair of the same bytes whose link names a row id keyed otherwise in one store, or not at all, is read as two records",
          arguments: waitingLimits)
    func sameBytesOtherKeys(waitingLimit: Int?) throws {
        // Item x links unit 2 in both stores, the same bytes: a row id the old store has no unit
        // for (read as none), the new one 'kg'. Item y links unit 3: 'l' in the old, 'ml' in the new.
        let schema = "CREATE TABLE unit (id INTEGER PRIMARY KEY, name TEXT UNIQUE);"
            + "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT UNIQUE, unit INTEGER REFERENCES unit (id));"
        let items = "INSERT INTO item VALUES (1, 'w', 1), (2, 'x', 2), (3, 'y', 3), (4, 'z', 1), (5, 'v', NULL);"
        let old = schema + "INSERT INTO unit VALUES (1, 'g'), (3, 'l');" + items
        let new = schema + "INSERT INTO unit VALUES (1, 'g'), (2, 'kg'), (3, 'ml');" + items
        let fromFiles = try compare(sql: old, new, waitingLimit: waitingLimit)
        let bySQL = try compare(sql: old, new, waitingLimit: waitingLimit, readsTableFiles: false)
        #expect(fromFiles.changes.map(\.description) == bySQL.changes.map(\.description))
        #expect(fromFiles.entities == bySQL.entities)
        let item = try #require(fromFiles.entities.first { $0.name == "item" })
        #expect((item.changed, item.unchanged) == (2, 3), "\(fromFiles.changes.map(\.description))")
    }

    @Test("records are matched by unique key: added, removed, changed with old and new values", arguments: [
        StoreLayout.sqlite, .coredata,
    ])
    func changesByKey(layout: StoreLayout) throws {
        let changes = try compare(before, after, layout: layout)
        #expect(changes.changes.map(\.description) == [
            "- Unit name=g",
            "- Unit name=l",
            "+ Unit name=ml",
            "+ Item name=Bread",
            "- Item name=Lard",
            "~ Item name=Milk: quantity 1 -> 2, added 2001-01-01T00:00:00Z -> 2001-01-02T00:00:00Z, unit l -> ml",
        ])
        let items = try #require(changes.entities.first { $0.name == "Item" })
        #expect(items == StoreChanges.Entity(name: "Item", matchedBy: "name").with(added: 1, removed: 1, changed: 1, unchanged: 1))
        let units = try #require(changes.entities.first { $0.name == "Unit" })
        #expect((units.added, units.removed, units.changed, units.unchanged) == (1, 2, 0, 1))
        #expect(!changes.isEmpty && changes.notes.isEmpty)
    }

    @Test("identical records give no changes, whatever the row ids", arguments: [StoreLayout.sqlite, .coredata])
    func identical(layout: StoreLayout) throws {
        let changes = try compare(before, before.reversed(), layout: layout)
        #expect(changes.isEmpty)
        // Row ids differ between the two stores (the records came in another order): never compared.
        #expect(changes.entities.map(\.name) == ["Unit", "LocationAtHome", "LocationAtShop", "Item"])
        #expect(changes.entities.map(\.unchanged) == [3, 1, 0, 3])
    }

    /// How many bytes of rows may wait for their match in table order: the default (the new
    /// store's rows here are in reverse, about half of one table waits), none (matched in key
    /// order from the start), and 200 kB (given up half way, then in key order).
    static let waitingLimits = [nil, 0, 200_000]

    @Test("a table of many batches: every change in key order, as row by row",
          arguments: [StoreLayout.sqlite, .coredata], waitingLimits)
    func manyBatches(layout: StoreLayout, waitingLimit: Int?) throws {
        // Names only before (i % 5 == 1), only after (i % 7 == 3), and changed (i % 11 == 0):
        // 10,000 keys, more than two of the comparison's batches of rows.
        let count = 10_000
        let inBefore = { (i: Int) in i % 5 != 1 }, inAfter = { (i: Int) in i % 7 != 3 }
        let old = (0..<count).filter(inBefore).map { Grocery.item("Item \($0)", quantity: 1, unit: "pcs", line: $0 + 2) }
        let new = (0..<count).filter(inAfter).reversed().map { Grocery.item("Item \($0)", quantity: $0 % 11 == 0 ? 2 : 1, unit: "pcs", line: $0 + 2) }
        let changes = try compare(old, new, layout: layout, waitingLimit: waitingLimit)

        var expected: [String] = []
        for i in (0..<count).sorted(by: { Array("Item \($0)".utf8).lexicographicallyPrecedes(Array("Item \($1)".utf8)) }) {
            switch (inBefore(i), inAfter(i)) {
            case (true, false): expected.append("- Item name=Item \(i)")
            case (false, true): expected.append("+ Item name=Item \(i)")
            case (true, true) where i % 11 == 0: expected.append("~ Item name=Item \(i): quantity 1 -> 2")
            default: break
            }
        }
        #expect(changes.changes.map(\.description) == expected)
        let both = (0..<count).filter { inBefore($0) && inAfter($0) }
        let items = try #require(changes.entities.first { $0.name == "Item" })
        #expect(items == StoreChanges.Entity(name: "Item", matchedBy: "name").with(
            added: (0..<count).filter { !inBefore($0) && inAfter($0) }.count,
            removed: (0..<count).filter { inBefore($0) && !inAfter($0) }.count,
            changed: both.filter { $0 % 11 == 0 }.count, unchanged: both.filter { $0 % 11 != 0 }.count))
    }

    @Test("a store written again from an edited input: rows moved, added first, removed in the middle",
          arguments: [StoreLayout.sqlite, .coredata], waitingLimits)
    func editedInput(layout: StoreLayout, waitingLimit: Int?) throws {
        // The input's order is the tables' order: 5,000 items, then the same with three new ones
        // first, items 1,000-1,999 gone, item 4,000 moved to the front and item 10 to the end,
        // and every 97th with another quantity.
        let count = 5_000
        func item(_ i: Int, quantity: Double = 1) -> EntityRecord { Grocery.item("Item \(i)", quantity: quantity, unit: "pcs", line: i + 2) }
        let old = (0..<count).map { item($0) }
        var order = [4_000] + (0..<count).filter { !(1_000..<2_000).contains($0) && $0 != 4_000 && $0 != 10 } + [10]
        order.insert(contentsOf: [-1, -2, -3], at: 0)
        let new = order.map { item($0, quantity: $0 % 97 == 0 && $0 > 0 ? 2 : 1) }
        let changes = try compare(old, new, layout: layout, waitingLimit: waitingLimit)

        let keys = (Set(0..<count).union(order)).sorted { Array("Item \($0)".utf8).lexicographicallyPrecedes(Array("Item \($1)".utf8)) }
        let expected = keys.compactMap { i -> String? in
            if i < 0 { return "+ Item name=Item \(i)" }
            if (1_000..<2_000).contains(i) { return "- Item name=Item \(i)" }
            return i % 97 == 0 && i > 0 ? "~ Item name=Item \(i): quantity 1 -> 2" : nil
        }
        #expect(changes.changes.map(\.description) == expected)
        let items = try #require(changes.entities.first { $0.name == "Item" })
        #expect((items.added, items.removed, items.changed, items.unchanged) == (3, 1_000, 41, 3_959))
    }

    @Test("rows without a key repeat: each is matched once, in table order as in key order", arguments: waitingLimits)
    func repeatedRows(waitingLimit: Int?) throws {
        // No unique index: the whole row is the key. ('a', 1) twice before and once after,
        // ('b', 2) once before (as the real 2.0, which matches the integer) and three times after.
        let changes = try compare(sql: "CREATE TABLE t (name TEXT, n); INSERT INTO t VALUES ('a', 1), ('b', 2.0), ('a', 1), ('c', NULL)",
                                  "CREATE TABLE t (name TEXT, n); INSERT INTO t VALUES ('b', 2), ('c', NULL), ('a', 1), ('b', 2), ('b', 2)",
                                  waitingLimit: waitingLimit)
        #expect(changes.changes.map(\.description) == ["- t name=a, n=1", "+ t name=b, n=2", "+ t name=b, n=2"])
        #expect(changes.entities.map(\.unchanged) == [3])
    }

    @Test("a link compares as the key of the row it names, looked up or joined; one naming no row as none", arguments: waitingLimits)
    func linkedKeys(waitingLimit: Int?) throws {
        let schema = "CREATE TABLE unit (id INTEGER PRIMARY KEY, name TEXT UNIQUE);"
            + "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT UNIQUE, unit INTEGER REFERENCES unit (id));"
        // The same units under other row ids; item c names no unit before (row 99) and none after.
        let changes = try compare(sql: schema + "INSERT INTO unit VALUES (1, 'g'), (2, 'kg');"
                                      + "INSERT INTO item VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 99), (4, 'd', NULL)",
                                  schema + "INSERT INTO unit VALUES (5, 'kg'), (6, 'g');"
                                      + "INSERT INTO item VALUES (1, 'a', 6), (2, 'b', 6), (3, 'c', NULL), (4, 'd', 5)",
                                  waitingLimit: waitingLimit)
        #expect(changes.changes.map(\.description) == ["~ item name=b: unit kg -> g", "~ item name=d: unit (empty) -> kg"])
        #expect(changes.entities.map(\.unchanged) == [2, 2])

        // Links holding text: a foreign key to a text key, and row ids given as text. Joined (in
        // key order) whatever the table order found.
        let texts = "CREATE TABLE unit (code TEXT PRIMARY KEY, name TEXT UNIQUE);"
            + "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT UNIQUE, unit TEXT REFERENCES unit (code));"
            + "CREATE TABLE pack (id INTEGER PRIMARY KEY, name TEXT UNIQUE);"
            + "CREATE TABLE box (id INTEGER PRIMARY KEY, name TEXT UNIQUE, pack TEXT REFERENCES pack (id));"
        let textChanges = try compare(sql: texts + "INSERT INTO unit VALUES ('G', 'g'), ('KG', 'kg'); INSERT INTO item VALUES (1, 'a', 'G'), (2, 'b', 'KG');"
                                          + "INSERT INTO pack VALUES (1, 'crate'), (2, 'tray'); INSERT INTO box VALUES (1, 'x', '1'), (2, 'y', '2')",
                                      texts + "INSERT INTO unit VALUES ('G', 'g'), ('KG', 'kg'); INSERT INTO item VALUES (1, 'a', 'G'), (2, 'b', 'G');"
                                          + "INSERT INTO pack VALUES (7, 'tray'), (8, 'crate'); INSERT INTO box VALUES (1, 'x', '8'), (2, 'y', '8')",
                                      waitingLimit: waitingLimit)
        #expect(textChanges.changes.map(\.description) == ["~ box name=y: pack tray -> crate", "~ item name=b: unit kg -> g"])
        // Two links to one table by different columns (its row id, and a unique number): each
        // looked up by its own column. Item x's b names the number 2, which no unit has (the row
        // id 2 would be kg).
        let numbers = "CREATE TABLE unit (id INTEGER PRIMARY KEY, num INTEGER UNIQUE, name TEXT UNIQUE);"
            + "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT UNIQUE, a INTEGER REFERENCES unit (id), b INTEGER REFERENCES unit (num));"
        let numberChanges = try compare(sql: numbers + "INSERT INTO unit VALUES (1, 10, 'g'), (2, 20, 'kg'); INSERT INTO item VALUES (1, 'x', 1, 2)",
                                        numbers + "INSERT INTO unit VALUES (1, 20, 'g'), (2, 10, 'kg'); INSERT INTO item VALUES (1, 'x', 1, 2)",
                                        waitingLimit: waitingLimit)
        #expect(numberChanges.changes.map(\.description) == ["~ item name=x: a 10 -> 20", "~ unit num=10: name g -> kg", "~ unit num=20: name kg -> g"])
        // Row ids far apart, negative or repeated, as a plain table may have them.
        let lookup = RawRows.Lookup(keys: try RawRows(width: 1).filled(4), rowIDs: [3, -5, 1_000_000_000, 3])
        #expect([3, -5, 1_000_000_000, 4, 0, 99].map(lookup.row) == [0, 1, 2, nil, nil, nil])
    }

    @Test("rows of large values: read in smaller batches, every change still found")
    func largeValues() throws {
        try withScratchFolder { folder in
            // 40 rows of 1 MB each side, five batches' worth by bytes: rows 7, 19 and 31 differ,
            // row 39 is only before, row 40 only after.
            let (old, new) = (folder.appendingPathComponent("old.sqlite"), folder.appendingPathComponent("new.sqlite"))
            let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, data BLOB);"
            try execute(schema + "WITH n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 39) "
                + "INSERT INTO t (name, data) SELECT printf('row %02d', i), zeroblob(1048576) FROM n", at: old)
            try execute(schema + "WITH n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) "
                + "INSERT INTO t (name, data) SELECT printf('row %02d', i), CASE WHEN i IN (7, 19, 31) THEN zeroblob(1048577) "
                + "ELSE zeroblob(1048576) END FROM n WHERE i <> 39", at: new)
            let changes = try StoreComparison().compare(old: old, new: new)
            #expect(changes.changes.map(\.description) == [
                "~ t name=row 07: data <1048576 bytes> -> <1048577 bytes>",
                "~ t name=row 19: data <1048576 bytes> -> <1048577 bytes>",
                "~ t name=row 31: data <1048576 bytes> -> <1048577 bytes>",
                "- t name=row 39",
                "+ t name=row 40",
            ])
            #expect(changes.entities.map(\.unchanged) == [35])
        }
    }

    @Test("without a model, a plain store is compared by unique indexes, foreign keys by the related key")
    func withoutModel() throws {
        let changes = try compare(before, after, layout: .sqlite, withModel: false)
        #expect(changes.changes.map(\.description) == [
            "+ Item name=Bread",
            "- Item name=Lard",
            // Without the model, a date is the number it is stored as.
            "~ Item name=Milk: quantity 1 -> 2, added 0 -> 86400, unit l -> ml",
            "- Unit name=g",
            "- Unit name=l",
            "+ Unit name=ml",
        ])
        #expect(changes.entities.map(\.name) == ["Item", "LocationAtHome", "LocationAtShop", "Unit"])
    }

    @Test("a column or table only one store has is a note; the rest is still compared")
    func schemaNotes() throws {
        try withScratchFolder { folder in
            let (old, new) = (folder.appendingPathComponent("old.sqlite"), folder.appendingPathComponent("new.sqlite"))
            try execute("CREATE TABLE Item (id INTEGER PRIMARY KEY, name TEXT UNIQUE, aisle TEXT); INSERT INTO Item (name) VALUES ('Milk');"
                            + "CREATE TABLE Gone (x TEXT); INSERT INTO Gone VALUES ('a')", at: old)
            try execute("CREATE TABLE Item (id INTEGER PRIMARY KEY, name TEXT UNIQUE, notes TEXT); INSERT INTO Item (name, notes) VALUES ('Milk', 'semi-skimmed')",
                        at: new)
            let changes = try StoreComparison().compare(old: old, new: new, oldName: "old.sqlite", newName: "new.sqlite")
            #expect(changes.notes == ["Item.notes: column 'notes' is new", "Item: column 'aisle' is gone", "Gone: table 'Gone' is gone"])
            #expect(changes.changes.map(\.description) == ["~ Item name=Milk: notes (empty) -> semi-skimmed", "- Gone x=a"])
        }
    }

    @Test("a file that is not a SQLite store is an error naming it")
    func notAStore() throws {
        try withScratchFolder { folder in
            let text = folder.appendingPathComponent("notes.txt")
            try Data("hello, this is not a database, not at all, no".utf8).write(to: text)
            let error = pipelineError { _ = try StoreComparison().compare(old: text, new: text, oldName: "notes.txt", newName: "notes.txt") }
            expectError(error, .inspectNotADatabase, at: "notes.txt")
            #expect(error?.stage == "diff")
        }
    }

    @Test("rows are merged in SQLite's own order: NULL, numbers, text by bytes, blobs")
    func sqliteOrder() throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("order.sqlite")
            try execute("CREATE TABLE t (v); INSERT INTO t VALUES (NULL), (2), (1.5), (-3), ('b'), ('B'), ('é'), ('e'), (x'00'), (''), (10)", at: url)
            let ordered = try SQLiteStore(readingAt: url).rows("SELECT v FROM t ORDER BY v").map { $0[0] }
            // Read as the comparison reads them, in the table's order reversed, and sorted by it.
            let connection = try SQLiteConnection(path: url.path, readOnly: true)
            let statement = try connection.prepare("SELECT v FROM t ORDER BY rowid DESC")
            let rows = RawRows(width: 1)
            while try statement.step() { rows.append(statement) }
            let sorted = (0..<rows.count).sorted { rows.compare($0, 0, with: rows, $1, 0) < 0 }
            #expect(sorted.map { rows.value($0, 0) } == ordered)
            // Equal values hash alike, an integer and a real of one value too.
            let numbers = RawRows(width: 1)
            let pair = try connection.prepare("SELECT 2 UNION ALL SELECT 2.0")
            while try pair.step() { numbers.append(pair) }
            var (h1, h2) = (Hasher(), Hasher())
            numbers.hash(0, fields: 0..<1, into: &h1)
            numbers.hash(1, fields: 0..<1, into: &h2)
            #expect(numbers.compare(0, 0, with: numbers, 1, 0) == 0)
            #expect(h1.finalize() == h2.finalize())
            // The same bytes are the same fields only field for field: 'x' 0x03 'y' then NULL is
            // stored as the bytes of 'x' then 'y' 0x00, fields of other lengths.
            let split = RawRows(width: 2)
            let pairs = try connection.prepare("SELECT 'x' || char(3) || 'y', NULL UNION ALL SELECT 'x', 'y' || char(0) UNION ALL SELECT 'x', 'y' || char(0)")
            while try pairs.step() { split.append(pairs) }
            #expect(split.byteCount(ofRow: 0) == split.byteCount(ofRow: 1))
            #expect(!split.sameBytes(0, as: split, 1, fields: 0..<2) && split.compare(0, 0, with: split, 1, 0) != 0)
            #expect(split.sameBytes(1, as: split, 2, fields: 0..<2) && split.sameBytes(0, as: split, 1, fields: 2..<2))
            #expect(!numbers.sameBytes(0, as: numbers, 1, fields: 0..<1), "2 and 2.0: equal, in other bytes")
        }
    }

    /// What changed from a store made by `old` (SQL) to one made by `new`, compared without a
    /// model, rows waiting at most `waitingLimit` bytes in table order (nil: as users have it).
    private func compare(sql old: String, _ new: String, waitingLimit: Int? = nil, readsTableFiles: Bool = true) throws -> StoreChanges {
        try withScratchFolder { folder in
            let (oldURL, newURL) = (folder.appendingPathComponent("old.sqlite"), folder.appendingPathComponent("new.sqlite"))
            try execute(old, at: oldURL)
            try execute(new, at: newURL)
            var comparison = StoreComparison()
            if let waitingLimit { comparison.waitingLimit = waitingLimit }
            comparison.readsTableFiles = readsTableFiles
            return try comparison.compare(old: oldURL, new: newURL)
        }
    }

    private func execute(_ sql: String, at url: URL) throws {
        let connection = try SQLiteConnection(path: url.path, readOnly: false)
        try connection.execute(sql)
        try connection.close()
    }
}

private extension RawRows {
    /// `count` rows of one NULL each.
    func filled(_ count: Int) throws -> RawRows {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false)
        let statement = try connection.prepare("SELECT NULL")
        for _ in 0..<count {
            _ = try statement.step()
            append(statement)
            statement.reset()
        }
        return self
    }
}

private extension StoreChanges.Entity {
    func with(added: Int, removed: Int, changed: Int, unchanged: Int) -> Self {
        var copy = self
        (copy.added, copy.removed, copy.changed, copy.unchanged) = (added, removed, changed, unchanged)
        return copy
    }
}
