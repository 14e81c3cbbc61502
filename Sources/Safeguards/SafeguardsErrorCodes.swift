import Diagnostics

/// The codes of the safeguards around a run: the store file, its lock, temporary files. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// The store path names a folder, not a file.
    public static let storePathIsAFolder = Self("store.path-is-a-folder")
    /// What should be the store's folder is a file.
    public static let storeParentNotAFolder = Self("store.parent-not-a-folder")
    /// The store's folder does not exist and cannot be created.
    public static let storeCannotCreateFolder = Self("store.cannot-create-folder")
    /// The store's folder is not writable.
    public static let storeFolderNotWritable = Self("store.folder-not-writable")
    /// The store to replace is not writable, or read-only on purpose.
    public static let storeReadOnly = Self("store.read-only")
    /// The store path holds a file that is not a SQLite database, which pipectl never replaces.
    public static let storeNotADatabase = Self("store.not-a-database")
    /// A journal or WAL beside the store holds changes, or appears during the publish: something else uses the store.
    public static let storeInUse = Self("store.in-use")
    /// The new store cannot be renamed into place.
    public static let storeCannotPublish = Self("store.cannot-publish")
    /// A value's file cannot be written to, or moved into, the store's external data folder.
    public static let storeExternalDataFailed = Self("store.external-data-failed")
    /// A temporary or side file of the store cannot be removed.
    public static let storeCannotRemove = Self("store.cannot-remove")
    /// The new store or its folder cannot be flushed to disk.
    public static let storeCannotFlush = Self("store.cannot-flush")
    /// The store path names a device, a FIFO or a socket, which SQLite would replace by a file.
    public static let storeNotAFile = Self("store.not-a-file")
    /// The store path is a symbolic link that leads nowhere (or in a loop).
    public static let storeLinkBroken = Self("store.link-broken")
    /// The store's lock file cannot be created or locked.
    public static let storeCannotLock = Self("store.cannot-lock")
    /// Another run is building the same store (after waiting `--wait` seconds, if given).
    public static let storeLocked = Self("store.locked")

    /// A temporary file (unique keys, duplicates) or private temporary folder cannot be created.
    public static let tempCannotCreate = Self("temp.cannot-create")
    /// A temporary file cannot be read or written.
    public static let tempIOFailed = Self("temp.io-failed")
    /// A temporary file holds less than was written to it.
    public static let tempCutShort = Self("temp.cut-short")
}
