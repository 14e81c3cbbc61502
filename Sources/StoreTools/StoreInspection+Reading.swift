import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
import CoreDataFormat
import PropertyLists
import SQLite

extension StoreInspection {
    static func settings(of store: SQLiteStore) throws -> Settings {
        Settings(pageSize: integer(try store.scalar("PRAGMA page_size")) ?? 0,
                 journalMode: try store.scalar("PRAGMA journal_mode")?.displayText ?? "",
                 autoVacuum: integer(try store.scalar("PRAGMA auto_vacuum")) ?? 0,
                 encoding: try store.scalar("PRAGMA encoding")?.displayText ?? "")
    }

    /// The database's own tables, by name (SQLite's internal ones left out).
    static func tableNames(in store: SQLiteStore) throws -> [String] {
        try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .map { $0[0].displayText }
    }

    /// One entry per table with its row count.
    static func tableRows(in store: SQLiteStore, tables: [String]) throws -> [EntityRows] {
        try tables.map { table in
            EntityRows(name: table, table: table, rows: integer(try store.scalar("SELECT count(*) FROM \(SQL.quote(table))")))
        }
    }

    /// The entities of Z_PRIMARYKEY, each counted in its root's table (`Z` + root name upper-cased):
    /// by `Z_ENT` where the table holds a whole hierarchy.
    static func coreDataEntities(in store: SQLiteStore, tables: [String]) throws -> [EntityRows] {
        let list = CoreDataEntityList(rows: try store.rows(CoreDataEntityList.query))
        let parents = Set(list.entries.values.map(\.parent))
        var tableByName: [String: String] = [:]
        for table in tables { tableByName[table.uppercased()] = table }

        return try list.numbers.compactMap { number in
            guard let entry = list.entries[number] else { return nil }
            let root = list.root(of: number)
            // Core Data's history entities keep their rows in `A` + name (ACHANGE).
            let prefix = CoreDataStoreFormat.historyEntityNumbers.contains(number) ? "A" : "Z"
            let table = tableByName[prefix + (list.entries[root]?.name ?? entry.name).uppercased()]
            var count: Int64?
            if let table {
                let shared = parents.contains(root)
                count = integer(try store.scalar("SELECT count(*) FROM \(SQL.quote(table))"
                                                     + (shared ? " WHERE Z_ENT = \(number)" : "")))
            }
            return EntityRows(name: entry.name, number: number,
                              parent: entry.parent == 0 ? nil : list.entries[entry.parent]?.name ?? "#\(entry.parent)",
                              table: table, rows: count, maxPrimaryKey: entry.max)
        }
    }

    /// The tables named `Z_<entity number><NAME>` (Core Data's join tables), each with the
    /// entities its `Z_<n>...` columns hold and its row count.
    static func coreDataJoinTables(in store: SQLiteStore, tables: [String], entities: [EntityRows]) throws -> [JoinTable] {
        var names: [Int64: String] = [:]
        for entity in entities { if let number = entity.number { names[number] = entity.name } }
        return try tables.filter { CoreDataEntityList.entityNumber(inName: $0) != nil }.map { table in
            let columns = try store.rows("SELECT name FROM pragma_table_info(\(SQL.literal(table))) ORDER BY cid").map { $0[0].displayText }
            let sides = columns.compactMap { column in CoreDataEntityList.entityNumber(inName: column).map { names[$0] ?? "#\($0)" } }
            return JoinTable(table: table, entities: sides, rows: integer(try store.scalar("SELECT count(*) FROM \(SQL.quote(table))")))
        }
    }

    /// Z_METADATA's row: Core Data keeps exactly one.
    static func coreDataMetadata(in store: SQLiteStore, name: String) throws -> Metadata {
        guard let row = try store.rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1").first else {
            return .coreData(version: nil, uuid: nil, plist: nil)
        }
        let uuid: String? = row[1] == .null ? nil : row[1].displayText
        let bytes: [UInt8]
        switch row[2] {
        case .binary(let blob): bytes = blob
        // Core Data writes a blob; a plist stored as text by another tool is read all the same.
        case .text(let text): bytes = Array(text.utf8)
        default: return .coreData(version: integer(row[0]), uuid: uuid, plist: nil)
        }
        let plist: BinaryPropertyList.Object
        do {
            plist = try BinaryPropertyList.decode(Data(bytes))
        } catch let error as BinaryPropertyList.BudgetError {
            throw PipelineError(.invalidInput, code: .inspectInvalidMetadata, at: Location(file: name), stage: "inspect",
                                "Z_METADATA's Z_PLIST: \(error)")
        } catch {
            throw PipelineError(.invalidInput, code: .inspectInvalidMetadata, at: Location(file: name), stage: "inspect",
                                "Z_METADATA's Z_PLIST (\(bytes.count) bytes) is not a property list; Core Data cannot open this store")
        }
        guard case .dictionary(let dictionary) = plist else {
            throw PipelineError(.invalidInput, code: .inspectInvalidMetadata, at: Location(file: name), stage: "inspect",
                                "Z_METADATA's Z_PLIST is not a dictionary; Core Data cannot open this store")
        }
        return .coreData(version: integer(row[0]), uuid: uuid, plist: dictionary)
    }

    /// An integer column, whatever storage class a foreign writer gave it.
    static func integer(_ value: Value?) -> Int64? {
        switch value {
        case .integer(let i): i
        case .double(let d) where d.rounded() == d && abs(d) < 9e18: Int64(d)
        case .text(let s): Int64(s)
        default: nil
        }
    }
}
