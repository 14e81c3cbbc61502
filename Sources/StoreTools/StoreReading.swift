import Foundation
import Diagnostics
import Pipeline
import Safeguards
import SQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How `inspect`, `diff` and `check` open a store they only read: one answer for what is not a
/// store, nothing written beside it, nothing of it run.
///
/// - The file itself is looked at before SQLite: missing, a folder, a device or FIFO, empty (SQLite
///   would take 0 bytes for an empty database) or without SQLite's header is `.invalidInput` (66).
/// - A store whose `-wal` holds frames or whose `-journal` is hot (an app has it open, or was
///   killed) is read from a copy of both in a private folder, so that its last changes are seen
///   and nothing appears beside it; any other store is opened `immutable`: no lock, no `-shm`.
/// - Views are refused (`SQLiteConnection.refuseViews()`): the tools read tables by name, and a
///   view named like one, or a recursive one, would run whatever it holds.
public struct StoreReading {
    public let connection: SQLiteConnection
    /// The size of the `-wal` file beside the store, if there is one.
    public let walBytes: Int64?
    /// Whether the file is in WAL mode (its header's read and write versions are 2), which an
    /// immutable connection's `PRAGMA journal_mode` does not tell.
    public let isWAL: Bool
    /// The copy's folder, removed when the last reader is gone.
    private let copy: PrivateFolder?

    /// The 16 bytes every SQLite database file begins with.
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)

    /// Opens the store at `url` to read; `name` and `stage` are how messages call it and the command.
    public init(_ url: URL, name: String, stage: String) throws {
        func failure(_ kind: PipelineError.Kind, _ code: PipelineError.Code, _ message: String) -> PipelineError {
            PipelineError(kind, code: code, at: Location(file: name), stage: stage, message)
        }
        let header = try StoreReading.header(of: url, name: name, stage: stage)
        isWAL = header.count >= 20 && (header[18] == 2 || header[19] == 2)
        let wal = url.path + "-wal", journal = url.path + "-journal"
        var status = stat()
        walBytes = stat(wal, &status) == 0 ? Int64(status.st_size) : nil
        let side = [wal, journal].first(where: StoreFile.holdsChanges)
        var path = url.path
        if let side {
            let folder: PrivateFolder
            do {
                folder = try PrivateFolder(prefix: "pipectl-read")
                let copy = folder.url.appendingPathComponent("store.sqlite")
                try FileManager.default.copyItem(atPath: url.path, toPath: copy.path)
                try FileManager.default.copyItem(atPath: side, toPath: copy.path + String(side.dropFirst(url.path.count)))
                path = copy.path
            } catch {
                throw failure(.io, .inspectCannotCopy, "cannot copy the store and '\(side)', which holds changes not yet in it, to read "
                                  + "them without touching its folder: \(SystemErrorWords.words(for: error))")
            }
            copy = folder
        } else {
            copy = nil
        }
        do {
            // The copy is ours: SQLite may replay its WAL or roll back its journal there.
            let connection = try SQLiteConnection(path: path, readOnly: copy == nil, immutable: copy == nil)
            try connection.checkReadable()
            try connection.refuseViews()
            self.connection = connection
        } catch {
            // The header was right, so the rest of the file is damaged or unreadable.
            let reason = error.message
            throw failure(.invalidInput, .inspectUnreadable, "cannot read this SQLite database: \(reason)")
        }
    }

    /// Looks at the file itself before SQLite does: SQLite opens a missing path as a new empty
    /// database, reads 0 bytes as one, blocks on a FIFO, and only fails on a non-database at the
    /// first query, with a vaguer message. Returns the first 100 bytes (SQLite's file header).
    static func header(of url: URL, name: String, stage: String) throws -> Data {
        func failure(_ kind: PipelineError.Kind, _ code: PipelineError.Code, _ message: String) -> PipelineError {
            PipelineError(kind, code: code, at: Location(file: name), stage: stage, message)
        }
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw failure(.invalidInput, .inspectNotFound, "no such file") }
            throw failure(.io, .inputCannotRead, "cannot read the file: \(String(cString: strerror(errno)))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw failure(.invalidInput, .inspectIsAFolder, "this is a folder, not a SQLite database")
        case let type: throw failure(.invalidInput, .inspectNotAFile, "this is \(StoreFile.describe(type)), not a SQLite database")
        }
        let header: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            header = try handle.read(upToCount: 100) ?? Data()
        } catch {
            throw failure(.io, .inputCannotRead, "cannot read the file: \(SystemErrorWords.words(for: error))")
        }
        guard !header.isEmpty else {
            throw failure(.invalidInput, .inspectEmptyFile, "the file is empty, not a SQLite database")
        }
        guard header.starts(with: sqliteHeader) else {
            throw failure(.invalidInput, .inspectNotADatabase, "this file is not a SQLite database (it does not begin with \"SQLite format 3\")")
        }
        return header
    }
}
