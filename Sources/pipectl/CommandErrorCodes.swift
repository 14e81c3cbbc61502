import Diagnostics

/// The codes of the commands themselves. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// `init` cannot tell an input's format from its extension.
    public static let initUnknownFormat = Self("init.unknown-format")
    /// `init` finds no records to take fields from.
    public static let initNoRecords = Self("init.no-records")
    /// An input is larger than `init` samples.
    public static let initInputTooLarge = Self("init.input-too-large")
    /// A workbook has more sheets than `init` drafts from.
    public static let initTooManySheets = Self("init.too-many-sheets")
    /// The file `init` would write exists and `--force` is not given.
    public static let initOutputExists = Self("init.output-exists")
    /// The file `init` would write is a symbolic link, a folder, a device or a FIFO.
    public static let initOutputNotARegularFile = Self("init.output-not-a-regular-file")
    /// The file `init` would write is one of its inputs or the model (`--force` or not).
    public static let initOutputIsAnInput = Self("init.output-is-an-input")
    /// No input has fields that name an entity's attributes and its key.
    public static let initNothingToDraft = Self("init.nothing-to-draft")
    /// The draft, run on the sampled records, loads none of them (`--force` writes it anyway).
    public static let initDraftLoadsNothing = Self("init.draft-loads-nothing")

    /// `pipectl check` is given a pipeline without `checks:`.
    public static let checksNoneDeclared = Self("checks.none-declared")

    /// `inspect --model` is given a store whose layout keeps no version hashes.
    public static let inspectNoVersionHashes = Self("inspect.no-version-hashes")

    /// Standard output or standard error cannot be written.
    public static let pipectlCannotWriteOutput = Self("pipectl.cannot-write-output")
}
