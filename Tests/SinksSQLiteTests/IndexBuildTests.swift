import Foundation
@testable import SinksSQLite
import Testing
@testable import SQLite

/// `IndexBuild` sorts an index over a one-value column in memory: faster, and the same index.
@Suite("Index build: one-value columns sorted in memory, the same bytes")
struct IndexBuildTests {
    @Test("the table and column of the one-column indexes Core Data and pipectl write; nil for any other")
    func statements() {
        func parsed(_ statement: String) -> String? {
            IndexBuild.singleColumn(of: statement).map { "\($0.table).\($0.name)" }
        }
        #expect(parsed("CREATE INDEX ZENTRY_ZRECIPE_INDEX ON ZENTRY (ZRECIPE)") == "ZENTRY.ZRECIPE")
        #expect(parsed("CREATE INDEX IF NOT EXISTS ZENTRY_Z_ENT_INDEX ON ZENTRY (Z_ENT)") == "ZENTRY.Z_ENT")
        #expect(parsed(#"CREATE INDEX "Item_unit_id_link" ON "Item" ("unit_id")"#) == #""Item"."unit_id""#)
        #expect(parsed("CREATE INDEX Z_3TAGS_Z_8TAGS_INDEX ON Z_3TAGS (Z_8TAGS, Z_3RECIPES)") == nil)
        #expect(parsed("CREATE UNIQUE INDEX Z_Tag_UNIQUE_name ON ZTAG (ZNAME COLLATE BINARY ASC)") == nil)
        #expect(parsed("CREATE INDEX Z_Recipe_byName ON ZENTRY (ZNAME COLLATE BINARY ASC)") == nil)
        #expect(parsed("CREATE INDEX Z_Recipe_lower ON ZENTRY (lower(ZNAME))") == nil)
        #expect(parsed("CREATE TABLE ZTAG (Z_PK INTEGER PRIMARY KEY)") == nil)
    }

    /// 30,000 rows: `kind` one number, `link` empty, `half` one value every other row, `name` all
    /// different, `small` a table too small to matter.
    static let schema = """
        CREATE TABLE t (id INTEGER PRIMARY KEY, kind INTEGER, link INTEGER, half INTEGER, name TEXT);
        WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 30000)
        INSERT INTO t SELECT x, 3, NULL, CASE WHEN x % 2 = 0 THEN 7 END, printf('%08d', (x * 7919) % 30011) FROM n;
        CREATE TABLE small (id INTEGER PRIMARY KEY, kind INTEGER);
        WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500) INSERT INTO small SELECT x, 3 FROM n;
        """
    static let indexes = ["kind", "link", "half", "name"].map { "CREATE INDEX t_\($0) ON t (\($0))" }
        + ["CREATE INDEX small_kind ON small (kind)"]

    @Test("which columns it takes for one-value: one number or none throughout, in a table of 10,000 rows or more")
    func oneValueColumns() throws {
        try withScratchFolder { folder in
            let connection = try SQLiteConnection(path: folder.appendingPathComponent("s.sqlite").path, readOnly: false)
            try connection.execute(Self.schema)
            let rows = Self.indexes.map { IndexBuild.oneValueRows(indexedBy: $0, in: connection) }
            #expect(rows == [30000, 30000, nil, nil, nil])
            // A table without row ids, and a column the table lacks: no sample, no error.
            try connection.execute("""
                CREATE TABLE pairs (a INTEGER, b INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID;
                WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000) INSERT INTO pairs SELECT x, 1 FROM n;
                """)
            #expect(IndexBuild.oneValueRows(indexedBy: "CREATE INDEX pairs_b ON pairs (b)", in: connection) == nil)
            #expect(IndexBuild.oneValueRows(indexedBy: "CREATE INDEX t_nothing ON t (nothing)", in: connection) == nil)
            try connection.close()
        }
    }

    @Test("built either way, the store is the same byte for byte; the sink's cache and threads are restored")
    func sameBytes() throws {
        try withScratchFolder { folder in
            func store(_ name: String, create: (String, SQLiteConnection) throws -> Void) throws -> Data {
                let path = folder.appendingPathComponent(name).path
                let connection = try SQLiteConnection(path: path, readOnly: false)
                try connection.execute("PRAGMA journal_mode=OFF")
                try connection.execute("BEGIN")
                try connection.execute(Self.schema)
                try connection.execute("PRAGMA cache_size=-2000")
                try connection.execute("PRAGMA threads=2")
                for statement in Self.indexes { try create(statement, connection) }
                #expect(try connection.rows("SELECT * FROM pragma_cache_size, pragma_threads") == [[.integer(-2000), .integer(2)]])
                #expect(try connection.rows("SELECT count(*) FROM t INDEXED BY t_link WHERE link IS NULL") == [[.integer(30000)]])
                try connection.execute("COMMIT")
                try connection.close()
                return try Data(contentsOf: URL(fileURLWithPath: path))
            }
            let sorted = try store("sorted.sqlite") { try IndexBuild.create($0, in: $1) }
            let plain = try store("plain.sqlite") { try $1.execute($0) }
            #expect(sorted == plain)
        }
    }
}
