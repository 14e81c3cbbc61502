import Diagnostics

/// The codes of the CSV reader. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// The file's byte order mark disagrees with `encoding`, or `encoding: utf-16` finds none.
    public static let csvByteOrderMarkMismatch = Self("csv.byte-order-mark-mismatch")
    /// A quote inside a field that is not quoted as a whole.
    public static let csvQuoteInUnquotedField = Self("csv.quote-in-unquoted-field")
    /// Text follows the closing quote of a quoted field.
    public static let csvTextAfterClosingQuote = Self("csv.text-after-closing-quote")
    /// A quoted field runs to the end of the file.
    public static let csvUnterminatedQuote = Self("csv.unterminated-quote")
    /// A field grows past the longest pipectl reads (its quote probably never closed).
    public static let csvFieldTooLong = Self("csv.field-too-long")
    /// A row has more fields than Excel allows.
    public static let csvTooManyFields = Self("csv.too-many-fields")
    /// A row grows past the longest pipectl reads.
    public static let csvRowTooLong = Self("csv.row-too-long")
    /// A column of the header row has no name.
    public static let csvEmptyHeaderName = Self("csv.empty-header-name")
}
