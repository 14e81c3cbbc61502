import Diagnostics

/// The codes of reading existing stores (`inspect`, `diff`, `check`) and of their checks. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// No store at the path given.
    public static let inspectNotFound = Self("inspect.not-found")
    /// The store path names a folder.
    public static let inspectIsAFolder = Self("inspect.is-a-folder")
    /// The store path names a device, a FIFO or a socket.
    public static let inspectNotAFile = Self("inspect.not-a-file")
    /// The store file is empty.
    public static let inspectEmptyFile = Self("inspect.empty-file")
    /// The file is not a SQLite database.
    public static let inspectNotADatabase = Self("inspect.not-a-database")
    /// SQLite cannot read the store.
    public static let inspectUnreadable = Self("inspect.unreadable")
    /// A store whose -wal or -journal holds changes cannot be copied to be read without touching its folder.
    public static let inspectCannotCopy = Self("inspect.cannot-copy")
    /// Core Data's metadata in the store is not a property list dictionary.
    public static let inspectInvalidMetadata = Self("inspect.invalid-metadata")

    /// A check of `checks:` failed on the new store (or the store `pipectl check` reads).
    public static let checksFailed = Self("checks.failed")
    /// A row of the store pipectl built is not what Core Data would write for the model (a bug of pipectl).
    public static let storeRowCheckFailed = Self("store.row-check-failed")
    /// The new store would leave a value or to-one the model requires empty (the data's links were empty or unmatched).
    public static let storeRequiredValueMissing = Self("store.required-value-missing")
}
