import CSQLite
import Foundation

/// Writes SQLite files the way other tools do, for `StoreInspection` to read.
enum RawSQLite {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `statements` in order on the database at `url` (created when missing).
    static func run(_ statements: [String], at url: URL) throws {
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else {
            sqlite3_close(db)
            throw Failure(description: "cannot open \(url.path)")
        }
        defer { sqlite3_close(db) }
        for sql in statements {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw Failure(description: "\(String(cString: sqlite3_errmsg(db))) in \(sql)")
            }
        }
    }

    /// `X'...'`: bytes as a SQL blob literal.
    static func blob(_ data: Data) -> String {
        "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
    }

    /// A Core Data store's Z_PLIST as Foundation writes it (binary), from the case's facts.
    static func corePlist(hashes: [String: String], frameworkVersion: Int, extra: [String: Any] = [:]) throws -> Data {
        var plist: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSStoreModelVersionHashes": hashes.mapValues { Data(base64Encoded: $0) ?? Data() },
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionIdentifiers": [""],
            "NSPersistenceFrameworkVersion": frameworkVersion,
            "_NSAutoVacuumLevel": "2",
        ]
        plist.merge(extra) { $1 }
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }
}
