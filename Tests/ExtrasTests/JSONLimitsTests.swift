import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesJSON

/// The JSON readers' limits (strings measured decoded, numbers' digits) and the warning for a
/// key given twice in one object.
@Suite("JSON limits")
struct JSONLimitsTests {
    /// Escapes and multi-byte characters count as what they decode to, wherever a chunk ends:
    /// plain text just under the limit, then a few of them, go past it.
    @Test(arguments: [4096, 128 * 1024])
    func stringsAreMeasuredDecoded(chunkSize: Int) {
        let plain = String(repeating: "a", count: JSONParser.maxStringBytes - 10)
        // "\n" decodes to one byte, "\u00e9" and "é" to two: each string decodes to 10 bytes or more past the limit.
        for tail in [String(repeating: "\\n", count: 20), String(repeating: "\\u00e9", count: 10), String(repeating: "é", count: 10)] {
            let error = JSONTest.failure("[{\"name\": \"\(plain)\(tail)\"}]", chunkSize: chunkSize)
            #expect(error?.code == .jsonStringTooLong, "\(tail.prefix(6))")
            #expect(error?.location?.description == "data/items.json:1:11", "\(tail.prefix(6))")
        }
        // Exactly at the limit, decoded: read.
        #expect(JSONTest.failure("[{\"name\": \"\(plain)\(String(repeating: "\\t", count: 10))\"}]", chunkSize: chunkSize) == nil)
    }

    @Test func numbersHoldAtMost1024Digits() throws {
        let digits = String(repeating: "7", count: JSONParser.maxNumberLength)
        let read = try JSONTest.read("[{\"name\": -\(digits)}]", fields: ["name"])
        #expect(read.rows == [[.text("-" + digits)]])
        expectError(JSONTest.failure("[{\"name\": 1\(digits)}]", chunkSize: 100), .jsonNumberTooLong, at: "data/items.json:1:11")
        // Fraction and exponent digits count too.
        expectError(JSONTest.failure("[{\"name\": 1.\(digits)}]"), .jsonNumberTooLong, at: "data/items.json:1:11")
        expectError(JSONTest.failure("[{\"name\": 1e\(digits)5}]"), .jsonNumberTooLong, at: "data/items.json:1:11")
    }

    /// A field's lists hold at most `maxListValues` values, nested ones counted: a wrong field (a
    /// whole file's array under one key) stops the read with its place, not the memory.
    @Test func listsHoldAtMostAMillionValues() throws {
        let limit = JSONParser.maxListValues
        let within = "[" + Array(repeating: "1", count: limit - 1).joined(separator: ",") + "]"
        #expect(JSONTest.failure("[{\"tags\": \(within)}]", fields: ["tags"]) == nil)
        let nested = "[[" + Array(repeating: "1", count: limit / 2).joined(separator: ",") + "],["
            + Array(repeating: "1", count: limit / 2).joined(separator: ",") + "]]"
        // At the first value past the budget: the outer list, two inner ones and 500,000 values
        // before it leave room for 499,997 of the second list's.
        let error = JSONTest.failure("[{\"tags\": \(nested)}]", fields: ["tags"])
        #expect(error?.code == .jsonTooManyListValues)
        #expect(error?.description
                == "data/items.json:1:\(1_000_015 + 2 * 499_997): error: json: the lists in 'tags' hold more than 1,000,000 values in one record")
    }

    /// An element of 10,000 keys is read in one pass (100,000 once took 25 s: each key a walk
    /// over those before it); one of 10,001 stops at its last key's value.
    @Test func elementsHoldAtMostTenThousandKeys() throws {
        func element(_ count: Int) -> String {
            "[{\"tags\": [{" + (0..<count).map { "\"k\($0)\": \($0)" }.joined(separator: ",") + ", \"k7\": \"again\"}]}]"
        }
        let read = try JSONTest.read(element(Fields.maxNames), fields: ["tags"])
        guard case .list(let elements) = read.rows.first?.first, case .object(let fields) = elements.first else {
            Issue.record("no element read")
            return
        }
        #expect(fields.names.count == Fields.maxNames)
        #expect(fields["k7"] == .text("again") && fields["k9999"] == .text("9999"))
        let error = JSONTest.failure(element(Fields.maxNames + 1), fields: ["tags"])
        #expect(error?.code == .inputTooManyKeys)
        #expect(error?.message == "an object in 'tags' has more than 10,000 keys, more than pipectl reads")
        #expect(error?.kind == .invalidInput)
    }

    /// A key that names a field holds at most `HeaderBudget.maxNameBytes` bytes once decoded, as
    /// a CSV's or a sheet's header name does: a record's keys, an element's in `each:`, the keys
    /// `init` drafts from. A key inside a value no field reads is a string like any other.
    @Test func keysHoldAtMost1024Bytes() throws {
        let name = String(repeating: "k", count: HeaderBudget.maxNameBytes)
        #expect(try JSONTest.read("[{\"name\": \"Milk\", \"\(name)\": 1}]", fields: ["name"]).rows == [[.text("Milk")]])
        let message = "the key that starts here is longer than the 1,024 bytes pipectl reads as a field name (is a quote missing?)"
        // A record's key; one of 512 two-byte characters and an escape: 1,025 bytes decoded.
        for key in [name + "k", String(repeating: "é", count: 512) + "\\n"] {
            let error = JSONTest.failure("[{\"name\": \"Milk\",\n  \"\(key)\": 1}]")
            #expect(error?.description == "data/items.json:2:3: error: json: " + message)
            #expect(error?.code == .inputHeaderNameTooLong && error?.kind == .invalidInput)
        }
        // An element's key in a list read as objects, in JSON Lines too.
        let element = try #require(throws: PipelineError.self) {
            try JSONTest.readLines("{\"tags\": [{\"\(name)x\": 1}]}\n", fields: ["tags"])
        }
        #expect(element.description == "data/items.jsonl:1:12: error: jsonl: " + message)
        // Inside a value no field reads: skipped as a string.
        #expect(try JSONTest.read("[{\"name\": \"Milk\", \"other\": {\"\(name)xx\": 1}}]", fields: ["name"]).rows == [[.text("Milk")]])
        // What init drafts from.
        let layout = try #require(throws: PipelineError.self) {
            _ = try JSONLayout.json(JSONTest.file("items.json", "[{\"name\": \"Milk\", \"\(name)x\": 1}]"), limit: 500)
        }
        #expect(layout.description == "data/items.json:1:19: error: json: " + message)
    }

    // MARK: Keys given twice

    @Test func aKeyGivenTwiceWarnsWithBothPlacesAndTheLastValueIsKept() throws {
        let input = try JSONTest.file("items.json", """
            [
              {"name": "Milk", "unit": "l", "unit": "ml"},
              {"name": "Flour", "other": 1, "other": 2}
            ]
            """)
        let read = try JSONTest.collect(JSONReader(input: input, fields: ["name", "unit"]))
        #expect(read.rows == [[.text("Milk"), .text("ml")], [.text("Flour"), .null]])
        // Keys the pipeline does not read ("other") change nothing and are not followed.
        #expect(input.warnings.snapshot.warnings.map { "\($0.location): warning: \($0.stage): \($0.message)" } == [
            "data/items.json:2:41: warning: json: the key \"unit\" appears twice in this object (its first value is at 2:28); the last value is kept",
        ])
    }

    /// Keys count per object: the same key in two nested objects is no repeat, in one it is.
    @Test func nestedObjectsHaveTheirOwnKeys() throws {
        let input = try JSONTest.file("items.json", """
            [
              {"name": "Eggs", "unit": {"name": "pc", "name": "piece"}, "unit": {"name": "dozen"}}
            ]
            """)
        let read = try JSONTest.collect(JSONReader(input: input, fields: ["name", "unit.name"]))
        #expect(read.rows == [[.text("Eggs"), .text("dozen")]])
        #expect(input.warnings.snapshot.warnings.map { "\($0.location): \($0.message)" } == [
            "data/items.json:2:51: the key \"name\" appears twice in this object (its first value is at 2:37); the last value is kept",
            "data/items.json:2:69: the key \"unit\" appears twice in this object (its first value is at 2:28); the last value is kept",
        ])
    }

    @Test func jsonLinesWarnsToo() throws {
        let input = try JSONTest.file("items.jsonl", "{\"name\": \"Milk\"}\n{\"name\": \"Eggs\", \"name\": \"Flour\"}\n")
        let read = try JSONTest.collect(JSONLinesReader(input: input, fields: ["name"]))
        #expect(read.rows == [[.text("Milk")], [.text("Flour")]])
        #expect(input.warnings.snapshot.warnings.map { "\($0.location): \($0.message)" } == [
            "data/items.jsonl:2:26: the key \"name\" appears twice in this object (its first value is at 2:10); the last value is kept",
        ])
    }

    /// A key repeated in every record of a big file: the first hundred are kept, all are counted.
    @Test func warningsAreKeptUpToAHundred() throws {
        let input = try JSONTest.file("items.json", "[" + Array(repeating: "{\"name\": 1, \"name\": 2}", count: 500).joined(separator: ",") + "]")
        _ = try JSONTest.collect(JSONReader(input: input, fields: ["name"]))
        let (warnings, total) = input.warnings.snapshot
        #expect(warnings.count == InputWarnings.kept)
        #expect(total == 500)
    }
}
