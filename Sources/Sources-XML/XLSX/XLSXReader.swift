import Foundation
import Diagnostics
import Pipeline
internal import CLibXML2
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams the rows of one sheet of an .xlsx workbook: the sheet is inflated to a temporary file
/// (unlinked at once) and read with libxml2's streaming reader, so memory does not grow with the
/// rows; the shared strings are held in memory (`XLSXWorkbook`).
///
/// Cells come as Excel means them: shared and inline strings (rich text runs joined), numbers as
/// written (`0.1`, no float noise), booleans, a formula's cached value, dates for cells whose
/// style is a date format (both date systems, Excel's 1900 leap-year bug allowed for), an error
/// cell (`#N/A`) rejecting its record at the cell. Records are located at their row
/// (`Groceries.xlsx: Items!A12`), values at their cell.
public final class XLSXReader: RecordReader {
    public struct Options: Sendable {
        public var sheet: String?
        public var header: Bool
        public var columns: [String]?
        /// `A1:F500`: the first and last column and row read.
        public var range: (firstColumn: Int, firstRow: Int, lastColumn: Int, lastRow: Int)?
        /// The zone the workbook's dates and times are wall-clock times of: Excel keeps none.
        public var timeZone: TimeZone

        public init(sheet: String? = nil, header: Bool = true, columns: [String]? = nil,
                    range: (firstColumn: Int, firstRow: Int, lastColumn: Int, lastRow: Int)? = nil,
                    timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
            self.sheet = sheet
            self.header = header
            self.columns = columns
            self.range = range
            self.timeZone = timeZone
        }
    }

    public let fieldNames: [String]
    public private(set) var bytesRead: Int64 = 0
    private let input: Input
    private let workbook: XLSXWorkbook
    private let sheetName: String
    private let reader: xmlTextReaderPtr
    private let trap: Pinned<XMLErrorTrap>
    private let descriptor: Int32
    private let firstColumn: Int
    private let lastColumn: Int
    private let firstDataRow: Int
    private let lastRow: Int
    private var finished = false
    private let names: Names
    /// The cell's text as it comes, reused from cell to cell.
    private var textBytes: [UInt8] = []

    public init(input: Input, options: Options) throws {
        self.input = input
        var workbook = try XLSXWorkbook(url: input.url, displayPath: input.displayPath)
        workbook.timeZone = options.timeZone
        self.workbook = workbook
        func fail(_ message: String) -> PipelineError {
            PipelineError(.invalidInput, at: Location(file: input.displayPath), stage: "xlsx", message)
        }
        let sheetNames = workbook.sheets.map(\.name)
        let chosen: (name: String, path: String)
        if let wanted = options.sheet {
            if let found = workbook.sheets.first(where: { $0.name == wanted }) {
                chosen = found
            } else if let index = Int(wanted), (1...workbook.sheets.count).contains(index) {
                chosen = workbook.sheets[index - 1]
            } else {
                throw PipelineError(.invalidPipeline, at: Location(file: input.displayPath), stage: "xlsx",
                                    "the workbook has no sheet '\(wanted)'\(Suggestion.hint(for: wanted, in: sheetNames)) (sheets: "
                                        + sheetNames.map { "'\($0)'" }.joined(separator: ", ") + ")")
            }
        } else {
            guard let first = workbook.sheets.first else { throw fail("the workbook has no sheets") }
            chosen = first
        }
        sheetName = chosen.name
        // The sheet inflated to a temporary file, unlinked once open: it goes however the run ends.
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("pipectl-sheet-\(getpid())-\(UUID().uuidString).xml")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary) else {
            throw PipelineError(.io, at: Location(file: input.displayPath), stage: "xlsx", "cannot create a temporary file for the sheet")
        }
        do {
            try XLSXWorkbook.extract(chosen.path, from: workbook.archive, displayPath: input.displayPath) { try handle.write(contentsOf: $0) }
            try handle.close()
        } catch {
            try? handle.close()
            unlink(temporary.path)
            throw error
        }
        descriptor = open(temporary.path, O_RDONLY | O_CLOEXEC)
        unlink(temporary.path)
        guard descriptor >= 0, let reader = xmlReaderForFd(descriptor, temporary.path, nil, Int32(XML_PARSE_NONET.rawValue)) else {
            if descriptor >= 0 { close(descriptor) }
            throw PipelineError(.io, at: Location(file: input.displayPath), stage: "xlsx", "libxml2 cannot start reading the sheet")
        }
        self.reader = reader
        let elementNames = Names(reader)
        names = elementNames
        trap = Pinned(XMLErrorTrap(displayPath: input.displayPath, path: temporary.path))
        xmlTextReaderSetStructuredErrorHandler(reader, captureXMLError, trap.context)
        firstColumn = options.range?.firstColumn ?? 1
        lastColumn = options.range?.lastColumn ?? Int.max
        lastRow = options.range?.lastRow ?? Int.max
        let headerRow = options.range?.firstRow ?? 1
        var names: [String]
        if options.header {
            // The header row names the fields (the first row of the range, or of the sheet).
            var header: [Int: String] = [:]
            var rowNumber = 0
            repeat {
                var scratch: [UInt8] = []
                guard let row = try Self.nextRow(reader, names: elementNames, trap: trap, workbook: workbook, displayPath: input.displayPath,
                                                 sheet: sheetName, text: &scratch) else {
                    header = [:]
                    break
                }
                rowNumber = row.number
                header = [:]
                for (column, cell) in row.cells.enumerated() { if let cell { header[column] = cell.text } }
            } while rowNumber < headerRow
            let last = min(header.keys.max() ?? 0, lastColumn)
            names = last < firstColumn ? [] : (firstColumn...last).map { column in
                let name = header[column].flatMap { Trimming.trimmed($0) ?? $0 } ?? ""
                return name.isEmpty ? XLSXReader.columnName(column) : name
            }
            firstDataRow = rowNumber + 1
        } else {
            names = []
            firstDataRow = headerRow
        }
        if let columns = options.columns { names = columns }
        guard !names.isEmpty else { throw fail("the sheet '\(sheetName)' has no header row to name its columns (set header: false and columns:)") }
        fieldNames = names
    }

    public var whereRecordsBegin: Location? { Location(file: input.displayPath, path: "sheet '\(sheetName)'") }

    deinit {
        xmlFreeTextReader(reader)
        close(descriptor)
    }

    /// `A`, `B`, ... `Z`, `AA`: a column's letters from its 1-based number.
    static func columnName(_ column: Int) -> String {
        var n = column, name = ""
        while n > 0 {
            let digit = (n - 1) % 26
            name = String(UnicodeScalar(UInt8(65 + digit))) + name
            n = (n - 1) / 26
        }
        return name
    }

    /// `C12` as column 3, row 12.
    static func cellPosition(_ reference: String) -> (column: Int, row: Int)? {
        var column = 0, row = 0, sawDigit = false
        for scalar in reference.unicodeScalars {
            if !sawDigit, (65...90).contains(scalar.value) {
                column = column * 26 + Int(scalar.value - 64)
            } else if (48...57).contains(scalar.value) {
                sawDigit = true
                row = row * 10 + Int(scalar.value - 48)
            } else {
                return nil
            }
        }
        return column > 0 && row > 0 ? (column, row) : nil
    }

    struct Cell {
        var text: String
        var value: Value
        var isError = false
    }

    struct Row {
        var number: Int
        /// By column, from 1; nil for a cell the row does not have.
        var cells: [Cell?]

        subscript(column: Int) -> Cell? { column < cells.count ? cells[column] : nil }
    }

    public func next() throws -> Record? {
        while !finished {
            guard let row = try nextRow() else {
                finished = true
                return nil
            }
            guard row.number >= firstDataRow else { continue }
            guard row.number <= lastRow else { finished = true; return nil }
            let location = Location(file: input.displayPath, path: "\(sheetName)!\(XLSXReader.columnName(firstColumn))\(row.number)")
            var values: [Value] = []
            values.reserveCapacity(fieldNames.count)
            for offset in 0..<fieldNames.count {
                let column = firstColumn + offset
                guard let cell = row[column] else { values.append(.null); continue }
                if cell.isError {
                    throw Rejection(at: Location(file: input.displayPath, path: "\(sheetName)!\(XLSXReader.columnName(column))\(row.number)"),
                                    stage: "xlsx", field: fieldNames[offset], rawValue: cell.text,
                                    reason: "the cell holds the error \(cell.text), not a value")
                }
                values.append(cell.value)
            }
            // A row whose cells are all empty in the columns read is no record.
            if values.allSatisfy(\.isEmpty) { continue }
            return Record(values: values, location: location)
        }
        return nil
    }

    static let errorValues: Set<String> = ["#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA", "#SPILL!", "#CALC!"]

    /// libxml2's interned names of the elements read: a node's name is compared by pointer,
    /// never turned into a String (a sheet has millions of nodes).
    struct Names {
        let row, c, v, `is`, r, t, s: UnsafePointer<UInt8>?

        init(_ reader: xmlTextReaderPtr) {
            func intern(_ name: String) -> UnsafePointer<UInt8>? { xmlTextReaderConstString(reader, name) }
            (row, c, v, `is`, r, t, s) = (intern("row"), intern("c"), intern("v"), intern("is"), intern("r"), intern("t"), intern("s"))
        }
    }

    /// The next `<row>` and its cells; nil at the end of the sheet.
    private func nextRow() throws -> Row? {
        try Self.nextRow(reader, names: names, trap: trap, workbook: workbook, displayPath: input.displayPath, sheet: sheetName,
                         text: &textBytes)
    }

    static func nextRow(_ reader: xmlTextReaderPtr, names: Names, trap: borrowing Pinned<XMLErrorTrap>, workbook: XLSXWorkbook,
                        displayPath: String, sheet: String, text: inout [UInt8]) throws -> Row? {
        var row: Row?
        // The cell being read: its column, type (the first byte of `t`: s, i(nlineStr), b, e, (s)tr), style.
        var cell: (column: Int, type: UInt8, style: Int, isString: Bool)?
        var inValue = false, inInline = false
        var implicitColumn = 0
        func damaged(_ detail: String) -> PipelineError {
            // At the row read last: the sheet's XML has no lines a user could open.
            let at = row.map { Location(file: displayPath, path: "\(sheet)!A\($0.number)") } ?? Location(file: displayPath, path: "sheet '\(sheet)'")
            return PipelineError(.invalidInput, at: at, stage: "xlsx", "the sheet's XML is damaged: \(detail); is the workbook complete?")
        }
        func entities() -> PipelineError {
            PipelineError(.invalidInput, at: Location(file: displayPath, path: "sheet '\(sheet)'"), stage: "xlsx",
                          "the sheet's XML declares or uses entities, which no spreadsheet program writes: refused "
                              + "(pipectl never expands entities); save the workbook again from Excel, Numbers or LibreOffice")
        }
        while true {
            let status = xmlTextReaderRead(reader)
            if let error = trap.pointee.error {
                if trap.pointee.isEntityError { throw entities() }
                let position = error.location?.line.map { " (line \($0)\(error.location?.column.map { ", column \($0)" } ?? "") of its XML)" } ?? ""
                throw damaged(error.message + position)
            }
            guard status == 1 else {
                if status == 0 { return row }
                throw damaged("libxml2 stopped reading it")
            }
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue), Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue):
                // No spreadsheet program writes either; entities are never expanded (they can read
                // local files or explode in size).
                throw entities()
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let name = xmlTextReaderConstLocalName(reader)
                if name == names.row {
                    var number = 0
                    if xmlTextReaderMoveToAttribute(reader, "r") == 1, let value = xmlTextReaderConstValue(reader) {
                        number = Self.integer(value)
                        xmlTextReaderMoveToElement(reader)
                    }
                    row = Row(number: number, cells: [])
                    implicitColumn = 0
                    if xmlTextReaderIsEmptyElement(reader) == 1 { return row }
                } else if name == names.c {
                    var column = implicitColumn + 1, type = UInt8(ascii: "n"), style = 0, isString = false
                    while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                        let attribute = xmlTextReaderConstLocalName(reader)
                        guard let value = xmlTextReaderConstValue(reader) else { continue }
                        if attribute == names.r {
                            column = Self.column(value) ?? column
                        } else if attribute == names.t {
                            type = value[0]
                            isString = value[0] == UInt8(ascii: "s") && value[1] == UInt8(ascii: "t")  // "str": a formula's text
                        } else if attribute == names.s {
                            style = Self.integer(value)
                        }
                    }
                    xmlTextReaderMoveToElement(reader)
                    implicitColumn = column
                    cell = (column, type, style, isString)
                    text.removeAll(keepingCapacity: true)
                    if xmlTextReaderIsEmptyElement(reader) == 1 { cell = nil }
                } else if name == names.v {
                    inValue = true
                } else if name == names.is {
                    inInline = true
                }
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue),
                 Int32(XML_READER_TYPE_CDATA.rawValue):
                if inValue || inInline, let value = xmlTextReaderConstValue(reader) {
                    text.append(contentsOf: UnsafeBufferPointer(start: value, count: strlen(value)))
                }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                let name = xmlTextReaderConstLocalName(reader)
                if name == names.v {
                    inValue = false
                } else if name == names.is {
                    inInline = false
                } else if name == names.c {
                    if let current = cell, row != nil {
                        let made = try value(type: current.type, isString: current.isString, style: current.style, column: current.column,
                                             rowNumber: row?.number ?? 0, text: text, workbook: workbook, displayPath: displayPath, sheet: sheet)
                        if row!.cells.count <= current.column { row!.cells.append(contentsOf: repeatElement(nil, count: current.column + 1 - row!.cells.count)) }
                        row!.cells[current.column] = made
                    }
                    cell = nil
                } else if name == names.row {
                    return row
                }
            default:
                break
            }
        }
    }

    /// A decimal number's digits as an Int (a row's or a style's number).
    static func integer(_ bytes: UnsafePointer<UInt8>) -> Int {
        var n = 0, i = 0
        while bytes[i] >= 48 && bytes[i] <= 57 { n = n * 10 + Int(bytes[i] - 48); i += 1 }
        return n
    }

    /// The column of a cell reference (`C12` is 3), from its letters.
    static func column(_ bytes: UnsafePointer<UInt8>) -> Int? {
        var n = 0, i = 0
        while bytes[i] >= 65 && bytes[i] <= 90 { n = n * 26 + Int(bytes[i] - 64); i += 1 }
        return n > 0 ? n : nil
    }

    /// Seconds from Excel's serial day 0 to 2001-01-01 (Core Data's reference date).
    static func seconds(fromSerial serial: Double, date1904: Bool) -> Double {
        // 1900 system: serial 1 is 1900-01-01, and Excel counts a 29 February 1900 that never was
        // (serial 60): from serial 61 on, day 0 is 1899-12-30; before, 1899-12-31.
        let days: Double = date1904 ? serial - 35_430 : (serial >= 61 ? serial - 36_892 : serial - 36_891)
        // To the millisecond, Excel's precision: LibreOffice writes 18:30 as 45627.7708333333,
        // 0.003 ms short of it.
        return (days * 86_400_000).rounded() / 1000
    }

    private static func value(type: UInt8, isString: Bool, style: Int, column: Int, rowNumber: Int, text bytes: [UInt8],
                              workbook: XLSXWorkbook, displayPath: String, sheet: String) throws -> Cell {
        switch type {
        case UInt8(ascii: "s") where !isString:
            guard let index = Int(String(decoding: bytes, as: UTF8.self)), workbook.sharedStrings.indices.contains(index) else {
                throw PipelineError(.invalidInput, at: Location(file: displayPath, path: "\(sheet)!\(columnName(column))\(rowNumber)"),
                                    stage: "xlsx", "the cell names a shared string the workbook does not have")
            }
            let string = workbook.sharedStrings[index]
            return Cell(text: string, value: .text(string))
        case UInt8(ascii: "i"), UInt8(ascii: "s"):
            // inlineStr, and str (a formula's text).
            let string = String(decoding: bytes, as: UTF8.self)
            return Cell(text: string, value: string.isEmpty ? .null : .text(string))
        case UInt8(ascii: "b"):
            return Cell(text: "", value: bytes.isEmpty ? .null : .bool(bytes.first == UInt8(ascii: "1") || bytes.first == UInt8(ascii: "t")))
        case UInt8(ascii: "e"):
            let string = String(decoding: bytes, as: UTF8.self)
            return Cell(text: string, value: .text(string), isError: true)
        default:
            guard !bytes.isEmpty else { return Cell(text: "", value: .null) }
            let string = String(decoding: bytes, as: UTF8.self)
            if workbook.dateStyles.contains(style), let serial = Double(string) {
                return Cell(text: string, value: .date(workbook.instant(local: seconds(fromSerial: serial, date1904: workbook.date1904))))
            }
            return Cell(text: string, value: .text(string))
        }
    }
}
