import Diagnostics

/// The codes of the transforms' own options. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// A `date` format is not a pattern pipectl reads.
    public static let dateInvalidFormat = Self("date.invalid-format")

    /// A `file` step's `folder` names a file, not a folder.
    public static let fileNotAFolder = Self("file.not-a-folder")

    /// A `keep` or `drop` condition's `matches` is not a regular expression.
    public static let filterInvalidRegex = Self("filter.invalid-regex")

    /// A template has a brace that closes or opens nothing, or `{}` naming no field.
    public static let templateMalformed = Self("template.malformed")
}
