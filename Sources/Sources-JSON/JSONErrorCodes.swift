import Diagnostics

/// The codes of the JSON and JSON Lines readers. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// A field name or `records` path has an empty part between dots.
    public static let jsonInvalidFieldPath = Self("json.invalid-field-path")
    /// Something other than what JSON allows at this point.
    public static let jsonUnexpectedToken = Self("json.unexpected-token")
    /// A comma after the last member or element.
    public static let jsonTrailingComma = Self("json.trailing-comma")
    /// A word that is not true, false or null.
    public static let jsonInvalidLiteral = Self("json.invalid-literal")
    /// A string runs to the end of the file.
    public static let jsonUnterminatedString = Self("json.unterminated-string")
    /// A line break or another control character inside a string.
    public static let jsonControlCharacter = Self("json.control-character")
    /// A backslash escape JSON does not have.
    public static let jsonInvalidEscape = Self("json.invalid-escape")
    /// A `\u` escape is half of a surrogate pair without the other half.
    public static let jsonUnpairedSurrogate = Self("json.unpaired-surrogate")
    /// A number JSON does not allow (a leading zero).
    public static let jsonInvalidNumber = Self("json.invalid-number")
    /// Arrays and objects nested deeper than pipectl reads.
    public static let jsonTooDeep = Self("json.too-deep")
    /// A string grows past the longest pipectl reads.
    public static let jsonStringTooLong = Self("json.string-too-long")
    /// A number has more digits than pipectl reads.
    public static let jsonNumberTooLong = Self("json.number-too-long")
    /// The lists of one record hold more values than pipectl reads.
    public static let jsonTooManyListValues = Self("json.too-many-list-values")
    /// The records are not where expected: the top level is no array, or the `records` path leads nowhere or to no array.
    public static let jsonRecordsNotFound = Self("json.records-not-found")
    /// More follows the JSON value.
    public static let jsonTrailingData = Self("json.trailing-data")
}
