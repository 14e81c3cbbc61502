import Foundation
import Pipeline
import Testing
@testable import SourcesCSV

@Suite("CSV rows, quotes and delimiters")
struct DialectTests {
    @Test("line endings", arguments: [("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")])
    func lineEndings(_ ending: (name: String, text: String)) throws {
        let nl = ending.text
        for trailing in [nl, ""] {
            let input = try CSVTest.file("\(ending.name).csv", "name,unit\(nl)Milk,l\(nl)Eggs,piece\(nl)Flour,kg\(trailing)")
            let result = try CSVTest.read(input)
            #expect(result.fieldNames == ["name", "unit"])
            #expect(result.rows == [["Milk", "l"], ["Eggs", "piece"], ["Flour", "kg"]])
            #expect(result.records.map(\.location.line) == [2, 3, 4])
        }
    }

    @Test func mixedLineEndingsCountCRLFAsOneLine() throws {
        let input = try CSVTest.file("mixed.csv", "name,unit\r\nMilk,l\nEggs,piece\rFlour,kg\r\n\nSugar,g")
        let result = try CSVTest.read(input)
        #expect(result.rows == [["Milk", "l"], ["Eggs", "piece"], ["Flour", "kg"], ["Sugar", "g"]])
        #expect(result.records.map(\.location.line) == [2, 3, 4, 6])
    }

    @Test func quotedDelimitersDoubledQuotesAndNewlines() throws {
        let result = try CSVTest.read(CSVTest.fixture("quoted.csv"))
        #expect(result.fieldNames == ["name", "note", "unit"])
        #expect(result.rows == [
            ["Salt, coarse", "the \"good\" one", "kg"],
            ["Apples", "line one\r\nline two\nline three\rline four", "piece"],
            ["Pears", "", ""],
            ["Plums", "plain", "box"],
        ])
        // The multi-line record starts on line 3; blank lines 7 and 9 are skipped but counted.
        #expect(result.records.map(\.location.line) == [2, 3, 8, 10])
        #expect(result.records.map(\.location.column) == [1, 1, 1, 1])
        #expect(result.records[1].fieldPositions == [
            TextPosition(line: 3, column: 1), TextPosition(line: 3, column: 10), TextPosition(line: 6, column: 12),
        ])
        #expect(result.records[2].fieldPositions == [
            TextPosition(line: 8, column: 1), TextPosition(line: 8, column: 7), TextPosition(line: 8, column: 10),
        ])
        #expect(result.records[2].values == [.text("Pears"), .text(""), .text("")])
    }

    @Test func fieldColumnsCountCharactersNotBytes() throws {
        let input = try CSVTest.file("columns.csv", "name,unit,price\nCrème fraîche,pot,1 €\n")
        let record = try #require(try CSVTest.read(input).records.first)
        #expect(record.fieldPositions.map(\.column) == [1, 15, 19])
        #expect(record.location(ofField: 2).description == "data/columns.csv:2:19")
    }

    @Test func spacesAroundFieldsAreKept() throws {
        let input = try CSVTest.file("spaces.csv", "name , unit\n Milk ,\tl\t\n")
        let result = try CSVTest.read(input)
        #expect(result.fieldNames == ["name ", " unit"])
        #expect(result.rows == [[" Milk ", "\tl\t"]])
    }

    @Test("sniffed delimiters", arguments: [
        ("comma", "name,note,unit\nSalt,\"a; b\",kg\nPepper,x,g\n", CSVReader.Delimiter.comma),
        ("semicolon", "name;price;unit\nMilk;0,99;l\nEggs;2,49;piece\n", .semicolon),
        ("tab", "name\tnote\nSalt\tcoarse, grey\nPepper\tblack, whole\n", .tab),
        ("pipe", "name|unit\nMilk|l\nEggs|piece\n", .pipe),
        ("ragged semicolon", "name;price;unit\nMilk;0,99;l\nEggs;2,49\nFlour;1,10;kg\n", .semicolon),
    ])
    func sniffed(_ example: (name: String, text: String, delimiter: CSVReader.Delimiter)) throws {
        let result = try CSVTest.read(CSVTest.file("\(example.name).csv", example.text))
        #expect(result.delimiter == example.delimiter)
        #expect(result.fieldNames.count >= 2)
        #expect(result.records.count + result.rejections.count == 2 || example.name == "ragged semicolon")
    }

    @Test func givenDelimiterIsUsedEvenWhenAnotherLooksLikelier() throws {
        let input = try CSVTest.file("given.csv", "a;b,c\n1;2,3\n")
        #expect(try CSVTest.read(input, .init(delimiter: .comma)).rows == [["1;2", "3"]])
        #expect(try CSVTest.read(input, .init(delimiter: .semicolon)).rows == [["1", "2,3"]])
        let tabs = try CSVTest.file("tabs.txt", "a\tb\n1\t2\n")
        #expect(try CSVTest.read(tabs, .init(delimiter: .tab)).rows == [["1", "2"]])
    }

    @Test func oneColumnFileReadsWithAnyDelimiter() throws {
        let result = try CSVTest.read(CSVTest.file("one.csv", "name\nMilk\nEggs\n"))
        #expect(result.fieldNames == ["name"])
        #expect(result.rows == [["Milk"], ["Eggs"]])
    }

    @Test func columnsNameTheFieldsWithoutHeader() throws {
        let input = try CSVTest.file("noheader.csv", "Milk,1,l\nEggs,12,piece\n")
        let result = try CSVTest.read(input, .init(header: false, columns: ["name", "quantity", "unit"]))
        #expect(result.fieldNames == ["name", "quantity", "unit"])
        #expect(result.rows == [["Milk", "1", "l"], ["Eggs", "12", "piece"]])
        #expect(result.records.map(\.location.line) == [1, 2])
    }

    @Test func rowsOfTheWrongWidthAreRejectedAndReadingGoesOn() throws {
        let result = try CSVTest.read(CSVTest.fixture("ragged-rows.csv"))
        #expect(result.rows == [["Milk", "1", "l", "0.99"], ["Butter", "1", "pack", "1.99"]])
        #expect(result.records.map(\.location.line) == [2, 5])
        #expect(result.rejections.map(\.description) == [
            "data/ragged-rows.csv:3:1: rejected: csv: row has 5 fields, the header has 4",
            "data/ragged-rows.csv:4:1: rejected: csv: row has 2 fields, the header has 4",
        ])
    }

    @Test func rowsOfTheWrongWidthAgainstColumns() throws {
        let input = try CSVTest.file("noheader.csv", "Milk,1\nEggs\nFlour,2\n")
        let result = try CSVTest.read(input, .init(header: false, columns: ["name", "quantity"]))
        #expect(result.rows == [["Milk", "1"], ["Flour", "2"]])
        #expect(result.rejections.map(\.description) == ["data/noheader.csv:2:1: rejected: csv: row has 1 field, 'columns' names 2"])
    }

    @Test func headerOnlyHasNoRecords() throws {
        let result = try CSVTest.read(CSVTest.fixture("header-only.csv"))
        #expect(result.fieldNames == ["name", "quantity", "unit"])
        #expect(result.records.isEmpty && result.rejections.isEmpty)
    }

    @Test func emptyFileWithoutHeaderHasNoRecords() throws {
        let result = try CSVTest.read(CSVTest.fixture("empty.csv"), .init(header: false, columns: ["name"]))
        #expect(result.records.isEmpty)
    }

    @Test func bytesReadReachesTheFileSize() throws {
        let input = CSVTest.fixture("grocery-utf16le-tab.txt")
        let reader = try CSVReader(input: input)
        while try reader.next() != nil {}
        #expect(reader.bytesRead == 200)
    }
}
