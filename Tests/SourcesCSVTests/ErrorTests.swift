import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesCSV

@Suite("CSV errors")
struct ErrorTests {
    @Test func unterminatedQuoteAtTheEndPointsWhereItOpens() {
        #expect(CSVTest.failure(CSVTest.fixture("unterminated-quote.csv")) == """
            data/unterminated-quote.csv:3:7: error: csv: unterminated quoted field (the quote opened here is never closed)
            Bread,"crusty
                  ^
            """)
    }

    @Test func unterminatedQuoteInARecordThatStartedEarlierSaysWhere() throws {
        let input = try CSVTest.file("late-quote.csv", "name,note,unit\n\"Apples\",\"two\nlines\",\"kg\nPears,x,y\n")
        #expect(CSVTest.failure(input) == """
            data/late-quote.csv:3:8: error: csv: unterminated quoted field (the quote opened here is never closed; \
            the record starts on line 2)
            lines","kg
                   ^
            """)
    }

    @Test func unterminatedQuoteOpenedChunksBeforeTheEnd() throws {
        var text = "name,note\nMilk,\"never closed\n"
        for i in 0..<40 { text += "row \(i),ok\n" }
        let message = CSVTest.failure(try CSVTest.file("long-quote.csv", text), chunkSize: 16)
        #expect(message == """
            data/long-quote.csv:2:6: error: csv: unterminated quoted field (the quote opened here is never closed)
            """)
    }

    @Test func fieldThatSwallowsTheFileIsStoppedBeforeItFillsTheMemory() throws {
        // A quote opened early and never closed, in a file bigger than the longest field allowed.
        let row = "item,plain text that goes on and on\n"
        let text = "name,note\nMilk,\"oops\n" + String(repeating: row, count: CSVReader.maxFieldBytes / row.utf8.count + 2)
        #expect(CSVTest.failure(try CSVTest.file("runaway.csv", text)) == """
            data/runaway.csv:2:6: error: csv: a field longer than 8 MB starts here (the quote that opens it is probably \
            never closed)
            """)
    }

    @Test func quoteInsideAnUnquotedField() {
        #expect(CSVTest.failure(CSVTest.fixture("quote-in-unquoted-field.csv")) == """
            data/quote-in-unquoted-field.csv:2:6: error: csv: a quote inside an unquoted field (a field with quotes \
            in it must be quoted as a whole, with each quote inside doubled)
            TV,55" screen
                 ^
            """)
    }

    @Test func textAfterAClosingQuote() throws {
        let input = try CSVTest.file("after-quote.csv", "name,size\nTV,\"55\" screen\",x\n")
        #expect(CSVTest.failure(input) == """
            data/after-quote.csv:2:8: error: csv: unexpected text after the closing quote of a field (a quote inside \
            a quoted field must be doubled)
            TV,"55" screen",x
                   ^
            """)
    }

    @Test func parseErrorComesAfterTheRecordsBeforeIt() throws {
        let input = try CSVTest.file("late-error.csv", "name\nMilk\nEggs\nT\"V\n")
        let reader = try CSVReader(input: input)
        #expect(try reader.next()?.values == [.text("Milk")])
        #expect(try reader.next()?.values == [.text("Eggs")])
        let error = #expect(throws: PipelineError.self) { try reader.next() }
        #expect(error?.kind == .invalidInput)
        #expect(error?.location?.description == "data/late-error.csv:4:2")
    }

    @Test func emptyFile() {
        #expect(CSVTest.failure(CSVTest.fixture("empty.csv")) == """
            data/empty.csv:1:1: error: csv: the file is empty: expected a header row
            """)
    }

    @Test func fileOfBlankLinesAndAByteOrderMark() throws {
        let input = try CSVTest.file("blank.csv", [0xEF, 0xBB, 0xBF] + Array("\r\n\r\n".utf8))
        #expect(CSVTest.failure(input) == "data/blank.csv:1:1: error: csv: the file holds only blank lines: expected a header row")
        let bomOnly = try CSVTest.file("bom.csv", [0xEF, 0xBB, 0xBF])
        #expect(CSVTest.failure(bomOnly) == "data/bom.csv:1:1: error: csv: the file is empty: expected a header row")
    }

    @Test func duplicateHeaderName() {
        #expect(CSVTest.failure(CSVTest.fixture("duplicate-header.csv")) == """
            data/duplicate-header.csv:1:20: error: csv: column 4 of the header row is named 'quantity' like column 2 \
            (header names must be unique)
            """)
    }

    @Test func emptyHeaderName() {
        #expect(CSVTest.failure(CSVTest.fixture("empty-header.csv")) == """
            data/empty-header.csv:1:6: error: csv: column 2 of the header row has no name (every column needs one: \
            name it, or delete the empty column in the spreadsheet)
            """)
    }

    @Test func missingFile() {
        let input = Input(url: CSVTest.fixtures.appendingPathComponent("nope.csv"), displayPath: "data/nope.csv")
        let error = #expect(throws: PipelineError.self) { try CSVReader(input: input) }
        #expect(error?.kind == .io)
        #expect(error?.description == "data/nope.csv: error: csv: cannot open the file: No such file or directory")
    }
}
