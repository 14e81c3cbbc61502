import Diagnostics
import Pipeline
import SQLite

/// A row a to-many lists, by its entity (`-1` for a join table's, whose rows are told by id).
struct ListedRow: Hashable {
    var entity: Int
    var row: Int64
}

/// `on_duplicate: update`: a record given again replaces the to-many lists it gives, so that a
/// corrections source leaves the store a single source of the corrected data would write.
///
/// - Records the record owns (no key of their own, or a key naming it: a join entity) that the
///   new list no longer holds are removed, with what they own; the others are unlinked.
/// - Owned records without a key are written anew (order keys from the first), unless the list
///   holds the same values in the same order, which leaves them as they are.
/// - A many-to-many keeps the pairs its other side gave (`JoinSides`).
extension SQLiteSink {
    /// Writes the lists `record` gives for the stored row `row` in place of the stored ones, and
    /// returns how each changed (none when all hold what is stored): `steps: 3 linked -> 4 linked`.
    func replaceLists(of record: inout EntityRecord, row: LinkedRow, of writer: EntityWriter,
                      log: ImportLog) throws -> [(relationship: String, before: String, after: String)] {
        var changes: [(relationship: String, before: String, after: String)] = []
        for slot in record.listSlots where !writer.relationships[slot].isTransient {
            let relationship = writer.relationships[slot]
            let (rows, joinRows) = try listedRows(slot, of: row.rowID, writer)
            // Owned records that hold what the list gives stay as they are.
            if try holdsSameOwnedRecords(record.lists[slot], as: rows, slot: slot, of: writer) { continue }
            let writtenBefore = log.entities.reduce(0) { $0 + $1.inserted + $1.updated + $1.removed }
            var listed: [[ListedRow]]? = Array(repeating: [], count: record.lists.count)
            try storeLists(of: &record, row: row, of: writer, log: log, listed: &listed, only: slot)
            let now = listed![slot], kept = Set(now)
            // Pairs the other side of a many-to-many gave stay, and are no change of this list.
            var stayed = Set<ListedRow>()
            for (k, gone) in rows.enumerated() where !kept.contains(gone) {
                if try unlist(gone, joinRow: joinRows.isEmpty ? nil : joinRows[k], slot: slot, from: row.rowID, of: writer, log: log) {
                    stayed.insert(gone)
                }
            }
            let own = stayed.isEmpty ? rows : rows.filter { !stayed.contains($0) }
            let same = relationship.isOrdered ? own == now : Set(own) == kept
            let written = log.entities.reduce(0) { $0 + $1.inserted + $1.updated + $1.removed } != writtenBefore
            if !same || written {
                changes.append((relationship.name, "\(own.count) linked", "\(now.count) linked" + (same ? ", their values changed" : "")))
            }
        }
        return changes
    }

    /// The rows relationship `slot` of `writer`'s row `row` links, in the list's order (join rows'
    /// ids beside, for a many-to-many).
    func listedRows(_ slot: Int, of row: Int64, _ writer: EntityWriter) throws -> (rows: [ListedRow], joinRows: [Int64]) {
        if slot < writer.table.joins.count, writer.table.joins[slot] != nil {
            let pairs = try writer.joinedRows(slot: slot, own: row)
            return (pairs.map { ListedRow(entity: -1, row: $0.other) }, pairs.map(\.joinRow))
        }
        var rows: [ListedRow] = []
        for case let target? in writer.listTargets[slot].map({ writers[$0] }) {
            guard let column = try listingColumn(slot, of: writer, in: target) else { continue }
            rows += try target.rows(where: column.name, is: row, orderedBy: column.order).map { ListedRow(entity: target.entity, row: $0) }
        }
        return (rows, [])
    }

    /// The column of `target`'s table that holds the listing row of relationship `slot` (the
    /// inverse's foreign key, or the listing key of a to-many without inverse), and its order key.
    private func listingColumn(_ slot: Int, of writer: EntityWriter, in target: EntityWriter) throws -> (name: String, order: String?)? {
        let relationship = writer.relationships[slot]
        guard let inverse = relationship.inverse else {
            return slot < writer.table.listings.count ? writer.table.listings[slot].map { ($0, nil) } : nil
        }
        guard let inverseSlot = target.relationships.firstIndex(where: { $0.name == inverse }) else { return nil }
        let columns = target.table.columns
        guard let column = columns.first(where: { if case .link(inverseSlot) = $0.source { true } else { false } }) else { return nil }
        let order = columns.first { if case .order(inverseSlot) = $0.source { true } else { false } }
        return (column.name, order?.name)
    }

    /// Whether `target`'s records listed through `writer`'s relationship `slot` belong to the
    /// listing record: without a key of their own, or with a key that names it.
    private func owns(_ slot: Int, of writer: EntityWriter, _ target: EntityWriter) -> Bool {
        guard target.hasKey else { return true }
        guard let inverse = writer.relationships[slot].inverse,
              let inverseSlot = target.relationships.firstIndex(where: { $0.name == inverse }) else { return false }
        return target.keyLinkSlots.contains(inverseSlot)
    }

    /// Whether `list` gives exactly the stored `rows` of owned records without a key: the same
    /// values in the same order, linking nothing of their own. They are then left as they are.
    private func holdsSameOwnedRecords(_ list: [EntityRecord], as rows: [ListedRow], slot: Int, of writer: EntityWriter) throws -> Bool {
        guard list.count == rows.count, slot >= writer.table.joins.count || writer.table.joins[slot] == nil else { return false }
        for (k, element) in list.enumerated() {
            let target = try self.writer(for: element)
            guard !target.hasKey, rows[k].entity == target.entity, element.lists.allSatisfy(\.isEmpty),
                  element.links.allSatisfy({ $0 == nil }) else { return false }
            let same = try withUnsafeTemporaryAllocation(of: LinkedRow?.self, capacity: element.links.count) { links in
                links.initialize(repeating: nil)
                return try target.compare(row: rows[k].row, with: element, links: links).differing.isEmpty
            }
            guard same else { return false }
        }
        return true
    }

    /// Takes `gone` out of relationship `slot` of `writer`'s row `row`: removed when the row owns
    /// it, unlinked otherwise. True when it stays: a many-to-many pair the other side gave.
    private func unlist(_ gone: ListedRow, joinRow: Int64?, slot: Int, from row: Int64, of writer: EntityWriter,
                        log: ImportLog) throws -> Bool {
        if let joinRow {
            if slot < writer.joinSides.count, let (sides, side) = writer.joinSides[slot] {
                if sides.otherSideGave(side: side, own: row, other: gone.row, joinRow: joinRow) { return true }
                sides.forget(side: side, own: row, other: gone.row)
            }
            mayHaveUnlinkedPlaceholders = true
            try writer.removeJoinRows(slot: slot, own: row, other: gone.row)
            return false
        }
        mayHaveUnlinkedPlaceholders = true
        guard let target = writers[gone.entity] else { return false }
        var removing: Set<ListedRow> = []
        try release(gone.row, of: target, listedThrough: slot, of: writer, log: log, removing: &removing)
        return false
    }

    /// Removes row `row` of `target`, which `writer`'s relationship `slot` lists, if the listing
    /// row owns it; otherwise clears its link back.
    private func release(_ row: Int64, of target: EntityWriter, listedThrough slot: Int, of writer: EntityWriter,
                         log: ImportLog, removing: inout Set<ListedRow>) throws {
        if owns(slot, of: writer, target) { return try remove(row, of: target, log: log, removing: &removing) }
        guard let column = try listingColumn(slot, of: writer, in: target) else { return }
        if let inverse = writer.relationships[slot].inverse {
            try target.setLink(of: row, through: inverse, to: nil)
        } else {
            try target.setListingKey(column.name, of: row, to: nil)
        }
    }

    /// Removes row `row` of `writer` and what it owns (records its lists own, a one-to-one record
    /// without a key); records it links otherwise are unlinked. Counted as removed.
    func remove(_ row: Int64, of writer: EntityWriter, log: ImportLog) throws {
        var removing: Set<ListedRow> = []
        try remove(row, of: writer, log: log, removing: &removing)
    }

    private func remove(_ row: Int64, of writer: EntityWriter, log: ImportLog, removing: inout Set<ListedRow>) throws {
        // A record and its one-to-one detail own each other: each is removed once.
        guard removing.insert(ListedRow(entity: writer.entity, row: row)).inserted else { return }
        for (slot, relationship) in writer.relationships.enumerated() where !relationship.isTransient {
            if relationship.isToMany {
                if slot < writer.table.joins.count, writer.table.joins[slot] != nil {
                    try writer.removeJoinRows(slot: slot, own: row)
                    continue
                }
                for child in try listedRows(slot, of: row, writer).rows {
                    guard let target = writers[child.entity] else { continue }
                    try release(child.row, of: target, listedThrough: slot, of: writer, log: log, removing: &removing)
                }
            } else if let inverse = writer.oneToOneInverse[slot], let linked = try writer.linkedRow(of: row, through: relationship.name),
                      let target = try linkedWriter(of: writer, slot: slot, row: row) {
                if target.hasKey {
                    try target.setLink(of: linked, through: inverse, to: nil)
                } else {
                    try remove(linked, of: target, log: log, removing: &removing)
                }
            }
        }
        try writer.deleteRow(row)
        writer.noteRemoved(row)
        log.countRemoved(entity: writer.entity)
    }

    /// The writer of the row that `writer`'s row `row` links through to-one `slot`.
    func linkedWriter(of writer: EntityWriter, slot: Int, row: Int64) throws -> EntityWriter? {
        let targets = writer.table.linkTargets[slot]
        if targets.count == 1 { return writers[targets[0]] }
        guard let column = writer.table.columns.first(where: { if case .linkEntity(slot) = $0.source { true } else { false } }),
              case .integer(let number)? = try writer.connection.rows(
                  "SELECT \(SQL.quote(column.name)) FROM \(SQL.quote(writer.table.name)) WHERE \(SQL.quote(writer.table.rowID)) = \(row)"
              ).first?.first else { return nil }
        return writers.lazy.compactMap { $0 }.first { $0.entityNumber == number }
    }

    /// Removes the records only links made (placeholders) that no link holds any more, after an
    /// update moved or took links away: a single source of the corrected data would not have
    /// made them. One pass over each column that can link them.
    func removeUnlinkedPlaceholders(log: ImportLog) throws {
        // Again while one goes: a placeholder may have been the last to link another.
        while try removeUnlinkedPlaceholdersOnce(log: log) {}
    }

    /// Up to this many placeholders of an entity, each is looked for until its first link (a scan
    /// that stops early, as a unit links many items); past it, one pass over each linking column
    /// collects every linked row. Three passes of `SELECT DISTINCT` over 100k items were 3.5% of
    /// the distinct-names update job's instructions, for 41 placeholders.
    static let fewPlaceholders = 64

    private func removeUnlinkedPlaceholdersOnce(log: ImportLog) throws -> Bool {
        var removedAny = false
        for case let target? in writers where !target.placeholders.isEmpty {
            // Per linking place: the rows it links (every one), and whether it links row ?1.
            var links: [(all: String, one: String)] = []
            for case let writer? in writers {
                let table = SQL.quote(writer.table.name)
                for column in writer.table.columns {
                    guard case .link(let slot) = column.source, writer.table.linkTargets[slot].contains(target.entity) else { continue }
                    let name = SQL.quote(column.name)
                    links.append(("SELECT DISTINCT \(name) FROM \(table)", "SELECT EXISTS (SELECT 1 FROM \(table) WHERE \(name) = ?1)"))
                }
                for (slot, join) in writer.table.joins.enumerated() where join != nil && writer.listTargets[slot].contains(target.entity) {
                    let joinTable = SQL.quote(join!.table), other = SQL.quote(join!.otherColumn)
                    links.append(("SELECT DISTINCT \(other) FROM \(joinTable)", "SELECT EXISTS (SELECT 1 FROM \(joinTable) WHERE \(other) = ?1)"))
                }
                for (slot, column) in writer.table.listings.enumerated() where column != nil && writer.listTargets[slot].contains(target.entity) {
                    let targetTable = SQL.quote(target.table.name), rowID = SQL.quote(target.table.rowID), listing = SQL.quote(column!)
                    links.append(("SELECT \(rowID) FROM \(targetTable) WHERE \(listing) IS NOT NULL",
                                  "SELECT EXISTS (SELECT 1 FROM \(targetTable) WHERE \(rowID) = ?1 AND \(listing) IS NOT NULL)"))
                }
            }
            let unlinked: [Int64]
            if target.placeholders.count <= Self.fewPlaceholders {
                let statements = try links.map { try target.connection.prepare($0.one) }
                unlinked = try target.placeholders.keys.sorted().filter { row in
                    for statement in statements {
                        try statement.bind(.integer(row), at: 1)
                        _ = try statement.step()
                        let isLinked = statement.value(at: 0) == .integer(1)
                        statement.reset()
                        if isLinked { return false }
                    }
                    return true
                }
            } else {
                var linked = Set<Int64>()
                for link in links {
                    for case .integer(let row)? in try target.connection.rows(link.all).map(\.first) { linked.insert(row) }
                }
                unlinked = target.placeholders.keys.sorted().filter { !linked.contains($0) }
            }
            for row in unlinked {
                try remove(row, of: target, log: log)
                removedAny = true
            }
        }
        return removedAny
    }

    /// Gives each many-to-many's two sides one `JoinSides`, which tells which side gave a pair.
    func shareJoinSides() {
        var byTable: [String: JoinSides] = [:]
        for case let writer? in writers {
            writer.joinSides = writer.table.joins.map { join in
                guard let join else { return nil }
                let sides = byTable[join.table] ?? JoinSides()
                byTable[join.table] = sides
                return (sides, sides.side(ownColumn: join.ownColumn))
            }
        }
    }
}
