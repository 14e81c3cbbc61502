import CSQLite  // not internal: SQLiteStatement inlines its binds into the sink (see there)
import Pipeline

/// Owns one `sqlite3*` connection: opened in `init`, closed in `close()` or, failing that, `deinit`.
///
/// Statements keep their connection alive, so it is never closed under them. A connection
/// belongs to the thread that opened it: debug builds stop when another thread uses it.
public final class SQLiteConnection {
    /// nil once closed.
    private var handle: OpaquePointer?
    /// The database file, for messages.
    public let path: String
    var confinement: ThreadConfinement

    /// Settings of the SQLite library itself, made once before its first connection opens.
    private static let configureSQLite: Void = pipectl_sqlite_disable_memory_statistics()

    /// Opens `path`, read-only or read-write (creating the file).
    ///
    /// The connection is used from its one thread (`confinement`), so SQLite's per-call mutexes
    /// are turned off.
    public init(path: String, readOnly: Bool) throws(SQLiteError) {
        _ = Self.configureSQLite
        self.path = path
        self.confinement = ThreadConfinement("the SQLite connection to '\(path)'", claimingCurrentThread: true)
        var db: OpaquePointer?
        let mode = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let code = sqlite3_open_v2(path, &db, mode | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let db else {
            let error = SQLiteError(code, connection: db, context: "cannot open '\(path)'")
            sqlite3_close_v2(db)  // open_v2 hands out a handle even when it fails
            throw error
        }
        sqlite3_extended_result_codes(db, 1)
        handle = db
    }

    deinit {
        // close_v2 never fails: with statements still alive it closes once they are finalized.
        if let handle { sqlite3_close_v2(handle) }
    }

    /// The open handle, or an error once closed.
    func openHandle() throws(SQLiteError) -> OpaquePointer {
        confinement.check()
        guard let handle else { throw .misuse("the connection to '\(path)' is already closed") }
        return handle
    }

    /// Runs SQL that returns nothing the caller needs (DDL, pragmas, transaction control).
    public func execute(_ sql: String) throws(SQLiteError) {
        let db = try openHandle()
        let code = sqlite3_exec(db, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code, connection: db, context: "cannot run SQL", sql: sql) }
    }

    /// Reads the schema, which is what finds out whether the file is a database at all: opening
    /// does not look inside.
    public func checkReadable() throws(SQLiteError) {
        let db = try openHandle()
        let code = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(code, connection: db, context: "'\(path)' is not a readable SQLite store")
        }
    }

    /// Prepares one statement for repeated use.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(sql, on: self)
    }

    /// All rows of a query, each as its column values.
    public func rows(_ sql: String) throws(SQLiteError) -> [[Value]] {
        let statement = try prepare(sql)
        defer { statement.reset() }
        var rows: [[Value]] = []
        let count = statement.columnCount
        while try statement.step() {
            rows.append((0..<count).map { statement.value(at: $0) })
        }
        return rows
    }

    /// The row id of the last row inserted on this connection.
    public var lastInsertRowID: Int64 {
        confinement.check()
        return handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// Closes the connection; fails (and stays open) while statements are still alive.
    public func close() throws(SQLiteError) {
        confinement.check()
        guard let handle else { return }
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else {
            throw SQLiteError(code, connection: handle, context: "cannot close '\(path)'")
        }
        self.handle = nil
    }
}
