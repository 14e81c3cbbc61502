import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesCSV

@Suite("CSV errors")
struct ErrorTests {
    @Test func unterminatedQuoteAtTheEndPointsWhereItOpens() {
        let error = CSVTest.failure(CSVTest.fixture("unterminated-quote.csv"))
        #expect(error?.code == .csvUnterminatedQuote)
        #expect(error?.location?.description == "data/unterminated-quote.csv:3:7")
        #expect(error?.sourceLine == "Bread,\"crusty")
    }

    @Test func unterminatedQuoteInARecordThatStartedEarlierSaysWhere() throws {
        let input = try CSVTest.file("late-quote.csv", "name,note,unit\n\"Apples\",\"two\nlines\",\"kg\nPears,x,y\n")
        let error = CSVTest.failure(input)
        #expect(error?.code == .csvUnterminatedQuote)
        #expect(error?.location?.description == "data/late-quote.csv:3:8")
        #expect(error?.message.hasSuffix("; the record starts on line 2)") == true)
    }

    @Test func unterminatedQuoteOpenedChunksBeforeTheEnd() throws {
        var text = "name,note\nMilk,\"never closed\n"
        for i in 0..<40 { text += "row \(i),ok\n" }
        let error = CSVTest.failure(try CSVTest.file("long-quote.csv", text), chunkSize: 16)
        #expect(error?.code == .csvUnterminatedQuote)
        #expect(error?.location?.description == "data/long-quote.csv:2:6")
        #expect(error?.sourceLine == nil)
    }

    @Test func fieldThatSwallowsTheFileIsStoppedBeforeItFillsTheMemory() throws {
        // A quote opened early and never closed, in a file bigger than the longest field allowed.
        let row = "item,plain text that goes on and on\n"
        let text = "name,note\nMilk,\"oops\n" + String(repeating: row, count: CSVReader.maxFieldBytes / row.utf8.count + 2)
        let error = CSVTest.failure(try CSVTest.file("runaway.csv", text))
        #expect(error?.code == .csvFieldTooLong)
        #expect(error?.location?.description == "data/runaway.csv:2:6")
    }

    @Test func quoteInsideAnUnquotedField() {
        let error = CSVTest.failure(CSVTest.fixture("quote-in-unquoted-field.csv"))
        #expect(error?.code == .csvQuoteInUnquotedField)
        #expect(error?.description == """
            data/quote-in-unquoted-field.csv:2:6: error: csv: a quote inside an unquoted field (a field with quotes \
            in it must be quoted as a whole, with each quote inside doubled)
            TV,55" screen
                 ^
            """)
    }

    @Test func textAfterAClosingQuote() throws {
        let input = try CSVTest.file("after-quote.csv", "name,size\nTV,\"55\" screen\",x\n")
        let error = CSVTest.failure(input)
        #expect(error?.code == .csvTextAfterClosingQuote)
        #expect(error?.description == """
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
        #expect(error?.code == .csvQuoteInUnquotedField)
        #expect(error?.location?.description == "data/late-error.csv:4:2")
    }

    @Test func emptyFile() {
        let error = CSVTest.failure(CSVTest.fixture("empty.csv"))
        #expect(error?.code == .inputEmpty)
        #expect(error?.location?.description == "data/empty.csv:1:1")
    }

    @Test func fileOfBlankLinesAndAByteOrderMark() throws {
        let input = try CSVTest.file("blank.csv", [0xEF, 0xBB, 0xBF] + Array("\r\n\r\n".utf8))
        let error = CSVTest.failure(input)
        #expect(error?.code == .inputEmpty)
        #expect(error?.description == "data/blank.csv:1:1: error: csv: the file holds only blank lines: expected a header row")
        let bomOnly = CSVTest.failure(try CSVTest.file("bom.csv", [0xEF, 0xBB, 0xBF]))
        #expect(bomOnly?.code == .inputEmpty)
        #expect(bomOnly?.location?.description == "data/bom.csv:1:1")
    }

    @Test func duplicateHeaderName() {
        let error = CSVTest.failure(CSVTest.fixture("duplicate-header.csv"))
        #expect(error?.code == .inputDuplicateHeaderName)
        #expect(error?.location?.description == "data/duplicate-header.csv:1:20")
    }

    @Test func emptyHeaderName() {
        let error = CSVTest.failure(CSVTest.fixture("empty-header.csv"))
        #expect(error?.code == .csvEmptyHeaderName)
        #expect(error?.location?.description == "data/empty-header.csv:1:6")
    }

    @Test func missingFile() {
        let input = Input(url: CSVTest.fixtures.appendingPathComponent("nope.csv"), displayPath: "data/nope.csv")
        let error = #expect(throws: PipelineError.self) { try CSVReader(input: input) }
        #expect(error?.kind == .io)
        #expect(error?.code == .inputCannotOpen)
        #expect(error?.description == "data/nope.csv: error: csv: cannot open the file: No such file or directory")
    }
}
