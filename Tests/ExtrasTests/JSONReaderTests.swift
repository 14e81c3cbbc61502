import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesJSON
import PropertyLists

@Suite("JSON reader")
struct JSONReaderTests {
    static let groceryFields = ["name", "quantity", "unit", "locationathome", "locationatshop", "added"]
    static let grocery = """
        [
          {"name": "Milk", "quantity": 1.5, "unit": "l", "locationathome": "Fridge", "locationatshop": "Aisle 3: Dairy", "added": "12/04/2026"},
          {"name": "Bread", "quantity": 1, "unit": "loaf", "locationathome": "Pantry", "locationatshop": "Bakery", "added": "13/04/2026"}
        ]
        """

    @Test("eight bytes at a time: a word ends a string's plain run exactly when one of its bytes would, whatever its place")
    func wordsEndTheRunAsTheirBytesDo() {
        let plain = UInt8(ascii: "a")
        for value in 0...255 {
            let byte = UInt8(value)
            let ends = byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80
            for place in 0..<8 {
                var bytes = [UInt8](repeating: plain, count: 8)
                bytes[place] = byte
                // Below and above it, bytes that stress the borrows: the lowest and highest plain ones.
                if place > 0 { bytes[place - 1] = 0x20 }
                if place < 7 { bytes[place + 1] = 0x7F }
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(JSONParser.endsRun(word) == ends, "byte \(value) at \(place)")
            }
        }
        #expect(!JSONParser.endsRun(Array("plain ~}".utf8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
    }

    @Test func groceryShape() throws {
        let result = try JSONTest.read(Self.grocery, fields: Self.groceryFields)
        #expect(result.fieldNames == Self.groceryFields)
        #expect(result.rows == [
            [.text("Milk"), .text("1.5"), .text("l"), .text("Fridge"), .text("Aisle 3: Dairy"), .text("12/04/2026")],
            [.text("Bread"), .text("1"), .text("loaf"), .text("Pantry"), .text("Bakery"), .text("13/04/2026")],
        ])
        #expect(result.records.map(\.location) == [
            Location(file: "data/items.json", line: 2, column: 3, path: "[0]"),
            Location(file: "data/items.json", line: 3, column: 3, path: "[1]"),
        ])
        #expect(result.rejections.isEmpty)
    }

    @Test func readerKindsUseTheFieldsOption() throws {
        let input = try JSONTest.file("grocery.json", Self.grocery)
        let node = ConfigNode(.mapping([
            (ConfigNode(.scalar("json"), at: Location(file: "p.yaml")), ConfigNode(.scalar("grocery.json"), at: Location(file: "p.yaml"))),
            (ConfigNode(.scalar("fields"), at: Location(file: "p.yaml")),
             ConfigNode(.sequence([ConfigNode(.scalar("unit"), at: Location(file: "p.yaml"))]), at: Location(file: "p.yaml"))),
        ]), at: Location(file: "p.yaml"))
        let options = try Pipeline.Options(node, spec: JSONReaderKind().spec, ignoring: ["json"])
        let reader = try JSONReaderKind().makeReader(input: input, options: options, fields: ["name"])
        let result = try JSONTest.collect(reader)
        #expect(result.fieldNames == ["unit"])
        #expect(result.rows == [[.text("l")], [.text("loaf")]])
        #expect(JSONReaderKind().name == "json")
        #expect(JSONLinesReaderKind().name == "jsonl")
        #expect(PropertyListReaderKind().name == "plist")
    }

    @Test func recordsPathInsideTheTopLevelObject() throws {
        let text = """
            {"meta": {"items": [1, 2], "v": "x"}, "data": {"count": 2, "items": [{"name": "Milk"}, {"name": "Eggs"}], "after": [true]}, "end": null}
            """
        let result = try JSONTest.read(text, fields: ["name"], records: "data.items")
        #expect(result.rows == [[.text("Milk")], [.text("Eggs")]])
        #expect(result.records.map(\.location.path) == ["data.items[0]", "data.items[1]"])
        #expect(result.records.first?.location.column == 70)
    }

    @Test func nestedDottedFieldsNullAndMissingKeys() throws {
        let text = """
            [{"name": "Milk", "unit": {"name": "litre", "symbol": "l", "extra": {"deep": [1, {"x": 2}]}}, "note": null},
             {"name": "Salt", "unit": null},
             {"unit": {"symbol": "g"}}]
            """
        let result = try JSONTest.read(text, fields: ["name", "unit.name", "unit.symbol", "note"])
        #expect(result.rows == [
            [.text("Milk"), .text("litre"), .text("l"), .null],
            [.text("Salt"), .null, .null, .null],
            [.null, .null, .text("g"), .null],
        ])
    }

    @Test func numbersKeepTheirExactText() throws {
        let text = #"[{"a": 12.50, "b": 1e3, "c": -0.0, "d": 123456789012345678901234567890, "e": 2.5E-3, "f": true, "g": false}]"#
        let result = try JSONTest.read(text, fields: ["a", "b", "c", "d", "e", "f", "g"])
        #expect(result.rows == [[.text("12.50"), .text("1e3"), .text("-0.0"), .text("123456789012345678901234567890"),
                                 .text("2.5E-3"), .bool(true), .bool(false)]])
    }

    @Test func objectsInAFieldRejectTheRecordAndReadingGoesOn() throws {
        let text = """
            [{"name": "Milk", "unit": {"name": "litre"}},
             {"name": "Eggs", "unit": ["box"]},
             "Bread",
             {"name": "Salt", "unit": "g"},
             {"name": "Rice", "unit": "kg", "price": 2}]
            """
        let result = try JSONTest.read(text, fields: ["name", "unit", "price.amount"])
        // An array is a list (for a to-many link); an attribute given one rejects it at the load.
        #expect(result.rows == [[.text("Eggs"), .list([.text("box")]), .null], [.text("Salt"), .text("g"), .null]])
        #expect(result.rejections.map(\.description) == [
            "data/items.json:1:2 ([0]): rejected: json: field 'unit': the value is an object; name a field inside it, such as 'unit.name'",
            "data/items.json:3:2 ([2]): rejected: json: the element is a string, not an object",
            "data/items.json:5:2 ([4]): rejected: json: 'price' is a number, not an object with the field 'price.amount'",
        ])
    }

    @Test func arraysAreListsAndTheirObjectsKeepEveryField() throws {
        let text = """
            [{"name": "Soup", "tags": ["vegan", 2, true, null], "steps": [{"text": " Chop ", "n": 1, "at": {"min": 5}}, []]}]
            """
        let result = try JSONTest.read(text, fields: ["name", "tags", "steps"])
        #expect(result.rejections.isEmpty)
        #expect(result.rows == [[
            .text("Soup"), .list([.text("vegan"), .text("2"), .bool(true), .null]),
            .list([.object(Fields(names: ["text", "n", "at"], values: [.text(" Chop "), .text("1"),
                                                                     .object(Fields(names: ["min"], values: [.text("5")]))])),
                   .list([])]),
        ]])
        #expect(Fields(names: ["at"], values: [.object(Fields(names: ["min"], values: [.text("5")]))])["at.min"] == .text("5"))
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let input = try JSONTest.file("bom.json", [0xEF, 0xBB, 0xBF] + Array(#"[{"name": "Milk"}]"#.utf8))
        let result = try JSONTest.collect(JSONReader(input: input, fields: ["name"], records: nil, chunkSize: 2))
        #expect(result.rows == [[.text("Milk")]])
        #expect(result.records.first?.location.column == 2)
    }

    @Test func unicodeRoundTripsWithEscapesAndSurrogatePairs() throws {
        let text = #"[{"name": "Crème brûlée 🍮", "note": "\u00e9\t\"q\"\\\/\n\uD83C\uDF4E\u4e2d\b\f\r"}]"#
        let result = try JSONTest.read(text, fields: ["name", "note"])
        #expect(result.rows == [[.text("Crème brûlée 🍮"), .text("é\t\"q\"\\/\n🍎中\u{8}\u{C}\r")]])
    }

    @Test func keysWithEscapesMatchFieldNames() throws {
        let result = try JSONTest.read(#"[{"n\u0061me": "Milk", "caf\u00e9": "x", "café2": "y"}]"#, fields: ["name", "café", "café2"])
        #expect(result.rows == [[.text("Milk"), .text("x"), .text("y")]])
    }

    @Test func emptyArrayHasNoRecords() throws {
        #expect(try JSONTest.read(" [ ] \n", fields: ["name"]).records.isEmpty)
        #expect(try JSONTest.read(#"{"data": {"items": []}}"#, fields: ["name"], records: "data.items").records.isEmpty)
    }

    /// Every record crosses chunk boundaries at each possible place: strings, escapes, multi-byte
    /// characters, numbers, literals and the byte order mark.
    @Test(arguments: [1, 2, 3, 5, 7, 16])
    func valuesSplitAcrossChunkBoundaries(chunkSize: Int) throws {
        let text = "\u{FEFF}" + #"[{"name": "Crème \u00e9\uD83C\uDF4E 🍮", "quantity": 12.50e-1, "ok": true, "none": null, "skip": {"a": [1, "b", false]}},"#
            + "\n  " + #"{"name": "Eggs", "quantity": -1234567}]"#
        let result = try JSONTest.read(text, fields: ["name", "quantity", "ok", "none"], chunkSize: chunkSize)
        #expect(result.rows == [
            [.text("Crème é🍎 🍮"), .text("12.50e-1"), .bool(true), .null],
            [.text("Eggs"), .text("-1234567"), .null, .null],
        ])
        #expect(result.records.map(\.location) == [
            Location(file: "data/items.json", line: 1, column: 2, path: "[0]"),
            Location(file: "data/items.json", line: 2, column: 3, path: "[1]"),
        ])
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let result = try JSONTest.read("[{\"é🍮\": 1}, {\"x\": \"日本\"}, {}]", fields: ["x"])
        #expect(result.records.map(\.location.column) == [2, 13, 26])
    }
}

@Suite("JSON: a leading trim done while reading")
struct JSONTrimWhileReadingTests {
    /// Strings (escaped blanks too) and numbers kept as text, trimmed as the `trim` transform
    /// trims them, in an array and in JSON Lines, over many chunks; a field not trimmed keeps its
    /// blanks, and bools and nulls stay what they are.
    @Test func fieldsAreTrimmedAsTheTrimTransformTrims() throws {
        let padded = [#""  Milk\t""#, #""\u00a0Crème\u2009""#, #""x""#, #""""#, #"" ""#, #""\ufeffBread""#, #""in side  ""#,
                      "12.5", "true", "null"]
        var objects: [String] = []
        for k in 0..<3_000 {
            objects.append(#"{"name": \#(padded[k % padded.count]), "note": \#(padded[(k + 4) % padded.count])}"#)
        }
        for lines in [false, true] {
            let text = lines ? objects.joined(separator: "\n") : "[\n" + objects.joined(separator: ",\n") + "\n]"
            let input = try JSONTest.file(lines ? "padded.jsonl" : "padded.json", text)
            let reader: any TrimmingReader = lines ? try JSONLinesReader(input: input, fields: ["name", "note"], chunkSize: 4096)
                : try JSONReader(input: input, fields: ["name", "note"], records: nil, chunkSize: 4096)
            #expect(reader.trimWhileReading(fields: [0]))
            let trimmed = try JSONTest.collect(reader)
            let plain = lines ? try JSONTest.readLines(text, fields: ["name", "note"], chunkSize: 4096)
                : try JSONTest.read(text, fields: ["name", "note"], chunkSize: 4096)

            #expect(trimmed.records.count == 3_000 && plain.records.count == 3_000)
            for (k, record) in trimmed.records.enumerated() {
                var expected = plain.records[k].values[0]
                if case .text(let raw) = expected { expected = .text(Trimming.trimmed(raw) ?? raw) }
                #expect(record.values[0] == expected, "record \(k)")
                #expect(record.values[1] == plain.records[k].values[1], "record \(k): not a trimmed field")
                #expect(record.location.line == plain.records[k].location.line && record.location.column == plain.records[k].location.column)
            }
            #expect(trimmed.records[0].values[0] == .text("Milk"))
            #expect(trimmed.records[1].values[0] == .text("Crème"))
            #expect(trimmed.records[5].values[0] == .text("Bread"))
            #expect(trimmed.records[7].values[0] == .text("12.5"))
            #expect(trimmed.records[8].values[0] == .bool(true) && trimmed.records[9].values[0] == .null)
            #expect(trimmed.records[0].values[1] == .text(" "), "the note keeps its blank")
        }
    }
}

@Suite("JSON: records handed back and filled again")
struct JSONRecycleTests {
    /// Every record recycled as soon as it is read, in an array and in JSON Lines: each later
    /// record holds its own values, a field it lacks is null, and rejections still come.
    @Test func recycledRecordsHoldOnlyTheirRecord() throws {
        var objects: [String] = []
        for k in 0..<3_000 {
            objects.append(k % 500 == 499 ? "[\(k)]" : k % 3 == 0 ? "{\"name\": \"item \(k)\"}" : "{\"name\": \"item \(k)\", \"note\": \"n\(k)\", \"count\": \(k)}")
        }
        let fields = ["name", "note", "count"]
        for lines in [false, true] {
            let text = lines ? objects.joined(separator: "\n") + "\n" : "[" + objects.joined(separator: ",\n") + "]"
            let input = try JSONTest.file(lines ? "rows.jsonl" : "rows.json", text)
            func open() throws -> any RecyclingReader {
                lines ? try JSONLinesReader(input: input, fields: fields, chunkSize: 4096)
                    : try JSONReader(input: input, fields: fields, records: nil, chunkSize: 4096)
            }
            let plain = try JSONTest.collect(open())
            let reader = try open()
            var values: [[Value]] = [], locations: [Location] = [], rejected = 0
            while true {
                do {
                    guard let record = try reader.next() else { break }
                    values.append(record.values.map { $0 })
                    locations.append(record.location)
                    reader.recycle(record)
                } catch is Rejection {
                    rejected += 1
                }
            }
            #expect(rejected == 6 && plain.rejections.count == 6)
            #expect(values == plain.rows)
            #expect(locations == plain.records.map(\.location))
            #expect(values[3] == [.text("item 3"), .null, .null])
        }
    }
}
