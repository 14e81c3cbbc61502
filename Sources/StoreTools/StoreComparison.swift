import Foundation
import Diagnostics
import Pipeline
import ReportsXLSX
import SinksSQLite
import CoreDataFormat
import SQLite

/// Compares two stores record by record: each entity's rows are read from both side by side, in
/// the tables' own order where they mostly agree, else sorted by key (`merge`), so memory stays
/// bounded however large the stores are (the changes, and at most `waitingLimit` of waiting rows).
///
/// With the model and layout the stores were written for, records are matched by their entity's
/// unique key and relationships compare as the related record's key; without them (any two SQLite
/// files), tables are matched by name and rows by the table's first unique index, else as whole rows.
public struct StoreComparison {
    /// The sets to compare, given the old and the new store.
    private let sets: (SQLiteConnection, SQLiteConnection) throws -> [ComparedSet]

    /// Compares stores written for `model` in `settings.layout`. `positions` names, per entity and
    /// to-many relationship, the attribute its records keep their place in (`position: order`).
    public init(model: StoreModel, settings: StoreSettings, positions: [String: [String: String]] = [:]) throws {
        let sets = ComparedSet.sets(of: try StoreTables(model: model, settings: settings), model: model, positions: positions)
        self.sets = { _, _ in sets }
    }

    /// Compares stores written by `pipeline`: its model, layout, unique keys, and the places its
    /// `position:` links write.
    public init(pipeline: PipelineDefinition) throws {
        var positions: [String: [String: String]] = [:]
        func collect(_ load: LoadSpec) {
            for link in load.links {
                if let position = link.position { positions[load.entity, default: [:]][link.relationship] = position }
                collect(link.target)
            }
        }
        for source in pipeline.sources { source.loads.forEach(collect) }
        try self.init(model: pipeline.model, settings: pipeline.store, positions: positions)
    }

    /// Compares two Core Data stores of the app model `model` (its .xcdatamodeld or SwiftData
    /// source): records matched by each entity's uniqueness constraint (the first one, its own or
    /// an ancestor's), else as whole rows.
    public init(coreDataModel model: StoreModel) throws {
        var keyed = model
        for entity in model.entities where entity.uniqueKey.isEmpty {
            keyed.setUniqueKey(entity.uniquenessConstraints.first { !$0.isEmpty } ?? [], of: entity.name)
        }
        // The path is not read: the layout only names tables and columns.
        try self.init(model: keyed, settings: StoreSettings(path: URL(fileURLWithPath: "/"), layout: .coredata))
    }

    /// Compares any two SQLite stores by their tables: the new store's, then those only the old has.
    /// Two Core Data stores are compared entity by entity (`Z_ENT`), keys from the uniqueness
    /// constraints their unique indexes keep; the other tables (join tables) as tables.
    public init() {
        sets = { old, new in
            let coreData = try ComparedSet.coreDataSets(old: old, new: new)
            let current = try ComparedSet.sets(of: new)
            let tables = Set(current.map(\.table)).union(coreData?.tables ?? [])
            let rest = try current.filter { !(coreData?.tables.contains($0.table) ?? false) }
                + ComparedSet.sets(of: old).filter { !tables.contains($0.table) }
            return (coreData?.sets.sorted { $0.name < $1.name } ?? []) + rest
        }
    }

    /// What changed from `old` to `new`; `oldName` and `newName` are how messages call them.
    ///
    /// Throws `PipelineError` (`.invalidInput`) when either is not a readable SQLite file.
    public func compare(old: URL, new: URL, oldName: String? = nil, newName: String? = nil) throws -> StoreChanges {
        do {
            return try compareStores(old: old, new: new, oldName: oldName, newName: newName)
        } catch {
            throw PipelineError.converting(error)
        }
    }

    private func compareStores(old: URL, new: URL, oldName: String?, newName: String?) throws -> StoreChanges {
        // Kept to the end: a store read from a copy keeps its copy while it is read.
        let oldReading = try StoreReading(old, name: oldName ?? old.path, stage: "diff")
        let newReading = try StoreReading(new, name: newName ?? new.path, stage: "diff")
        let oldStore = oldReading.connection, newStore = newReading.connection
        defer { withExtendedLifetime((oldReading, newReading)) {} }
        do {
            return try compare(oldStore, newStore)
        } catch let error as SQLiteError where error.code == .notAuthorized {
            // Said of the store whose view it was.
            throw PipelineError.converting(error, at: Location(file: oldStore.refusedView != nil ? oldName ?? old.path : newName ?? new.path))
        }
    }

    private func compare(_ oldStore: SQLiteConnection, _ newStore: SQLiteConnection) throws -> StoreChanges {
        let oldColumns = try Columns(oldStore), newColumns = try Columns(newStore)
        var entities: [StoreChanges.Entity] = [], changes: [StoreChanges.Change] = [], notes: [String] = []
        for set in try sets(oldStore, newStore) {
            var entity = StoreChanges.Entity(name: set.name, matchedBy: set.matchedBy)
            if oldColumns.tables[set.table] == nil { notes.append("\(set.name): table '\(set.table)' is new") }
            if newColumns.tables[set.table] == nil { notes.append("\(set.name): table '\(set.table)' is gone") }
            for field in set.key + set.fields {
                if case .column(let column) = field.source, newColumns.tables[set.table]?.contains(column) == true,
                   oldColumns.tables[set.table]?.contains(column) == false {
                    notes.append("\(set.name).\(field.name): column '\(column)' is new")
                }
            }
            if let before = oldColumns.tables[set.table], let after = newColumns.tables[set.table] {
                for column in before.subtracting(after).sorted() { notes.append("\(set.name): column '\(column)' is gone") }
            }
            try merge(set, old: oldStore, oldColumns, new: newStore, newColumns, into: &entity, changes: &changes)
            entities.append(entity)
        }
        return StoreChanges(entities: entities, changes: changes, notes: notes)
    }

    /// Matches the rows of `set` in both stores: first in each table's own order, side by side (a
    /// store written again from much the same input keeps its records in much the same order, so
    /// nearly every row meets its match at once, and nothing is sorted); where too many rows wait
    /// for their match, again in key order, each store's rows sorted by SQLite.
    private func merge(_ set: ComparedSet, old: SQLiteConnection, _ oldColumns: Columns,
                       new: SQLiteConnection, _ newColumns: Columns,
                       into entity: inout StoreChanges.Entity, changes: inout [StoreChanges.Change]) throws {
        // In table order, a link to a small table is looked up in a table of its keys, not joined.
        let oldTargets = try Self.lookupTargets(set.linkTargets, in: old, oldColumns)
        let newTargets = try Self.lookupTargets(set.linkTargets, in: new, newColumns)
        var fromFiles = readsTableFiles
        do {
            while true {
                do {
                    if let oldSource = try Rows.Source(set, in: old, oldColumns.tables, lookingUp: oldTargets, fromFile: fromFiles),
                       let newSource = try Rows.Source(set, in: new, newColumns.tables, lookingUp: newTargets, fromFile: fromFiles) {
                        let pair = try Rows.Pair(oldSource, on: old, newSource, on: new)
                        if let matched = try matchInTableOrder(set, old: Rows(oldSource, on: old, pair: pair, side: 0),
                                                               new: Rows(newSource, on: new, pair: pair, side: 1), entity: entity) {
                            entity = matched.entity
                            entity.unchanged += pair?.identical ?? 0
                            changes += matched.sortedChanges()
                            return
                        }
                    }
                    break
                } catch is TableRecords.Unreadable where fromFiles {
                    // A page not as SQLite's file format says: read again through SQL, which says what is wrong.
                    fromFiles = false
                }
            }
        } catch is Rows.LinkNotARowID {
            // A link holding text or bytes: joined, as SQLite compares them, in key order.
        }
        var merged = SetChanges(set, entity: entity, sorting: false)
        try mergeInKeyOrder(old: Rows(set.query(columns: { oldColumns.tables[$0] }).map(Rows.Source.query), on: old),
                            new: Rows(set.query(columns: { newColumns.tables[$0] }).map(Rows.Source.query), on: new), into: &merged)
        entity = merged.entity
        changes += merged.changes
    }

    /// Of `targets`, those whose keys `store` can give by row id: a table it has, of at most
    /// `Rows.lookupLimit` rows, whose linked column holds integers only (Core Data's Z_PK, a
    /// plain layout's id); a link to a text key, say, is joined.
    private static func lookupTargets(_ targets: Set<ComparedSet.LinkTarget>, in store: SQLiteConnection,
                                      _ columns: Columns) throws -> Set<ComparedSet.LinkTarget> {
        try targets.filter { target in
            guard columns.tables[target.table]?.contains(target.rowID) == true else { return false }
            let found = try store.rows("SELECT count(*), total(typeof(x) <> 'integer') FROM (SELECT \(SQL.quote(target.rowID)) AS x "
                                       + "FROM \(SQL.quote(target.table)) LIMIT \(Rows.lookupLimit + 1))")
            guard case .integer(let rows) = found.first?[0], case .double(let others) = found.first?[1] else { return false }
            return rows <= Rows.lookupLimit && others == 0
        }
    }

    /// Both stores' rows in table order, side by side: a row whose key the other side's current
    /// row has is compared at once, another waits for its match. Nil when more rows wait than
    /// `waitingLimit` allows (the order of the two tables differs too much).
    private func matchInTableOrder(_ set: ComparedSet, old oldRows: consuming Rows, new newRows: consuming Rows,
                                   entity: StoreChanges.Entity) throws -> SetChanges? {
        // Each side's reading thread ends before its store may close.
        defer { oldRows.stop(); newRows.stop() }
        var merged = SetChanges(set, entity: entity, sorting: true)
        var waitingOld = Waiting(keyCount: merged.keyCount), waitingNew = Waiting(keyCount: merged.keyCount)
        var a = try oldRows.next(), b = try newRows.next()
        while a != nil || b != nil {
            if let x = a, let y = b, merged.sameKey(x, y) {
                merged.compare(x, y)
                (a, b) = (try oldRows.next(), try newRows.next())
                continue
            }
            if let x = a {
                if let match = waitingNew.take(x) {
                    merged.compare(x, match)
                } else if b == nil {
                    merged.removed(x)  // the new store has no more rows to match it
                } else {
                    waitingOld.add(x)
                }
                a = try oldRows.next()
            }
            if let y = b {
                if let match = waitingOld.take(y) {
                    merged.compare(match, y)
                } else if a == nil {  // nor the old store
                    merged.added(y)
                } else {
                    waitingNew.add(y)
                }
                b = try newRows.next()
            }
            if waitingOld.bytes + waitingNew.bytes > waitingLimit { return nil }
        }
        for row in waitingOld.rows { merged.removed(row) }
        for row in waitingNew.rows { merged.added(row) }
        return merged
    }

    /// Both stores' rows sorted by key, merged: a key on one side only is added or removed, a key
    /// on both is compared field by field.
    private func mergeInKeyOrder(old oldRows: consuming Rows, new newRows: consuming Rows, into merged: inout SetChanges) throws {
        defer { oldRows.stop(); newRows.stop() }
        var a = try oldRows.next(), b = try newRows.next()
        while a != nil || b != nil {
            let order: Int
            if let a, let b { order = merged.keyOrder(a, b) } else { order = a == nil ? 1 : -1 }
            if order < 0, let row = a {
                merged.removed(row)
                a = try oldRows.next()
            } else if order > 0, let row = b {
                merged.added(row)
                b = try newRows.next()
            } else if let before = a, let after = b {
                merged.compare(before, after)
                (a, b) = (try oldRows.next(), try newRows.next())
            }
        }
    }

    /// One set's counts and changes as its rows are matched.
    private struct SetChanges {
        let set: ComparedSet
        let all: [ComparedSet.Field]
        /// The fields records are matched by: the key, else the whole row.
        let keyCount: Int
        var entity: StoreChanges.Entity
        var changes: [StoreChanges.Change] = []
        /// Each change's key, kept to put the changes in key order at the end; nil when they come in it.
        private var keys: RawRows?

        init(_ set: ComparedSet, entity: StoreChanges.Entity, sorting: Bool) {
            self.set = set
            self.entity = entity
            all = set.key + set.fields
            keyCount = set.key.isEmpty ? set.fields.count : set.key.count
            keys = sorting ? RawRows(width: keyCount) : nil
        }

        func keyOrder(_ a: Row, _ b: Row) -> Int {
            for field in 0..<keyCount {
                let order = a.rows.compare(a.index, field, with: b.rows, b.index, field)
                if order != 0 { return order }
            }
            return 0
        }

        func sameKey(_ a: Row, _ b: Row) -> Bool { keyOrder(a, b) == 0 }

        mutating func removed(_ row: Row) {
            entity.removed += 1
            record(.init(kind: .removed, entity: set.name, key: keyText(row), fields: []), row)
        }

        mutating func added(_ row: Row) {
            entity.added += 1
            record(.init(kind: .added, entity: set.name, key: keyText(row), fields: []), row)
        }

        /// The same record in both stores: changed where a field differs.
        mutating func compare(_ before: Row, _ after: Row) {
            // Nearly every record of a store written again is as it was: its fields the same bytes.
            if before.rows.sameBytes(before.index, as: after.rows, after.index, fields: set.key.count..<all.count) {
                entity.unchanged += 1
                return
            }
            var fields: [StoreChanges.Change.Field] = []
            // Field by field in place: a value is made only where it differs.
            for offset in set.key.count..<all.count
            where before.rows.compare(before.index, offset, with: after.rows, after.index, offset) != 0 {
                let field = all[offset]
                let old = before.rows.value(before.index, offset), new = after.rows.value(after.index, offset)
                // The same records in another order: said as such, the lists kept for --json.
                let reordered = field.list == .ordered
                    && ComparedSet.elements(of: old).sorted() == ComparedSet.elements(of: new).sorted()
                fields.append(.init(name: field.name, old: StoreComparison.display(old, as: field),
                                    new: StoreComparison.display(new, as: field), reordered: reordered ? true : nil))
            }
            if fields.isEmpty {
                entity.unchanged += 1
            } else {
                entity.changed += 1
                record(.init(kind: .changed, entity: set.name, key: keyText(after), fields: fields), after)
            }
        }

        /// The changes in key order (stable: records of one key stay in the order they were found).
        func sortedChanges() -> [StoreChanges.Change] {
            guard let keys else { return changes }
            let order = changes.indices.sorted { i, j in
                for field in 0..<keyCount {
                    let order = keys.compare(i, field, with: keys, j, field)
                    if order != 0 { return order < 0 }
                }
                return i < j
            }
            return order.map { changes[$0] }
        }

        private mutating func record(_ change: StoreChanges.Change, _ row: Row) {
            changes.append(change)
            keys?.append(row.rows, row: row.index)
        }

        private func keyText(_ row: Row) -> String {
            let fields = set.key.isEmpty ? set.fields : set.key
            return fields.indices.map { "\(fields[$0].name)=\(StoreComparison.display(row.rows.value(row.index, $0), as: fields[$0]))" }
                .joined(separator: ", ")
        }
    }

    /// Rows read in table order that wait for their match from the other store, by key (several
    /// of one key in the order they came, for a store whose keys repeat).
    private struct Waiting {
        private struct Key: Hashable {
            let row: Row
            let keyCount: Int
            let hash: Int

            init(_ row: Row, keyCount: Int) {
                self.row = row
                self.keyCount = keyCount
                var hasher = Hasher()
                row.rows.hash(row.index, fields: 0..<keyCount, into: &hasher)
                hash = hasher.finalize()
            }

            static func == (a: Key, b: Key) -> Bool {
                a.hash == b.hash && (0..<a.keyCount).allSatisfy { a.row.rows.compare(a.row.index, $0, with: b.row.rows, b.row.index, $0) == 0 }
            }

            func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        }

        let keyCount: Int
        private var byKey: [Key: [Row]] = [:]
        /// About what the waiting rows take in memory.
        private(set) var bytes = 0

        init(keyCount: Int) { self.keyCount = keyCount }

        /// The rows still waiting.
        var rows: [Row] { byKey.values.flatMap { $0 } }

        /// Keeps a copy of `row` (its batch is read over) until its match comes.
        mutating func add(_ row: Row) {
            let copy = RawRows(width: row.rows.width, bytes: row.rows.byteCount(ofRow: row.index))
            copy.append(row.rows, row: row.index)
            let kept = Row(rows: copy, index: 0)
            byKey[Key(kept, keyCount: keyCount), default: []].append(kept)
            bytes += copy.byteCount + Self.overhead
        }

        /// The first waiting row with `row`'s key, no longer waiting.
        mutating func take(_ row: Row) -> Row? {
            guard !byKey.isEmpty else { return nil }
            let key = Key(row, keyCount: keyCount)
            guard var found = byKey[key], !found.isEmpty else { return nil }
            let first = found.removeFirst()
            if found.isEmpty { byKey[key] = nil } else { byKey[key] = found }
            bytes -= first.rows.byteCount + Self.overhead
            return first
        }

        /// A row's copy, its field starts and its place in the table, besides its values.
        private static let overhead = 160
    }

    fileprivate static func display(_ value: Value, as field: ComparedSet.Field) -> String {
        if field.list != nil { return "[" + ComparedSet.elements(of: value).joined(separator: ", ") + "]" }
        // The value, not Core Data's marker: a file's name stands for what its file holds.
        if field.external, case .binary(let stored) = value, let decoded = CoreDataExternalData.decode(stored) {
            switch decoded {
            case .inline(let bytes): return Value.binary(bytes).displayText
            case .external(let name): return "<bytes in _EXTERNAL_DATA/\(name)>"
            }
        }
        return field.type.map { StoredValue.displayText(value, as: $0) } ?? value.displayText
    }

    /// Each table's columns in one store.
    private struct Columns {
        var tables: [String: Set<String>] = [:]

        init(_ store: SQLiteConnection) throws {
            for row in try store.rows("SELECT m.name, p.name FROM sqlite_master AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table'") {
                guard case .text(let table) = row[0], case .text(let column) = row[1] else { continue }
                tables[table, default: []].insert(column)
            }
        }
    }

    /// A row of a batch.
    private struct Row {
        let rows: RawRows
        let index: Int
    }

    /// The rows of one query, one at a time; none when the store lacks the table.
    ///
    /// Where there are cores for it, read ahead a batch at a time on a thread of their own, so
    /// that both stores are read (and, for a table SQLite sorts, sorted) side by side while the
    /// merge compares: the distinct job's 950,000 items at 1M took 2.0 s to compare on one thread.
    /// The thread alone uses the statement (and its connection) until its batch is taken, and
    /// hands them over after it (`SQLiteStatement.handOver()`). (One thread reading a store
    /// throughout, batches queued, measured the same: a batch of 4,096 rows takes milliseconds,
    /// starting its thread microseconds.)
    private struct Rows: ~Copyable {
        private let reader: Reader?
        private var batch: RawRows?
        /// The batch before `batch`, read over once nothing holds a row of it (one core only).
        private var spare: RawRows?
        private var index = 0
        private var ahead: WorkerThread<RawRows>?

        /// The most rows of a table whose keys are looked up rather than joined (`LookedUpLink`).
        static let lookupLimit: Int64 = 65_536

        /// A looked-up link held text or bytes, which SQLite would compare with the row ids by
        /// its own rules: the rows are matched again, joined.
        struct LinkNotARowID: Error {}

        /// Where a set's rows are read from: a query, or the table's file.
        enum Source {
            case query(sql: String, links: [ComparedSet.LookedUpLink])
            case records(TableRecords, links: [ComparedSet.LookedUpLink])

            /// The rows of `set` in `store`'s table order: from its file where `fromFile` and
            /// `TableRecords` reads that table, else by query; nil where the store lacks the table.
            init?(_ set: ComparedSet, in store: SQLiteConnection, _ tables: [String: Set<String>],
                  lookingUp targets: Set<ComparedSet.LinkTarget>, fromFile: Bool) throws {
                if fromFile, let (fields, links) = set.recordFields(columns: { tables[$0] }, lookingUp: targets.contains) {
                    do {
                        self = .records(try TableRecords(store, table: set.table, fields: fields, filter: set.filter), links: links)
                        return
                    } catch is TableRecords.Unreadable {
                        // Read by query instead.
                    }
                }
                guard let query = set.query(columns: { tables[$0] }, ordered: false, lookingUp: targets.contains) else { return nil }
                self = .query(sql: query.sql, links: query.links)
            }

            var links: [ComparedSet.LookedUpLink] {
                switch self {
                case .query(_, let links), .records(_, let links): links
                }
            }
        }

        /// `pair`: where both tables are read side by side, this one's `side` of it (0 old, 1 new).
        init(_ source: Source?, on store: SQLiteConnection, pair: Pair? = nil, side: Int = 0) throws {
            reader = try source.map { source in
                if let pair { return Reader(.paired(pair, side: side), lookups: pair.lookups[side]) }
                let lookups = try Self.lookups(source.links, in: store)
                switch source {
                case .query(let sql, _): return Reader(.statement(try store.prepare(sql)), lookups: lookups)
                case .records(let records, _): return Reader(.records(records), lookups: lookups)
                }
            }
            if Cores.usable > 1, let reader {
                reader.handOver()
                ahead = WorkerThread { _ in try reader.readHandingOver() }
            }
        }

        /// For each looked-up link, by field: the keys of the table it names. Each table's keys are
        /// read once, however many links name it (by the same columns).
        private static func lookups(_ links: [ComparedSet.LookedUpLink], in store: SQLiteConnection) throws -> [Int: RawRows.Lookup] {
            var keys: [[String]: RawRows.Lookup] = [:]
            var lookups: [Int: RawRows.Lookup] = [:]
            for link in links {
                let columns = [link.table, link.rowID, link.keyColumn]
                let tableKeys = try keys[columns] ?? Self.keys(link, in: store)
                keys[columns] = tableKeys
                lookups[link.column] = tableKeys
            }
            return lookups
        }

        /// Both stores' tables read side by side, a record of each at a time: a store written again
        /// from much the same input holds nearly every record as the same bytes, which are the
        /// same fields, so the pair is counted as unchanged without being read field by field
        /// (the distinct job's 950,000 items: see docs/benchmarks.md). The others are read into
        /// each side's batches, for `matchInTableOrder` as from two tables read apart.
        ///
        /// Only where the same bytes are the same values in both: each table read from its file,
        /// with the same columns in the same places and affinities, and each link's keys by the
        /// same row ids in both stores; a pair holding a row id whose key differs (a unit added
        /// to the new store) is read as two records. Read on whichever side's thread asks first.
        final class Pair: @unchecked Sendable {
            private let tables: [TableRecords]
            /// Each side's lookups, by field.
            let lookups: [[Int: RawRows.Lookup]]
            private let fieldLookups: [[RawRows.Lookup?]]
            /// By looked-up field, the row ids the two stores' keys differ for.
            private let vetting: [Int: Set<Int64>]
            /// More row ids keyed otherwise than this: the tables are read apart.
            private static let vettingLimit = 4096
            /// Each side's rows read while the other side asked, not yet taken.
            private var pending: [RawRows?] = [nil, nil]
            /// Each side's empty rows to read into, the next time the other side asks.
            private var spare: [RawRows?] = [nil, nil]
            /// The pairs of the same bytes so far.
            private(set) var identical = 0
            private let lock = NSLock()

            /// Nil where either table is read by query, or the same bytes may not be the same values.
            init?(_ old: Source, on oldStore: SQLiteConnection, _ new: Source, on newStore: SQLiteConnection) throws {
                guard case .records(let oldRecords, let oldLinks) = old, case .records(let newRecords, let newLinks) = new,
                      oldLinks == newLinks, oldRecords.decodesLike(newRecords) else { return nil }
                let oldLookups = try Rows.lookups(oldLinks, in: oldStore), newLookups = try Rows.lookups(newLinks, in: newStore)
                var vetting: [Int: Set<Int64>] = [:]
                for (field, keys) in oldLookups {
                    guard let other = newLookups[field], let differing = keys.rowIDsKeyedOtherwise(in: other, limit: Self.vettingLimit) else {
                        return nil
                    }
                    if !differing.isEmpty { vetting[field] = differing }
                }
                self.vetting = vetting
                tables = [oldRecords, newRecords]
                lookups = [oldLookups, newLookups]
                fieldLookups = lookups.map { lookups in lookups.isEmpty ? [] : (0..<oldRecords.width).map { lookups[$0] } }
            }

            func width(_ side: Int) -> Int { tables[side].width }

            /// Side `side`'s next rows: those read for it before, else up to `limit` rows (or
            /// `byteLimit` bytes) more into `rows` (empty), fewer at its table's end. False where
            /// a looked-up field holds text or bytes.
            func read(_ side: Int, into rows: inout RawRows, limit: Int, byteLimit: Int) throws -> Bool {
                lock.lock()
                defer { lock.unlock() }
                if let waiting = pending[side] {
                    pending[side] = nil
                    if waiting.count > 0 {
                        spare[side] = rows
                        rows = waiting
                        return true
                    }
                    spare[side] = waiting
                }
                let other = side == 0 ? 1 : 0
                let theirs = pending[other] ?? spare[other] ?? RawRows(width: tables[other].width, rows: limit, bytes: 128 * limit)
                spare[other] = nil
                defer { pending[other] = theirs }
                var identical = 0
                defer { self.identical += identical }
                return try tables[side].readSkippingIdentical(tables[other], into: rows, theirs, limit: limit, byteLimit: byteLimit,
                                                              lookups: fieldLookups[side], fieldLookups[other], vetting: vetting,
                                                              identical: &identical)
            }

            /// Whether side `side` has given its last row.
            func isDone(_ side: Int) -> Bool {
                lock.lock()
                defer { lock.unlock() }
                return tables[side].isDone && (pending[side]?.count ?? 0) == 0
            }
        }

        /// The key of each row of the table a link names, by row id.
        private static func keys(_ link: ComparedSet.LookedUpLink, in store: SQLiteConnection) throws -> RawRows.Lookup {
            let statement = try store.prepare("SELECT \(SQL.quote(link.keyColumn)), \(SQL.quote(link.rowID)) FROM \(SQL.quote(link.table))")
            let keys = RawRows(width: 1)
            var rowIDs: [Int64] = []
            while try statement.step() {
                guard case .integer(let rowID) = statement.value(at: 1) else { continue }
                keys.append(statement)
                rowIDs.append(rowID)
            }
            return RawRows.Lookup(keys: keys, rowIDs: rowIDs)
        }

        mutating func next() throws -> Row? {
            guard let reader else { return nil }
            if index == batch?.count ?? 0 {
                if let ahead {
                    self.ahead = nil
                    batch = try ahead.result()
                    if !reader.isDone { self.ahead = WorkerThread { _ in try reader.readHandingOver() } }
                } else {
                    // One core, or past the end: read here. The caller may still hold a row of
                    // `batch`, never one of the batch before it.
                    var reused = spare
                    spare = batch
                    if !isKnownUniquelyReferenced(&reused) { reused = nil }
                    batch = try reader.read(into: reused)
                }
                index = 0
            }
            guard let batch, index < batch.count else { return nil }
            defer { index += 1 }
            return Row(rows: batch, index: index)
        }

        /// Waits for the batch being read, if any: the store may close after this.
        mutating func stop() {
            ahead?.cancel()
            ahead = nil
        }

        /// The statement (or table file), read by one thread at a time: the one waiting for it does not touch it.
        private final class Reader: @unchecked Sendable {
            enum Input {
                case statement(SQLiteStatement)
                case records(TableRecords)
                case paired(Pair, side: Int)
            }

            /// On one core a batch is compared as soon as it is read: a small one is still in
            /// the cache then (the distinct job's 950,000 items, both stores on one core: see
            /// docs/benchmarks.md). Where a thread reads ahead, a batch takes milliseconds.
            let batchSize = Cores.usable > 1 ? 4096 : 256
            /// A batch ends sooner where its values pass this many bytes: a store of photos
            /// kept in their rows holds megabytes a row, and four batches are in memory at once.
            static let batchBytes = 8 << 20
            let input: Input
            let width: Int
            /// Whether the statement has given its last row; read after its batch is taken.
            private(set) var isDone = false
            private var lastBytes = 256 << 10

            /// For each column (or none): the keys its row ids stand for.
            let lookups: [RawRows.Lookup?]

            init(_ input: Input, lookups: [Int: RawRows.Lookup]) {
                self.input = input
                switch input {
                case .statement(let statement): width = Int(statement.columnCount)
                case .records(let records): width = records.width
                case .paired(let pair, let side): width = pair.width(side)
                }
                self.lookups = lookups.isEmpty ? [] : (0..<width).map { lookups[$0] }
            }

            /// Lets another thread use the statement's connection next (a table file needs none).
            func handOver() {
                if case .statement(let statement) = input { statement.handOver() }
            }

            /// `read()` on a thread of its own, handing the statement over after: the next batch
            /// may be read on another thread.
            func readHandingOver() throws -> RawRows {
                defer { handOver() }
                return try read()
            }

            /// Up to `batchSize` more rows (fewer at the end, or past `batchBytes`), into `reused`
            /// (emptied first) where given.
            func read(into reused: RawRows? = nil) throws -> RawRows {
                // Room for about as many bytes as the last batch took: a buffer grown three times a
                // batch is copied three times.
                var rows = reused ?? RawRows(width: width, rows: batchSize, bytes: lastBytes + lastBytes / 8)
                rows.removeAll()
                defer { lastBytes = max(rows.byteCount, 4096) }
                switch input {
                case .records(let records):
                    guard try records.read(into: rows, limit: batchSize, byteLimit: Self.batchBytes, lookups: lookups) else {
                        throw LinkNotARowID()
                    }
                    isDone = records.isDone
                case .paired(let pair, let side):
                    guard try pair.read(side, into: &rows, limit: batchSize, byteLimit: Self.batchBytes) else {
                        throw LinkNotARowID()
                    }
                    isDone = pair.isDone(side)
                case .statement(let statement):
                    while !isDone, rows.count < batchSize, rows.byteCount < Self.batchBytes {
                        guard try statement.step() else {
                            isDone = true
                            break
                        }
                        guard rows.append(statement, lookups: lookups) else { throw LinkNotARowID() }
                    }
                }
                return rows
            }
        }
    }

    /// At most this many bytes of rows wait for their match in table order before the rows are
    /// matched in key order instead: a few records moved or added in the input keep far fewer
    /// waiting, two tables in unrelated orders would keep one of them whole.
    var waitingLimit = 32 << 20

    /// Whether tables are read from their files where `TableRecords` can (else always through
    /// SQL): tests compare the two.
    var readsTableFiles = true
}
