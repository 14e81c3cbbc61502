import Foundation
import Pipeline
import Testing
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

/// The row checks' single pass over a table is skipped where the record headers show every value
/// clean (`StoreRowChecks.certainlyClean`); anything else is left to the pass, which finds it.
@Suite("StoreRowChecks: a clean table read from its record headers")
struct RowChecksFromHeadersTests {
    /// One entity with a value of each kind a header can vouch for.
    static let model = StoreModel(entities: [
        Entity(name: "Flag", attributes: [
            Attribute(name: "name", type: .string, isOptional: false),
            Attribute(name: "on", type: .bool),
            Attribute(name: "count", type: .integer16),
            Attribute(name: "id", type: .uuid),
            Attribute(name: "when", type: .date),
            Attribute(name: "price", type: .decimal),
            Attribute(name: "weight", type: .double),
        ]),
    ])

    /// The findings after `changes` to a clean store, and whether the pass over ZFLAG was skipped.
    static func check(after changes: [String]) throws -> (findings: [StoreRowChecks.Finding], fromHeaders: Bool) {
        try check(model, table: "ZFLAG", maxPrimaryKeys: ["Flag": 10], rows: [
            "INSERT INTO ZFLAG (Z_PK, Z_ENT, Z_OPT, ZNAME, ZON, ZCOUNT, ZID, ZWHEN, ZPRICE, ZWEIGHT) VALUES "
                + "(1, 1, 1, 'Milk', 1, 32767, x'00112233445566778899AABBCCDDEEFF', 12.5, 3, 0.5), "
                + "(2, 1, 1, 'Bread', 0, -32768, NULL, 86400, '12345678901234567890.5', 2), "
                + "(3, 1, 1, 'Eggs', NULL, NULL, NULL, NULL, NULL, NULL)",
        ] + changes)
    }

    /// A store of `model` holding `rows`, its row checks' findings, and whether `table` was read
    /// from its headers alone.
    static func check(_ model: StoreModel, table: String, maxPrimaryKeys: [String: Int64],
                      rows: [String]) throws -> (findings: [StoreRowChecks.Finding], fromHeaders: Bool) {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            let schema = try CoreDataSchema(model)
            var statements = schema.statements()
            statements += schema.primaryKeyRows(maxPrimaryKeys: maxPrimaryKeys).map { row in
                "INSERT INTO Z_PRIMARYKEY VALUES (\(row.entity), '\(row.name)', \(row.superEntity), \(row.max))"
            }
            try RawSQLite.run(statements + rows, at: url)
            let tables = Tables()
            let findings = try StoreRowChecks.$readFromHeaders.withValue({ tables.add($0) }) {
                try StoreRowChecks.run(storeAt: url, model: model)
            }
            return (findings, tables.names.contains(table))
        }
    }

    final class Tables: @unchecked Sendable {
        private let lock = NSLock()
        private var added: [String] = []
        func add(_ name: String) { lock.withLock { added.append(name) } }
        var names: [String] { lock.withLock { added } }
    }

    @Test("a clean table is read from its headers alone")
    func clean() throws {
        let (findings, fromHeaders) = try Self.check(after: [])
        #expect(findings == [])
        #expect(fromHeaders)
    }

    @Test("a value the headers cannot vouch for goes to the pass, which finds what is wrong", arguments: [
        ("UPDATE ZFLAG SET ZON = 2 WHERE Z_PK = 1", "on", 1),
        ("UPDATE ZFLAG SET ZON = 'yes' WHERE Z_PK = 1", "on", 1),
        ("UPDATE ZFLAG SET ZCOUNT = 32768 WHERE Z_PK = 1", "count", 1),
        ("UPDATE ZFLAG SET ZCOUNT = -32769 WHERE Z_PK = 1", "count", 1),
        ("UPDATE ZFLAG SET ZID = x'0011' WHERE Z_PK = 1", "id", 1),
        ("UPDATE ZFLAG SET ZID = 'text' WHERE Z_PK = 1", "id", 1),
        ("UPDATE ZFLAG SET ZWHEN = 'yesterday' WHERE Z_PK = 2", "when", 1),
        ("UPDATE ZFLAG SET ZPRICE = x'01' WHERE Z_PK = 2", "price", 1),
        ("UPDATE ZFLAG SET ZWEIGHT = 'heavy'", "weight", 3),
        ("UPDATE ZFLAG SET ZNAME = NULL WHERE Z_PK = 3", "name", 1),
        ("UPDATE ZFLAG SET ZNAME = x'00' WHERE Z_PK = 3", "name", 1),
        ("UPDATE ZFLAG SET Z_ENT = 2 WHERE Z_PK = 3", "Z_ENT", 1),
    ] as [(String, String, Int)])
    func offending(_ change: String, _ property: String, _ count: Int) throws {
        let (findings, fromHeaders) = try Self.check(after: [change])
        #expect(!fromHeaders)
        #expect(findings.map(\.property) == [property], "\(findings)")
        #expect(findings.first?.count == count)
    }

    @Test("a value the pass lets through but the headers do not vouch for is left to the pass")
    func passedByThePass() throws {
        // A real in an Integer 16's column: the rules leave it (it is no class or range they name).
        let (findings, fromHeaders) = try Self.check(after: ["UPDATE ZFLAG SET ZCOUNT = 2.5 WHERE Z_PK = 1"])
        #expect(!fromHeaders)
        #expect(findings == [])
    }

    /// `rightClass` says of every stored value what `wrongClass` says, in a column of each type
    /// Core Data declares: the headers' answer is SQLite's.
    @Test("the class a header vouches for is the class the SQL condition passes", arguments: [
        ("INTEGER", ["integer"], false), ("FLOAT", ["real"], false), ("TIMESTAMP", ["real", "integer"], false),
        ("DECIMAL", ["integer", "real", "text"], false), ("VARCHAR", ["text"], true), ("", ["text"], false),
        ("BLOB", ["blob"], false),
    ] as [(String, [String], Bool)])
    func classes(_ declared: String, _ allowed: [String], _ textAffinity: Bool) throws {
        let values = ["NULL", "0", "1", "-7", "1099511627776", "0.5", "2.0", "1e300", "'abc'", "''", "'12'", "x''", "x'00ff'"]
        try withScratchFolder { folder in
            for (index, value) in values.enumerated() {
                let url = folder.appendingPathComponent("\(index).sqlite")
                try RawSQLite.run(["CREATE TABLE t (c \(declared))", "INSERT INTO t VALUES (\(value))"], at: url)
                let store = try SQLiteStore(readingAt: url)
                let offends = try store.scalar("SELECT count(*) FROM t WHERE \(StoreRowChecks.wrongClass("c", allowed: allowed, textAffinity: textAffinity))")
                let clean = try store.records(of: "t", fields: [.column("c")])
                    .everyRecord(holds: [StoreRowChecks.rightClass(allowed: allowed, textAffinity: textAffinity)])
                #expect(clean == (offends == .integer(0)), "\(value) in a \(declared) column")
            }
        }
    }

    /// A table two entities share: Recipe requires its name, which Step's rows leave NULL.
    static let shared = StoreModel(entities: [
        Entity(name: "Entry", isAbstract: true, attributes: [Attribute(name: "note", type: .string)]),
        Entity(name: "Recipe", parent: "Entry", attributes: [
            Attribute(name: "name", type: .string, isOptional: false),
            Attribute(name: "servings", type: .integer16),
        ]),
        Entity(name: "Step", parent: "Entry", attributes: [Attribute(name: "text", type: .string)]),
    ])

    static func checkShared(after changes: [String]) throws -> (findings: [StoreRowChecks.Finding], fromHeaders: Bool) {
        func entity(_ name: String) -> String { "(SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(name)')" }
        return try check(shared, table: "ZENTRY", maxPrimaryKeys: ["Entry": 10], rows: [
            "INSERT INTO ZENTRY (Z_PK, Z_ENT, Z_OPT, ZNOTE, ZNAME, ZSERVINGS, ZTEXT) VALUES "
                + "(1, \(entity("Recipe")), 1, NULL, 'Soup', 4, NULL), (2, \(entity("Recipe")), 1, 'quick', 'Bread', NULL, NULL), "
                + "(3, \(entity("Step")), 1, NULL, NULL, NULL, 'Boil'), (4, \(entity("Step")), 1, NULL, NULL, NULL, NULL)",
        ] + changes)
    }

    @Test("a table two entities share is read from its headers, each row held to its own entity's rules")
    func sharedTable() throws {
        let clean = try Self.checkShared(after: [])
        #expect(clean.findings == [])
        #expect(clean.fromHeaders)
        // A Step's name is no Recipe's: NULL there is as Core Data writes it.
        let stepName = try Self.checkShared(after: ["UPDATE ZENTRY SET ZNAME = 'Boil' WHERE Z_PK = 3"])
        #expect(stepName.findings == [])
        #expect(stepName.fromHeaders)
        let missing = try Self.checkShared(after: ["UPDATE ZENTRY SET ZNAME = NULL WHERE Z_PK = 2"])
        #expect(!missing.fromHeaders)
        #expect(missing.findings.map(\.property) == ["name"])
        #expect(missing.findings.first?.isMissingRequired == true)
        let servings = try Self.checkShared(after: ["UPDATE ZENTRY SET ZSERVINGS = 40000 WHERE Z_PK = 1"])
        #expect(!servings.fromHeaders)
        #expect(servings.findings.map(\.property) == ["servings"])
    }

    @Test("two rules of a column let through only what both do")
    func intersection() {
        let numbers = TableRecords.StoredValues(null: true, integers: Int64.min...Int64.max, reals: true)
        let boolean = TableRecords.StoredValues(null: true, integers: 0...1)
        #expect(numbers.intersection(boolean) == boolean)
        let uuid = TableRecords.StoredValues(null: true, blobs: true, blobLength: 16)
        #expect(TableRecords.StoredValues(null: true, blobs: true).intersection(uuid) == uuid)
        #expect(uuid.intersection(TableRecords.StoredValues(blobs: true, blobLength: 8)).blobs == false)
        #expect(boolean.intersection(TableRecords.StoredValues(integers: 2...3)).integers == nil)
    }
}
