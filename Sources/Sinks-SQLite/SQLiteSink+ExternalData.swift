import CoreDataFormat
import Diagnostics
import Foundation
import Pipeline
import SQLite

extension SQLiteSink {
    /// Moves the values of Binary attributes that allow external storage and are larger than
    /// `CoreDataExternalData.threshold` out of the store into files in `staging`, leaving Core
    /// Data's reference in the column. Runs once every row is final (after an update's removals),
    /// so that no file is written for a value the store no longer holds. Returns the names of the
    /// files; nil when no column allows external storage (nothing is then read).
    static func moveOutLargeValues(of tables: [EntityTable?], in connection: SQLiteConnection, to staging: URL) throws -> Set<String>? {
        let columns = tables.compactMap { $0 }.flatMap { table in
            table.columns.filter { if case .externalBinary = $0.storage { true } else { false } }.map { (table: table, column: $0.name) }
        }
        guard !columns.isEmpty else { return nil }
        var names = Set<String>()
        for (table, column) in columns {
            let (t, c, id) = (SQL.quote(table.name), SQL.quote(column), SQL.quote(table.rowID))
            // The rows first, then one value at a time: never every large value in memory.
            let large = try connection.rows("SELECT \(id) FROM \(t) WHERE length(\(c)) > \(CoreDataExternalData.threshold + 1) ORDER BY \(id)")
            guard !large.isEmpty else { continue }
            let read = try connection.prepare("SELECT \(c) FROM \(t) WHERE \(id) = ?1")
            let update = try connection.prepare("UPDATE \(t) SET \(c) = ?1 WHERE \(id) = ?2")
            for case .integer(let row)? in large.map(\.first) {
                try read.bind(.integer(row), at: 1)
                defer { read.reset() }
                guard try read.step(), case .binary(let stored) = read.value(at: 0),
                      case .inline(let bytes)? = CoreDataExternalData.decode(stored) else { continue }
                let name = CoreDataExternalData.fileName(table: table.name, column: column, row: row, bytes: bytes)
                try writeFile(bytes, to: staging.appendingPathComponent(name))
                names.insert(name)
                try update.bind(.binary(CoreDataExternalData.reference(name)), at: 1)
                try update.bind(.integer(row), at: 2)
                try update.run()
            }
        }
        return names
    }

    private static func writeFile(_ bytes: [UInt8], to url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        } catch {
            throw PipelineError(.io, code: .storeExternalDataFailed, stage: "sqlite",
                                "cannot write the external data file '\(url.path)': \(SystemErrorWords.words(for: error))")
        }
    }
}
