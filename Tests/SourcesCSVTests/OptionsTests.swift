import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesCSV

@Suite("CSV options in pipeline files")
struct OptionsTests {
    /// The error checking `read:` with these options throws, through the kind's `validate`.
    func failure(_ options: [(String, ConfigNode)]) -> PipelineError? {
        do {
            try CSVReaderKind().validate(try Config.options(options))
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }

    @Test func defaults() throws {
        let options = try CSVReader.Options(try Config.options([]))
        #expect(options == CSVReader.Options(encoding: .auto, delimiter: .auto, header: true, columns: nil))
        #expect(CSVReaderKind().name == "csv")
        #expect(CSVReaderKind().spec.options.map(\.name) == ["encoding", "delimiter", "header", "columns"])
    }

    @Test func everyKeyGiven() throws {
        let options = try CSVReader.Options(try Config.options([
            ("encoding", Config.scalar("windows-1252")),
            ("delimiter", Config.scalar(";", quoted: true)),
            ("header", Config.scalar("false")),
            ("columns", Config.list(["name", "unit"])),
        ]))
        #expect(options == CSVReader.Options(encoding: .windows1252, delimiter: .semicolon, header: false, columns: ["name", "unit"]))
    }

    @Test("delimiter names", arguments: [
        ("auto", CSVReader.Delimiter.auto), (",", .comma), (";", .semicolon), ("\t", .tab), ("tab", .tab), ("\\t", .tab), ("|", .pipe),
    ])
    func delimiterNames(_ example: (name: String, delimiter: CSVReader.Delimiter)) throws {
        let options = try CSVReader.Options(try Config.options([("delimiter", Config.scalar(example.name, quoted: true))]))
        #expect(options.delimiter == example.delimiter)
    }

    @Test func unknownKeySuggestsTheRightOne() {
        let error = failure([("encodng", Config.scalar("utf-8", column: 40))])
        #expect(error?.code == .pipelineUnknownKey)
        #expect(error?.location?.description == "pipelines/grocery.yaml:5:40")
        #expect(failure([("delimeter", Config.scalar(";"))])?.message.contains("did you mean 'delimiter'?") == true)
    }

    @Test func unknownEncodingIsRefusedWithTheList() {
        let error = failure([("encoding", Config.scalar("latin9", column: 50))])
        #expect(error?.code == .pipelineValueNotAllowed)
        #expect(error?.location?.description == "pipelines/grocery.yaml:5:50")
        #expect(failure([("encoding", Config.scalar("utf8"))])?.message.hasSuffix("not 'utf8'; did you mean 'utf-8'?") == true)
    }

    @Test func unknownDelimiterIsRefused() {
        let error = failure([("delimiter", Config.scalar(":", column: 44, quoted: true))])
        #expect(error?.code == .pipelineValueNotAllowed)
        #expect(error?.description == """
            pipelines/grocery.yaml:5:44: error: csv: 'delimiter' must be auto, ",", ";", tab (or "\\t") or "|", not ':'
            """)
    }

    @Test func headerMustBeABool() {
        let error = failure([("header", Config.scalar("first", column: 30))])
        #expect(error?.code == .pipelineWrongType)
        #expect(error?.location?.description == "pipelines/grocery.yaml:5:30")
    }

    @Test func columnsWithAHeaderRowIsAContradiction() {
        let error = failure([("columns", Config.list(["name", "unit"], column: 33))])
        #expect(error?.code == .pipelineConflictingOptions)
        #expect(error?.description == """
            pipelines/grocery.yaml:5:33: error: csv: 'columns' names the fields of a file without a header row, but \
            this file's first row is its header (remove 'columns', or set header: false if the file has no header row)
            """)
    }

    @Test func noHeaderNeedsColumns() {
        let error = failure([("header", Config.scalar("false", column: 30))])
        #expect(error?.code == .pipelineMissingKey)
        #expect(error?.description == """
            pipelines/grocery.yaml:5:30: error: csv: header: false needs 'columns' to name the fields, \
            e.g. columns: [name, quantity, unit]
            """)
    }

    @Test func columnNamesMustBeUniqueAndNonEmpty() {
        let twice = failure([("header", Config.scalar("no")), ("columns", Config.list(["name", "unit", "name"], column: 40))])
        #expect(twice?.code == .pipelineDuplicateName)
        #expect(twice?.location?.description == "pipelines/grocery.yaml:5:53")
        let empty = failure([("header", Config.scalar("no")), ("columns", Config.list(["name", ""], column: 40))])
        #expect(empty?.code == .pipelineEmptyValue)
        #expect(empty?.location?.description == "pipelines/grocery.yaml:5:47")
    }

    @Test func makeReaderOpensAReaderWithTheOptions() throws {
        let options = try Config.options([("delimiter", Config.scalar(";")), ("encoding", Config.scalar("windows-1252"))])
        let reader = try CSVReaderKind().makeReader(input: CSVTest.fixture("grocery-windows1252-semicolon.csv"),
                                                    options: options, fields: ["name"])
        #expect(reader.fieldNames == EncodingTests.groceryFields)
        #expect(try reader.next()?.values.first == .text("Crème fraîche"))
    }
}
