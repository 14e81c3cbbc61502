import Foundation
import Pipeline
import Testing
@testable import SourcesCSV

@Suite("CSV options in pipeline files")
struct OptionsTests {
    /// The message of the error checking `read:` with these options throws, through the kind's `validate`.
    func failure(_ options: [(String, ConfigNode)]) -> String? {
        do {
            try CSVReaderKind().validate(try Config.options(options))
            return nil
        } catch {
            return "\(error)"
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
        #expect(failure([("encodng", Config.scalar("utf-8", column: 40))]) == """
            pipelines/grocery.yaml:5:40: error: csv: unknown key 'encodng' in 'csv'; did you mean 'encoding'? \
            (known keys: encoding, delimiter, header, columns)
            """)
        #expect(failure([("delimeter", Config.scalar(";"))])?.contains("did you mean 'delimiter'?") == true)
    }

    @Test func unknownEncodingIsRefusedWithTheList() {
        #expect(failure([("encoding", Config.scalar("latin9", column: 50))]) == """
            pipelines/grocery.yaml:5:50: error: csv: 'encoding' must be one of 'auto', 'utf-8', 'utf-16', 'utf-16le', \
            'utf-16be', 'windows-1252', 'macroman', not 'latin9'
            """)
        #expect(failure([("encoding", Config.scalar("utf8"))])?.hasSuffix("not 'utf8'; did you mean 'utf-8'?") == true)
    }

    @Test func unknownDelimiterIsRefused() {
        #expect(failure([("delimiter", Config.scalar(":", column: 44, quoted: true))]) == """
            pipelines/grocery.yaml:5:44: error: csv: 'delimiter' must be auto, ",", ";", tab (or "\\t") or "|", not ':'
            """)
    }

    @Test func headerMustBeABool() {
        #expect(failure([("header", Config.scalar("first", column: 30))]) == """
            pipelines/grocery.yaml:5:30: error: csv: 'header' expects true or false, found the value "first"
            """)
    }

    @Test func columnsWithAHeaderRowIsAContradiction() {
        #expect(failure([("columns", Config.list(["name", "unit"], column: 33))]) == """
            pipelines/grocery.yaml:5:33: error: csv: 'columns' names the fields of a file without a header row, but \
            this file's first row is its header (remove 'columns', or set header: false if the file has no header row)
            """)
    }

    @Test func noHeaderNeedsColumns() {
        #expect(failure([("header", Config.scalar("false", column: 30))]) == """
            pipelines/grocery.yaml:5:30: error: csv: header: false needs 'columns' to name the fields, \
            e.g. columns: [name, quantity, unit]
            """)
    }

    @Test func columnNamesMustBeUniqueAndNonEmpty() {
        #expect(failure([("header", Config.scalar("no")), ("columns", Config.list(["name", "unit", "name"], column: 40))]) == """
            pipelines/grocery.yaml:5:53: error: csv: 'name' appears twice in 'columns' (field names must be unique)
            """)
        #expect(failure([("header", Config.scalar("no")), ("columns", Config.list(["name", ""], column: 40))]) == """
            pipelines/grocery.yaml:5:47: error: csv: a field name in 'columns' is empty
            """)
    }

    @Test func makeReaderOpensAReaderWithTheOptions() throws {
        let options = try Config.options([("delimiter", Config.scalar(";")), ("encoding", Config.scalar("windows-1252"))])
        let reader = try CSVReaderKind().makeReader(input: CSVTest.fixture("grocery-windows1252-semicolon.csv"),
                                                    options: options, fields: ["name"])
        #expect(reader.fieldNames == EncodingTests.groceryFields)
        #expect(try reader.next()?.values.first == .text("Crème fraîche"))
    }
}
