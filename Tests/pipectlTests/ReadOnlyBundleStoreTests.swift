import Foundation
import Pipeline
import Testing
import SQLite

/// TN2350's read-only bundle store (issue 37): the store pipectl writes opens read-only where an
/// app bundle keeps it, as one file in a rollback journal mode, so that nothing needs writing
/// beside it (a WAL store needs its -shm, which a read-only folder cannot hold).
@Suite struct ReadOnlyBundleStoreTests {
    @Test("the Core Data store opens with SQLITE_OPEN_READONLY in a read-only folder: one file, journal mode delete, queries work")
    func opensReadOnly() throws {
        let ws = try Workspace()
        let run = try ws.run("run", "-q", "pipelines/grocery.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let bundle = ws.root.appendingPathComponent("App.app")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let store = bundle.appendingPathComponent("Grocery.sqlite")
        try FileManager.default.copyItem(at: ws.build.appendingPathComponent("Grocery.sqlite"), to: store)
        // The file format bytes: 1 and 1, a rollback-journal database (2 and 2 would be WAL).
        let header = try [UInt8](Data(contentsOf: store).prefix(20))
        #expect(header[18] == 1 && header[19] == 1, "\(header[18]) \(header[19])")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: bundle.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bundle.path) }

        // sqlite3_open_v2(path, SQLITE_OPEN_READONLY): not immutable, so it locks and reads as an app's would.
        let connection = try SQLiteConnection(path: store.path, readOnly: true)
        #expect(try connection.rows("PRAGMA journal_mode") == [[.text("delete")]])
        #expect(try connection.rows("SELECT count(*) FROM ZITEM WHERE ZNAME = 'Pale ale'") == [[.integer(1)]])
        #expect(try connection.rows("SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'") == [[.text("Item")]])
        #expect(throws: SQLiteError.self) { try connection.execute("DELETE FROM ZITEM") }
        try connection.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle.path) == ["Grocery.sqlite"])
    }
}
