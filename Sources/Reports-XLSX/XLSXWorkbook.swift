import Foundation
import Diagnostics
import Pipeline
internal import CXLSXWriter

/// Owns one libxlsxwriter workbook: sheets and formats are created through it, and it is closed
/// (written out) or freed exactly once.
///
/// The workbook is in `constant_memory` mode: each sheet's rows must be written top to bottom,
/// and each row is flushed to a temporary file once the next one begins, so a sheet of a million
/// stored rows costs no more memory than one of ten.
final class XLSXWorkbook {
    private var workbook: UnsafeMutablePointer<lxw_workbook>?
    /// The file as messages name it.
    let name: String
    let bold: UnsafeMutablePointer<lxw_format>?
    let date: UnsafeMutablePointer<lxw_format>?
    let wrap: UnsafeMutablePointer<lxw_format>?
    /// The rows a sheet holds, its header included; a longer table goes on in another sheet
    /// (`XLSXTable`).
    let rowsPerSheet: Int
    private var names = XLSXSheetNames()

    /// Excel's (and LibreOffice's) limit: 1,048,576 rows a sheet.
    static let maxRowsPerSheet = 1 << 20

    /// Creates the workbook at `url` (nothing is written before `close`); `created` pins the
    /// document's creation time, which would otherwise be the wall clock.
    init(url: URL, name: String, created: Int, rowsPerSheet: Int = XLSXWorkbook.maxRowsPerSheet) throws {
        self.name = name
        self.rowsPerSheet = min(max(rowsPerSheet, 2), XLSXWorkbook.maxRowsPerSheet)
        var options = lxw_workbook_options()
        options.constant_memory = UInt8(LXW_TRUE.rawValue)
        guard let workbook = url.withUnsafeFileSystemRepresentation({ path in
            path.flatMap { workbook_new_opt($0, &options) }
        }) else {
            throw PipelineError(.io, code: .reportCannotWrite, at: Location(file: name), stage: "report",
                                "cannot create the workbook (out of memory?)")
        }
        self.workbook = workbook
        bold = workbook_add_format(workbook)
        format_set_bold(bold)
        date = workbook_add_format(workbook)
        format_set_num_format(date, "yyyy-mm-dd hh:mm:ss")
        wrap = workbook_add_format(workbook)
        format_set_text_wrap(wrap)
        format_set_align(wrap, UInt8(LXW_ALIGN_VERTICAL_TOP.rawValue))

        var properties = lxw_doc_properties()
        properties.created = time_t(created)
        try check(workbook_set_properties(workbook, &properties), "cannot set the workbook's properties")
    }

    deinit {
        // Not closed: an error stopped the report half way; leave no file behind.
        if let workbook { lxw_workbook_free(workbook) }
    }

    /// Adds a sheet named `wanted`, made a valid name not yet taken (see `XLSXSheetNames`):
    /// "Item", then "Item (2)".
    func addSheet(_ wanted: String) throws -> XLSXSheet {
        let title = names.claim(wanted)
        guard let workbook, let sheet = workbook_add_worksheet(workbook, title) else {
            throw PipelineError(.io, code: .reportCannotWrite, at: Location(file: name), stage: "report", "cannot add the sheet '\(title)'")
        }
        return XLSXSheet(sheet: sheet, title: title, workbook: self)
    }

    /// A column chart placed on `sheet` at (`row`, `column`), one series per value column.
    func addColumnChart(on sheet: XLSXSheet, at row: Int, _ column: Int, title: String,
                        categories: (sheet: String, firstRow: Int, lastRow: Int, column: Int),
                        series: [(name: String, column: Int)]) throws {
        guard let workbook, let chart = workbook_add_chart(workbook, UInt8(LXW_CHART_COLUMN.rawValue)) else {
            throw PipelineError(.io, code: .reportCannotWrite, at: Location(file: name), stage: "report", "cannot add a chart")
        }
        chart_title_set_name(chart, title)
        for (seriesName, valueColumn) in series {
            guard let s = chart_add_series(chart, nil, nil) else { continue }
            chart_series_set_name(s, seriesName)
            chart_series_set_categories(s, categories.sheet, lxw_row_t(categories.firstRow), lxw_col_t(categories.column),
                                        lxw_row_t(categories.lastRow), lxw_col_t(categories.column))
            chart_series_set_values(s, categories.sheet, lxw_row_t(categories.firstRow), lxw_col_t(valueColumn),
                                    lxw_row_t(categories.lastRow), lxw_col_t(valueColumn))
        }
        try check(worksheet_insert_chart(sheet.sheet, lxw_row_t(row), lxw_col_t(column), chart), "cannot place the chart")
    }

    /// Writes the file and frees the workbook; a second call does nothing.
    func close() throws {
        guard let workbook else { return }
        self.workbook = nil
        try check(workbook_close(workbook), "cannot write the workbook")
    }

    /// Turns a libxlsxwriter error into the error users see.
    func check(_ error: lxw_error, _ what: String) throws {
        guard error != LXW_NO_ERROR else { return }
        throw PipelineError(.io, code: .reportCannotWrite, at: Location(file: name), stage: "report",
                            "\(what): \(String(cString: lxw_strerror(error)))")
    }
}
