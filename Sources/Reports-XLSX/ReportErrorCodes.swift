import Diagnostics

/// The codes of writing reports. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// A report or its folder cannot be written.
    public static let reportCannotWrite = Self("report.cannot-write")
    /// A report written aside cannot be renamed into place.
    public static let reportCannotPublish = Self("report.cannot-publish")
}
