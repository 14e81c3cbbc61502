import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesJSON

@Suite("JSON errors")
struct JSONErrorTests {
    @Test func emptyFile() {
        #expect(JSONTest.failure("") == "data/items.json:1:1: error: json: the file is empty")
        #expect(JSONTest.failure(" \n\t ") == "data/items.json:1:1: error: json: the file is empty")
    }

    @Test func truncatedFile() {
        #expect(JSONTest.failure("[{\"name\": \"Milk\"},\n {\"name\": \"Eg") == """
            data/items.json:2:11: error: json: the string that starts here is never closed (the file ends inside it)
            """)
        #expect(JSONTest.failure("[{\"name\": \"Milk\"}") == """
            data/items.json:1:18: error: json: expected ',' or ']' after an array element, found the end of the file
            """)
        #expect(JSONTest.failure("[{\"name\": \"Milk\"") == """
            data/items.json:1:17: error: json: expected ',' or '}' after an object member, found the end of the file
            """)
        #expect(JSONTest.failure("[{\"name\": tru") == """
            data/items.json:1:11: error: json: expected 'true' (JSON literals are true, false and null, in lower case)
            """)
    }

    @Test func trailingGarbageByte() {
        #expect(JSONTest.failure("[{\"name\": \"Milk\"}]\n x") == """
            data/items.json:2:2: error: json: trailing data after the JSON value: found 'x'
            """)
        #expect(JSONTest.failure([UInt8]("[]".utf8) + [0x00]) == """
            data/items.json:1:3: error: json: trailing data after the JSON value: found a control character (U+0000)
            """)
    }

    @Test func trailingCommas() {
        #expect(JSONTest.failure("[{\"name\": \"Milk\"},\n]") == """
            data/items.json:1:18: error: json: a comma after the last element of an array (JSON allows no trailing comma)
            """)
        #expect(JSONTest.failure("[{\"name\": \"Milk\", }]") == """
            data/items.json:1:17: error: json: a comma after the last member of an object (JSON allows no trailing comma)
            """)
    }

    @Test func missingSeparators() {
        #expect(JSONTest.failure("[{\"name\": \"Milk\"} {\"name\": \"Eggs\"}]") == """
            data/items.json:1:19: error: json: expected ',' or ']' after an array element, found '{'
            """)
        #expect(JSONTest.failure("[{\"name\" \"Milk\"}]") == """
            data/items.json:1:10: error: json: expected ':' after the key "name", found '"'
            """)
        #expect(JSONTest.failure("[{name: 1}]") == """
            data/items.json:1:3: error: json: expected a key (a string in double quotes), found 'n'
            """)
        #expect(JSONTest.failure("[{'name': 1}]") == """
            data/items.json:1:3: error: json: expected a key (a string in double quotes), found a single quote (JSON strings take double quotes)
            """)
        #expect(JSONTest.failure("[// note\n{}]") == """
            data/items.json:1:2: error: json: expected a value (a string, number, object, array, true, false or null), \
            found '/' (JSON allows no comments)
            """)
    }

    @Test func badNumbers() {
        #expect(JSONTest.failure("[{\"q\": 012}]") == "data/items.json:1:8: error: json: a number cannot start with 0 followed by more digits")
        #expect(JSONTest.failure("[{\"q\": 1.}]") == "data/items.json:1:10: error: json: expected a digit after the decimal point, found '}'")
        #expect(JSONTest.failure("[{\"q\": 1e+}]") == "data/items.json:1:11: error: json: expected a digit in the exponent, found '}'")
        #expect(JSONTest.failure("[{\"q\": -x}]") == "data/items.json:1:9: error: json: expected a digit after '-', found 'x'")
        #expect(JSONTest.failure("[{\"q\": .5}]") == """
            data/items.json:1:8: error: json: expected a value (a string, number, object, array, true, false or null), found '.'
            """)
    }

    @Test func badStrings() {
        #expect(JSONTest.failure("[{\"name\": \"a\tb\"}]") == """
            data/items.json:1:13: error: json: a control character (U+0009) inside a string must be escaped
            """)
        #expect(JSONTest.failure("[{\"name\": \"Milk\n\"}]") == """
            data/items.json:1:16: error: json: a line break inside a string (write it as \\n, or close the string that starts at 1:11)
            """)
        #expect(JSONTest.failure(#"[{"name": "a\x"}]"#) == """
            data/items.json:1:13: error: json: invalid escape \\x in a string (JSON has \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX)
            """)
        #expect(JSONTest.failure(#"[{"name": "\u12G4"}]"#) == """
            data/items.json:1:12: error: json: \\u must be followed by four hexadecimal digits
            """)
        #expect(JSONTest.failure(#"[{"name": "\uD83C!"}]"#) == """
            data/items.json:1:12: error: json: \\uD83C is the first half of a surrogate pair and must be followed by a \
            \\uDC00-\\uDFFF escape
            """)
        #expect(JSONTest.failure(#"[{"name": "\uDF4E"}]"#) == """
            data/items.json:1:12: error: json: \\uDF4E is the second half of a surrogate pair without a first half
            """)
    }

    @Test func invalidUTF8() {
        // Windows-1252 "é" in a string; then a truncated sequence; then an overlong encoding and a UTF-16 surrogate.
        let message = "error: json: invalid UTF-8 (a malformed sequence starting with byte 0x%@); JSON files must be UTF-8"
        func expected(_ column: Int, _ byte: String) -> String {
            "data/items.json:1:\(column): " + message.replacingOccurrences(of: "%@", with: byte)
        }
        #expect(JSONTest.failure(Array("[{\"name\": \"Caf".utf8) + [0xE9] + Array("\"}]".utf8)) == expected(15, "E9"))
        #expect(JSONTest.failure(Array("[{\"name\": \"é".utf8) + [0xE2, 0x82] + Array("\"}]".utf8)) == expected(13, "E2"))
        #expect(JSONTest.failure(Array("[{\"name\": \"".utf8) + [0xC0, 0xAF] + Array("\"}]".utf8)) == expected(12, "C0"))
        #expect(JSONTest.failure(Array("[{\"name\": \"".utf8) + [0xED, 0xA0, 0x80] + Array("\"}]".utf8)) == expected(12, "ED"))
        #expect(JSONTest.failure(Array("[".utf8) + [0xFF]) == """
            data/items.json:1:2: error: json: expected a value (a string, number, object, array, true, false or null), \
            found the byte 0xFF (not valid UTF-8)
            """)
    }

    @Test func deepNesting() {
        let deep = "[{\"name\": " + String(repeating: "[", count: 510) + String(repeating: "]", count: 510) + "}]"
        #expect(JSONTest.failure(deep) == nil)
        let tooDeep = "[{\"name\": " + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}]"
        #expect(JSONTest.failure(tooDeep) == "data/items.json:1:521: error: json: an array nested deeper than 512 levels")
        // Far deeper than the stack would allow if nesting were not bounded.
        #expect(JSONTest.failure(String(repeating: "[", count: 100_000)) == "data/items.json:1:513: error: json: an array nested deeper than 512 levels")
    }

    @Test func topLevelNotAnArray() {
        #expect(JSONTest.failure("{\"data\": {\"items\": []}}") == """
            data/items.json:1:1: error: json: the top level is an object, not an array of records: set 'records:' to the \
            dotted path of the array of records inside it (such as records: data.items)
            """)
        #expect(JSONTest.failure("\n  \"Milk\"") == "data/items.json:2:3: error: json: the top level is a string, not an array of records")
    }

    @Test func recordsPathThatLeadsNowhere() {
        let text = "{\"data\": {\"itens\": [], \"count\": 3}}"
        #expect(JSONTest.failure(text, records: "data.items") == """
            data/items.json:1:10: error: json: records: 'data' has no key 'items'; did you mean 'itens'?
            """)
        #expect(JSONTest.failure(text, records: "data.count") == "data/items.json:1:33: error: json: records: 'data.count' is a number, not an array of records")
        #expect(JSONTest.failure(text, records: "dat.items") == """
            data/items.json:1:1: error: json: records: the top-level object has no key 'dat'; did you mean 'data'?
            """)
        #expect(JSONTest.failure("[]", records: "data.items") == """
            data/items.json:1:1: error: json: records: 'data.items' names an array inside an object, but the top level is an array
            """)
        #expect(JSONTest.failure("{\"data\": {\"items\": []}} {}", records: "data.items") == """
            data/items.json:1:25: error: json: trailing data after the JSON value: found '{'
            """)
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
            #expect(JSONTest.failure(text, chunkSize: chunkSize) == expected, "\(text)")
        }
    }

    @Test func malformedFieldNames() throws {
        let at = Location(file: "p.yaml", line: 4, column: 20)
        let node = ConfigNode(.mapping([
            (ConfigNode(.scalar("json"), at: at), ConfigNode(.scalar("items.json"), at: at)),
            (ConfigNode(.scalar("records"), at: at), ConfigNode(.scalar("data..items"), at: at)),
        ]), at: at)
        let options = try Pipeline.Options(node, spec: JSONReaderKind().spec, ignoring: ["json"])
        #expect(throws: PipelineError.self) { try JSONReaderKind().validate(options) }
        do {
            try JSONReaderKind().validate(options)
        } catch {
            #expect("\(error)" == "p.yaml:4:20: error: json: 'data..items' has an empty part between dots "
                    + "(write a.b to reach the key b inside a)")
        }
        #expect(JSONTest.failure("[]", fields: ["unit."]) == "data/items.json: error: json: the field name 'unit.' has an empty part between dots")
    }
}
