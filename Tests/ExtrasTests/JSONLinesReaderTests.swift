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

    func failure(_ text: String) -> String? {
        do {
            _ = try JSONTest.readLines(text, fields: ["name"])
            return nil
        } catch {
            return (error as? PipelineError)?.description ?? "unexpected error: \(error)"
        }
    }

    @Test func badLineFailsWithItsPosition() {
        #expect(failure("{\"name\": \"Milk\"}\n{\"name\": \"Eggs\",}\n") == """
            data/items.jsonl:2:16: error: jsonl: a comma after the last member of an object (JSON allows no trailing comma)
            """)
        #expect(failure("{\"name\": \"Milk\"}\n{\"name\": \n\"Eggs\"}\n") == """
            data/items.jsonl:2:10: error: jsonl: expected a value after ':', found the end of the line
            """)
        #expect(failure("{\"name\": \"Milk\"} {\"name\": \"Eggs\"}\n") == """
            data/items.jsonl:1:18: error: jsonl: expected the end of the line after the JSON value (JSON Lines holds one \
            value per line), found '{'
            """)
        #expect(failure("{\"name\": \"Milk\"\n") == """
            data/items.jsonl:1:16: error: jsonl: expected ',' or '}' after an object member, found the end of the line
            """)
    }
}
