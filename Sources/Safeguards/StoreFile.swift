import Foundation
import Diagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one build: the store is written to `building`, beside `target`, and renamed over
/// it only once complete, so a failed or killed run never leaves a half-written store in place.
/// The store's lock (`StoreLock`) is held from before anything is written until the store is in
/// place or thrown away.
public struct StoreFile {
    /// The files SQLite may keep beside a database.
    public static let sideSuffixes = ["-journal", "-wal", "-shm"]

    public let target: URL
    public let building: URL
    /// The pipeline file's `store:` entry, for errors.
    public let location: Location?
    /// None in a dry run, which writes nothing beside the store.
    private let lock: StoreLock?
    /// A dry run's private folder, which holds its store; removed with it.
    private let dryRunFolder: PrivateFolder?
    private let registrations: [InterruptCleanup.Registration?]
    private var folder: URL { target.deletingLastPathComponent() }

    /// `.<name>.pipectl-building-<process id>` in the target's folder: on the same file system,
    /// so the final rename is atomic; hidden, so it is not mistaken for a store; one per run.
    public static func buildingURL(for target: URL, process: Int32 = getpid()) -> URL {
        target.deletingLastPathComponent().appendingPathComponent("\(buildingPrefix(for: target))-\(process)")
    }

    private static func buildingPrefix(for target: URL) -> String {
        ".\(target.lastPathComponent).pipectl-building"
    }

    private static func stagingPrefix(for target: URL) -> String {
        ".\(target.lastPathComponent).pipectl-external"
    }

    /// Where this run writes the files that go beside the new store (Core Data's external data)
    /// until `publish(support:)` moves them in: beside the building store, on the same file system.
    public var supportStaging: URL {
        building.deletingLastPathComponent().appendingPathComponent("\(StoreFile.stagingPrefix(for: target))-\(getpid())")
    }

    /// Checks that the target can be written, creates its folder if missing, takes the store's
    /// lock (waiting up to `lockWait` seconds for another run) and removes what a killed run left
    /// behind. A dry run (`dryRun`) writes nothing beside the target, not even its folder: the
    /// store it builds and throws away lives in a private folder of its own (`PrivateFolder`).
    ///
    /// A target that is a symbolic link stands for the file it leads to: the lock, the building
    /// file and the rename are the linked file's, so the run updates the real store (which other
    /// runs, through the link or not, lock alike) and the link stays a link.
    public init(target: URL, location: Location?, lockWait: Double = 0, dryRun: Bool = false) throws {
        let fail = { (code: PipelineError.Code, message: String) in PipelineError(.io, code: code, at: location, stage: "sqlite", message) }
        self.target = try StoreFile.followingLink(target.standardizedFileURL, fail: fail)
        self.location = location
        if dryRun {
            // A predictable name in a shared folder could be a link planted by someone else.
            let folder = try PrivateFolder(prefix: "pipectl-dry-run", location: location)
            dryRunFolder = folder
            building = folder.url.appendingPathComponent(self.target.lastPathComponent)
        } else {
            dryRunFolder = nil
            building = StoreFile.buildingURL(for: self.target)
        }

        let manager = FileManager.default
        var isFolder: ObjCBool = false
        var status = stat()
        if stat(self.target.path, &status) == 0 {
            let type = status.st_mode & S_IFMT
            if type == S_IFDIR {
                throw fail(.storePathIsAFolder, "the store path '\(self.target.path)' is a folder; name the store file inside it, "
                                  + "such as '\(self.target.appendingPathComponent("Store.sqlite").path)'")
            }
            // SQLite would replace a device or a FIFO by a file (as root, /dev/null itself).
            if type != S_IFREG {
                throw fail(.storeNotAFile, "the store path '\(self.target.path)' is \(StoreFile.describe(type)), and pipectl writes "
                                  + "stores to regular files only; name a file")
            }
        }
        let folder = self.target.deletingLastPathComponent()
        if manager.fileExists(atPath: folder.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw fail(.storeParentNotAFolder, "cannot write the store '\(self.target.path)': '\(folder.path)' is not a folder")
            }
        } else if dryRun {
            // A real run would create it; a dry run leaves the disk as it was.
            lock = nil
            registrations = StoreFile.register(building: building, folder: dryRunFolder)
            return
        } else {
            do {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw fail(.storeCannotCreateFolder, "cannot create the folder '\(folder.path)' for the store: \(SystemErrorWords.words(for: error))")
            }
        }
        guard access(folder.path, W_OK) == 0 else {
            let reason = StoreFile.lastError()
            throw fail(.storeFolderNotWritable,
                       "cannot write the store '\(self.target.path)': the folder '\(folder.path)' is not writable (\(reason))")
        }
        if access(self.target.path, F_OK) == 0, access(self.target.path, W_OK) != 0 {
            let reason = StoreFile.lastError()
            throw fail(.storeReadOnly, "cannot replace the store '\(self.target.path)': the file is not writable (\(reason))")
        }
        if stat(self.target.path, &status) == 0 {
            // Root passes `access`, but a store made read-only on purpose is not to be replaced by anyone.
            if status.st_mode & 0o222 == 0 {
                throw fail(.storeReadOnly, "cannot replace the store '\(self.target.path)': the file is read-only; make it writable "
                                  + "(chmod u+w) to let pipectl replace it")
            }
            // A path that names some other file (a typo, a swapped argument) must not cost that file.
            if status.st_size > 0, !StoreFile.isSQLiteDatabase(self.target.path) {
                throw fail(.storeNotADatabase, "'\(self.target.path)' is not a SQLite database, and pipectl replaces only stores: "
                                  + "move the file away or choose another store path")
            }
        }
        if dryRun {
            lock = nil
        } else {
            lock = try StoreLock(target: self.target, wait: lockWait, location: location)
            // Under the lock, every building file is a leftover of a killed run.
            let prefix = StoreFile.buildingPrefix(for: self.target)
            for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(prefix) {
                try StoreFile.remove(folder.appendingPathComponent(name).path, what: "a temporary store a killed run left", location: location)
            }
            let staging = StoreFile.stagingPrefix(for: self.target)
            for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(staging) {
                try StoreFile.removeFolder(folder.appendingPathComponent(name), what: "the external data a killed run left", location: location)
            }
        }
        registrations = StoreFile.register(building: building, folder: dryRunFolder)
    }

    /// The files an interruption removes: the building store, SQLite's files beside it, and a
    /// dry run's folder (removed once empty).
    private static func register(building: URL, folder: PrivateFolder?) -> [InterruptCleanup.Registration?] {
        let path = building.path
        return ([path] + sideSuffixes.map { path + $0 } + (folder.map { [$0.url.path] } ?? [])).map { InterruptCleanup.register($0) }
    }

    /// `url` itself, or the file it leads to when it is a symbolic link.
    private static func followingLink(_ url: URL, fail: (PipelineError.Code, String) -> PipelineError) throws -> URL {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return url }
        guard let resolved = realpath(url.path, nil) else {
            let reason = lastError()
            let destination = (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) ?? "?"
            throw fail(.storeLinkBroken, "the store path '\(url.path)' is a symbolic link to '\(destination)', which cannot be "
                           + "followed (\(reason)); point the link at a store or name the store file itself")
        }
        defer { free(resolved) }
        return URL(fileURLWithPath: String(cString: resolved))
    }

    /// What a file of type `type` (`st_mode & S_IFMT`) is, in words.
    public static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO (a named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a folder"
        default: "not a regular file"
        }
    }

    /// Whether the file starts with SQLite's header string.
    public static func isSQLiteDatabase(_ path: String) -> Bool {
        head(of: path, count: 16) == Array("SQLite format 3\0".utf8)
    }

    /// Up to `count` bytes from the start of the file; empty when it cannot be read.
    private static func head(of path: String, count: Int) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = read(descriptor, &bytes, count)
        return Array(bytes.prefix(max(got, 0)))
    }

    /// Removes the temporary store and any file SQLite kept beside it, and releases the lock.
    public func removeBuilding() throws {
        defer { release() }
        for path in [building.path] + StoreFile.sideSuffixes.map({ building.path + $0 }) {
            try remove(path, what: "the temporary store")
        }
        try StoreFile.removeFolder(supportStaging, what: "the new store's external data", location: location)
        dryRunFolder?.remove()
    }

    /// Releases the store's lock: the run is over, published or not.
    private func release() {
        registrations.forEach(InterruptCleanup.unregister)
        lock?.release()
    }

    /// Puts the closed, complete temporary store in place of the target, durably: the file's data
    /// reaches the disk before the rename, the rename before the function returns.
    ///
    /// The previous store is not touched until the new one is in place: a journal or WAL beside it
    /// that holds changes (an app or sqlite3 has it open) stops the publish with the old store as
    /// it was; one that holds none is removed, as SQLite would replay it into the new store.
    public func publish(support: SupportFiles? = nil) throws {
        try sync(building.path, what: "the new store")
        for suffix in StoreFile.sideSuffixes {
            try remove(building.path + suffix, what: "the temporary store")
            let side = target.path + suffix
            if StoreFile.holdsChanges(side) {
                throw failure(.storeInUse, "'\(side)' beside the store holds changes not yet in it: is an app or sqlite3 using the store? "
                                  + "Close it (or run `sqlite3 '\(target.path)' 'PRAGMA wal_checkpoint'`) and run again; "
                                  + "the store was left as it was")
            }
        }
        // The new store's files join the old store's (names differ unless the contents are the
        // same), so that the store's rename stays the one step that publishes: until then the old
        // store has all its files, from then on the new one has.
        let added = try support.map { try moveIn($0) } ?? []
        do {
            for suffix in StoreFile.sideSuffixes where suffix != "-shm" {
                try remove(target.path + suffix, what: "the previous store")
            }
            guard rename(building.path, target.path) == 0 else {
                let reason = StoreFile.lastError()
                throw failure(.storeCannotPublish, "cannot move the new store into place at '\(target.path)': \(reason)")
            }
        } catch {
            if let support { for name in added { unlink(support.folder.appendingPathComponent(name).path) } }
            throw error
        }
        if let support { StoreFile.sweep(support) }
        try? FileManager.default.removeItem(at: supportStaging)
        // The shared-memory index of a WAL that is gone: meaningless beside a store in journal mode DELETE.
        try remove(target.path + "-shm", what: "the previous store")
        try sync(folder.path, what: "the store's folder", isFolder: true)
        for suffix in StoreFile.sideSuffixes where access(target.path + suffix, F_OK) == 0 {
            throw failure(.storeInUse, "'\(target.path + suffix)' appeared beside the new store; is another process using it?")
        }
        release()
    }

    /// Whether the file at `path` is a WAL with frames or a hot rollback journal: changes SQLite
    /// would apply to the database beside it. A missing, empty or foreign file holds none.
    public static func holdsChanges(_ path: String) -> Bool {
        let header = head(of: path, count: 33)
        // A WAL: magic 0x377F0682 or 0x377F0683, a 32-byte header, then frames.
        if header.count == 33, header[0...2] == [0x37, 0x7F, 0x06], header[3] & 0xFE == 0x82 { return true }
        // A rollback journal whose header is still in place (SQLite zeroes or deletes it on commit).
        return header.count >= 8 && header[0..<8] == [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
    }

    private func remove(_ path: String, what: String) throws {
        try StoreFile.remove(path, what: what, location: location)
    }

    private static func remove(_ path: String, what: String, location: Location?) throws {
        guard unlink(path) != 0, errno != ENOENT else { return }
        let reason = StoreFile.lastError()
        throw PipelineError(.io, code: .storeCannotRemove, at: location, stage: "sqlite", "cannot remove '\(path)' (\(what)): \(reason)")
    }

    /// Starts the closed new store at `path` on its way to the disk, best effort, for a caller that
    /// reads it a while longer: `publish` flushes it again and reports a failure, finding less left
    /// to write.
    public static func flushEarly(_ path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    func sync(_ path: String, what: String, isFolder: Bool = false) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = StoreFile.lastError()
            throw failure(.storeCannotFlush, "cannot open \(what) '\(path)' to flush it: \(reason)")
        }
        defer { close(descriptor) }
        #if canImport(Darwin)
        // fsync on Darwin stops at the drive's cache; F_FULLFSYNC reaches the disk where supported.
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        guard fsync(descriptor) != 0 else { return }
        let code = errno
        // Some file systems cannot flush a folder; the rename itself has happened.
        if isFolder, code == EINVAL || code == ENOTSUP || code == EBADF { return }
        throw failure(.storeCannotFlush, "cannot flush \(what) '\(path)' to disk: \(StoreFile.lastError(code))")
    }

    private func failure(_ code: PipelineError.Code, _ message: String) -> PipelineError {
        PipelineError(.io, code: code, at: location, stage: "sqlite", message)
    }

    /// The system's words for `code`; read errno right after the failing call.
    static func lastError(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
