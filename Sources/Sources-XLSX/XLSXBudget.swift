import Diagnostics
import Pipeline

/// What a workbook may expand into, checked on what is parsed and inflated (never on what the
/// zip directory claims): a workbook of a few KB must not make pipectl use gigabytes or minutes.
/// Each limit is far above what Excel writes; past one, the read stops with a located error.
enum XLSXBudget {
    /// Elements of a small part (the workbook, a relationships part, the styles), which are held
    /// whole: Excel's styles have at most 64,000 cell formats.
    static let maxPartElements = 1_000_000
    /// Sheets in a workbook.
    static let maxSheets = 10_000
    /// Shared strings, and their text in bytes of UTF-8: held in memory, as any cell may name any.
    static let maxSharedStrings = 10_000_000
    static let maxSharedStringBytes = 512 << 20
    /// One cell's text (a shared string's too), as a CSV field or a JSON string.
    static let maxCellBytes = 8 << 20
    /// One row's text, all cells together.
    static let maxRowBytes = 10 << 20
    /// A number cell's characters, as a JSON number's.
    static let maxNumberLength = NumberBudget.maxLength
}
