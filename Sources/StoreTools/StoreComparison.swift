import Foundation
import Diagnostics
import Pipeline
import ReportsXLSX
import SinksSQLite
import CoreDataFormat
import SQLite

/// Compares two stores record by record: each entity's rows are read from both in key order and
/// merged, so memory stays flat however large the stores are (only the changes are kept).
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

    /// Walks both row streams in key order: a key on one side only is added or removed, a key on
    /// both is compared field by field.
    private func merge(_ set: ComparedSet, old: SQLiteConnection, _ oldColumns: Columns,
                       new: SQLiteConnection, _ newColumns: Columns,
                       into entity: inout StoreChanges.Entity, changes: inout [StoreChanges.Change]) throws {
        let keyCount = set.key.isEmpty ? set.fields.count : set.key.count
        // Each side's reading thread ends before its store may close.
        var oldRows = try Rows(set.query(columns: { oldColumns.tables[$0] }), on: old)
        defer { oldRows.stop() }
        var newRows = try Rows(set.query(columns: { newColumns.tables[$0] }), on: new)
        defer { newRows.stop() }
        let keyFields = set.key.isEmpty ? set.fields : set.key
        func keyText(_ row: [Value]) -> String {
            keyFields.indices.map { "\(keyFields[$0].name)=\(display(row[$0], as: keyFields[$0]))" }.joined(separator: ", ")
        }
        var a = try oldRows.next(), b = try newRows.next()
        let all = set.key + set.fields
        while a != nil || b != nil {
            let order: Int
            if let a, let b { order = StoreComparison.compare(a.prefix(keyCount), b.prefix(keyCount)) } else { order = a == nil ? 1 : -1 }
            if order < 0, let row = a {
                entity.removed += 1
                changes.append(.init(kind: .removed, entity: set.name, key: keyText(row), fields: []))
                a = try oldRows.next()
            } else if order > 0, let row = b {
                entity.added += 1
                changes.append(.init(kind: .added, entity: set.name, key: keyText(row), fields: []))
                b = try newRows.next()
            } else if let before = a, let after = b {
                var fields: [StoreChanges.Change.Field] = []
                // By offset: a field is copied only when it differs.
                for offset in set.key.count..<all.count where StoreComparison.compare(before[offset], after[offset]) != 0 {
                    let field = all[offset]
                    // The same records in another order: said as such, the lists kept for --json.
                    let reordered = field.list == .ordered
                        && ComparedSet.elements(of: before[offset]).sorted() == ComparedSet.elements(of: after[offset]).sorted()
                    fields.append(.init(name: field.name, old: display(before[offset], as: field),
                                        new: display(after[offset], as: field), reordered: reordered ? true : nil))
                }
                if fields.isEmpty {
                    entity.unchanged += 1
                } else {
                    entity.changed += 1
                    changes.append(.init(kind: .changed, entity: set.name, key: keyText(after), fields: fields))
                }
                (a, b) = (try oldRows.next(), try newRows.next())
            }
        }
    }

    private func display(_ value: Value, as field: ComparedSet.Field) -> String {
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

    /// SQLite's own order of stored values (BINARY collation): NULL, then numbers by value, then
    /// text by bytes, then blobs by bytes; the order both queries sort their rows in.
    static func compare(_ a: some Collection<Value>, _ b: some Collection<Value>) -> Int {
        for (x, y) in zip(a, b) {
            let order = compare(x, y)
            if order != 0 { return order }
        }
        return 0
    }

    static func compare(_ a: Value, _ b: Value) -> Int {
        func rank(_ value: Value) -> Int {
            switch value {
            case .null: 0
            case .integer, .double, .decimal, .bool, .date: 1
            case .text: 2
            case .binary: 3
            case .list: 4
            case .object: 5
            }
        }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y ? 0 : x < y ? -1 : 1
        case (.text(let x), .text(let y)): return bytes(x.utf8, y.utf8)
        case (.binary(let x), .binary(let y)): return bytes(x, y)
        case (.null, .null): return 0
        case (.list(let x), .list(let y)):
            for (p, q) in zip(x, y) {
                let order = compare(p, q)
                if order != 0 { return order }
            }
            return x.count == y.count ? 0 : x.count < y.count ? -1 : 1
        case (.object(let x), .object(let y)):
            return compare(.list(x.names.map(Value.text) + x.values), .list(y.names.map(Value.text) + y.values))
        default:
            let (x, y) = (a.storedNumber ?? 0, b.storedNumber ?? 0)
            return x == y ? 0 : x < y ? -1 : 1
        }
    }

    private static func bytes(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Int {
        // Native strings and arrays are contiguous: compared as memory, not a byte at a time.
        if let order = a.withContiguousStorageIfAvailable({ x in b.withContiguousStorageIfAvailable { y in memory(x, y) } }), let order {
            return order
        }
        var ia = a.makeIterator(), ib = b.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?) where x != y: return x < y ? -1 : 1
            default: continue
            }
        }
    }

    private static func memory(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let x = a.baseAddress, let y = b.baseAddress {
            let order = memcmp(x, y, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : a.count < b.count ? -1 : 1
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

    /// The rows of one query, one at a time; none when the store lacks the table.
    ///
    /// Where there are cores for it, read ahead a batch at a time on a thread of their own, so
    /// that both stores are read (and, for a table SQLite sorts, sorted) side by side while the
    /// merge compares: the distinct job's 950,000 items at 1M took 2.0 s to compare on one thread.
    /// The thread alone uses the statement (and its connection) until its batch is taken, and
    /// hands them over after it (`SQLiteStatement.handOver()`).
    private struct Rows {
        private let reader: Reader?
        private var batch: [[Value]] = []
        private var index = 0
        private var ahead: WorkerThread<[[Value]]>?

        init(_ sql: String?, on store: SQLiteConnection) throws {
            reader = try sql.map { Reader(statement: try store.prepare($0)) }
            if Cores.usable > 1, let reader {
                reader.statement.handOver()
                ahead = WorkerThread { _ in try reader.read(Reader.batchSize) }
            }
        }

        mutating func next() throws -> [Value]? {
            guard let reader else { return nil }
            if index == batch.count {
                if let ahead {
                    self.ahead = nil
                    batch = try ahead.result()
                    if !reader.isDone { self.ahead = WorkerThread { _ in try reader.read(Reader.batchSize) } }
                } else {
                    // One core, or past the end: read here.
                    batch = try reader.read(Reader.batchSize)
                }
                index = 0
                guard !batch.isEmpty else { return nil }
            }
            defer { index += 1 }
            return batch[index]
        }

        /// Waits for the batch being read, if any: the store may close after this.
        mutating func stop() {
            ahead?.cancel()
            ahead = nil
        }

        /// The statement, stepped by one thread at a time: the one waiting for it does not touch it.
        private final class Reader: @unchecked Sendable {
            static let batchSize = 4096
            /// A batch ends sooner where its values pass this many bytes: a store of photos
            /// kept in their rows holds megabytes a row, and four batches are in memory at once.
            static let batchBytes = 8 << 20
            let statement: SQLiteStatement
            let width: Int32
            /// Whether the statement has given its last row; read after its batch is taken.
            private(set) var isDone = false

            init(statement: SQLiteStatement) {
                self.statement = statement
                width = statement.columnCount
            }

            /// Up to `count` more rows (fewer at the end, or past `batchBytes`). The statement is
            /// handed over after: the next batch may be read on another thread.
            func read(_ count: Int) throws -> [[Value]] {
                defer { statement.handOver() }
                var rows: [[Value]] = []
                rows.reserveCapacity(count)
                var bytes = 0
                while !isDone, rows.count < count, bytes < Self.batchBytes {
                    guard try statement.step() else {
                        isDone = true
                        break
                    }
                    let row = (0..<width).map { statement.value(at: $0) }
                    for value in row {
                        switch value {
                        case .text(let text): bytes += text.utf8.count
                        case .binary(let data): bytes += data.count
                        default: bytes += 8
                        }
                    }
                    rows.append(row)
                }
                return rows
            }
        }
    }
}

private extension Value {
    /// The number SQLite would compare, for the numeric storage classes.
    var storedNumber: Double? {
        switch self {
        case .integer(let n): Double(n)
        case .double(let d): d
        case .date(let d): d
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }
}
