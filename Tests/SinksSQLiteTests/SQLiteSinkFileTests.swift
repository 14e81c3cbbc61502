import Foundation
import Pipeline
import SinksSQLite
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("SQLite sink: the store file")
struct SQLiteSinkFileTests {
    static let records = [
        Grocery.item("Milk", quantity: 2, added: 700_000_000, unit: "l", home: "Fridge", line: 2),
        Grocery.item("Juice", unit: "l", shop: "3", line: 3),
        Grocery.item("Milk", quantity: 3, line: 4),
        Grocery.item("", line: 5),
    ]
    static let metadata: [(key: String, value: Value)] = [("DefaultDataImported", .bool(true))]

    @Test("the same inputs give a byte-identical store")
    func reproducible() throws {
        try withScratchFolder { folder in
            let first = folder.appendingPathComponent("a/store.sqlite")
            let second = folder.appendingPathComponent("b/store.sqlite")
            try buildStore(at: first, metadata: Self.metadata, Self.records, onDuplicate: .update)
            try buildStore(at: second, metadata: Self.metadata, Self.records, onDuplicate: .update)
            let bytes = try Data(contentsOf: first)
            #expect(bytes.count > 0)
            #expect(bytes == (try Data(contentsOf: second)))
            // Rebuilding over an existing store gives the same bytes again.
            try buildStore(at: first, metadata: Self.metadata, Self.records, onDuplicate: .update)
            #expect(bytes == (try Data(contentsOf: first)))
        }
    }

    @Test("the finished store is a single file in journal mode DELETE")
    func singleFile() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            // A WAL left beside an earlier store would be replayed into the new one: it must go.
            try Data("stale".utf8).write(to: folder.appendingPathComponent("store.sqlite-wal"))
            try Data("stale".utf8).write(to: folder.appendingPathComponent("store.sqlite-shm"))
            try buildStore(at: target, Self.records)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["store.sqlite"])
            let header = try [UInt8](Data(contentsOf: target).prefix(20))
            // File format write/read versions: 1 is a rollback journal, 2 would be WAL.
            #expect(header[18] == 1 && header[19] == 1)
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.scalar("PRAGMA journal_mode") == .text("delete"))
            #expect(try store.scalar("PRAGMA integrity_check") == .text("ok"))
            #expect(try store.rows("PRAGMA foreign_key_check").isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["store.sqlite"])
        }
    }

    @Test("a WAL holding changes beside the old store stops the publish and leaves the old store and its WAL as they were")
    func walInUseKeepsTheOldStore() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            // An app has the old store open in WAL mode, with a change not yet checkpointed.
            let app = try SQLiteConnection(path: target.path, readOnly: false)
            _ = try app.rows("PRAGMA journal_mode=WAL")
            try app.execute("PRAGMA wal_autocheckpoint=0")
            try app.execute("CREATE TABLE note (text TEXT); INSERT INTO note VALUES ('kept')")
            let wal = target.path + "-wal"
            let before = try (Data(contentsOf: target), Data(contentsOf: URL(fileURLWithPath: wal)))
            #expect(before.1.count > 32)
            let error = pipelineError { try buildStore(at: target, Self.records) }
            #expect(error?.code == .storeInUse, "\(String(describing: error))")
            #expect(error?.message.hasPrefix("'\(wal)' beside the store holds changes not yet in it") == true, "\(String(describing: error))")
            #expect(try Data(contentsOf: target) == before.0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: wal)) == before.1)
            #expect(try app.rows("SELECT text FROM note") == [[.text("kept")]])
            try app.close()
        }
    }

    @Test("the store is built beside the target and appears only when finished")
    func builtAside() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("nested/deeper/store.sqlite")
            let sink = try SQLiteSink(settings: StoreSettings(path: target), model: Grocery.model)
            let building = SQLiteSink.buildingURL(for: target)
            #expect(building.path == folder.appendingPathComponent("nested/deeper/.store.sqlite.pipectl-building-\(getpid())").standardizedFileURL.path)
            let log = Grocery.log()
            for record in Self.records { try sink.write(record, onDuplicate: .keep, log: log) }
            #expect(FileManager.default.fileExists(atPath: building.path))
            #expect(!FileManager.default.fileExists(atPath: target.path))
            try sink.finish(log: log)
            #expect(!FileManager.default.fileExists(atPath: building.path))
            #expect(try SQLiteStore(readingAt: target).scalar("SELECT count(*) FROM Item") == .integer(2))
            let finished = pipelineError { try sink.finish(log: log) }
            expectError(finished, .storeNotBuilding, at: nil)
            #expect(finished?.message == "the store '\(target.standardizedFileURL.path)' was already finished")
            expectError(pipelineError { try sink.write(Self.records[0], onDuplicate: .keep, log: log) }, .storeNotBuilding, at: nil)
        }
    }

    @Test("discard leaves the previous store byte for byte and removes the temporary file")
    func discardKeepsPrevious() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: target, Self.records)
            let before = try Data(contentsOf: target)

            let sink = try SQLiteSink(settings: StoreSettings(path: target), model: Grocery.model)
            let log = Grocery.log()
            try sink.write(Grocery.item("Bread", line: 2), onDuplicate: .keep, log: log)
            sink.discard()
            #expect(try Data(contentsOf: target) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["store.sqlite"])
            sink.discard()  // a second discard does nothing
            let discarded = pipelineError { try sink.finish(log: log) }
            expectError(discarded, .storeNotBuilding, at: nil)
            #expect(discarded?.message.hasSuffix("was already discarded") == true)

            // Dropping an unfinished sink is a discard.
            do {
                let dropped = try SQLiteSink(settings: StoreSettings(path: target), model: Grocery.model)
                try dropped.write(Grocery.item("Butter", line: 2), onDuplicate: .keep, log: log)
            }
            #expect(try Data(contentsOf: target) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["store.sqlite"])
        }
    }

    @Test("a run after a killed run removes its leftover temporary files")
    func leftoverFromKilledRun() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            // Another process's: every run's building file has its own name.
            let building = folder.appendingPathComponent(".store.sqlite.pipectl-building-99999")
            try Data("half a store".utf8).write(to: building)
            try Data("half a journal".utf8).write(to: URL(fileURLWithPath: building.path + "-journal"))
            try Data("99999\n".utf8).write(to: SQLiteSink.lockURL(for: target))
            try buildStore(at: target, Self.records)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["store.sqlite"])
            #expect(try SQLiteStore(readingAt: target).scalar("SELECT count(*) FROM Item") == .integer(2))
        }
    }

    @Test("a target inside a read-only folder is a clear error", .enabled(if: geteuid() != 0, "root ignores permissions"))
    func readOnlyFolder() throws {
        try withScratchFolder { folder in
            let locked = folder.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
            let target = locked.appendingPathComponent("store.sqlite")
            let error = pipelineError { _ = try SQLiteSink(settings: StoreSettings(path: target, location: storeEntry), model: Grocery.model) }
            expectError(error, .storeFolderNotWritable, at: "grocery.yaml:4:3")
            #expect(error?.message == "cannot write the store '\(target.path)': the folder '\(locked.path)' is not writable (Permission denied)")
        }
    }

    @Test("a target that is a folder is a clear error")
    func targetIsFolder() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
            let error = pipelineError { _ = try SQLiteSink(settings: StoreSettings(path: target, location: storeEntry), model: Grocery.model) }
            expectError(error, .storePathIsAFolder, at: "grocery.yaml:4:3")
        }
    }

    @Test("a target whose folder is a file is a clear error")
    func folderIsFile() throws {
        try withScratchFolder { folder in
            let file = folder.appendingPathComponent("build")
            try Data().write(to: file)
            let target = file.appendingPathComponent("store.sqlite")
            let error = pipelineError { _ = try SQLiteSink(settings: StoreSettings(path: target, location: storeEntry), model: Grocery.model) }
            expectError(error, .storeParentNotAFolder, at: "grocery.yaml:4:3")
            #expect(error?.message == "cannot write the store '\(target.path)': '\(file.path)' is not a folder")
        }
    }
}
