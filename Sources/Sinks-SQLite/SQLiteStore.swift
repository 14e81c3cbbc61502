import Foundation
import Pipeline

/// Reads an existing store: for tests, `pipectl inspect` and reports.
///
/// ```swift
/// let store = try SQLiteStore(readingAt: url)
/// let count = try store.scalar("SELECT count(*) FROM \"Item\"")   // .integer(42)
/// ```
///
/// Columns come back by their storage class: INTEGER as `.integer`, REAL as `.double`, TEXT as
/// `.text`, BLOB as `.binary`, NULL as `.null`.
public final class SQLiteStore {
    /// The store file.
    public let url: URL
    private let connection: SQLiteConnection

    /// Opens the store at `url` read-only; throws `PipelineError` when it is missing or not a
    /// SQLite database.
    public init(readingAt url: URL) throws {
        self.url = url
        connection = try SQLiteConnection(path: url.path, readOnly: true)
        try connection.checkReadable()
    }

    /// Every row `sql` returns, each as its column values.
    public func rows(_ sql: String) throws -> [[Value]] {
        try connection.rows(sql)
    }

    /// The first column of the first row `sql` returns, or nil when it returns no row.
    public func scalar(_ sql: String) throws -> Value? {
        let statement = try connection.prepare(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.value(at: 0) : nil
    }
}
