import Foundation
import Diagnostics
import Pipeline
internal import CLibXML2

/// Streams the rows of one sheet of an .xlsx workbook: the sheet is inflated on a thread of its
/// own (`InflatingStream`) and parsed by libxml2's SAX parser as rows are asked for
/// (`SheetParser`), so memory does not grow with the rows; the shared strings are held in memory
/// (`XLSXWorkbook`).
///
/// Cells come as Excel means them: shared and inline strings (rich text runs joined), numbers as
/// written (`0.1`, no float noise), booleans, a formula's cached value, dates for cells whose
/// style is a date format (both date systems, Excel's 1900 leap-year bug allowed for), an error
/// cell (`#N/A`) rejecting its record at the cell, a formula saved without its value empty with
/// a warning (or rejecting its record: `rejectInsteadOfWarning`). Records are located at their
/// row (`Groceries.xlsx: Items!A12`), values at their cell.
public final class XLSXReader: RejectingReader {
    public struct Options: Sendable {
        public var sheet: String?
        public var header: Bool
        public var columns: [String]?
        /// `A1:F500`: the first and last column and row read.
        public var range: (firstColumn: Int, firstRow: Int, lastColumn: Int, lastRow: Int)?
        /// The zone the workbook's dates and times are wall-clock times of: Excel keeps none.
        public var timeZone: TimeZone
        /// The fields the pipeline reads (nil: all). An error cell rejects its record, and a
        /// formula without its value is told of, only in one of them: `#DIV/0!` in a helper column
        /// no step or load reads loses nothing.
        public var fieldsRead: Set<String>?

        public init(sheet: String? = nil, header: Bool = true, columns: [String]? = nil,
                    range: (firstColumn: Int, firstRow: Int, lastColumn: Int, lastRow: Int)? = nil,
                    timeZone: TimeZone = TimeZone(identifier: "UTC")!, fieldsRead: Set<String>? = nil) {
            self.fieldsRead = fieldsRead
            self.sheet = sheet
            self.header = header
            self.columns = columns
            self.range = range
            self.timeZone = timeZone
        }
    }

    public let fieldNames: [String]
    public var bytesRead: Int64 { parser.bytesFed }
    private let input: Input
    private let sheetName: String
    private let parser: SheetParser
    private let firstColumn: Int
    private let lastColumn: Int
    private let firstDataRow: Int
    private let lastRow: Int
    private var finished = false
    /// `Items!A`: a record's location is this at its row.
    private let rowLocation: Location
    /// Per field: whether the pipeline reads it (`Options.fieldsRead`), so that an error cell in
    /// it rejects the record and a formula without its value is told of.
    private let isRead: [Bool]
    /// Whether a formula without its value rejects its record (`on_reject: fail`), rather than
    /// loading as empty with a warning.
    private var rejectsUnsavedFormulas = false

    /// The sheet Numbers puts first when it exports to Excel (in English; other languages name it
    /// otherwise, and their first sheet is read as any other).
    static let numbersSummary = "Export Summary"

    public convenience init(input: Input, options: Options) throws {
        try self.init(input: input, options: options, workbook: XLSXWorkbook(url: input.url, displayPath: input.displayPath))
    }

    /// A sheet of a workbook already opened: `pipectl init` reads several from one, and each
    /// opening parses the workbook's shared strings.
    public init(input: Input, options: Options, workbook opened: XLSXWorkbook) throws {
        self.input = input
        var workbook = opened
        workbook.timeZone = options.timeZone
        func fail(_ code: PipelineError.Code, _ message: String) -> PipelineError {
            PipelineError(.invalidInput, code: code, at: Location(file: input.displayPath), stage: "xlsx", message)
        }
        let sheetNames = workbook.sheets.map(\.name)
        let chosen: (name: String, path: String)
        if let wanted = options.sheet {
            // Excel allows no two sheets whose names differ only in case, and finds them so.
            if let found = workbook.sheets.first(where: { $0.name == wanted })
                ?? workbook.sheets.first(where: { $0.name.caseInsensitiveCompare(wanted) == .orderedSame }) {
                chosen = found
            } else if let index = Int(wanted), (1...workbook.sheets.count).contains(index) {
                chosen = workbook.sheets[index - 1]
            } else {
                throw PipelineError(.invalidPipeline, code: .xlsxUnknownSheet, at: Location(file: input.displayPath), stage: "xlsx",
                                    "the workbook has no sheet '\(wanted)'\(Suggestion.hint(for: wanted, in: sheetNames)) (sheets: "
                                        + sheetNames.map { "'\($0)'" }.joined(separator: ", ") + ")")
            }
        } else {
            guard let first = workbook.sheets.first else { throw fail(.xlsxNoSheets, "the workbook has no sheets") }
            // Numbers, exporting to Excel, puts a sheet in front that lists what it exported
            // ("Export Summary"), unless told not to: the data is on the next one. Which sheet
            // was read is told in the summary and the reports either way.
            if first.name == Self.numbersSummary, workbook.sheets.count > 1 {
                chosen = workbook.sheets[1]
                input.details.set("sheet", "'\(chosen.name)', after Numbers' '\(first.name)' (detected)")
            } else {
                chosen = first
                input.details.set("sheet", "'\(first.name)', the first (detected)")
            }
        }
        sheetName = chosen.name
        // Refused before any thread starts: a part outside the archive, or none by that name.
        let part = try workbook.part(chosen.path)
        let stream = InflatingStream(url: input.url, part: part, displayPath: input.displayPath)
        parser = SheetParser(stream: stream, packedFraction: Double(part.packedSize) / Double(max(part.inflatedSize, 1)),
                                    workbook: workbook, displayPath: input.displayPath, sheet: sheetName)
        firstColumn = options.range?.firstColumn ?? 1
        rowLocation = Location(file: input.displayPath, path: "\(sheetName)!\(XLSXReader.columnName(firstColumn))")
        lastColumn = options.range?.lastColumn ?? Int.max
        lastRow = options.range?.lastRow ?? Int.max
        let headerRow = options.range?.firstRow ?? 1
        var names: [String] = []
        do {
            try parser.start()
            if options.header {
                (names, firstDataRow) = try Self.header(parser, row: headerRow, columns: firstColumn...lastColumn, sheet: sheetName,
                                                        displayPath: input.displayPath)
            } else {
                firstDataRow = headerRow
            }
            if let columns = options.columns { names = columns }
            guard !names.isEmpty else {
                throw fail(.xlsxNoHeaderRow, "the sheet '\(sheetName)' has no header row to name its columns (set header: false and columns:)")
            }
        } catch {
            // Thrown before the reader exists, so no deinit will: the parser and the inflating
            // thread are let go here.
            parser.release()
            throw error
        }
        fieldNames = names
        isRead = names.map { options.fieldsRead?.contains($0) ?? true }
    }

    /// The fields the header row names (the first row of the range, or of the sheet), and the
    /// row after it.
    private static func header(_ parser: SheetParser, row headerRow: Int, columns: ClosedRange<Int>, sheet: String,
                               displayPath: String) throws -> (names: [String], firstDataRow: Int) {
        var header: [Int: String] = [:]
        var rowNumber = 0
        repeat {
            guard let row = try parser.nextRow() else {
                header = [:]
                break
            }
            rowNumber = row.number
            header = [:]
            guard rowNumber >= headerRow else { continue }
            for (column, cell) in zip(row.columns, row.cells) where columns.contains(column) {
                let bytes = cell.text.utf8.count
                guard bytes <= HeaderBudget.maxNameBytes else {
                    throw PipelineError(.invalidInput, code: .inputHeaderNameTooLong,
                                        at: Location(file: displayPath, path: "\(sheet)!\(XLSXReader.columnName(column))\(rowNumber)"),
                                        stage: "xlsx", HeaderBudget.nameTooLong(column: XLSXReader.columnName(column), bytes: bytes))
                }
                header[column] = cell.text
            }
        } while rowNumber < headerRow
        let named = header.compactMapValues { text in (Trimming.trimmed(text) ?? text).isEmpty ? nil : Trimming.trimmed(text) ?? text }
        // Up to the last named column: a formatted but empty cell after it names nothing.
        let last = min(named.keys.max() ?? 0, columns.upperBound)
        let names = last < columns.lowerBound ? [] : (columns.lowerBound...last).map { named[$0] ?? XLSXReader.columnName($0) }
        var seen: [String: Int] = [:]
        for (offset, name) in names.enumerated() {
            let column = columns.lowerBound + offset
            if let earlier = seen[name] {
                // The later column would never be read: its values would be lost without a word.
                throw PipelineError(.invalidInput, code: .inputDuplicateHeaderName,
                                    at: Location(file: displayPath, path: "\(sheet)!\(XLSXReader.columnName(column))\(rowNumber)"),
                                    stage: "xlsx", "column \(XLSXReader.columnName(column)) of the header row is named '\(name)' like column "
                                        + "\(XLSXReader.columnName(earlier)) (header names must be unique)")
            }
            seen[name] = column
        }
        return (names, rowNumber + 1)
    }

    deinit {
        parser.release()
    }

    public var whereRecordsBegin: Location? { Location(file: input.displayPath, path: "sheet '\(sheetName)'") }

    /// `A`, `B`, ... `Z`, `AA`: a column's letters from its 1-based number.
    public static func columnName(_ column: Int) -> String {
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
            guard column <= lastColumn, row <= lastRow else { return nil }
        }
        return column > 0 && row > 0 ? (column, row) : nil
    }

    /// Excel's last column (XFD) and row: no cell lies past them.
    public static let lastColumn = 16_384
    public static let lastRow = 1_048_576

    struct Cell {
        /// As written; for a formula without its value, the formula (without its `=`).
        var text: String
        var value: Value
        var kind = Kind.value

        /// One byte, not a flag per kind: the cell stays as small as it was, and a value is told
        /// from the rest by one test.
        enum Kind: UInt8 {
            case value
            /// An error (`#N/A`): `text` is it.
            case error
            /// A formula saved without its value: `text` is the formula.
            case unsavedFormula
        }
    }

    /// A row's cells as present, by column: a row of one cell at XFD is one cell, not 16,384 slots.
    struct Row {
        var number: Int
        /// The cells' columns (from 1) in ascending order, and the cells.
        private(set) var columns: [Int] = []
        private(set) var cells: [Cell] = []

        init(number: Int) {
            self.number = number
        }

        /// Adds a cell; one at a column the row already has replaces it (as before, the last wins).
        mutating func set(_ cell: Cell, at column: Int) {
            if let last = columns.last, column <= last {
                // Out of order, which Excel never writes: found by binary search.
                let index = position(of: column)
                if index < columns.count, columns[index] == column {
                    cells[index] = cell
                } else {
                    columns.insert(column, at: index)
                    cells.insert(cell, at: index)
                }
                return
            }
            columns.append(column)
            cells.append(cell)
        }

        /// Where `column` is or would go.
        private func position(of column: Int) -> Int {
            var low = 0, high = columns.count
            while low < high {
                let middle = (low + high) / 2
                if columns[middle] < column { low = middle + 1 } else { high = middle }
            }
            return low
        }

        subscript(column: Int) -> Cell? {
            let index = position(of: column)
            return index < columns.count && columns[index] == column ? cells[index] : nil
        }
    }

    public func next() throws -> Record? {
        while !finished {
            guard let row = try parser.nextRow() else {
                finished = true
                return nil
            }
            guard row.number >= firstDataRow else { continue }
            guard row.number <= lastRow else { finished = true; return nil }
            let location = rowLocation.cell(row: row.number)
            var values: [Value] = []
            values.reserveCapacity(fieldNames.count)
            // The fields' columns ascend, and so do the row's cells: one walk over both.
            var next = 0
            for offset in 0..<fieldNames.count {
                let column = firstColumn + offset
                while next < row.columns.count, row.columns[next] < column { next += 1 }
                guard next < row.columns.count, row.columns[next] == column else { values.append(.null); continue }
                let cell = row.cells[next]
                if cell.kind != .value {
                    guard isRead[offset] else { values.append(.null); continue }
                    if cell.kind == .error {
                        throw Rejection(at: location.cell(columnsRight: offset), stage: "xlsx", field: fieldNames[offset], rawValue: cell.text,
                                        reason: "the cell holds the error \(cell.text), not a value")
                    }
                    try unsavedFormula(cell, row: location, field: offset)
                }
                values.append(cell.value)
            }
            // A row whose cells are all empty in the columns read is no record.
            if values.allSatisfy(\.isEmpty) { continue }
            return Record(values: values, location: location, cellFields: fieldNames.count)
        }
        return nil
    }

    public func rejectInsteadOfWarning() {
        rejectsUnsavedFormulas = true
    }

    /// What shows the user the value a program that computes no formulas left out: Excel and
    /// LibreOffice save each formula's value with it.
    static let unsavedFormulaAdvice = "the program that wrote the workbook does not compute formulas; open it in Excel or LibreOffice "
        + "and save it there"

    /// A formula saved without its value, in a field read: the value loads as empty, told once per
    /// source with how many there were (a workbook openpyxl wrote has them in every row), or its
    /// record is rejected. `row` is the record's location: the cell's is made for a message only.
    private func unsavedFormula(_ cell: Cell, row: Location, field: Int) throws {
        // Followers of a shared formula (`<f t="shared" si="0"/>`) leave its text to the first cell.
        var formula: String { cell.text.isEmpty ? "a formula shared with other cells" : "the formula =\(cell.text)" }
        if rejectsUnsavedFormulas {
            throw Rejection(at: row.cell(columnsRight: field), stage: "xlsx", field: fieldNames[field], rawValue: cell.text.isEmpty ? nil : "=\(cell.text)",
                            reason: "the cell holds \(cell.text.isEmpty ? formula : "a formula") with no value saved (\(Self.unsavedFormulaAdvice))")
        }
        input.warnings.add(InputWarnings.Warning(location: row.cell(columnsRight: field), stage: "xlsx",
                                                 message: "field '\(fieldNames[field])' holds \(formula) with no value saved, loaded as empty: "
                                                     + Self.unsavedFormulaAdvice, counted: "cells of fields read"),
                           once: "xlsx.unsaved-formula")
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

    static func value(type: UInt8, isString: Bool, style: Int, column: Int, rowNumber: Int, text bytes: [UInt8],
                      workbook: XLSXWorkbook, displayPath: String, sheet: String) throws -> Cell {
        switch type {
        case UInt8(ascii: "s") where !isString:
            // An empty index (`<v/>`, which some writers put in an empty cell) names no string.
            guard !bytes.isEmpty else { return Cell(text: "", value: .null) }
            // The index's digits, read in place: a String for each would cost an allocation a cell.
            var index = 0
            for byte in bytes {
                guard (48...57).contains(byte), index < Int32.max else { index = -1; break }
                index = index * 10 + Int(byte - 48)
            }
            guard workbook.sharedStrings.contains(index) else {
                throw PipelineError(.invalidInput, code: .xlsxUnknownSharedString,
                                    at: Location(file: displayPath, path: "\(sheet)!\(columnName(column))\(rowNumber)"),
                                    stage: "xlsx", "the cell names a shared string the workbook does not have")
            }
            let string = workbook.sharedStrings[index]
            return Cell(text: string, value: string.isEmpty ? .null : .text(string))
        case UInt8(ascii: "i"), UInt8(ascii: "s"):
            // inlineStr, and str (a formula's text).
            let string = ExcelText.string(bytes)
            return Cell(text: string, value: string.isEmpty ? .null : .text(string))
        case UInt8(ascii: "b"):
            return Cell(text: "", value: bytes.isEmpty ? .null : .bool(bytes.first == UInt8(ascii: "1") || bytes.first == UInt8(ascii: "t")))
        case UInt8(ascii: "d"):
            // An ISO 8601 date; a time alone, or text that is none, stays as written.
            let string = String(decoding: bytes, as: UTF8.self)
            guard let date = ExcelText.isoDate(bytes) else { return Cell(text: string, value: string.isEmpty ? .null : .text(string)) }
            return Cell(text: string, value: .date(date.zoned ? date.seconds : workbook.instant(local: date.seconds)))
        case UInt8(ascii: "e"):
            let string = String(decoding: bytes, as: UTF8.self)
            return Cell(text: string, value: .text(string), kind: .error)
        default:
            guard !bytes.isEmpty else { return Cell(text: "", value: .null) }
            // Dates run from 1900 to 9999 (serial 2,958,465); past them Excel shows ##### and so
            // does the load, which rejects the number as a date. The serial is read from the
            // digits as written: all 17 of them place a time to the microsecond.
            if workbook.dateStyles.contains(style) {
                let written = String(decoding: bytes, as: UTF8.self)
                if let serial = Double(written), (0..<2_958_466).contains(serial) {
                    return Cell(text: written, value: .date(workbook.instant(local: seconds(fromSerial: serial, date1904: workbook.date1904))))
                }
            }
            guard bytes.count <= XLSXBudget.maxNumberLength else {
                throw PipelineError(.invalidInput, code: .xlsxOverBudget,
                                    at: Location(file: displayPath, path: "\(sheet)!\(columnName(column))\(rowNumber)"), stage: "xlsx",
                                    NumberBudget.tooLong(bytes.count))
            }
            let string = ExcelText.number(bytes)
            return Cell(text: string, value: .text(string))
        }
    }
}
