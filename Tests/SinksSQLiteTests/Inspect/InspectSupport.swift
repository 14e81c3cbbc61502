import Foundation
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

/// Writes SQLite files the way other tools do, for `StoreInspection` to read.
enum RawSQLite {
    /// Runs `statements` in order on the database at `url` (created when missing).
    static func run(_ statements: [String], at url: URL) throws {
        let connection = try SQLiteConnection(path: url.path, readOnly: false)
        for sql in statements { try connection.execute(sql) }
        try connection.close()
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
