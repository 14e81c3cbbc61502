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
            #expect(pipelineError { _ = try store.rows("SELECT * FROM Nope") }
                        == "error: sqlite: cannot prepare SQL: no such table: Nope; SQL: SELECT * FROM Nope")
            #expect(pipelineError { _ = try store.rows("SELECT 1; SELECT 2") }
                        == "error: sqlite: cannot prepare SQL: it holds more than one statement; SQL: SELECT 1; SELECT 2")
            #expect(pipelineError { _ = try store.rows("DELETE FROM Item") }
                        == "error: sqlite: SQL failed: attempt to write a readonly database; SQL: DELETE FROM Item")

            let missing = folder.appendingPathComponent("missing.sqlite")
            #expect(pipelineError { _ = try SQLiteStore(readingAt: missing) }
                        == "error: sqlite: cannot open '\(missing.path)': unable to open database file")
            let text = folder.appendingPathComponent("notes.txt")
            try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: text)
            #expect(pipelineError { _ = try SQLiteStore(readingAt: text) }
                        == "error: sqlite: '\(text.path)' is not a readable SQLite store: file is not a database")
        }
    }
}
