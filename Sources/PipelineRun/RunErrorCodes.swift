import Diagnostics

/// The codes of a run as `pipectl run` makes it. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// An input changed while the run read it.
    public static let inputChangedDuringRun = Self("input.changed-during-run")

    /// A report path names a folder, a device or a FIFO.
    public static let reportNotARegularFile = Self("report.not-a-regular-file")

    /// The `@Model` reader (`pipectl-swiftdata`) is neither beside pipectl nor on `PATH`.
    public static let modelReaderMissing = Self("model.reader-missing")
    /// The `@Model` reader cannot be started.
    public static let modelReaderCannotStart = Self("model.reader-cannot-start")
    /// The `@Model` reader stopped on a signal.
    public static let modelReaderCrashed = Self("model.reader-crashed")
    /// The `@Model` reader exited without a model pipectl can read.
    public static let modelReaderNoAnswer = Self("model.reader-no-answer")

    /// An error that is no `PipelineError` (pipectl's last net).
    public static let runUnexpectedError = Self("run.unexpected-error")
}
