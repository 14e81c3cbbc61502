import Foundation
import Pipeline
import SinksSQLite
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

@Suite("SQLiteStore: reading a store")
struct SQLiteStoreTests {
    @Test("rows and scalars by storage class")
    func reading() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: target, [])
            let store = try SQLiteStore(readingAt: target)
            #expect(try store.rows("SELECT 1, 2.5, 'text', x'00ff', NULL") == [[.integer(1), .double(2.5), .text("text"), .binary([0, 255]), .null]])
            #expect(try store.scalar("SELECT count(*) FROM Item") == .integer(0))
            #expect(try store.scalar("SELECT name FROM Item") == nil)
            #expect(try store.rows("SELECT name FROM Item").isEmpty)
        }
    }

    @Test("errors name the file or the SQL")
    func errors() throws {
        try withScratchFolder { folder in
            let target = folder.appendingPathComponent("store.sqlite")
            try buildStore(at: target, [])
            let store = try SQLiteStore(readingAt: target)
            let table = pipelineError { _ = try store.rows("SELECT * FROM Nope") }
            expectError(table, .sqliteFailed, at: nil)
            #expect(table?.message == "cannot prepare SQL: no such table: Nope; SQL: SELECT * FROM Nope")
            let two = pipelineError { _ = try store.rows("SELECT 1; SELECT 2") }
            expectError(two, .sqliteFailed, at: nil)
            #expect(two?.message.hasSuffix("; SQL: SELECT 1; SELECT 2") == true)
            let write = pipelineError { _ = try store.rows("DELETE FROM Item") }
            expectError(write, .sqliteFailed, at: nil)
            #expect(write?.message.hasSuffix("; SQL: DELETE FROM Item") == true)

            let missing = folder.appendingPathComponent("missing.sqlite")
            let open = pipelineError { _ = try SQLiteStore(readingAt: missing) }
            expectError(open, .sqliteCannotOpen, at: nil)
            #expect(open?.message.contains("'\(missing.path)'") == true)
            let text = folder.appendingPathComponent("notes.txt")
            try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: text)
            let notStore = pipelineError { _ = try SQLiteStore(readingAt: text) }
            expectError(notStore, .sqliteNotADatabase, at: nil)
            #expect(notStore?.message.contains("'\(text.path)'") == true)
        }
    }
}
