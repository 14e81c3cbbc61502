import Diagnostics

/// The codes of the xlsx reader. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// The workbook is encrypted with a password.
    public static let xlsxEncrypted = Self("xlsx.encrypted")
    /// The file is an old Excel workbook (.xls).
    public static let xlsxOldFormat = Self("xlsx.old-format")
    /// The file is a Numbers document, not an export of one.
    public static let xlsxNumbersDocument = Self("xlsx.numbers-document")
    /// The file is no zip archive, or an archive without a workbook.
    public static let xlsxNotAWorkbook = Self("xlsx.not-a-workbook")
    /// The archive or one of its parts cannot be read: truncated, damaged or not well-formed.
    public static let xlsxDamaged = Self("xlsx.damaged")
    /// A part the workbook refers to is not in the archive.
    public static let xlsxMissingPart = Self("xlsx.missing-part")
    /// A part's path points outside the archive.
    public static let xlsxPartOutsideArchive = Self("xlsx.part-outside-archive")
    /// A part inflates past what pipectl unpacks.
    public static let xlsxPartTooLarge = Self("xlsx.part-too-large")
    /// A workbook goes past one of `XLSXBudget`'s limits (elements, sheets, shared strings, a cell's or row's text).
    public static let xlsxOverBudget = Self("xlsx.over-budget")
    /// A part declares or uses entities, which no spreadsheet program writes.
    public static let xlsxEntitiesRefused = Self("xlsx.entities-refused")
    /// The workbook has no sheets.
    public static let xlsxNoSheets = Self("xlsx.no-sheets")
    /// `sheet` names a sheet the workbook does not have.
    public static let xlsxUnknownSheet = Self("xlsx.unknown-sheet")
    /// The sheet has no header row to name its columns.
    public static let xlsxNoHeaderRow = Self("xlsx.no-header-row")
    /// A cell names a shared string the workbook does not have.
    public static let xlsxUnknownSharedString = Self("xlsx.unknown-shared-string")
    /// `range` is not one or two cell references.
    public static let xlsxInvalidRange = Self("xlsx.invalid-range")
}
