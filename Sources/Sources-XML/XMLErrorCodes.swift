import Diagnostics

/// The codes of the XML reader (the xlsx reader shares xml.cannot-start-parser). docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// A `record` or field path is not an element name or a path of them.
    public static let xmlInvalidPath = Self("xml.invalid-path")
    /// The `record` path does not match the document's root element.
    public static let xmlRecordPathMismatch = Self("xml.record-path-mismatch")
    /// libxml2 cannot start reading a file or part.
    public static let xmlCannotStartParser = Self("xml.cannot-start-parser")
    /// The file is not well-formed XML.
    public static let xmlMalformed = Self("xml.malformed")
    /// The file holds a character XML does not allow.
    public static let xmlInvalidCharacter = Self("xml.invalid-character")
    /// Elements are nested deeper than libxml2 reads.
    public static let xmlTooDeep = Self("xml.too-deep")
    /// A text or attribute value grows past the longest pipectl reads.
    public static let xmlValueTooLong = Self("xml.value-too-long")
    /// The file ends inside a record.
    public static let xmlTruncated = Self("xml.truncated")
    /// The file uses or declares entities, which pipectl never expands.
    public static let xmlEntitiesRefused = Self("xml.entities-refused")
}
