import CSQLite  // not internal: SQLiteStatement inlines its binds into the sink (see there)

/// A failed SQLite call, as SQLite reported it: the codes decide what happens, the words are for
/// people (as GRDB's `DatabaseError`).
///
/// ```swift
/// do { try connection.execute("COMMIT") } catch let error as SQLiteError where error.code == .full { ... }
/// ```
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// A primary result code (the low byte of an extended one), named where pipectl decides on it.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let error = Code(rawValue: SQLITE_ERROR)
        public static let busy = Code(rawValue: SQLITE_BUSY)
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        public static let full = Code(rawValue: SQLITE_FULL)
        public static let cannotOpen = Code(rawValue: SQLITE_CANTOPEN)
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)
        /// A statement refused by the connection's authorizer: one that would run a view.
        public static let notAuthorized = Code(rawValue: SQLITE_AUTH)
        /// Not SQLite's: a misuse pipectl catches before calling SQLite (a closed connection,
        /// SQL holding more than one statement).
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
    }

    /// The extended result code (extended codes are on for every connection).
    public var extendedCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`, or `sqlite3_errstr` without a connection); empty
    /// for a misuse pipectl refused before calling SQLite.
    public var message: String
    /// What pipectl was doing: `cannot prepare SQL`, `cannot open 'x.sqlite'`.
    public var context: String
    /// The statement involved, so that a failure can be reproduced in the sqlite3 shell.
    public var sql: String?

    public init(extendedCode: Int32, message: String, context: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.context = context
        self.sql = sql
    }

    /// The primary result code.
    public var code: Code { Code(rawValue: extendedCode & 0xFF) }

    /// A row broke a UNIQUE index or constraint (`SQLITE_CONSTRAINT_UNIQUE`).
    public var isUniqueConstraint: Bool { extendedCode == SQLiteError.constraintUnique }

    /// `SQLITE_CONSTRAINT_UNIQUE`, a macro Swift does not import: `SQLITE_CONSTRAINT | (8 << 8)`.
    static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)

    public var description: String {
        var text = message.isEmpty ? context : "\(context): \(message)"
        if let sql { text += "; SQL: \(sql)" }
        return text
    }

    /// The error state of `connection` after a call returned `code`. Read at once: any later call
    /// on the connection overwrites SQLite's message.
    init(_ code: Int32, connection: OpaquePointer?, context: String, sql: String? = nil) {
        let message: String
        if let connection, let text = sqlite3_errmsg(connection) {
            message = String(cString: text)
        } else if let text = sqlite3_errstr(code) {
            message = String(cString: text)
        } else {
            message = "SQLite error \(code)"
        }
        self.init(extendedCode: code, message: message, context: context, sql: sql)
    }

    /// A misuse pipectl refuses before SQLite sees it.
    static func misuse(_ context: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_MISUSE, message: "", context: context, sql: sql)
    }
}
