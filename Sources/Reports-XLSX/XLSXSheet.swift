import Foundation
import Pipeline
internal import CXLSXWriter

/// One sheet of an `XLSXWorkbook`: cells written row by row, column widths fitted to the content.
final class XLSXSheet {
    let sheet: UnsafeMutablePointer<lxw_worksheet>
    /// The sheet's name, as formulas and charts refer to it.
    let title: String
    private unowned let workbook: XLSXWorkbook
    /// Widest display length seen per column, for `fitColumns` (libxlsxwriter has no autofit).
    private var widths: [Int] = []

    /// Excel's longest string; longer text is cut (the JSON report keeps it whole).
    static let maxTextLength = 32_767
    /// Columns wider than this many characters are capped (long reasons wrap instead).
    static let maxColumnWidth = 60

    init(sheet: UnsafeMutablePointer<lxw_worksheet>, title: String, workbook: XLSXWorkbook) {
        self.sheet = sheet
        self.title = title
        self.workbook = workbook
    }

    private func measure(_ column: Int, _ length: Int) {
        if column >= widths.count { widths += Array(repeating: 0, count: column - widths.count + 1) }
        if length > widths[column] { widths[column] = length }
    }

    func text(_ row: Int, _ column: Int, _ text: String, bold: Bool = false, wrap: Bool = false) throws {
        guard !text.isEmpty else { return }
        var text = text
        if text.utf8.count > XLSXSheet.maxTextLength {
            text = String(decoding: text.utf8.prefix(XLSXSheet.maxTextLength - 3), as: UTF8.self) + "..."
        }
        measure(column, XLSXSheet.width(of: text))
        let format = bold ? workbook.bold : wrap ? workbook.wrap : nil
        try workbook.check(worksheet_write_string(sheet, lxw_row_t(row), lxw_col_t(column), text, format),
                           "cannot write row \(row + 1) of a sheet")
    }

    func number(_ row: Int, _ column: Int, _ number: Double) throws {
        // Excel has no NaN or infinity: they stay text.
        guard number.isFinite else { return try text(row, column, String(number)) }
        measure(column, XLSXSheet.width(of: number))
        try workbook.check(worksheet_write_number(sheet, lxw_row_t(row), lxw_col_t(column), number, nil),
                           "cannot write row \(row + 1) of a sheet")
    }

    /// The characters of `text`'s longest line (a wrapped cell is as wide as that), counted as
    /// Unicode scalars without making a string per line: a sheet of stored rows measures every
    /// cell of a million rows.
    static func width(of text: String) -> Int {
        var widest = 0, line = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") {
                widest = max(widest, line)
                line = 0
            } else if byte & 0xC0 != 0x80 {  // not a continuation byte: a scalar begins
                line += 1
            }
        }
        return max(widest, line)
    }

    /// The characters of `number` as `Value.displayText` shows it, without making that text for
    /// whole numbers (row ids, links), which are most of a sheet of stored rows.
    static func width(of number: Double) -> Int {
        guard number.rounded() == number, abs(number) < 1e15 else { return Value.double(number).displayText.count }
        var digits = number < 0 ? 2 : 1
        var rest = Int64(number).magnitude
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits
    }

    func bool(_ row: Int, _ column: Int, _ value: Bool) throws {
        measure(column, 5)
        try workbook.check(worksheet_write_boolean(sheet, lxw_row_t(row), lxw_col_t(column), value ? 1 : 0, nil),
                           "cannot write row \(row + 1) of a sheet")
    }

    /// A date (seconds since 2001) as an Excel date-time: days since 1899-12-30, in UTC.
    func date(_ row: Int, _ column: Int, secondsSince2001 seconds: Double) throws {
        let serial = seconds / 86_400 + 36_892
        guard serial.isFinite, serial >= 0 else { return try text(row, column, Value.date(seconds).displayText) }
        measure(column, 19)
        try workbook.check(worksheet_write_number(sheet, lxw_row_t(row), lxw_col_t(column), serial, workbook.date),
                           "cannot write row \(row + 1) of a sheet")
    }

    /// A bold header row, frozen (kept in view while scrolling) unless `freeze` is false.
    func header(_ titles: [String], at row: Int = 0, freeze: Bool = true) throws {
        for (column, title) in titles.enumerated() { try text(row, column, title, bold: true) }
        if freeze { worksheet_freeze_panes(sheet, lxw_row_t(row + 1), 0) }
    }

    /// A filter over the table from `headerRow` down to `lastRow`.
    func autofilter(headerRow: Int, lastRow: Int, columns: Int) throws {
        guard columns > 0 else { return }
        try workbook.check(worksheet_autofilter(sheet, lxw_row_t(headerRow), 0, lxw_row_t(max(lastRow, headerRow)),
                                                lxw_col_t(columns - 1)), "cannot add an autofilter")
    }

    /// Sets each column's width from the longest content written into it, capped.
    func fitColumns(minimum: Int = 6) throws {
        for (column, width) in widths.enumerated() {
            let chars = min(max(width, minimum), XLSXSheet.maxColumnWidth)
            // A character is about one width unit, plus padding for the filter button.
            try workbook.check(worksheet_set_column(sheet, lxw_col_t(column), lxw_col_t(column), Double(chars) + 2, nil),
                               "cannot set a column width")
        }
    }
}
