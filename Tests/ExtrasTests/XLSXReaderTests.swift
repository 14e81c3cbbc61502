import Foundation
import TestSupport
import Diagnostics
import Pipeline
@testable import SourcesXLSX
import Testing
import ZIPFoundation
import CXLSXWriter

/// Workbooks the tests write part by part, so that every kind of cell is exactly as Excel writes
/// it: shared strings (one in rich text runs), inline strings, numbers, booleans, a formula's
/// cached value, an error, dates by style in either date system.
enum XLSXTest {
    static func workbook(sheets: [(name: String, xml: String)], sharedStrings: [String] = [], date1904: Bool = false,
                         extraParts: [(String, Data)] = []) throws -> Input {
        let folder = try ScratchFolder.make("xlsx-tests")
        let url = folder.appendingPathComponent("Groceries.xlsx")
        let archive = try Archive(url: url, accessMode: .create)
        func add(_ path: String, _ text: String) throws { try add(path, Data(text.utf8)) }
        func add(_ path: String, _ data: Data) throws {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let ns = #"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main""#
        let rel = #"xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#
        try add("[Content_Types].xml", "<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>")
        let sheetList = sheets.enumerated().map { "<sheet name=\"\($1.name)\" sheetId=\"\($0 + 1)\" r:id=\"rId\($0 + 1)\"/>" }.joined()
        try add("xl/workbook.xml", "<?xml version=\"1.0\"?><workbook \(ns) \(rel)><workbookPr\(date1904 ? " date1904=\"1\"" : "")/><sheets>\(sheetList)</sheets></workbook>")
        let relations = sheets.indices.map { "<Relationship Id=\"rId\($0 + 1)\" Type=\"worksheet\" Target=\"worksheets/sheet\($0 + 1).xml\"/>" }.joined()
        try add("xl/_rels/workbook.xml.rels", "<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\(relations)</Relationships>")
        // Style 0 general, 1 a built-in date (14), 2 a custom date-time, 3 a custom number that looks like none.
        try add("xl/styles.xml", """
            <?xml version="1.0"?><styleSheet \(ns)><numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy hh:mm"/>\
            <numFmt numFmtId="165" formatCode="&quot;day&quot; 0.00"/></numFmts><cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs>\
            <cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/></cellXfs></styleSheet>
            """)
        if !sharedStrings.isEmpty {
            try add("xl/sharedStrings.xml", "<?xml version=\"1.0\"?><sst \(ns)>" + sharedStrings.map { "<si>\($0)</si>" }.joined() + "</sst>")
        }
        for (index, sheet) in sheets.enumerated() {
            try add("xl/worksheets/sheet\(index + 1).xml", "<?xml version=\"1.0\"?><worksheet \(ns)><sheetData>\(sheet.xml)</sheetData></worksheet>")
        }
        for (path, data) in extraParts { try add(path, data) }
        return Input(url: url, displayPath: "data/Groceries.xlsx")
    }

    /// A workbook of exactly these parts, under these names: for packages laid out otherwise
    /// than Excel lays them out.
    static func package(_ parts: [(String, String)]) throws -> Input {
        let folder = try ScratchFolder.make("xlsx-tests")
        let url = folder.appendingPathComponent("Groceries.xlsx")
        let archive = try Archive(url: url, accessMode: .create)
        for (path, text) in parts {
            let data = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return Input(url: url, displayPath: "data/Groceries.xlsx")
    }

    static let relationships = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

    static func read(_ input: Input, sheet: String? = nil, header: Bool = true, columns: [String]? = nil) throws -> (fields: [String], records: [Record]) {
        let reader = try XLSXReader(input: input, options: .init(sheet: sheet, header: header, columns: columns, range: nil))
        var records: [Record] = []
        while let record = try reader.next() { records.append(record) }
        return (reader.fieldNames, records)
    }
}

@Suite("xlsx reader")
struct XLSXReaderTests {
    static let header = #"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c><c r="D1" t="inlineStr"><is><t>added</t></is></c><c r="E1" t="inlineStr"><is><t>listed</t></is></c></row>"#
    static let strings = ["<t>name</t>", "<t>quantity</t>", "<t>code</t>", "<r><t>Fresh </t></r><r><rPr><b/></rPr><t>parsley</t></r>", "<t>007</t>"]

    @Test("every kind of cell: shared and rich strings, inline strings, numbers as written, booleans, formulas, dates by style, empty cells")
    func cellKinds() throws {
        let rows = Self.header + """
            <row r="2"><c r="A2" t="s"><v>3</v></c><c r="B2"><v>0.1</v></c><c r="C2" t="s"><v>4</v></c><c r="D2" s="1"><v>45627</v></c><c r="E2" t="b"><v>1</v></c></row>\
            <row r="3"><c r="A3" t="inlineStr"><is><t>Eggs</t></is></c><c r="B3"><f>B2*120</f><v>12</v></c><c r="D3" s="2"><v>45627.75</v></c><c r="E3" t="b"><v>0</v></c></row>\
            <row r="4"><c r="A4" t="str"><f>"Mi"&amp;"lk"</f><v>Milk</v></c><c r="B4" s="3"><v>2.5</v></c><c r="C4"/></row>\
            <row r="5"/><row r="6"><c r="B6"><v></v></c></row>
            """
        let (fields, records) = try XLSXTest.read(XLSXTest.workbook(sheets: [("Items", rows)], sharedStrings: Self.strings))
        #expect(fields == ["name", "quantity", "code", "added", "listed"])
        // 45627 is 2024-12-01 in the 1900 system: 754,704,000 seconds after 2001-01-01.
        let first: [Value] = [.text("Fresh parsley"), .text("0.1"), .text("007"), .date(754_704_000), .bool(true)]
        let second: [Value] = [.text("Eggs"), .text("12"), .null, .date(754_704_000 + 18 * 3600), .bool(false)]
        let third: [Value] = [.text("Milk"), .text("2.5"), .null, .null, .null]
        #expect(records.map(\.values) == [first, second, third])
        #expect(records.map(\.location.description) == ["data/Groceries.xlsx: Items!A2", "data/Groceries.xlsx: Items!A3", "data/Groceries.xlsx: Items!A4"])
    }

    /// What Excel writes and a reader must undo, as tafia/calamine's test workbooks show it
    /// (has_x000D_.xlsx and has_x000D_inline.xlsx, issue446.xlsx and pivots.xlsx, all saved by
    /// Excel; empty_shared_string_value.xlsx), restated here part by part.
    @Test("Excel's escapes and digits: _x000D_ in shared and inline strings, 17-digit fractions read to Excel's 15, an empty shared-string index")
    func excelEscapesAndDigits() throws {
        let rows = #"<row r="1"><c r="A1" t="inlineStr"><is><t>note</t></is></c><c r="B1" t="inlineStr"><is><t>value</t></is></c></row>"#
            + #"<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2"><v>10.199999999999999</v></c></row>"#
            + #"<row r="3"><c r="A3" t="inlineStr"><is><t>ABC_x000D_&#10;DEF</t></is></c><c r="B3"><v>18.364620000000002</v></c></row>"#
            + #"<row r="4"><c r="A4" t="s"><v>1</v></c><c r="B4"><v>0.1</v></c></row>"#
            + #"<row r="5"><c r="A5" t="s"><v/></c><c r="B5"><v>12345678901234567890</v></c></row>"#
            + #"<row r="6"><c r="A6" t="s"><v>2</v></c><c r="B6"><v>1.2345678901234567E-5</v></c></row>"#
        let strings = ["<t>ABC_x000D_\nDEF</t>", "<t>_x005F_x0041_ is how Excel keeps the text _x005F_x0041_</t>", "<t>_xD83C__xDF4B_ lemon</t>"]
        let (_, records) = try XLSXTest.read(XLSXTest.workbook(sheets: [("Items", rows)], sharedStrings: strings))
        let expected: [[Value]] = [
            [.text("ABC\r\nDEF"), .text("10.2")],
            [.text("ABC\r\nDEF"), .text("18.36462")],
            [.text("_x0041_ is how Excel keeps the text _x0041_"), .text("0.1")],
            [.null, .text("12345678901234567890")],
            [.text("\u{1F34B} lemon"), .text("1.23456789012346e-05")],
        ]
        #expect(records.map(\.values) == expected)
    }

    /// Strings typed into Excel and the shared strings Excel saved for them, as
    /// jmcnamara/XlsxWriter's reference workbook shared_strings02.xlsx (saved by Excel) holds
    /// them: only `_x` and four hex digits and `_` is an escape, and Excel escapes its `_`.
    @Test("text that looks like an escape, as Excel saved it, reads back as typed")
    func textThatLooksLikeAnEscape() throws {
        let typed = ["_", "_x", "_x0", "_x00", "_x000", "_x0000", "_x0000_", "_x005F_", "_x000G_", "_X0000_", "_x000a_", "_x000A_",
                     "_x0000__x0000_", "__x0000__"]
        let saved = ["_", "_x", "_x0", "_x00", "_x000", "_x0000", "_x005F_x0000_", "_x005F_x005F_", "_x000G_", "_X0000_", "_x005F_x000a_",
                     "_x005F_x000A_", "_x005F_x0000__x005F_x0000_", "__x005F_x0000__"]
        let rows = saved.indices.map { #"<row r="\#($0 + 1)"><c r="A\#($0 + 1)" t="s"><v>\#($0)</v></c></row>"# }.joined()
        let (_, records) = try XLSXTest.read(XLSXTest.workbook(sheets: [("Sheet1", rows)], sharedStrings: saved.map { "<t>\($0)</t>" }),
                                             header: false, columns: ["text"])
        #expect(records.map(\.values) == typed.map { [.text($0)] })
    }

    /// openpyxl's ISO 8601 mode writes date cells as text of type `d` (calamine's date_iso.xlsx).
    @Test("date cells in ISO 8601 (t=\"d\"): a date, a date and time on the workbook's clock, one with its zone; a time alone stays text")
    func isoDateCells() throws {
        let rows = #"<row r="1"><c r="A1" t="inlineStr"><is><t>when</t></is></c></row>"#
            + ["2021-01-01", "2021-01-01T10:10:10", "2021-01-01T10:10:10Z", "2021-07-01T10:10:10.5+02:00", "10:10:10", "2021-13-01"].enumerated()
                .map { #"<row r="\#($0.offset + 2)"><c r="A\#($0.offset + 2)" t="d"><v>\#($0.element)</v></c></row>"# }.joined()
        let reader = try XLSXReader(input: XLSXTest.workbook(sheets: [("Items", rows)]),
                                    options: .init(sheet: "Items", timeZone: TimeZone(identifier: "Europe/Berlin")!))
        var values: [Value] = []
        while let record = try reader.next() { values += record.values }
        // 2021-01-01 00:00 is 631,152,000 s after 2001-01-01; Berlin is an hour ahead of UTC in January, two in July.
        let expected: [Value] = [.date(631_152_000 - 3600), .date(631_152_000 + 36_610 - 3600), .date(631_152_000 + 36_610),
                                 .date(646_790_400 + 36_610.5 - 7200), .text("10:10:10"), .text("2021-13-01")]
        #expect(values == expected)
    }

    /// Excel opens packages that other writers lay out their own way (calamine's
    /// minimal_package.xlsx, issue_530.xlsx and issue_419.xlsx): the workbook where `_rels/.rels`
    /// says, folders separated by `\`, a part name spelt in another case.
    @Test("a package laid out otherwise: the workbook at the root, backslashes in names, SharedStrings.xml with a capital")
    func otherLayouts() throws {
        let ns = #"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="\#(XLSXTest.relationships)""#
        let rels = #"xmlns="http://schemas.openxmlformats.org/package/2006/relationships""#
        let sheet = #"<worksheet \#(ns)><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row></sheetData></worksheet>"#
        let workbook = #"<workbook \#(ns)><sheets><sheet name="Items" sheetId="1" r:id="rId1"/></sheets></workbook>"#
        let strings = #"<sst \#(ns)><si><t>name</t></si><si><t>Milk</t></si></sst>"#
        func relationship(_ id: String, _ type: String, _ target: String) -> String {
            #"<Relationship Id="\#(id)" Type="\#(XLSXTest.relationships)/\#(type)" Target="\#(target)"/>"#
        }
        let atRoot = try XLSXTest.package([
            ("_rels/.rels", "<Relationships \(rels)>" + relationship("rId1", "officeDocument", "book.xml") + "</Relationships>"),
            ("book.xml", workbook),
            ("_rels/book.xml.rels", "<Relationships \(rels)>" + relationship("rId1", "worksheet", "sheets/one.xml")
                + relationship("rId2", "sharedStrings", "/strings.xml") + "</Relationships>"),
            ("sheets/one.xml", sheet),
            ("strings.xml", strings),
        ])
        let backslashes = try XLSXTest.package([
            ("_rels\\.rels", "<Relationships \(rels)>" + relationship("rId1", "officeDocument", "xl/workbook.xml") + "</Relationships>"),
            ("xl\\workbook.xml", workbook),
            ("xl\\_rels\\workbook.xml.rels", "<Relationships \(rels)>" + relationship("rId1", "worksheet", "worksheets/sheet1.xml") + "</Relationships>"),
            ("xl\\worksheets\\sheet1.xml", sheet),
            ("xl\\sharedStrings.xml", strings),
        ])
        let capital = try XLSXTest.package([
            ("xl/workbook.xml", workbook),
            ("xl/_rels/workbook.xml.rels", "<Relationships \(rels)>" + relationship("rId1", "worksheet", "worksheets/sheet1.xml") + "</Relationships>"),
            ("xl/worksheets/sheet1.xml", sheet),
            ("xl/SharedStrings.xml", strings),
        ])
        for input in [atRoot, backslashes, capital] {
            let (fields, records) = try XLSXTest.read(input)
            #expect(fields == ["name"] && records.map(\.values) == [[.text("Milk")]], "\(input.url.path)")
        }
        let outside = try XLSXTest.package([
            ("_rels/.rels", "<Relationships \(rels)>" + relationship("rId1", "officeDocument", "../../book.xml") + "</Relationships>"),
        ])
        let error = try #require(throws: PipelineError.self) { try XLSXTest.read(outside) }
        expectError(error, .xlsxPartOutsideArchive, at: "data/Groceries.xlsx")
    }

    @Test("the 1904 date system, and the 1900 system's leap-year bug")
    func dateSystems() throws {
        let rows = #"<row r="1"><c r="A1" t="inlineStr"><is><t>d</t></is></c></row><row r="2"><c r="A2" s="1"><v>0</v></c></row><row r="3"><c r="A3" s="1"><v>35430</v></c></row>"#
        let (_, mac) = try XLSXTest.read(XLSXTest.workbook(sheets: [("S", rows)], date1904: true))
        // 1904 system: 0 is 1904-01-01, 35430 is 2001-01-01.
        let expected1904: [[Value]] = [[.date(-35_430 * 86_400)], [.date(0)]]
        #expect(mac.map(\.values) == expected1904)
        let early = #"<row r="1"><c r="A1" t="inlineStr"><is><t>d</t></is></c></row><row r="2"><c r="A2" s="1"><v>59</v></c></row><row r="3"><c r="A3" s="1"><v>61</v></c></row><row r="4"><c r="A4" s="1"><v>36892</v></c></row>"#
        let (_, pc) = try XLSXTest.read(XLSXTest.workbook(sheets: [("S", early)]))
        // 59 is 1900-02-28 and 61 is 1900-03-01: Excel's 60, 29 February 1900, never was.
        let expected: [[Value]] = [[.date(-36_832 * 86_400)], [.date(-36_831 * 86_400)], [.date(0)]]
        #expect(pc.map(\.values) == expected)
    }

    @Test("an error cell rejects its record at the cell; the next record reads on")
    func errorCells() throws {
        let rows = Self.header + ##"<row r="2"><c r="A2" t="inlineStr"><is><t>Tea</t></is></c><c r="B2" t="e"><f>1/0</f><v>#DIV/0!</v></c></row><row r="3"><c r="A3" t="inlineStr"><is><t>Rice</t></is></c></row>"##
        let reader = try XLSXReader(input: XLSXTest.workbook(sheets: [("Items", rows)], sharedStrings: Self.strings),
                                    options: .init(sheet: nil, header: true, columns: nil, range: nil))
        let rejection = try #require(throws: Rejection.self) { _ = try reader.next() }
        #expect(rejection.description == ##"data/Groceries.xlsx: Items!B2: rejected: xlsx: field 'quantity' value "#DIV/0!": the cell holds the error #DIV/0!, not a value"##)
        #expect(try reader.next()?.values.first == .text("Rice"))
        // In a column no step or load reads, an error loses nothing: the record is read, the cell empty.
        let unread = try XLSXReader(input: XLSXTest.workbook(sheets: [("Items", rows)], sharedStrings: Self.strings),
                                    options: .init(fieldsRead: ["name"]))
        #expect(try unread.next()?.values.prefix(2) == [.text("Tea"), .null])
        #expect(try unread.next()?.values.first == .text("Rice"))
    }

    @Test("a formula without its value saved: empty with one counted warning, or a rejection; a shared one, an error's, an empty text's")
    func formulasWithoutValues() throws {
        // B2 starts a shared formula that B3 follows without its text; C3's text result is an empty
        // text, saved (as Excel saves =""); C4's value is saved; D2 lies in a field not read.
        let rows = Self.header
            + #"<row r="2"><c r="A2" t="inlineStr"><is><t>Tea</t></is></c><c r="B2"><f t="shared" ref="B2:B3" si="0">A2&amp;"x"</f><v/></c>"#
            + #"<c r="D2"><f>1/0</f></c></row>"#
            + #"<row r="3"><c r="A3" t="inlineStr"><is><t>Rice</t></is></c><c r="B3"><f t="shared" si="0"/></c><c r="C3" t="str"><f>""</f><v></v></c></row>"#
            + #"<row r="4"><c r="A4" t="inlineStr"><is><t>Milk</t></is></c><c r="C4"><f>2*3</f><v>6</v></c></row>"#
        let input = try XLSXTest.workbook(sheets: [("Items", rows)], sharedStrings: Self.strings)
        let reader = try XLSXReader(input: input, options: .init(fieldsRead: ["name", "quantity", "code"]))
        var records: [Record] = []
        while let record = try reader.next() { records.append(record) }
        #expect(records.map { Array($0.values.prefix(3)) } == [[.text("Tea"), .null, .null], [.text("Rice"), .null, .null],
                                                               [.text("Milk"), .null, .text("6")]])
        let warnings = input.warnings.snapshot
        #expect(warnings.total == 1)
        #expect(warnings.warnings.map { "\($0.location): \($0.text)" } == [
            #"data/Groceries.xlsx: Items!B2: field 'quantity' holds the formula =A2&"x" with no value saved, loaded as empty: "#
                + "the program that wrote the workbook does not compute formulas; open it in Excel or LibreOffice and save it there "
                + "(2 cells of fields read, the first here)",
        ])

        let strict = try XLSXReader(input: input, options: .init(fieldsRead: ["name", "quantity", "code"]))
        strict.rejectInsteadOfWarning()
        #expect(try #require(throws: Rejection.self) { _ = try strict.next() }.description == #"data/Groceries.xlsx: Items!B2: rejected: xlsx: "#
            + #"field 'quantity' value "=A2&\"x\"": the cell holds a formula with no value saved (the program that wrote the workbook "#
            + "does not compute formulas; open it in Excel or LibreOffice and save it there)")
        #expect(try #require(throws: Rejection.self) { _ = try strict.next() }.description == "data/Groceries.xlsx: Items!B3: rejected: xlsx: "
            + "field 'quantity': the cell holds a formula shared with other cells with no value saved (the program that wrote the "
            + "workbook does not compute formulas; open it in Excel or LibreOffice and save it there)")
        #expect(try strict.next()?.values.first == .text("Milk"))
    }

    /// Excel keeps every text once in the shared strings: a million-row sheet's are tens of MB,
    /// past the 10 MB Foundation's parser reads in one piece.
    @Test("shared strings of more than 10 MB, phonetic hints left out")
    func largeSharedStrings() throws {
        let count = 250_000
        let strings = ["<t>name</t>", "<r><t>Fresh </t></r><r><t>parsley</t></r><rPh sb=\"0\" eb=\"1\"><t>ぱせり</t></rPh>"]
            + (2..<count).map { "<t>An item with a name long enough, number \($0)</t>" }
        let rows = #"<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row>"#
            + #"<row r="3"><c r="A3" t="s"><v>\#(count - 1)</v></c></row><row r="4"><c r="A4" t="s"><v>\#(count)</v></c></row>"#
        let input = try XLSXTest.workbook(sheets: [("Items", rows)], sharedStrings: strings)
        let reader = try XLSXReader(input: input, options: .init())
        #expect(try reader.next()?.values == [.text("Fresh parsley")])
        #expect(try reader.next()?.values == [.text("An item with a name long enough, number \(count - 1)")])
        // An index past the table: the cell names a string the workbook does not have.
        let error = try #require(throws: PipelineError.self) { _ = try reader.next() }
        #expect(error.code == .xlsxUnknownSharedString)
        #expect(error.description == "data/Groceries.xlsx: Items!A4: error: xlsx: the cell names a shared string the workbook does not have")
    }

    @Test("the header: a blank cell between names is named by its column, formatted empty cells after the last name are no fields")
    func headerNames() throws {
        let rows = #"<row r="1"><c r="A1" t="inlineStr"><is><t> name </t></is></c><c r="C1" t="inlineStr"><is><t>unit</t></is></c>"#
            + #"<c r="D1" s="1"/><c r="E1" t="inlineStr"><is><t>  </t></is></c></row>"#
            + #"<row r="2"><c r="A2" t="inlineStr"><is><t>Milk</t></is></c><c r="B2"><v>2</v></c><c r="C2" t="inlineStr"><is><t>l</t></is></c></row>"#
        let (fields, records) = try XLSXTest.read(XLSXTest.workbook(sheets: [("Items", rows)]))
        #expect(fields == ["name", "B", "unit"])
        #expect(records.map(\.values) == [[.text("Milk"), .text("2"), .text("l")]])
    }

    /// A run that stops early (an error, a signal) leaves no thread behind, blocked on a full queue.
    @Test("a sheet's inflating thread stops when the reader is done with it, however far it got")
    func inflatingStops() throws {
        let rows = (1...60_000).map { #"<row r="\#($0)"><c r="A\#($0)" t="inlineStr"><is><t>item \#($0)</t></is></c></row>"# }.joined()
        let input = try XLSXTest.workbook(sheets: [("Items", rows)])
        let part = try XLSXWorkbook(url: input.url, displayPath: input.displayPath).part("xl/worksheets/sheet1.xml")
        let stream = InflatingStream(url: input.url, part: part, displayPath: input.displayPath)
        #expect(try stream.next()?.isEmpty == false)
        // The sheet is 4 MB and the queue holds 2: the thread waits for room until cancelled.
        let deadline = Date().addingTimeInterval(10)
        stream.cancel()
        while !stream.hasFinished, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(stream.hasFinished)
        // Read to the end, the same sheet gives all its bytes.
        let whole = InflatingStream(url: input.url, part: part, displayPath: input.displayPath)
        var total = 0
        while let chunk = try whole.next() { total += chunk.count }
        #expect(total > 4_000_000 && whole.hasFinished)
    }

    /// Some writers leave out the references (`r`): rows and cells then follow the ones before,
    /// also across the parser's chunks of 256 KB.
    @Test("rows and cells without references are numbered by their order")
    func implicitReferences() throws {
        let rows = #"<row><c t="inlineStr"><is><t>name</t></is></c><c t="inlineStr"><is><t>unit</t></is></c></row>"#
            + (1...20_000).map { #"<row><c t="inlineStr"><is><t>item \#($0)</t></is></c><c t="inlineStr"><is><t>kg</t></is></c></row>"# }.joined()
        let (_, records) = try XLSXTest.read(XLSXTest.workbook(sheets: [("Items", rows)]))
        #expect(records.count == 20_000)
        #expect(records.last?.values == [.text("item 20000"), .text("kg")])
        #expect(records.last?.location.description == "data/Groceries.xlsx: Items!A20001")
    }

    @Test("a sheet by name or position; one that does not exist lists the sheets there are")
    func sheets() throws {
        let one = #"<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row>"#
        let two = #"<row r="1"><c r="A1" t="inlineStr"><is><t>b</t></is></c></row><row r="2"><c r="A2"><v>2</v></c></row>"#
        let input = try XLSXTest.workbook(sheets: [("Items", one), ("Units", two)])
        #expect(try XLSXTest.read(input).fields == ["a"])
        #expect(try XLSXTest.read(input, sheet: "Units").records.first?.values == [.text("2")])
        #expect(try XLSXTest.read(input, sheet: "2").fields == ["b"])
        #expect(try XLSXTest.read(input, sheet: "units").fields == ["b"], "a sheet's name in another case, as Excel finds it")
        // Without `sheet:`, the first; after the summary Numbers puts in front when it exports, the
        // next. Which one was read is among the input's details (the summary, the reports).
        let first = try XLSXTest.workbook(sheets: [("Items", one), ("Units", two)])
        _ = try XLSXReader(input: first, options: .init())
        #expect(first.details.snapshot.map { "\($0.name) \($0.value)" } == ["sheet 'Items', the first (detected)"])
        let summary = #"<row r="1"><c r="A1" t="inlineStr"><is><t>This document was exported from Numbers.</t></is></c></row>"#
        let fromNumbers = try XLSXTest.workbook(sheets: [("Export Summary", summary), ("Sheet 1 - Table 1", one)])
        let reader = try XLSXReader(input: fromNumbers, options: .init())
        #expect(reader.fieldNames == ["a"])
        #expect(fromNumbers.details.snapshot.map { "\($0.name) \($0.value)" } == ["sheet 'Sheet 1 - Table 1', after Numbers' 'Export Summary' (detected)"])
        let missing = try #require(throws: PipelineError.self) { try XLSXTest.read(input, sheet: "Unit") }
        #expect(missing.code == .xlsxUnknownSheet)
        #expect(missing.description.contains("the workbook has no sheet 'Unit'; did you mean 'Units'? (sheets: 'Items', 'Units')"), "\(missing)")
    }

    @Test("an old .xls, a Numbers document, a damaged archive and a zip bomb: each a clear error")
    func hostileFiles() throws {
        let folder = try ScratchFolder.make("xlsx-hostile")
        func failure(_ bytes: [UInt8]) throws -> PipelineError? {
            let url = folder.appendingPathComponent("x-\(UUID().uuidString).xlsx")
            try Data(bytes).write(to: url)
            do { _ = try XLSXTest.read(Input(url: url, displayPath: "data/x.xlsx")) } catch let error as PipelineError { return error }
            return nil
        }
        let compoundFile: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + Array(repeating: 0, count: 100)
        expectError(try failure(compoundFile), .xlsxOldFormat, at: "data/x.xlsx")
        // An .xlsx Excel encrypted with a password is a compound file whose directory names its
        // streams in UTF-16, "EncryptedPackage" among them (calamine's pass_protected.xlsx).
        let encrypted = compoundFile + "EncryptionInfo\u{0}EncryptedPackage".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        expectError(try failure(encrypted), .xlsxEncrypted, at: "data/x.xlsx")
        expectError(try failure(Array("name,unit\n".utf8)), .xlsxNotAWorkbook, at: "data/x.xlsx")
        expectError(try failure([0x50, 0x4B, 0x03, 0x04] + Array(repeating: 7, count: 60)), .xlsxDamaged, at: "data/x.xlsx")
        let numbers = try XLSXTest.workbook(sheets: [], extraParts: [("Index/Document.iwa", Data([1, 2, 3]))])
        let numbersError = #expect(throws: PipelineError.self) { try XLSXTest.read(numbers) }
        #expect(numbersError?.code == .xlsxNumbersDocument)
        // A sheet of 50 MB of one repeated byte packs into a few dozen KB: more than 200 times.
        let bombed = try XLSXTest.workbook(sheets: [("Items", String(repeating: " ", count: 50 << 20))])
        let error = try #require(throws: PipelineError.self) { try XLSXTest.read(bombed) }
        #expect(error.code == .xlsxPartTooLarge, "\(error)")
    }

    /// A workbook libxlsxwriter writes, as any program using it would: shared strings (one in rich
    /// text runs), or inline strings in its constant-memory mode.
    static func writtenByLibxlsxwriter(constantMemory: Bool) throws -> Input {
        let folder = try ScratchFolder.make("xlsx-lxw")
        let url = folder.appendingPathComponent("Groceries.xlsx")
        var options = lxw_workbook_options(constant_memory: constantMemory ? 1 : 0, tmpdir: nil, use_zip64: 0)
        let workbook = try #require(workbook_new_opt(url.path, &options))
        let sheet = try #require(workbook_add_worksheet(workbook, "Items"))
        let day = workbook_add_format(workbook), minute = workbook_add_format(workbook), bold = workbook_add_format(workbook)
        format_set_num_format(day, "dd/mm/yyyy")
        format_set_num_format(minute, "yyyy-mm-dd hh:mm")
        format_set_bold(bold)
        for (column, name) in ["name", "quantity", "code", "added", "listed", "total", "label", "note"].enumerated() {
            worksheet_write_string(sheet, 0, lxw_col_t(column), name, nil)
        }
        if constantMemory {
            worksheet_write_string(sheet, 1, 0, "Fresh parsley", nil)
        } else {
            var plain = lxw_rich_string_tuple(format: nil, string: strdup("Fresh "))
            var strong = lxw_rich_string_tuple(format: bold, string: strdup("parsley"))
            defer { free(plain.string); free(strong.string) }
            withUnsafeMutablePointer(to: &plain) { first in
                withUnsafeMutablePointer(to: &strong) { second in
                    var runs: [UnsafeMutablePointer<lxw_rich_string_tuple>?] = [first, second, nil]
                    #expect(worksheet_write_rich_string(sheet, 1, 0, &runs, nil) == LXW_NO_ERROR)
                }
            }
        }
        worksheet_write_number(sheet, 1, 1, 0.1, nil)
        worksheet_write_string(sheet, 1, 2, "007", nil)
        var december = lxw_datetime(year: 2024, month: 12, day: 1, hour: 0, min: 0, sec: 0)
        worksheet_write_datetime(sheet, 1, 3, &december, day)
        worksheet_write_boolean(sheet, 1, 4, 1, nil)
        worksheet_write_formula_num(sheet, 1, 5, "=B2*120", nil, 12)
        worksheet_write_formula_str(sheet, 1, 6, "=\"Mi\"&\"lk\"", nil, "Milk")
        worksheet_write_string(sheet, 1, 7, "  two spaces  ", nil)
        worksheet_write_string(sheet, 2, 0, "Eggs", nil)
        worksheet_write_number(sheet, 2, 1, 1234567.891, nil)
        worksheet_write_blank(sheet, 2, 2, day)  // formatted, but empty
        var evening = lxw_datetime(year: 2024, month: 12, day: 1, hour: 18, min: 30, sec: 0)
        worksheet_write_datetime(sheet, 2, 3, &evening, minute)
        worksheet_write_boolean(sheet, 2, 4, 0, nil)
        worksheet_write_number(sheet, 2, 5, -3, nil)
        worksheet_write_string(sheet, 4, 0, "Rice", nil)  // after an empty row
        #expect(workbook_close(workbook) == LXW_NO_ERROR)
        return Input(url: url, displayPath: "data/Groceries.xlsx")
    }

    @Test("a workbook libxlsxwriter writes, with shared and inline strings: every kind of cell it can write", arguments: [false, true])
    func libxlsxwriterWorkbook(constantMemory: Bool) throws {
        let (fields, records) = try XLSXTest.read(Self.writtenByLibxlsxwriter(constantMemory: constantMemory))
        #expect(fields == ["name", "quantity", "code", "added", "listed", "total", "label", "note"])
        let first: [Value] = [.text("Fresh parsley"), .text("0.1"), .text("007"), .date(754_704_000), .bool(true), .text("12"), .text("Milk"),
                              .text("  two spaces  ")]
        let second: [Value] = [.text("Eggs"), .text("1234567.891"), .null, .date(754_704_000 + 18 * 3600 + 1800), .bool(false), .text("-3"),
                               .null, .null]
        let third: [Value] = [.text("Rice"), .null, .null, .null, .null, .null, .null, .null]
        #expect(records.map(\.values) == [first, second, third])
        #expect(records.map(\.location.description) == ["data/Groceries.xlsx: Items!A2", "data/Groceries.xlsx: Items!A3", "data/Groceries.xlsx: Items!A5"])
    }

    static func libreOffice(_ name: String) -> Input {
        Input(url: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/libreoffice/\(name).xlsx"),
              displayPath: "\(name).xlsx")
    }

    @Test("a workbook LibreOffice wrote (Fixtures/libreoffice/make.py): its strings, numbers, formulas, dates, error cell and empty row")
    func libreOfficeWorkbook() throws {
        let reader = try XLSXReader(input: Self.libreOffice("cell-kinds"), options: .init())
        #expect(reader.fieldNames == ["name", "quantity", "code", "added", "listed", "total", "label"])
        // LibreOffice writes a boolean as the number 1 or 0 unless the cell has a boolean format,
        // and 18:30 as 45627.7708333333 (read to the millisecond).
        let first: [Value] = [.text("Fresh parsley"), .text("0.1"), .text("007"), .date(754_704_000), .text("1"), .text("12"), .text("Milk")]
        let second: [Value] = [.text("Eggs"), .text("1234567.891"), .null, .date(754_704_000 + 18 * 3600 + 1800), .text("0"), .text("-3"), .null]
        #expect(try reader.next()?.values == first)
        #expect(try reader.next()?.values == second)
        let rejection = try #require(throws: Rejection.self) { _ = try reader.next() }
        #expect(rejection.description == ##"cell-kinds.xlsx: Items!B4: rejected: xlsx: field 'quantity' value "#DIV/0!": the cell holds the error #DIV/0!, not a value"##)
        let rice = try #require(try reader.next())
        #expect(rice.values.first == .text("Rice"))
        #expect(rice.location.description == "cell-kinds.xlsx: Items!A6")
        #expect(try reader.next() == nil)
        #expect(try XLSXTest.read(Self.libreOffice("cell-kinds"), sheet: "Units").records.map(\.values) == [[.text("kg")]])
    }

    @Test("a workbook LibreOffice wrote in the 1904 date system")
    func libreOffice1904() throws {
        let (fields, records) = try XLSXTest.read(Self.libreOffice("date-1904"))
        #expect(fields == ["name", "added"])
        #expect(records.map(\.values) == [[.text("Fresh parsley"), .date(754_704_000)], [.text("Epoch"), .date(0)]])
    }

    @Test("the zip checksum, eight bytes a step, is ZIPFoundation's CRC-32 on every length and alignment")
    func checksum() {
        var check = CRC32()
        Array("123456789".utf8).withUnsafeBytes { check.update($0) }
        #expect(check.value == 0xCBF4_3926)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4_100).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for (start, end) in [(0, 0), (0, 1), (1, 8), (3, 17), (0, 4_100), (5, 4_099)] {
            var ours = CRC32()
            // In two pieces, as chunks come.
            let middle = (start + end) / 2
            bytes[start..<middle].withUnsafeBytes { ours.update($0) }
            bytes[middle..<end].withUnsafeBytes { ours.update($0) }
            #expect(ours.value == Data(bytes[start..<end]).crc32(checksum: 0), "bytes \(start)..<\(end)")
        }
    }

    @Test("pipelines/data/grocery.xlsx, written by xlsxwriter: dates in Berlin, numbers, leading zeros kept, a second sheet")
    func groceryWorkbook() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("pipelines/data/grocery.xlsx")
        let input = Input(url: url, displayPath: "data/grocery.xlsx")
        let reader = try XLSXReader(input: input, options: .init(sheet: "Items", timeZone: TimeZone(identifier: "Europe/Berlin")!))
        #expect(reader.fieldNames == ["name", "quantity", "unit", "locationathome", "locationatshop", "added", "code"])
        let first = try #require(try reader.next())
        // Fresh parsley;2;kg;Fruit bowl;Aisle 1: Fruit & Veg;28/11/2026: midnight in Berlin is 23:00 UTC the day before.
        #expect(first.values == [.text("Fresh parsley"), .text("2"), .text("kg"), .text("Fruit bowl"), .text("Aisle 1: Fruit & Veg"),
                                 .date(817_513_200), .text("00001")])
        var count = 1
        while try reader.next() != nil { count += 1 }
        #expect(count == 419)
        #expect(try XLSXTest.read(input, sheet: "Notes", header: false, columns: ["note"]).records.count == 1)
    }
}
