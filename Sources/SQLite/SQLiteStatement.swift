// Not `internal import`: the binds below are inlined into the sink, which binds every column of
// every row, and a call across the module boundary for each shows in the flat job
// (docs/benchmarks.md). No C type appears in a public signature.
import CSQLite
import Foundation
import Pipeline

/// Owns one prepared `sqlite3_stmt*`: prepared once in `init`, reused through `reset()`, finalized
/// in `deinit`.
public final class SQLiteStatement {
    public let sql: String
    /// Kept so that the connection outlives its statements.
    private let connection: SQLiteConnection
    private let db: OpaquePointer
    @usableFromInline let handle: OpaquePointer

    init(_ sql: String, on connection: SQLiteConnection) throws(SQLiteError) {
        let db = try connection.openHandle()
        var statement: OpaquePointer?
        var rest = ""
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            if code == SQLITE_OK, let tail { rest = String(cString: tail) }
            return code
        }
        guard code == SQLITE_OK else {
            if code == SQLITE_AUTH, let view = connection.refusedView {
                throw SQLiteError(extendedCode: code, message: "'\(view)' is a view, not a table", context: "cannot prepare SQL", sql: sql)
            }
            throw SQLiteError(code, connection: db, context: "cannot prepare SQL", sql: sql)
        }
        guard let statement else { throw .misuse("cannot prepare SQL: it holds no statement", sql: sql) }
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            sqlite3_finalize(statement)
            throw .misuse("cannot prepare SQL: it holds more than one statement", sql: sql)
        }
        self.sql = sql
        self.connection = connection
        self.db = db
        self.handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding (parameters are 1-based, as in SQL's ?1, ?2, ...)

    /// Binds a value by its case: text and decimals as text (a NUMERIC column converts decimals),
    /// integers and bools as integers, doubles and dates as reals, bytes as blobs.
    @inlinable @inline(__always)
    public func bind(_ value: Value, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .text(let string):
            code = bindText(string, at: index)
        case .integer(let number):
            code = sqlite3_bind_int64(handle, index, number)
        case .bool(let flag):
            code = sqlite3_bind_int64(handle, index, flag ? 1 : 0)
        case .double(let number), .date(let number):
            code = sqlite3_bind_double(handle, index, number)
        case .decimal(let number):
            code = bindText(number.description, at: index)
        case .binary(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                // A nil pointer would bind NULL: an empty blob needs zeroblob.
                guard let base = buffer.baseAddress, buffer.count > 0 else { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob64(handle, index, base, UInt64(buffer.count), pipectl_sqlite_transient())
            }
        case .list, .object:
            // Loads turn these into linked records; an attribute rejects them before a bind.
            code = SQLITE_MISMATCH
        }
        guard code == SQLITE_OK else { throw bindFailure(code, index) }
    }

    /// Binds a row id, or NULL.
    @inlinable @inline(__always)
    public func bind(_ rowID: Int64?, at index: Int32) throws(SQLiteError) {
        let code = rowID.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        guard code == SQLITE_OK else { throw bindFailure(code, index) }
    }

    /// Binds text given as its UTF-8 bytes.
    @inlinable
    public func bind(utf8 bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws(SQLiteError) {
        let code = bindText(bytes, at: index)
        guard code == SQLITE_OK else { throw bindFailure(code, index) }
    }

    /// Binds text given as its UTF-8 bytes without copying them (`SQLITE_STATIC`): they must stay
    /// as they are until the statement has run, and valid until it is bound again or finalized.
    @inlinable @inline(__always)
    public func bind(unchangedUTF8 bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws(SQLiteError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return try bind(utf8: bytes, at: index) }
        let code = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            sqlite3_bind_text64(handle, index, $0, UInt64(bytes.count), nil, UInt8(SQLITE_UTF8))
        }
        guard code == SQLITE_OK else { throw bindFailure(code, index) }
    }

    @inlinable @inline(__always)
    func bindText(_ string: String, at index: Int32) -> Int32 {
        var string = string
        // Native strings are contiguous UTF-8 already: bind their bytes without a C-string copy.
        return string.withUTF8 { bindText($0, at: index) }
    }

    @inlinable @inline(__always)
    func bindText(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int32) -> Int32 {
        // A nil pointer would bind NULL: empty text must stay empty text.
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return sqlite3_bind_text(handle, index, "", 0, pipectl_sqlite_transient())
        }
        return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            sqlite3_bind_text64(handle, index, $0, UInt64(buffer.count), pipectl_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }

    @usableFromInline
    func bindFailure(_ code: Int32, _ index: Int32) -> SQLiteError {
        SQLiteError(code, connection: db, context: "cannot bind parameter \(index)", sql: sql)
    }

    // MARK: Running

    /// Hands the statement and its connection to whichever thread uses them next (SQLite allows
    /// it, one thread at a time): the caller waits for that thread before it uses either again.
    public func handOver() {
        connection.confinement.release()
    }

    /// Advances to the next row: true while there is one, false when the statement is done.
    public func step() throws(SQLiteError) -> Bool {
        connection.confinement.check()
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let error = SQLiteError(code, connection: db, context: "SQL failed", sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs a statement that writes one row, as `run()` does, except that a row breaking a UNIQUE
    /// index (`SQLITE_CONSTRAINT_UNIQUE`) is not an error here: SQLite has undone the statement
    /// (the transaction goes on), and the caller, who knows the table's unique indexes, turns the
    /// record away. True when the row was written.
    ///
    /// For statements that bind every parameter before each run: the bindings are kept, which
    /// spares clearing and freeing them for every row.
    public func runUnlessUniqueConflict() throws(SQLiteError) -> Bool {
        connection.confinement.check()
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE || code == SQLITE_ROW { return true }
        guard code == SQLiteError.constraintUnique else {
            throw SQLiteError(code, connection: db, context: "SQL failed", sql: sql)
        }
        return false
    }

    /// Makes the statement ready for its next use, dropping the previous bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Runs a statement that returns no rows and makes it ready for the next use.
    public func run() throws(SQLiteError) {
        defer { reset() }
        while try step() {}
    }

    // MARK: Reading the current row

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Column `index` (0-based) of the current row, by its storage class.
    public func value(at index: Int32) -> Value {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .double(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // Text first, then its length: the documented order that avoids a conversion.
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(handle, index) else { return .binary([]) }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .binary(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default:
            return .null
        }
    }
}
