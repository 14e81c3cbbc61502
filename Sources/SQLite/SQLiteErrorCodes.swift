import Diagnostics

/// The codes of SQLite failures, by SQLite's result code. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// SQLite finds the disk full (`SQLITE_FULL`).
    public static let sqliteDiskFull = Self("sqlite.disk-full")
    /// SQLite cannot read or write the file (`SQLITE_IOERR`).
    public static let sqliteIOError = Self("sqlite.io-error")
    /// SQLite cannot open the file (`SQLITE_CANTOPEN`).
    public static let sqliteCannotOpen = Self("sqlite.cannot-open")
    /// The file is not a database (`SQLITE_NOTADB`) or is damaged (`SQLITE_CORRUPT`).
    public static let sqliteNotADatabase = Self("sqlite.not-a-database")
    /// The database is locked by another connection (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    public static let sqliteBusy = Self("sqlite.busy")
    /// A row breaks a constraint (`SQLITE_CONSTRAINT`).
    public static let sqliteConstraint = Self("sqlite.constraint")
    /// A store read by inspect, diff or check has a view where a table is read (`SQLITE_AUTH`).
    public static let sqliteViewRefused = Self("sqlite.view-refused")
    /// Any other SQLite failure.
    public static let sqliteFailed = Self("sqlite.failed")
}
