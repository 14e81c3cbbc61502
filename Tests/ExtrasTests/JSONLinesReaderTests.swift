import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesJSON

@Suite("JSON Lines reader")
struct JSONLinesReaderTests {
    @Test(arguments: [3, 128 * 1024])
    func objectsOnePerLineBlankLinesSkipped(chunkSize: Int) throws {
        let text = "\u{FEFF}{\"name\": \"Milk\", \"quantity\": 1.50, \"unit\": {\"name\": \"l\"}}\r\n\n   \n"
            + "  {\"name\": \"Crème 🍮\", \"quantity\": 2}\n[1, 2]\n{\"name\": null}"
        let result = try JSONTest.readLines(text, fields: ["name", "quantity", "unit.name"], chunkSize: chunkSize)
        #expect(result.rows == [
            [.text("Milk"), .text("1.50"), .text("l")],
            [.text("Crème 🍮"), .text("2"), .null],
            [.null, .null, .null],
        ])
        #expect(result.records.map(\.location) == [
            Location(file: "data/items.jsonl", line: 1, column: 1),
            Location(file: "data/items.jsonl", line: 4, column: 3),
            Location(file: "data/items.jsonl", line: 6, column: 1),
        ])
        #expect(result.rejections.map(\.description) == [
            "data/items.jsonl:5:1: rejected: jsonl: the line holds an array, not an object",
        ])
    }

    @Test func emptyFileHasNoRecords() throws {
        #expect(try JSONTest.readLines("", fields: ["name"]).records.isEmpty)
        #expect(try JSONTest.readLines("\n\n", fields: ["name"]).records.isEmpty)
    }

    func failure(_ text: String) -> PipelineError? {
        do {
            _ = try JSONTest.readLines(text, fields: ["name"])
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }

    @Test func badLineFailsWithItsPosition() {
        expectError(failure("{\"name\": \"Milk\"}\n{\"name\": \"Eggs\",}\n"), .jsonTrailingComma, at: "data/items.jsonl:2:16")
        let split = failure("{\"name\": \"Milk\"}\n{\"name\": \n\"Eggs\"}\n")
        expectError(split, .jsonUnexpectedToken, at: "data/items.jsonl:2:10")
        // A line break ends a JSON Lines value, and the message says so.
        #expect(split?.message == "expected a value after ':', found the end of the line")
        expectError(failure("{\"name\": \"Milk\"} {\"name\": \"Eggs\"}\n"), .jsonUnexpectedToken, at: "data/items.jsonl:1:18")
        expectError(failure("{\"name\": \"Milk\"\n"), .jsonUnexpectedToken, at: "data/items.jsonl:1:16")
    }
}
