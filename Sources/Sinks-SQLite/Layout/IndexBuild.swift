import SQLite

/// Builds an index over rows already written, the way SQLite's sorter does it fastest for the
/// column's values.
///
/// The sink's settings for the indexes (a 2 MB cache, so that the sorter sorts small runs and
/// merges them, on helper threads where there are cores) suit values in no order. A column that
/// holds one value (a relationship no record set, `Z_ENT` of a table one entity fills) is
/// already in order: sorted in memory on this thread, in one run, its index takes about half the
/// time (the nested recipes at 1M: `ZENTRY`'s four such indexes 0.27 s against 0.15 s). Whatever
/// the settings, SQLite builds the same b-tree from the same sorted entries: the same bytes.
enum IndexBuild {
    /// The most cache the sort of a one-value column may take, in KiB: beyond it the sorter
    /// writes runs of this size, still far fewer than at 2 MB.
    static let largestSortCache: Int64 = 16 * 1024

    /// Runs `statement`, a `CREATE INDEX`. Only the statement can fail the build: the sample and
    /// the settings are an optimization, which a query that fails leaves out.
    static func create(_ statement: String, in connection: SQLiteConnection) throws {
        guard let rows = oneValueRows(indexedBy: statement, in: connection),
              let settings = try? connection.rows("SELECT * FROM pragma_cache_size, pragma_threads").first, settings.count == 2,
              case .integer(let previousCache) = settings[0], case .integer(let previousThreads) = settings[1] else {
            return try connection.execute(statement)
        }
        defer {
            try? connection.execute("PRAGMA cache_size=\(previousCache)")
            try? connection.execute("PRAGMA threads=\(previousThreads)")
        }
        // About 32 bytes a row in the sorter's memory (a NULL or small value, and the row id).
        try? connection.execute("PRAGMA cache_size=-\(min(rows / 32 + 512, largestSortCache))")
        try? connection.execute("PRAGMA threads=0")
        try connection.execute(statement)
    }

    /// The rows of the table when `statement` indexes one column of it (`CREATE INDEX <name> ON
    /// <table> (<column>)`, as Core Data's and pipectl's own schemas spell it) that holds the
    /// same value in 64 rows spread over the table; nil otherwise, or where the table is too
    /// small for it to matter (or has no row ids). A sample that misses the other values only
    /// costs time.
    static func oneValueRows(indexedBy statement: String, in connection: SQLiteConnection) -> Int64? {
        guard let column = singleColumn(of: statement),
              case .integer(let rows)? = try? connection.rows("SELECT max(rowid) FROM \(column.table)").first?.first,
              rows >= 10_000 else { return nil }
        let sample = (1...64).map { String(Int64($0) * rows / 64) }.joined(separator: ", ")
        guard let counts = try? connection.rows("SELECT count(*), count(\(column.name)), min(\(column.name)) IS max(\(column.name)) "
                                                + "FROM \(column.table) WHERE rowid IN (\(sample))").first,
              counts.count == 3, case .integer(let sampled) = counts[0], sampled >= 32, case .integer(let values) = counts[1],
              values == 0 || (values == sampled && counts[2] == .integer(1)) else { return nil }
        return rows
    }

    /// The table and column, as written, of `CREATE INDEX <name> ON <table> (<column>)`; nil for
    /// a unique index, or one over several columns or an expression.
    static func singleColumn(of statement: String) -> (table: Substring, name: Substring)? {
        guard statement.hasPrefix("CREATE INDEX "), statement.hasSuffix(")"), let on = statement.range(of: " ON "),
              let open = statement.range(of: " (", range: on.upperBound..<statement.endIndex) else { return nil }
        let table = statement[on.upperBound..<open.lowerBound]
        let column = statement[open.upperBound..<statement.index(before: statement.endIndex)]
        let isName = { (text: Substring) in
            !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "\"" }
        }
        guard isName(table), isName(column) else { return nil }
        return (table, column)
    }
}
