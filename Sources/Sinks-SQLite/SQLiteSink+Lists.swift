import Diagnostics
import Pipeline
import SQLite

/// A record that a one-to-many lists: its to-one back to the record that lists it, which that
/// record sets (the listed record's own load does not name it).
struct ParentLink {
    /// The listed record's relationship slot of that to-one.
    var slot: Int
    /// The listing record's row, with the listed record's order key where the list is ordered.
    var row: LinkedRow
    /// Whether the list replaces the stored one (`on_duplicate: update`): a stored record the
    /// listing record owns is then written over with the element's values.
    var replacing = false
}

extension SQLiteSink {
    /// Writes the records `record` links through its to-many relationships, once its own row is
    /// in: a one-to-many sets each listed record's to-one back to `row` (and its order key), a
    /// many-to-many adds a row to the join table per pair (a pair given again is kept once, at
    /// its first place).
    func storeLists(of record: inout EntityRecord, row: LinkedRow, of writer: EntityWriter, log: ImportLog) throws {
        var listed: [[ListedRow]]? = nil
        try storeLists(of: &record, row: row, of: writer, log: log, listed: &listed)
    }

    /// `listed`: when given, the lists replace the stored ones (`replaceLists`): each row linked is
    /// added to its slot, a pair given again in a list keeps its first place, and a stored record
    /// the list owns is written over. `only`: that slot's list alone. `appending`: the lists are
    /// added after the stored ones (`on_duplicate: merge`), their order keys after the stored.
    func storeLists(of record: inout EntityRecord, row: LinkedRow, of writer: EntityWriter, log: ImportLog,
                    listed: inout [[ListedRow]]?, only: Int? = nil, appending: Bool = false) throws {
        let replacing = listed != nil
        for slot in record.lists.indices where !record.lists[slot].isEmpty && (only == nil || only == slot) {
            let stored = appending && writer.relationships[slot].isOrdered ? try listedRows(slot, of: row.rowID, writer).rows.count : 0
            // What the elements need of the relationship, read in place: a copy of the whole
            // relationship (names, options, strings) was made for every list.
            guard !writer.relationships[slot].isTransient else {
                throw PipelineError(.invalidPipeline, code: .pipelineTransientProperty, at: record.location, stage: "sqlite",
                                    "'\(writer.name).\(writer.relationships[slot].name)' is transient: Core Data keeps it in memory only, "
                                        + "so it has nothing in the store to load")
            }
            let (inverse, isOrdered) = (writer.relationships[slot].inverse, writer.relationships[slot].isOrdered)
            let join = slot < writer.table.joins.count ? writer.table.joins[slot] : nil
            let sides = slot < writer.joinSides.count ? writer.joinSides[slot] : nil
            var paired: Set<Int64> = []
            // A list's join rows are added together, in list order, once its records are stored:
            // one statement for several rows (see `addJoinRows`). Whatever reads the join table
            // first finds them added: the last row's id, and a listed record with lists of its
            // own, which may read or add join rows.
            let batching = join.map(EntityWriter.addsJoinRowsAtOnce) == true && !replacing
            // The buffer is kept from list to list: a list of a listed record takes another.
            var pending = batching ? spareJoinRows.popLast() ?? [] : []
            defer {
                if batching {
                    pending.removeAll(keepingCapacity: true)
                    spareJoinRows.append(pending)
                }
            }
            func addPending(_ pending: inout [(row: Int64, order: Int64?)]) throws {
                guard let join, !pending.isEmpty else { return }
                try writer.addJoinRows(slot: slot, join, own: row.rowID, others: pending[...])
                pending.removeAll(keepingCapacity: true)
            }
            // The list is taken out of the record while its elements are stored, and read and
            // written in place: `record.lists[slot][k]` copied the element out of its array for
            // each read, retaining its three arrays, whose counts the reading thread wrote last
            // (a cache line from the other core each: the nested job at 1M spent 7% of the
            // writing thread's time there).
            var elements: [EntityRecord] = []
            swap(&elements, &record.lists[slot])
            defer { swap(&elements, &record.lists[slot]) }
            do {
                try elements.withUnsafeMutableBufferPointer { elements in
                    for k in elements.indices {
                        let target = try listedWriter(elements[k].entity) ?? self.writer(for: elements[k])
                        guard writer.listTargets[slot].contains(target.entity) else {
                            throw PipelineError(.invalidPipeline, code: .pipelineWrongDestination, at: record.location, stage: "sqlite",
                                                "'\(writer.name).\(writer.relationships[slot].name)' links to "
                                                    + "'\(writer.relationships[slot].destination)', not to '\(target.name)'")
                        }
                        if let join {
                            if elements[k].lists.contains(where: { !$0.isEmpty }) { try addPending(&pending) }
                            guard let linked = try store(&elements[k], onDuplicate: nil, linkedFrom: (writer, slot), log: log)
                            else { continue }
                            let order = join.ownOrder == nil ? nil : writer.table.orderKey(stored + k)
                            if let (sides, side) = sides {
                                try sides.note(side: side, own: row.rowID, other: linked.rowID) {
                                    try addPending(&pending)
                                    return try writer.lastJoinRow(slot: slot)
                                }
                            }
                            if replacing {
                                guard paired.insert(linked.rowID).inserted else { continue }
                                try writer.placeJoinRow(slot: slot, join, own: row.rowID, other: linked.rowID, order: order)
                                listed?[slot].append(ListedRow(entity: -1, row: linked.rowID))
                            } else if batching {
                                pending.append((linked.rowID, order))
                            } else {
                                try writer.addJoinRow(slot: slot, join, own: row.rowID, other: linked.rowID, order: order)
                            }
                            continue
                        }
                        if inverse == nil, slot < writer.table.listings.count, let column = writer.table.listings[slot] {
                            guard let linked = try store(&elements[k], onDuplicate: nil, linkedFrom: (writer, slot), log: log)
                            else { continue }
                            try target.setListingKey(column, of: linked.rowID, to: row.rowID)
                            listed?[slot].append(ListedRow(entity: target.entity, row: linked.rowID))
                            continue
                        }
                        guard let inverse, let inverseSlot = target.relationships.firstIndex(where: { $0.name == inverse }) else {
                            throw PipelineError(.invalidPipeline, code: .modelNoInverse, at: record.location, stage: "sqlite",
                                                "'\(writer.name).\(writer.relationships[slot].name)' has no inverse in the model, and pipectl writes a to-many "
                                                    + "relationship through its inverse or a join table")
                        }
                        var parent = row
                        parent.order = isOrdered ? target.table.orderKey(stored + k) : nil
                        let linked = try store(&elements[k], onDuplicate: nil, linkedFrom: (writer, slot),
                                               parent: ParentLink(slot: inverseSlot, row: parent, replacing: replacing), log: log)
                        if let linked { listed?[slot].append(ListedRow(entity: target.entity, row: linked.rowID)) }
                    }
                }
            } catch {
                // What was stored before the failure stays, as when each row was added at once.
                try? addPending(&pending)
                throw error
            }
            try addPending(&pending)
        }
    }

    /// The writer of a listed record's entity, from the entity's number alone (read in
    /// place); nil where it names none, for `writer(for:)` to say what is wrong.
    func listedWriter(_ entity: Int) -> EntityWriter? {
        writers.indices.contains(entity) ? writers[entity] : nil
    }

    /// Sets each writer's `mayLackRequiredValueBelow`: whether an entity it reaches through its
    /// relationships (their destinations and sub-entities, at any depth) may lack a required value.
    func markRequiredValuesBelow() {
        for case let writer? in writers {
            var seen: Set<Int> = [writer.entity], next = [writer.entity], found = false
            while let entity = next.popLast(), !found {
                guard let reached = writers[entity] else { continue }
                found = reached.mayLackRequiredValue
                for targets in reached.table.linkTargets + reached.listTargets {
                    for target in targets where seen.insert(target).inserted { next.append(target) }
                }
            }
            writer.mayLackRequiredValueBelow = found
        }
    }

    /// `Recipe.unit is left empty` for a to-one, `Recipe.tags does not link it` for a to-many:
    /// the end of a skip's reason.
    func leftEmpty(_ writer: EntityWriter, _ slot: Int) -> String {
        let relationship = "\(writer.name).\(writer.relationships[slot].name)"
        return writer.relationships[slot].isToMany ? "\(relationship) does not link it" : "\(relationship) is left empty"
    }

    /// The queries counting the links the store holds per relationship, in model order: a to-one
    /// by its foreign key column (the rows of its own entity where a table holds several), a
    /// many-to-many by its join table's rows (shown on both sides, the same query). A one-to-many
    /// shows on its to-one side. Made while the writers know the tables; run by `countLinks`.
    func linkCountQueries() -> [(relationship: String, sql: String)] {
        var queries: [(relationship: String, sql: String)] = []
        for case let writer? in writers {
            let table = writer.table
            let shared = writers.contains { $0 !== writer && $0?.table.name == table.name }
            let filter = shared ? table.entityColumn.flatMap { column in table.entityNumber.map { " WHERE \(SQL.quote(column)) = \($0)" } } ?? "" : ""
            for (slot, relationship) in writer.relationships.enumerated() where !relationship.isTransient {
                let sql: String
                if let column = table.columns.first(where: { if case .link(slot) = $0.source { true } else { false } }) {
                    let (t, c) = (SQL.quote(table.name), SQL.quote(column.name))
                    // The rows less those without a link: SQLite counts a table's rows from its
                    // pages, and the few empty links from the foreign key's index, where reading
                    // every entry of the index cost about 1,000 instructions a row for three links.
                    sql = shared ? "SELECT count(\(c)) FROM \(t)\(filter)"
                        : "SELECT (SELECT count(*) FROM \(t)) - (SELECT count(*) FROM \(t) WHERE \(c) IS NULL)"
                } else if slot < table.joins.count, let join = table.joins[slot] {
                    sql = "SELECT count(*) FROM \(SQL.quote(join.table))"
                } else {
                    continue
                }
                queries.append(("\(writer.name).\(relationship.name)", sql))
            }
        }
        return queries
    }

    /// Runs `linkCountQueries` on the finished store; a query two relationships share (the join
    /// table of a many-to-many and its inverse) runs once.
    static func countLinks(_ queries: [(relationship: String, sql: String)], in connection: SQLiteConnection) throws
        -> [(relationship: String, count: Int)] {
        var counted: [String: Int] = [:]
        var counts: [(relationship: String, count: Int)] = []
        for (relationship, sql) in queries {
            if let count = counted[sql] {
                counts.append((relationship, count))
                continue
            }
            guard case .integer(let count)? = try connection.rows(sql).first?.first else { continue }
            counted[sql] = Int(count)
            counts.append((relationship, Int(count)))
        }
        return counts
    }

    /// Rejects a record whose lists would create a record without a value its entity requires,
    /// before any of it is written: its children are written after its own row, which a rejection
    /// then would leave behind. The records it links to and lists are checked where they would
    /// be created (not found by their key).
    /// `isNew`: the record itself would be inserted (not a stored row it completes or updates).
    func checkRequiredValues(of record: EntityRecord, of writer: EntityWriter, isNew: Bool = true) throws {
        guard writer.mayLackRequiredValueBelow else { return }
        if isNew, let slot = writer.missingRequiredValue(in: record) { throw writer.missingValue(slot, at: record.location) }
        func check(_ link: EntityRecord) throws {
            let target = try self.writer(for: link)
            // Nothing to check below a record that cannot lack a value and links nothing.
            guard target.mayLackRequiredValue || link.links.contains(where: { $0 != nil }) || !link.lists.isEmpty else { return }
            if target.hasKey, !target.hasLinkKey, let key = target.key(of: link),
               try target.keys.lookup(key, hash: link.keyHash).flatMap(target.liveRow) != nil {
                return  // found, not created
            }
            try checkRequiredValues(of: link, of: target)
        }
        // Walked in place: gathering the linked records into one array copied every one of them.
        for case let link? in record.links { try check(link) }
        for list in record.lists {
            for link in list { try check(link) }
        }
    }
}
