import Foundation
import Pipeline
import Testing
@testable import SourcesCSV

/// libcsv's own space test, used where every field is trimmed and it changes nothing
/// (`RowScanner.spacesMatter`): the same records, rejections and errors as with pipectl's test,
/// whatever the parts the text is parsed in.
@Suite("CSV: spaces at fields' ends with every field trimmed")
struct OuterSpacesTests {
    /// Given, not sniffed: the first chunk of a few bytes would not show it.
    static let semicolons = CSVReader.Options(delimiter: .semicolon)

    /// Rows of three fields with stray spaces and tabs around them, quoted ones with doubled
    /// quotes, spaces and delimiters inside; every 40th line nothing but spaces (a row of one
    /// field, refused), every 23rd row a space before an opening quote (refused with the file).
    static func export(rows: Int, openingQuoteAfterSpace: Bool = false) -> (text: String, expected: [[String]], blank: Int) {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let pads = ["", "", "", " ", "\t", "  ", " \t"]
        var text = "name;unit;note\r\n"
        var expected: [[String]] = []
        var blank = 0
        for row in 0..<rows {
            if row % 40 == 39 {
                text += String(repeating: " ", count: 1 + next(3)) + "\r\n"
                blank += 1
                continue
            }
            var fields: [String] = []
            var values: [String] = []
            for column in 0..<3 {
                let value = ["Milk \(row)", "Crème \"fraîche\" \(row)", "a; b", "Fish \"n\" chips", "kg", ""][next(6)]
                let quoted = value.contains("\"") || value.contains(";") || column == 2 && next(2) == 0
                var field = quoted ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
                if !quoted { field = pads[next(pads.count)] + field + pads[next(pads.count)] }
                if openingQuoteAfterSpace, quoted, row % 23 == 22 { field = " " + field }
                fields.append(field)
                values.append(value)
            }
            text += fields.joined(separator: ";") + "\r\n"
            expected.append(values)
        }
        return (text, expected, blank)
    }

    @Test func trimmedFieldsReadTheSameInPartsOfEverySize() throws {
        let (text, expected, blank) = OuterSpacesTests.export(rows: 400)
        let input = try CSVTest.file("stray-spaces.csv", text)
        let whole = try CSVTest.read(input, OuterSpacesTests.semicolons, chunkSize: text.utf8.count + 1, trimming: [0, 1, 2])
        #expect(whole.rows == expected)
        #expect(whole.rejections.count == blank)
        #expect(whole.rejections.allSatisfy { $0.reason.contains("row has 1 field") })
        var sawLibcsvTest = false
        for chunkSize in [1, 2, 3, 5, 8, 13, 64, 300, 4096] {
            let (chunked, reader) = try CSVTest.reading(input, OuterSpacesTests.semicolons, chunkSize: chunkSize, trimming: [0, 1, 2])
            #expect(chunked.rows == expected, "chunk size \(chunkSize)")
            #expect(chunked.records.map(\.location) == whole.records.map(\.location), "chunk size \(chunkSize)")
            #expect(chunked.rejections.map(\.location) == whole.rejections.map(\.location), "chunk size \(chunkSize)")
            sawLibcsvTest = sawLibcsvTest || reader.partsWithoutSpaceTest > 0
        }
        // Parts of a few bytes hold no quote beside a space and no blank line: libcsv's test
        // ran on them.
        #expect(sawLibcsvTest)
    }

    /// A tab as the delimiter is a space to libcsv's own test: with it, empty fields would go.
    @Test func tabDelimitedKeepsPipectlsTest() throws {
        let text = "name\tunit\tnote\n" + String(repeating: "Milk\t\tfresh\n", count: 50)
        let input = try CSVTest.file("tabs.tsv", text)
        let (result, reader) = try CSVTest.reading(input, CSVReader.Options(delimiter: .tab), chunkSize: 64, trimming: [0, 1, 2])
        #expect(reader.partsWithoutSpaceTest == 0)
        #expect(result.rows == Array(repeating: ["Milk", "", "fresh"], count: 50))
    }

    @Test func untrimmedFieldsKeepTheirSpaces() throws {
        let (text, _, _) = OuterSpacesTests.export(rows: 60)
        let input = try CSVTest.file("kept-spaces.csv", text)
        let (some, reader) = try CSVTest.reading(input, OuterSpacesTests.semicolons, chunkSize: 8, trimming: [0, 2])
        #expect(reader.partsWithoutSpaceTest == 0)
        #expect(some.rows.contains { $0[1].first == " " || $0[1].first == "\t" || $0[1].last == " " || $0[1].last == "\t" })
    }

    /// A space before an opening quote or after a closing one is refused as without trimming:
    /// libcsv's own test would take it as padding around a quoted field.
    @Test("spaces beside the quotes of a field, trimmed or not", arguments: [
        ("a;b;c\n1;\"x\" ;3\n", "unexpected text after the closing quote"),
        ("a;b;c\n1; \"x\";3\n", "a quote inside an unquoted field"),
        ("a;b;c\n1;\"x\"\t\n", "unexpected text after the closing quote"),
        ("a;b;c\n\t\"x\";2;3\n", "a quote inside an unquoted field"),
    ])
    func spacesBesideQuotes(_ example: (text: String, message: String)) throws {
        let input = try CSVTest.file("quotes.csv", example.text)
        let untrimmed = try #require(CSVTest.failure(input, OuterSpacesTests.semicolons))
        #expect(untrimmed.message.contains(example.message))
        for chunkSize in 1...example.text.utf8.count + 1 {
            let trimmed = try #require(CSVTest.failure(input, OuterSpacesTests.semicolons, chunkSize: chunkSize, trimming: [0, 1, 2]))
            #expect(trimmed.message == untrimmed.message, "chunk size \(chunkSize)")
            #expect(trimmed.location == untrimmed.location, "chunk size \(chunkSize)")
        }
    }

    @Test func spaceBeforeAnOpeningQuoteStopsTheFileInEveryPart() throws {
        let (text, _, _) = OuterSpacesTests.export(rows: 100, openingQuoteAfterSpace: true)
        let input = try CSVTest.file("space-quote.csv", text)
        let whole = try #require(CSVTest.failure(input, OuterSpacesTests.semicolons, chunkSize: text.utf8.count + 1))
        for chunkSize in [1, 7, 64, 1000] {
            let failure = try #require(CSVTest.failure(input, OuterSpacesTests.semicolons, chunkSize: chunkSize, trimming: [0, 1, 2]))
            #expect(failure.location == whole.location, "chunk size \(chunkSize)")
            #expect(failure.message == whole.message, "chunk size \(chunkSize)")
        }
    }
}
