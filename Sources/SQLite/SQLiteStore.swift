import Foundation
import Diagnostics
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
    public init(readingAt url: URL) throws(PipelineError) {
        self.url = url
        do throws(SQLiteError) {
            connection = try SQLiteConnection(path: url.path, readOnly: true)
            try connection.checkReadable()
        } catch {
            throw PipelineError(error)
        }
    }

    /// Reads through `connection`, already open on `url`.
    public init(url: URL, connection: SQLiteConnection) {
        self.url = url
        self.connection = connection
    }

    /// Every row `sql` returns, each as its column values.
    public func rows(_ sql: String) throws(PipelineError) -> [[Value]] {
        do { return try connection.rows(sql) } catch { throw PipelineError(error) }
    }

    /// The rows of `table` read straight from the file (`TableRecords`), `fields` of each.
    public func records(of table: String, fields: [TableRecords.Field]) throws -> TableRecords {
        try TableRecords(connection, table: table, fields: fields, filter: nil)
    }

    /// The first column of the first row `sql` returns, or nil when it returns no row.
    public func scalar(_ sql: String) throws(PipelineError) -> Value? {
        do throws(SQLiteError) {
            let statement = try connection.prepare(sql)
            defer { statement.reset() }
            return try statement.step() ? statement.value(at: 0) : nil
        } catch {
            throw PipelineError(error)
        }
    }
}
