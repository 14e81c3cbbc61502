import Foundation
import TestSupport
import Diagnostics
import Pipeline
@testable import SourcesXLSX
import Testing
import ZIPFoundation

/// `XLSXBudget` on real workbooks, parts stored unpacked so that the zip-bomb ratio lets them by:
/// each limit is met on what is parsed, whatever the archive's directory says.
@Suite("xlsx budgets")
struct XLSXBudgetTests {
    static let ns = #"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main""#
    static let header = #"<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r="B1" t="inlineStr"><is><t>unit</t></is></c></row>"#

    /// A workbook of one sheet `Items` whose parts are stored, not deflated; `parts` adds or replaces.
    static func stored(sheet rows: String, _ parts: [(String, Data)] = []) throws -> Input {
        let folder = try ScratchFolder.make("xlsx-budget")
        let url = folder.appendingPathComponent("Groceries.xlsx")
        let archive = try Archive(url: url, accessMode: .create)
        let rel = #"xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#
        var all: [(String, Data)] = [
            ("xl/workbook.xml", Data(#"<?xml version="1.0"?><workbook \#(ns) \#(rel)><sheets><sheet name="Items" sheetId="1" r:id="rId1"/></sheets></workbook>"#.utf8)),
            ("xl/_rels/workbook.xml.rels", Data(#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#.utf8)),
            ("xl/worksheets/sheet1.xml", Data(#"<?xml version="1.0"?><worksheet \#(ns)><sheetData>\#(rows)</sheetData></worksheet>"#.utf8)),
        ]
        for (path, data) in parts {
            all.removeAll { $0.0 == path }
            all.append((path, data))
        }
        for (path, data) in all {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return Input(url: url, displayPath: "data/Groceries.xlsx")
    }

    static func inline(_ reference: String, _ text: String) -> String {
        #"<c r="\#(reference)" t="inlineStr"><is><t>\#(text)</t></is></c>"#
    }

    @Test("shared strings are counted as they are parsed: 10,000,001 empty strings (50 MB) are refused")
    func sharedStringCount() throws {
        let strings = "<?xml version=\"1.0\"?><sst \(Self.ns)>" + String(repeating: "<si/>", count: XLSXBudget.maxSharedStrings + 1) + "</sst>"
        let input = try Self.stored(sheet: Self.header, [("xl/sharedStrings.xml", Data(strings.utf8))])
        let error = try #require(throws: PipelineError.self) { try XLSXTest.read(input) }
        #expect(error.description == "data/Groceries.xlsx: error: xlsx: the part 'xl/sharedStrings.xml' holds more than 10,000,000 strings, "
            + "more than pipectl reads")
        #expect(error.kind == .invalidInput)
    }

    @Test("a shared string longer than 8 MB is refused")
    func sharedStringLength() throws {
        let strings = "<?xml version=\"1.0\"?><sst \(Self.ns)><si><t>Milk</t></si><si><t>" + String(repeating: "a", count: XLSXBudget.maxCellBytes + 1)
            + "</t></si></sst>"
        let input = try Self.stored(sheet: Self.header, [("xl/sharedStrings.xml", Data(strings.utf8))])
        let error = try #require(throws: PipelineError.self) { try XLSXTest.read(input) }
        #expect(error.description == "data/Groceries.xlsx: error: xlsx: the part 'xl/sharedStrings.xml' holds a string longer than 8 MB "
            + "(string 2), more than pipectl reads")
    }

    @Test("styles of more than 1,000,000 elements are refused as they are parsed")
    func stylesElements() throws {
        let styles = "<?xml version=\"1.0\"?><styleSheet \(Self.ns)><cellXfs>" + String(repeating: "<xf/>", count: XLSXBudget.maxPartElements)
            + "</cellXfs></styleSheet>"
        let input = try Self.stored(sheet: Self.header, [("xl/styles.xml", Data(styles.utf8))])
        let error = try #require(throws: PipelineError.self) { try XLSXTest.read(input) }
        #expect(error.description == "data/Groceries.xlsx: error: xlsx: the part 'xl/styles.xml' has more than 1,000,000 elements, "
            + "more than pipectl reads (line 1, column 5000102 of its XML): is the workbook damaged?")
    }

    @Test("a cell longer than 8 MB, and a row of more than 10 MB of text, are refused at the cell")
    func cellAndRowLength() throws {
        let long = try Self.stored(sheet: Self.header + #"<row r="2">\#(Self.inline("A2", "Milk"))\#(Self.inline("B2", String(repeating: "l", count: XLSXBudget.maxCellBytes + 1)))</row>"#)
        let cell = try #require(throws: PipelineError.self) { try XLSXTest.read(long) }
        #expect(cell.description == "data/Groceries.xlsx: Items!B2: error: xlsx: the cell's text is longer than 8 MB, more than pipectl reads")
        let six = String(repeating: "m", count: 6 << 20)
        let wide = try Self.stored(sheet: Self.header + #"<row r="2">\#(Self.inline("A2", six))\#(Self.inline("B2", six))</row>"#)
        let row = try #require(throws: PipelineError.self) { try XLSXTest.read(wide) }
        #expect(row.description == "data/Groceries.xlsx: Items!B2: error: xlsx: the row's cells hold more than 10 MB of text together, "
            + "more than pipectl reads")
    }

    @Test("a row's cells are kept as present: one at XFD and one at A")
    func sparseRow() throws {
        let input = try Self.stored(sheet: Self.header + #"<row r="2">\#(Self.inline("XFD2", "x"))\#(Self.inline("A2", "Milk"))\#(Self.inline("B2", "l"))</row>"#)
        let (fields, records) = try XLSXTest.read(input)
        #expect(fields == ["name", "unit"])
        #expect(records.map(\.values) == [[.text("Milk"), .text("l")]])
    }

    @Test("a DOCTYPE after a comment holding '<a', or in UTF-16, is refused on libxml2's event in the workbook's small parts")
    func doctype() throws {
        let rels = #"<?xml version="1.0"?><!--<a--><!DOCTYPE Relationships [<!ENTITY t "worksheets/sheet1.xml">]><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="worksheet" Target="&t;"/></Relationships>"#
        let commented = try Self.stored(sheet: Self.header, [("xl/_rels/workbook.xml.rels", Data(rels.utf8))])
        // At the DOCTYPE's internal subset, where libxml2 reports it.
        let first = try #require(throws: PipelineError.self) { try XLSXTest.read(commented) }
        #expect(first.description == "data/Groceries.xlsx: error: xlsx: the part 'xl/_rels/workbook.xml.rels' declares entities (line 1, "
            + "column 55 of its XML), which no spreadsheet program writes: refused (pipectl never expands entities); save the workbook "
            + "again from Excel, Numbers or LibreOffice")
        #expect(first.code == .xlsxEntitiesRefused)
        var utf16 = Data([0xFF, 0xFE])
        let workbook = #"<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE workbook [<!ENTITY n "Items">]><workbook \#(Self.ns) xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="&n;" sheetId="1" r:id="rId1"/></sheets></workbook>"#
        for unit in workbook.utf16 { utf16.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
        let wide = try Self.stored(sheet: Self.header, [("xl/workbook.xml", utf16)])
        let second = try #require(throws: PipelineError.self) { try XLSXTest.read(wide) }
        #expect(second.description == "data/Groceries.xlsx: error: xlsx: the part 'xl/workbook.xml' declares entities (line 1, "
            + "column 59 of its XML), which no spreadsheet program writes: refused (pipectl never expands entities); save the workbook "
            + "again from Excel, Numbers or LibreOffice")
    }

    @Test("an ampersand in an attribute (a sheet's name) reads as written")
    func ampersandInAttribute() throws {
        let workbook = #"<?xml version="1.0"?><workbook \#(Self.ns) xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Fruit &amp; Veg &#38;#38;" sheetId="1" r:id="rId1"/></sheets></workbook>"#
        let input = try Self.stored(sheet: Self.header, [("xl/workbook.xml", Data(workbook.utf8))])
        let opened = try XLSXWorkbook(url: input.url, displayPath: input.displayPath)
        #expect(opened.sheetNames == ["Fruit & Veg &#38;"])
    }
}
