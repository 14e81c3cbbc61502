import CSQLite  // not internal: SQLiteStatement inlines its binds into the sink (see there)
import Pipeline
import Foundation

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

    /// The views a connection that refuses them (`refuseViews()`) found, and the one it refused.
    private var viewGuard: ViewGuard?

    /// Opens `path`, read-only or read-write (creating the file).
    ///
    /// `immutable` (read-only only): SQLite takes the file as one nothing changes while it is
    /// read, so it takes no lock and creates nothing beside it (no `-shm` for a WAL store), and
    /// ignores any `-wal` or `-journal` beside it; the caller makes sure none holds changes.
    ///
    /// The connection is used from its one thread (`confinement`), so SQLite's per-call mutexes
    /// are turned off.
    public init(path: String, readOnly: Bool, immutable: Bool = false) throws(SQLiteError) {
        _ = Self.configureSQLite
        self.path = path
        self.confinement = ThreadConfinement("the SQLite connection to '\(path)'", claimingCurrentThread: true)
        var db: OpaquePointer?
        let mode = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let code = immutable && readOnly
            ? sqlite3_open_v2(SQLiteConnection.immutableURI(path), &db, mode | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
            : sqlite3_open_v2(path, &db, mode | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let db else {
            let error = SQLiteError(code, connection: db, context: "cannot open '\(path)'")
            sqlite3_close_v2(db)  // open_v2 hands out a handle even when it fails
            throw error
        }
        sqlite3_extended_result_codes(db, 1)
        handle = db
    }

    /// `file:` URI of `path` with `immutable=1`: the characters URIs reserve escaped, so that a
    /// `?` or `#` in a file name stays part of it.
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var escaped = ""
        for character in absolute {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file://" + escaped + "?immutable=1"
    }

    /// From now on, a statement that would run one of the store's views fails to prepare
    /// (`SQLITE_AUTH`, its message naming the view): a tool that reads a store someone else made
    /// asks for tables, and a view named like one (or a recursive one) would run whatever it
    /// holds, for as long as it likes. Triggers never run on a read.
    public func refuseViews() throws(SQLiteError) {
        let db = try openHandle()
        let names = try rows("SELECT name FROM sqlite_master WHERE type = 'view'").compactMap { row -> String? in
            if case .text(let name) = row[0] { name.lowercased() } else { nil }
        }
        let viewGuard = ViewGuard(views: Set(names))
        self.viewGuard = viewGuard
        sqlite3_set_authorizer(db, { context, action, _, _, _, innermost in
            // SQLite names the view (or a WITH clause's table) a SELECT comes from in `innermost`.
            guard action == SQLITE_SELECT, let context, let innermost else { return SQLITE_OK }
            let viewGuard = Unmanaged<ViewGuard>.fromOpaque(context).takeUnretainedValue()
            let name = String(cString: innermost)
            guard viewGuard.views.contains(name.lowercased()) else { return SQLITE_OK }
            viewGuard.refused = name
            return SQLITE_DENY
        }, Unmanaged.passUnretained(viewGuard).toOpaque())
    }

    /// The view `refuseViews()` last refused to run, if any.
    public var refusedView: String? { viewGuard?.refused }

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

/// What the authorizer of `SQLiteConnection.refuseViews()` reads and writes, on the connection's thread.
final class ViewGuard {
    let views: Set<String>
    var refused: String?
    init(views: Set<String>) { self.views = views }
}
