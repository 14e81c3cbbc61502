import Pipeline
import SQLite

/// What an update that replaces a record's lists reads and removes (`SQLiteSink+Replacing.swift`).
/// Rare next to inserts: statements are prepared on first use, and the foreign keys they look up
/// get an index only then (`replacingIndexes`), as the store's own are built after the load.
extension EntityWriter {
    /// The row the index's `entry` stands for now: its own, the row written for its key after an
    /// update removed it, or nil while it stays removed.
    @inline(__always)
    func liveRow(_ entry: KeyIndex.Entry) -> Int64? {
        guard hasRewrittenKeys else { return entry.rowID }
        return rewrittenRow(entry.rowID)
    }

    /// `liveRow` once an update removed rows: apart, so that the common lookup stays small.
    @inline(never)
    private func rewrittenRow(_ entryRow: Int64) -> Int64? {
        let row = revivedRows[entryRow] ?? entryRow
        return removedRows.contains(row) ? nil : row
    }

    /// The live row written for `key`, if any: apart from the lookups every record makes, so
    /// that those stay as small (and inlined) as they are.
    @inline(never)
    func storedRow(_ key: KeyIndex.Key, hash: TextKeyHash?) throws -> Int64? {
        try keys.lookup(key, hash: hash).flatMap(liveRow)
    }

    /// Notes that row `row`, whose key the index holds, was removed.
    func noteRemoved(_ row: Int64) {
        placeholders[row] = nil
        guard hasKey else { return }
        removedRows.insert(row)
        hasRewrittenKeys = true
    }

    /// Notes that `row` now holds the key whose entry names the removed row `entryRow`.
    func noteRevived(_ entryRow: Int64, as row: Int64) {
        revivedRows[entryRow] = row
        hasRewrittenKeys = true
    }

    /// This entity's rows whose `column` holds `row` (a to-one's foreign key, a listing key).
    /// `orderedBy`: the order key column of an ordered list (row id order otherwise).
    func rows(where column: String, is row: Int64, orderedBy order: String? = nil) throws -> [Int64] {
        try indexForReplacing(table.name, column)
        var sql = "SELECT \(SQL.quote(table.rowID)) FROM \(SQL.quote(table.name)) WHERE \(SQL.quote(column)) = ?1"
        if let entityColumn = table.entityColumn, let number = table.entityNumber { sql += " AND \(SQL.quote(entityColumn)) = \(number)" }
        sql += " ORDER BY " + (order.map { "\(SQL.quote($0)), " } ?? "") + SQL.quote(table.rowID)
        return try integers(sql, row)
    }

    /// The rows row `own` is paired with in the join table of relationship `slot`, with each join
    /// row's id (`JoinSides` tells by it which side gave the pair).
    func joinedRows(slot: Int, own: Int64) throws -> [(other: Int64, joinRow: Int64)] {
        guard let join = table.joins[slot] else { return [] }
        try indexForReplacing(join.table, join.ownColumn)
        let statement = try replacingStatement(
            "SELECT \(SQL.quote(join.otherColumn)), rowid FROM \(SQL.quote(join.table)) WHERE \(SQL.quote(join.ownColumn)) = ?1 "
                + "ORDER BY " + (join.ownOrder.map { "\(SQL.quote($0)), " } ?? "") + "rowid")
        defer { statement.reset() }
        try statement.bind(.integer(own), at: 1)
        var rows: [(other: Int64, joinRow: Int64)] = []
        while try statement.step() {
            if case .integer(let other) = statement.value(at: 0), case .integer(let row) = statement.value(at: 1) { rows.append((other, row)) }
        }
        return rows
    }

    /// Puts the pair (`own`, `other`) at `order` in `own`'s list: moved there if it is stored, added
    /// otherwise.
    func placeJoinRow(slot: Int, _ join: EntityTable.Join, own: Int64, other: Int64, order: Int64?) throws {
        if let ownOrder = join.ownOrder {
            let statement = try replacingStatement(
                "UPDATE \(SQL.quote(join.table)) SET \(SQL.quote(ownOrder)) = ?3 "
                    + "WHERE \(SQL.quote(join.ownColumn)) = ?1 AND \(SQL.quote(join.otherColumn)) = ?2")
            try statement.bind(.integer(own), at: 1)
            try statement.bind(.integer(other), at: 2)
            try statement.bind(order, at: 3)
            try statement.run()
        }
        try addJoinRow(slot: slot, join, own: own, other: other, order: order)
    }

    /// Removes the pair (`own`, `other`) of relationship `slot`'s join table; every pair of `own`
    /// when `other` is nil.
    func removeJoinRows(slot: Int, own: Int64, other: Int64? = nil) throws {
        guard let join = table.joins[slot] else { return }
        var sql = "DELETE FROM \(SQL.quote(join.table)) WHERE \(SQL.quote(join.ownColumn)) = ?1"
        if other != nil { sql += " AND \(SQL.quote(join.otherColumn)) = ?2" }
        let statement = try replacingStatement(sql)
        try statement.bind(.integer(own), at: 1)
        if let other { try statement.bind(.integer(other), at: 2) }
        try statement.run()
    }

    /// The id of the join table's last row, where `JoinSides` starts telling the sides apart.
    func lastJoinRow(slot: Int) throws -> Int64 {
        guard let join = table.joins[slot] else { return 0 }
        let statement = try replacingStatement("SELECT coalesce(max(rowid), 0) FROM \(SQL.quote(join.table))")
        defer { statement.reset() }
        guard try statement.step(), case .integer(let last) = statement.value(at: 0) else { return 0 }
        return last
    }

    /// Deletes row `row` of this entity (its links are the caller's: `SQLiteSink.remove`).
    func deleteRow(_ row: Int64) throws {
        let statement = try replacingStatement("DELETE FROM \(SQL.quote(table.name)) WHERE \(SQL.quote(table.rowID)) = ?1")
        try statement.bind(.integer(row), at: 1)
        try statement.run()
    }

    /// Drops the indexes made for replacing lists: the store gets the layout's indexes only.
    func dropReplacingIndexes() throws {
        for name in replacingIndexes { try connection.execute("DROP INDEX IF EXISTS \(SQL.quote(name))") }
        replacingIndexes = []
    }

    private func indexForReplacing(_ table: String, _ column: String) throws {
        let name = "pipectl_replacing_\(table)_\(column)"
        guard !replacingIndexes.contains(name) else { return }
        // Sub-entities sharing a table make the same index: made once.
        try connection.execute("CREATE INDEX IF NOT EXISTS \(SQL.quote(name)) ON \(SQL.quote(table)) (\(SQL.quote(column)))")
        replacingIndexes.append(name)
    }

    private func replacingStatement(_ sql: String) throws -> SQLiteStatement {
        if let statement = replacingStatements[sql] { return statement }
        let statement = try connection.prepare(sql)
        replacingStatements[sql] = statement
        return statement
    }

    private func integers(_ sql: String, _ row: Int64) throws -> [Int64] {
        let statement = try replacingStatement(sql)
        defer { statement.reset() }
        try statement.bind(.integer(row), at: 1)
        var rows: [Int64] = []
        while try statement.step() {
            if case .integer(let id) = statement.value(at: 0) { rows.append(id) }
        }
        return rows
    }
}
