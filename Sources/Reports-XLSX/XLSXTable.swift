/// A table under a bold, frozen, filtered header that goes on in as many sheets as it needs: a
/// sheet holds `XLSXWorkbook.rowsPerSheet` rows (Excel's 1,048,576), and the report keeps every
/// row, so the 1,048,576th item of "Item" is the first of "Item (2)", under the same header.
///
/// ```swift
/// let table = try XLSXTable("Duplicates", titles: ["Key", "First"], in: workbook)
/// try table.addRow(["name=Eggs", "a.csv:2:1"])
/// try table.finish()
/// ```
final class XLSXTable {
    private unowned let workbook: XLSXWorkbook
    private let title: String
    private let titles: [String]
    private var sheet: XLSXSheet
    /// The last row written on `sheet`; the header is row 0.
    private var row = 0

    init(_ title: String, titles: [String], in workbook: XLSXWorkbook) throws {
        self.workbook = workbook
        self.title = title
        self.titles = titles
        sheet = try workbook.addSheet(title)
        try sheet.header(titles)
    }

    /// The sheet and row the next row of the table goes to, in a new sheet when this one is full.
    func nextRow() throws -> (sheet: XLSXSheet, row: Int) {
        if row + 1 >= workbook.rowsPerSheet {
            try finish()
            sheet = try workbook.addSheet(title)
            try sheet.header(titles)
            row = 0
        }
        row += 1
        return (sheet, row)
    }

    /// A row of text cells (empty ones are left blank).
    func addRow(_ cells: [String]) throws {
        let (sheet, row) = try nextRow()
        for (column, cell) in cells.enumerated() { try sheet.text(row, column, cell) }
    }

    /// Puts the filter over the rows of the last sheet and fits its columns.
    func finish(filter: Bool = true) throws {
        if filter { try sheet.autofilter(headerRow: 0, lastRow: row, columns: titles.count) }
        try sheet.fitColumns()
    }
}
