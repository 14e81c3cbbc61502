import Foundation
import Pipeline
@testable import SinksSQLite
import Testing
@testable import SQLite

/// `TableRecords` reads a table's file as SQLite's own queries read it: every test reads the same
/// rows both ways and expects the same values, storage class and bytes, or `Unreadable`.
@Suite("Table records: rows read from the database file as SQLite reads them")
struct TableRecordsTests {
    /// Columns of every affinity, under the declared types Core Data and people write.
    static let columns = [
        ("kind", "INTEGER"), ("i", "INTEGER"), ("f", "FLOAT"), ("r", "REAL"), ("d", "DOUBLE PRECISION"),
        ("ts", "TIMESTAMP"), ("v", "VARCHAR"), ("t", "TEXT"), ("b", "BLOB"), ("u", ""), ("n", "NUMERIC"),
        ("dec", "DECIMAL(10,2)"), ("flag", "BOOLEAN"),
    ]

    /// Values of every serial type: each integer width at its edges, reals with and without a
    /// fraction, empty and long text and bytes (spilling onto one and many overflow pages).
    static let values = [
        "NULL", "0", "1", "-1", "127", "128", "-128", "-129", "32767", "32768", "-32769", "8388607", "8388608",
        "2147483647", "2147483648", "-2147483649", "140737488355327", "140737488355328", "9223372036854775807",
        "-9223372036854775808", "1.5", "-0.0", "3.0", "1e300", "-2.5e-300", "''", "'abc'", "'é ü 漢字 🥚'",
        "'a' || char(0) || 'b'", "x''", "x'00ff10'", "'12'", "' 7 '", "'3.0'", "randomblob(3000)",
        "replace(hex(zeroblob(2600)), '0', 'x')", "replace(hex(zeroblob(60000)), '0', 'y')", "zeroblob(200000)",
    ]

    @Test("every affinity and serial type, on pages of 512 bytes to 64 kB, with rows deleted", arguments: [512, 1024, 4096, 65536])
    func everyKindOfValue(pageSize: Int) throws {
        try withDatabase("""
            PRAGMA page_size = \(pageSize);
            CREATE TABLE t (id INTEGER PRIMARY KEY, \(Self.columns.map { "\($0.0) \($0.1)" }.joined(separator: ", ")));
            \(Self.rows())
            DELETE FROM t WHERE id % 7 = 3;
            """) { connection in
            try expectSameRows(connection, table: "t", fields: Self.columns.map { .column($0.0) })
            // Fields in another order, some twice, some the store lacks.
            try expectSameRows(connection, table: "t", fields: [.column("t"), .null, .column("i"), .column("t"), .column("f")])
        }
    }

    @Test("records of every size from 1 byte to past three pages: in the cell, and spilled at each split", arguments: [512, 1024])
    func everyRecordSize(pageSize: Int) throws {
        // A record of one text of n bytes is n + 3 bytes (n + 2 below 57): every size where a cell
        // keeps all, or part, of its record, and how much (SQLite's file format, 1.6).
        try withDatabase("""
            PRAGMA page_size = \(pageSize);
            CREATE TABLE t (a TEXT, b INTEGER);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(3 * pageSize + 20))
            INSERT INTO t SELECT substr(replace(hex(zeroblob(x)), '00', printf('%c', 97 + x % 26)), 1, x), x FROM n;
            """) { connection in
            try expectSameRows(connection, table: "t", fields: [.column("a"), .column("b")])
            let lengths = try Self.select(connection, table: "t", fields: [.column("b")], filter: nil)
            #expect(lengths.count == 3 * pageSize + 20)
        }
    }

    @Test("every table of a store the sink wrote is read from its file, in both layouts", arguments: [StoreLayout.sqlite, .coredata])
    func sinkStores(layout: StoreLayout) throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            let sink = try SQLiteSink(settings: StoreSettings(path: url, layout: layout), model: Grocery.model)
            let log = Grocery.log()
            for i in 0..<3_000 {
                try sink.write(Grocery.item("Item \(i)", quantity: Double(i % 7) / 2, added: Double(i) * 86_400, unit: ["g", "kg", "pcs"][i % 3],
                                            home: i % 5 == 0 ? "Fridge" : nil, line: i + 2), onDuplicate: .keep, log: log)
            }
            try sink.finish(log: log)
            let connection = try SQLiteConnection(path: url.path, readOnly: true, immutable: true)
            var read = 0
            for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                guard case .text(let table) = row[0] else { continue }
                // Every column but the row id: none of the sink's tables is one SQL must read.
                let columns = try connection.rows("SELECT name FROM pragma_table_info(\(SQL.literal(table))) WHERE NOT (pk = 1 AND upper(type) = 'INTEGER')")
                let fields = columns.compactMap { if case .text(let name) = $0[0] { TableRecords.Field.column(name) } else { nil } }
                try expectSameRows(connection, table: table, fields: fields)
                read += try Self.select(connection, table: table, fields: fields, filter: nil).count
            }
            #expect(read > 3_000)
        }
    }

    @Test("rows of one entity in a shared table: the filter keeps what WHERE keeps")
    func filtered() throws {
        try withDatabase("""
            CREATE TABLE t (id INTEGER PRIMARY KEY, \(Self.columns.map { "\($0.0) \($0.1)" }.joined(separator: ", ")));
            \(Self.rows())
            """) { connection in
            for kind in [0, 1, 2, 3, 7] {
                try expectSameRows(connection, table: "t", fields: [.column("i"), .column("t")], filter: ("kind", Int64(kind)))
            }
            // A filter on a column holding every kind of value, by a number some rows hold as a real or as text.
            for value: Int64 in [0, 1, 3, 12, 128] {
                try expectSameRows(connection, table: "t", fields: [.column("kind"), .column("r")], filter: ("r", value))
                try expectSameRows(connection, table: "t", fields: [.column("kind")], filter: ("n", value))
            }
        }
    }

    @Test("a table with a column added later: rows written before it read as NULL")
    func columnAddedLater() throws {
        try withDatabase("""
            CREATE TABLE t (a INTEGER, b TEXT);
            INSERT INTO t VALUES (1, 'one'), (2, 'two');
            ALTER TABLE t ADD COLUMN c FLOAT;
            INSERT INTO t VALUES (3, 'three', 3.0);
            """) { connection in
            try expectSameRows(connection, table: "t", fields: [.column("c"), .column("a"), .column("b")])
        }
        // With a default, the rows written before read as the default: left to SQL.
        try withDatabase("""
            CREATE TABLE t (a INTEGER);
            INSERT INTO t VALUES (1);
            ALTER TABLE t ADD COLUMN c TEXT DEFAULT 'x';
            """) { connection in
            let records = try TableRecords(connection, table: "t", fields: [.column("c")], filter: nil)
            #expect(throws: TableRecords.Unreadable.self) { _ = try records.read(into: RawRows(width: 1), limit: 10, byteLimit: 1 << 20, lookups: []) }
        }
    }

    @Test("what it does not read as SQLite would is Unreadable, for SQL to read", arguments: [
        "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT) WITHOUT ROWID; INSERT INTO t VALUES (1, 'x');",
        "CREATE TABLE t (a INTEGER, b TEXT AS (upper(a))); INSERT INTO t (a) VALUES (1);",
        "PRAGMA encoding = 'UTF-16le'; CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x');",
        "CREATE VIEW t AS SELECT 1 AS a, 2 AS b;",
        "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT); INSERT INTO t VALUES (1, 'x');",  // `a` is the row id
        "CREATE TABLE t (a TEXT, b TEXT); INSERT INTO t VALUES ('1', 'x');",  // a filter on text compares text
    ])
    func unreadable(sql: String) throws {
        try withDatabase(sql) { connection in
            #expect(throws: TableRecords.Unreadable.self) {
                _ = try TableRecords(connection, table: "t", fields: [.column("a"), .column("b")], filter: ("a", 1))
            }
        }
    }

    @Test("a file in WAL mode: read where SQLite reads it without its -wal (immutable), else Unreadable")
    func walMode() throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("wal.sqlite")
            // Closed, the -wal is checkpointed and removed; the header still says WAL.
            try Self.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (a INTEGER, b TEXT, c FLOAT); INSERT INTO t VALUES (1, 'x', 2), (2, 'y', 2.5);", at: url)
            let header = try Data(contentsOf: url)
            #expect(header[18] == 2 && header[19] == 2)
            let fields: [TableRecords.Field] = [.column("a"), .column("b"), .column("c")]
            let immutable = try SQLiteConnection(path: url.path, readOnly: true, immutable: true)
            let rows = try Self.readAll(TableRecords(immutable, table: "t", fields: fields, filter: nil), width: 3)
            #expect(rows == [[.integer(1), .text("x"), .double(2)], [.integer(2), .text("y"), .double(2.5)]])
            #expect(rows == (try Self.select(immutable, table: "t", fields: fields, filter: nil)))
            // A connection that reads the -wal (one with changes in it would hold pages the file lacks).
            let reading = try SQLiteConnection(path: url.path, readOnly: true)
            _ = try reading.rows("SELECT count(*) FROM t")
            #expect(throws: TableRecords.Unreadable.self) { _ = try TableRecords(reading, table: "t", fields: fields, filter: nil) }
        }
    }

    @Test("a damaged file is Unreadable or read as SQLite reads it, never past its pages")
    func damagedPages() throws {
        var generator = SeededGenerator(seed: 36)
        try withScratchFolder { folder in
            let good = folder.appendingPathComponent("good.sqlite")
            try Self.execute("""
                PRAGMA page_size = 1024;
                CREATE TABLE t (id INTEGER PRIMARY KEY, \(Self.columns.map { "\($0.0) \($0.1)" }.joined(separator: ", ")));
                \(Self.rows(small: true))
                """, at: good)
            let bytes = try Data(contentsOf: good)
            var unreadable = 0, same = 0
            for attempt in 0..<100 {
                var damaged = bytes
                // Bytes anywhere past the schema's page, a few at a time or a run of them.
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    let at = Int.random(in: 1024..<damaged.count, using: &generator)
                    damaged[at] = UInt8.random(in: 0...255, using: &generator)
                }
                if attempt % 5 == 0 {
                    let at = Int.random(in: 1024..<damaged.count - 64, using: &generator)
                    for offset in 0..<64 { damaged[at + offset] = 0xFF }
                }
                let url = folder.appendingPathComponent("damaged-\(attempt).sqlite")
                try damaged.write(to: url)
                let connection = try SQLiteConnection(path: url.path, readOnly: true, immutable: true)
                let fields: [TableRecords.Field] = Self.columns.map { .column($0.0) }
                let fromFile: [[Value]]
                do {
                    fromFile = try Self.readAll(TableRecords(connection, table: "t", fields: fields, filter: nil), width: fields.count)
                } catch is TableRecords.Unreadable {
                    unreadable += 1
                    continue
                }
                // Where SQLite reads it too, the rows are the same.
                guard let bySQL = try? Self.select(connection, table: "t", fields: fields, filter: nil) else { continue }
                if bySQL == fromFile { same += 1 } else { Issue.record("attempt \(attempt): the file read differently from SQLite") }
            }
            #expect(unreadable > 0 && same > 0)
        }
    }

    @Test("a page that names itself, or a page past the file, ends the read as Unreadable")
    func loopsAndMissingPages() throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("loop.sqlite")
            try Self.execute("""
                PRAGMA page_size = 512;
                CREATE TABLE t (a INTEGER, b TEXT);
                WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500) INSERT INTO t SELECT x, 'row ' || x FROM n;
                """, at: url)
            let root = try SQLiteConnection(path: url.path, readOnly: true).rows("SELECT rootpage FROM sqlite_master WHERE name = 't'")
            guard case .integer(let page) = root.first?[0] else { Issue.record("no root page"); return }
            var bytes = try Data(contentsOf: url)
            let header = (Int(page) - 1) * 512
            #expect(bytes[header] == 0x05, "the root is an interior page")
            for (name, child) in [("loop", UInt32(page)), ("past", UInt32(1_000_000))] {
                // The right-most child: the page itself, or one past the end of the file.
                withUnsafeBytes(of: child.bigEndian) { bytes.replaceSubrange(header + 8..<header + 12, with: $0) }
                let damaged = folder.appendingPathComponent("\(name).sqlite")
                try bytes.write(to: damaged)
                let connection = try SQLiteConnection(path: damaged.path, readOnly: true, immutable: true)
                #expect(throws: TableRecords.Unreadable.self) {
                    _ = try Self.readAll(TableRecords(connection, table: "t", fields: [.column("a")], filter: nil), width: 1)
                }
            }
        }
    }

    @Test("a record whose header gives a type of 9 bytes, negative or past the record, is Unreadable", arguments: [
        [UInt8](repeating: 0xFF, count: 9),  // -1
        [0xBF] + [UInt8](repeating: 0xFF, count: 8),  // Int64.max: a text longer than the record
    ])
    func damagedRecordHeader(type: [UInt8]) throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("header.sqlite")
            // One row of ten NULLs: a header of 11 bytes, its size and a type byte a column.
            try Self.execute("PRAGMA page_size = 512; CREATE TABLE t (a, b, c, d, e, f, g, h, i, j); INSERT INTO t (j) VALUES (NULL);", at: url)
            let root = try SQLiteConnection(path: url.path, readOnly: true).rows("SELECT rootpage FROM sqlite_master WHERE name = 't'")
            guard case .integer(let page) = root.first?[0] else { Issue.record("no root page"); return }
            var bytes = try Data(contentsOf: url)
            let start = (Int(page) - 1) * 512
            #expect(bytes[start] == 0x0D, "the root is a leaf")
            let cell = start + (Int(bytes[start + 8]) << 8 | Int(bytes[start + 9]))
            // The cell: its size, its row id, then the record: header size 11, ten types of 0.
            #expect(Array(bytes[cell + 2..<cell + 13]) == [11] + [UInt8](repeating: 0, count: 10))
            bytes.replaceSubrange(cell + 3..<cell + 12, with: type)
            let damaged = folder.appendingPathComponent("damaged.sqlite")
            try bytes.write(to: damaged)
            let connection = try SQLiteConnection(path: damaged.path, readOnly: true, immutable: true)
            #expect(throws: TableRecords.Unreadable.self) {
                _ = try Self.readAll(TableRecords(connection, table: "t", fields: [.column("a"), .column("b")], filter: nil), width: 2)
            }
        }
    }

    // MARK: - Helpers

    /// 600 rows of `values` (`small`: none of 60 kB or more), each column taking them in its own
    /// order, and `kind` 0 to 3.
    static func rows(small: Bool = false) -> String {
        let values = small ? Self.values.filter { !$0.contains("60000") && !$0.contains("200000") } : Self.values
        return (0..<600).map { row in
            let values = columns.indices.dropFirst().map { column in values[(row * (column + 3) + column * 7) % values.count] }
            return "INSERT INTO t (\(columns.map(\.0).joined(separator: ", "))) VALUES (\(row % 4), \(values.joined(separator: ", ")));"
        }.joined(separator: "\n")
    }

    @Test("two tables read side by side: a leaf page of the same bytes is passed whole, and counts what the filter keeps")
    func samePages() throws {
        // Built the same way, statement by statement: the same pages, but where a value differs.
        func table(pageSize: Int = 1024, changing changed: Int? = nil) -> String {
            """
            PRAGMA page_size = \(pageSize);
            CREATE TABLE t (kind INTEGER, name TEXT, n REAL);
            WITH RECURSIVE x(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM x WHERE i < 3000)
            INSERT INTO t SELECT 1 + i % 2, printf('item %05d', i), CASE i WHEN \(changed ?? -1) THEN 0.5 ELSE i + 0.5 END FROM x;
            """
        }
        let fields: [TableRecords.Field] = [.column("name"), .column("n")]
        let same = try readPaired(table(), table(), fields: fields)
        #expect(same.identical == 3_000 && same.mine.isEmpty && same.theirs.isEmpty)
        #expect(same.pagesSkipped > 20)
        // One value changed: its page is read record by record, the pages around it passed whole.
        let one = try readPaired(table(), table(changing: 1_500), fields: fields)
        #expect(one.identical == 2_999 && one.pagesSkipped == same.pagesSkipped - 1)
        #expect(one.mine == [[.text("item 01500"), .double(1_500.5)]] && one.theirs == [[.text("item 01500"), .double(0.5)]])
        // Rows of one kind (item 1500 among them): the filter's count, on the pages passed whole as on the others.
        let kind = try readPaired(table(), table(changing: 1_500), fields: fields, filter: ("kind", 1))
        #expect(kind.identical == 1_499 && kind.mine == one.mine && kind.theirs == one.theirs)
        #expect(kind.pagesSkipped == same.pagesSkipped - 1)
        // Pages of another size are never the same bytes: read record by record, all the same.
        let sizes = try readPaired(table(), table(pageSize: 4096), fields: fields)
        #expect(sizes.identical == 3_000 && sizes.pagesSkipped == 0)
    }

    @Test("a leaf page of the same bytes whose records spill onto overflow pages is read record by record")
    func samePagesSpilling() throws {
        // The same leaf pages, overflow page numbers included: only the last byte of one large
        // value differs, on its last overflow page. Small records between make pages without spills.
        func table(last: String) -> String {
            """
            PRAGMA page_size = 1024;
            CREATE TABLE t (name TEXT, big TEXT);
            WITH RECURSIVE x(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM x WHERE i < 400)
            INSERT INTO t SELECT printf('item %03d', i),
                CASE WHEN i % 50 = 0 THEN replace(hex(zeroblob(1500)), '00', 'ab') || CASE i WHEN 200 THEN '\(last)' ELSE 'a' END END FROM x;
            """
        }
        let fields: [TableRecords.Field] = [.column("name"), .column("big")]
        let paired = try readPaired(table(last: "a"), table(last: "b"), fields: fields)
        #expect(paired.identical == 399)
        #expect(paired.mine.map { $0[0] } == [.text("item 200")] && paired.theirs.map { $0[0] } == [.text("item 200")])
        #expect(paired.pagesSkipped > 0)
    }

    /// Two files made by `old` and `new`, their table `t` read by `readSkippingIdentical` as the
    /// comparison of two stores reads it: the pairs of the same bytes, the rows read of each side,
    /// and the pages passed whole.
    private func readPaired(_ old: String, _ new: String, fields: [TableRecords.Field], filter: (column: String, value: Int64)? = nil)
        throws -> (identical: Int, mine: [[Value]], theirs: [[Value]], pagesSkipped: Int) {
        try withScratchFolder { folder in
            let urls = [folder.appendingPathComponent("old.sqlite"), folder.appendingPathComponent("new.sqlite")]
            try Self.execute(old, at: urls[0])
            try Self.execute(new, at: urls[1])
            let connections = try urls.map { try SQLiteConnection(path: $0.path, readOnly: true, immutable: true) }
            let mine = try TableRecords(connections[0], table: "t", fields: fields, filter: filter)
            let theirs = try TableRecords(connections[1], table: "t", fields: fields, filter: filter)
            var identical = 0, a: [[Value]] = [], b: [[Value]] = []
            func values(_ rows: RawRows) -> [[Value]] { (0..<rows.count).map { row in (0..<fields.count).map { rows.value(row, $0) } } }
            while !mine.isDone {
                let rows = RawRows(width: fields.count), other = RawRows(width: fields.count)
                #expect(try mine.readSkippingIdentical(theirs, into: rows, other, limit: 97, byteLimit: 1 << 20,
                                                       lookups: [], [], identical: &identical))
                a += values(rows)
                b += values(other)
            }
            b += try Self.readAll(theirs, width: fields.count)
            return (identical, a, b, mine.pagesSkipped)
        }
    }

    private func withDatabase(_ sql: String, _ body: (SQLiteConnection) throws -> Void) throws {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            try Self.execute(sql, at: url)
            try body(SQLiteConnection(path: url.path, readOnly: true, immutable: true))
        }
    }

    private func expectSameRows(_ connection: SQLiteConnection, table: String, fields: [TableRecords.Field],
                                filter: (column: String, value: Int64)? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bySQL = try Self.select(connection, table: table, fields: fields, filter: filter)
        let fromFile = try Self.readAll(TableRecords(connection, table: table, fields: fields, filter: filter), width: fields.count)
        #expect(fromFile.count == bySQL.count, sourceLocation: sourceLocation)
        for (row, (a, b)) in zip(fromFile, bySQL).enumerated() where a != b {
            Issue.record("row \(row): \(a) from the file, \(b) by SQL", sourceLocation: sourceLocation)
            return
        }
    }

    /// Every row, each field as a value; the bytes of text and blobs compared by `RawRows` too.
    static func readAll(_ records: TableRecords, width: Int) throws -> [[Value]] {
        var all: [[Value]] = []
        while !records.isDone {
            let rows = RawRows(width: width)
            #expect(try records.read(into: rows, limit: 97, byteLimit: 1 << 20, lookups: []))
            all += (0..<rows.count).map { row in (0..<width).map { rows.value(row, $0) } }
        }
        return all
    }

    static func select(_ connection: SQLiteConnection, table: String, fields: [TableRecords.Field],
                       filter: (column: String, value: Int64)?) throws -> [[Value]] {
        let columns = fields.map { field in
            switch field {
            case .column(let name): SQL.quote(name)
            case .null: "NULL"
            }
        }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(SQL.quote(table)) NOT INDEXED"
        if let filter { sql += " WHERE \(SQL.quote(filter.column)) = \(filter.value)" }
        let statement = try connection.prepare(sql)
        let rows = RawRows(width: fields.count)
        while try statement.step() { rows.append(statement) }
        return (0..<rows.count).map { row in (0..<fields.count).map { rows.value(row, $0) } }
    }

    static func execute(_ sql: String, at url: URL) throws {
        let connection = try SQLiteConnection(path: url.path, readOnly: false)
        try connection.execute(sql)
        try connection.close()
    }
}
