import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesJSON

@Suite("JSON errors")
struct JSONErrorTests {
    @Test func emptyFile() {
        expectError(JSONTest.failure(""), .inputEmpty, at: "data/items.json:1:1")
        expectError(JSONTest.failure(" \n\t "), .inputEmpty, at: "data/items.json:1:1")
    }

    @Test func truncatedFile() {
        expectError(JSONTest.failure("[{\"name\": \"Milk\"},\n {\"name\": \"Eg"), .jsonUnterminatedString, at: "data/items.json:2:11")
        let element = JSONTest.failure("[{\"name\": \"Milk\"}")
        expectError(element, .jsonUnexpectedToken, at: "data/items.json:1:18")
        #expect(element?.message == "expected ',' or ']' after an array element, found the end of the file")
        expectError(JSONTest.failure("[{\"name\": \"Milk\""), .jsonUnexpectedToken, at: "data/items.json:1:17")
        let literal = JSONTest.failure("[{\"name\": tru")
        expectError(literal, .jsonInvalidLiteral, at: "data/items.json:1:11")
        #expect(literal?.message == "expected 'true' (JSON literals are true, false and null, in lower case)")
    }

    @Test func trailingGarbageByte() {
        expectError(JSONTest.failure("[{\"name\": \"Milk\"}]\n x"), .jsonTrailingData, at: "data/items.json:2:2")
        let control = JSONTest.failure([UInt8]("[]".utf8) + [0x00])
        expectError(control, .jsonTrailingData, at: "data/items.json:1:3")
        #expect(control?.message == "trailing data after the JSON value: found a control character (U+0000)")
    }

    @Test func trailingCommas() {
        let array = JSONTest.failure("[{\"name\": \"Milk\"},\n]")
        expectError(array, .jsonTrailingComma, at: "data/items.json:1:18")
        #expect(array?.message == "a comma after the last element of an array (JSON allows no trailing comma)")
        expectError(JSONTest.failure("[{\"name\": \"Milk\", }]"), .jsonTrailingComma, at: "data/items.json:1:17")
    }

    @Test func missingSeparators() {
        expectError(JSONTest.failure("[{\"name\": \"Milk\"} {\"name\": \"Eggs\"}]"), .jsonUnexpectedToken, at: "data/items.json:1:19")
        expectError(JSONTest.failure("[{\"name\" \"Milk\"}]"), .jsonUnexpectedToken, at: "data/items.json:1:10")
        expectError(JSONTest.failure("[{name: 1}]"), .jsonUnexpectedToken, at: "data/items.json:1:3")
        // The hints name what JSON allows where people reach for JavaScript's.
        let quote = JSONTest.failure("[{'name': 1}]")
        expectError(quote, .jsonUnexpectedToken, at: "data/items.json:1:3")
        #expect(quote?.message.hasSuffix("found a single quote (JSON strings take double quotes)") == true)
        let comment = JSONTest.failure("[// note\n{}]")
        expectError(comment, .jsonUnexpectedToken, at: "data/items.json:1:2")
        #expect(comment?.message.hasSuffix("found '/' (JSON allows no comments)") == true)
    }

    @Test func badNumbers() {
        let zero = JSONTest.failure("[{\"q\": 012}]")
        expectError(zero, .jsonInvalidNumber, at: "data/items.json:1:8")
        #expect(zero?.message == "a number cannot start with 0 followed by more digits")
        expectError(JSONTest.failure("[{\"q\": 1.}]"), .jsonUnexpectedToken, at: "data/items.json:1:10")
        expectError(JSONTest.failure("[{\"q\": 1e+}]"), .jsonUnexpectedToken, at: "data/items.json:1:11")
        expectError(JSONTest.failure("[{\"q\": -x}]"), .jsonUnexpectedToken, at: "data/items.json:1:9")
        expectError(JSONTest.failure("[{\"q\": .5}]"), .jsonUnexpectedToken, at: "data/items.json:1:8")
    }

    @Test func badStrings() {
        expectError(JSONTest.failure("[{\"name\": \"a\tb\"}]"), .jsonControlCharacter, at: "data/items.json:1:13")
        let lineBreak = JSONTest.failure("[{\"name\": \"Milk\n\"}]")
        expectError(lineBreak, .jsonControlCharacter, at: "data/items.json:1:16")
        #expect(lineBreak?.message == "a line break inside a string (write it as \\n, or close the string that starts at 1:11)")
        let escape = JSONTest.failure(#"[{"name": "a\x"}]"#)
        expectError(escape, .jsonInvalidEscape, at: "data/items.json:1:13")
        #expect(escape?.message == #"invalid escape \x in a string (JSON has \" \\ \/ \b \f \n \r \t and \uXXXX)"#)
        expectError(JSONTest.failure(#"[{"name": "\u12G4"}]"#), .jsonInvalidEscape, at: "data/items.json:1:12")
        let first = JSONTest.failure(#"[{"name": "\uD83C!"}]"#)
        expectError(first, .jsonUnpairedSurrogate, at: "data/items.json:1:12")
        #expect(first?.message == #"\uD83C is the first half of a surrogate pair and must be followed by a \uDC00-\uDFFF escape"#)
        expectError(JSONTest.failure(#"[{"name": "\uDF4E"}]"#), .jsonUnpairedSurrogate, at: "data/items.json:1:12")
    }

    @Test func invalidUTF8() {
        // Windows-1252 "é" in a string; then a truncated sequence; then an overlong encoding and a UTF-16 surrogate.
        expectError(JSONTest.failure(Array("[{\"name\": \"Caf".utf8) + [0xE9] + Array("\"}]".utf8)), .inputInvalidText, at: "data/items.json:1:15")
        expectError(JSONTest.failure(Array("[{\"name\": \"é".utf8) + [0xE2, 0x82] + Array("\"}]".utf8)), .inputInvalidText, at: "data/items.json:1:13")
        expectError(JSONTest.failure(Array("[{\"name\": \"".utf8) + [0xC0, 0xAF] + Array("\"}]".utf8)), .inputInvalidText, at: "data/items.json:1:12")
        let surrogate = JSONTest.failure(Array("[{\"name\": \"".utf8) + [0xED, 0xA0, 0x80] + Array("\"}]".utf8))
        expectError(surrogate, .inputInvalidText, at: "data/items.json:1:12")
        #expect(surrogate?.message.hasPrefix("invalid UTF-8 (a malformed sequence starting with byte 0xED)") == true)
        let outside = JSONTest.failure(Array("[".utf8) + [0xFF])
        expectError(outside, .jsonUnexpectedToken, at: "data/items.json:1:2")
        #expect(outside?.message.hasSuffix("found the byte 0xFF (not valid UTF-8)") == true)
    }

    @Test func deepNesting() {
        let deep = "[{\"name\": " + String(repeating: "[", count: 510) + String(repeating: "]", count: 510) + "}]"
        #expect(JSONTest.failure(deep) == nil)
        let tooDeep = "[{\"name\": " + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}]"
        expectError(JSONTest.failure(tooDeep), .jsonTooDeep, at: "data/items.json:1:521")
        // Far deeper than the stack would allow if nesting were not bounded.
        expectError(JSONTest.failure(String(repeating: "[", count: 100_000)), .jsonTooDeep, at: "data/items.json:1:513")
    }

    @Test func topLevelNotAnArray() {
        expectError(JSONTest.failure("{\"data\": {\"items\": []}}"), .jsonRecordsNotFound, at: "data/items.json:1:1")
        let string = JSONTest.failure("\n  \"Milk\"")
        expectError(string, .jsonRecordsNotFound, at: "data/items.json:2:3")
        #expect(string?.message == "the top level is a string, not an array of records")
    }

    @Test func recordsPathThatLeadsNowhere() {
        let text = "{\"data\": {\"itens\": [], \"count\": 3}}"
        let typo = JSONTest.failure(text, records: "data.items")
        expectError(typo, .jsonRecordsNotFound, at: "data/items.json:1:10")
        #expect(typo?.message == "records: 'data' has no key 'items'; did you mean 'itens'?")
        expectError(JSONTest.failure(text, records: "data.count"), .jsonRecordsNotFound, at: "data/items.json:1:33")
        expectError(JSONTest.failure(text, records: "dat.items"), .jsonRecordsNotFound, at: "data/items.json:1:1")
        expectError(JSONTest.failure("[]", records: "data.items"), .jsonRecordsNotFound, at: "data/items.json:1:1")
        expectError(JSONTest.failure("{\"data\": {\"items\": []}} {}", records: "data.items"), .jsonTrailingData, at: "data/items.json:1:25")
    }

    @Test func errorsAfterRecordsComeAfterThoseRecords() throws {
        let reader = try JSONReader(input: JSONTest.file("items.json", "[{\"name\": \"Milk\"} x"), fields: ["name"], records: nil, chunkSize: 4)
        #expect(try reader.next()?.values == [.text("Milk")])
        #expect(throws: PipelineError.self) { try reader.next() }
        #expect(throws: PipelineError.self) { try reader.next() }
    }

    /// The same bad inputs give the same messages whatever the chunk size.
    @Test(arguments: [1, 2, 3])
    func errorsDoNotDependOnChunkSize(chunkSize: Int) {
        let inputs = [
            "[{\"name\": \"Milk\"},\n {\"name\": \"Eg",
            "[{\"name\": \"Milk\"}]\n x",
            "[{\"name\": \"Milk\"},\n]",
            "[{\"q\": 1e+}]",
            "[{\"q\": 012}]",
            #"[{"name": "\uD83C!"}]"#,
            "[{\"name\": \"Crème\"} é]",
            "[{\"name\": \"Crème\" \"",
        ]
        for text in inputs {
            let expected = JSONTest.failure(text)
            #expect(expected != nil)
            let error = JSONTest.failure(text, chunkSize: chunkSize)
            #expect(error?.code == expected?.code, "\(text)")
            #expect(error?.description == expected?.description, "\(text)")
        }
    }

    @Test func malformedFieldNames() throws {
        let at = Location(file: "p.yaml", line: 4, column: 20)
        let node = ConfigNode(.mapping([
            (ConfigNode(.scalar("json"), at: at), ConfigNode(.scalar("items.json"), at: at)),
            (ConfigNode(.scalar("records"), at: at), ConfigNode(.scalar("data..items"), at: at)),
        ]), at: at)
        let options = try Pipeline.Options(node, spec: JSONReaderKind().spec, ignoring: ["json"])
        let error = #expect(throws: PipelineError.self) { try JSONReaderKind().validate(options) }
        expectError(error, .jsonInvalidFieldPath, at: "p.yaml:4:20")
        #expect(error?.message == "'data..items' has an empty part between dots (write a.b to reach the key b inside a)")
        expectError(JSONTest.failure("[]", fields: ["unit."]), .jsonInvalidFieldPath, at: "data/items.json")
    }
}
