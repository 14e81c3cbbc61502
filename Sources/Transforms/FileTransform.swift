import Checksums
import Diagnostics
import Foundation
import Pipeline

/// `file`: replaces a field's path, relative to a folder, with the bytes of that file, for a
/// Binary attribute (photos of the default data).
///
/// ```yaml
/// - file: { fields: [photo], folder: images }
/// ```
/// The folder is relative to the pipeline file. An empty path is no value. A path that leaves the
/// folder (`..`, absolute, a symlink pointing out), a missing file, one that is not a regular
/// file or one above `FileTransform.maximumBytes` rejects the record.
public struct FileTransform: TransformKind {
    public var name: String { "file" }

    /// The largest file a record may load: a batch of records in flight holds its files whole.
    public static let maximumBytes = 16 << 20

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "file",
            summary: "Replaces each named field's path with the bytes of that file, for a Binary attribute:"
                + " `file: { fields: [photo], folder: images }`. The path is relative to the folder; one that leaves it"
                + " (`..`, absolute, a symlink pointing out), a missing file, one that is not a regular file, or one"
                + " over 16 MB rejects the record. An empty path is no value.",
            options: [
                OptionSpec("fields", .stringOrList, required: true, "The fields holding paths."),
                OptionSpec("folder", .path, required: true, "The folder the files are in, relative to the pipeline file; no path leaves it."),
            ])
    }

    public init() {}

    public func make(_ node: ConfigNode) throws -> any Transform {
        let options = try Options(node, spec: spec)
        // Options(spec:) has already required both keys.
        let fields = try FieldReference.list(options.node("fields") ?? node, option: "fields", stage: name)
        let folderNode = options.node("folder") ?? node
        guard let folder = folderNode.scalar, !folder.isEmpty else {
            throw folderNode.error(.pipelineEmptyValue, "'folder' names the folder the files are in", stage: name)
        }
        let shown = FileTransform.shown(folder)
        // The folder as the kernel sees it, symlinks resolved: the prefix every file's real path must have.
        guard let real = FileTransform.realPath(folder) else {
            throw PipelineError(.io, code: .inputNotFound, at: folderNode.location, stage: "pipeline",
                                "no such folder: \(shown)", sourceLine: folderNode.sourceLine)
        }
        var status = stat()
        guard stat(real, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw PipelineError(.io, code: .fileNotAFolder, at: folderNode.location, stage: "pipeline",
                                "\(shown) is not a folder: 'folder' names the folder the files are in", sourceLine: folderNode.sourceLine)
        }
        return Step(fields: fields, folder: real, shownFolder: shown)
    }

    /// The folder as messages show it: relative to the current directory where it lies below it.
    static func shown(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let prefix = cwd.hasSuffix("/") ? cwd : cwd + "/"
        return path.hasPrefix(prefix) && path.count > prefix.count ? String(path.dropFirst(prefix.count)) : path
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A configured `file` step.
    public final class Step: ByteLoadingStep {
        let references: [FieldReference]
        let folder: String
        let shownFolder: String
        private var indexes: [Int] = []
        /// Bytes loaded so far, which the feed reads to end a batch before it holds too many.
        public private(set) var bytesLoaded = 0
        /// SHA-256 chained over each file loaded: its path as written, then its bytes' SHA-256.
        public private(set) var loadedDigest: [UInt8] = []

        init(fields: [FieldReference], folder: String, shownFolder: String) {
            self.references = fields
            self.folder = folder
            self.shownFolder = shownFolder
        }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try references.map { try $0.index(in: fields, stage: "file") }
            return fields
        }

        public func apply(_ record: inout Record) throws {
            for (k, i) in indexes.enumerated() where i < record.values.count {
                let value = record.values[i]
                guard !value.isEmpty else { record.values[i] = .null; continue }
                func reject(_ reason: String) -> Rejection {
                    Rejection(at: record.location(ofField: i), stage: "file", field: references[k].name,
                              rawValue: value.displayText, reason: reason)
                }
                guard case .text(let path) = value else {
                    throw reject("expects the path of a file in \(shownFolder), found a \(value.kindName) value")
                }
                switch load(path) {
                case .success(let bytes):
                    bytesLoaded += bytes.count
                    loadedDigest = Checksum.sha256(loadedDigest + Array(path.utf8) + [0] + Checksum.sha256(bytes))
                    record.values[i] = .binary(bytes)
                case .failure(let failure):
                    throw reject(failure.reason)
                }
            }
        }

        struct Failure: Error { var reason: String }

        /// The bytes of `path` in the folder, or why not. Checked on the path as written (`..`
        /// climbing out), then on its real path (a symlink pointing out), then on the open file
        /// itself, so that a file swapped after the checks is still a regular file of its size.
        func load(_ path: String) -> Result<[UInt8], Failure> {
            if path.hasPrefix("/") {
                return .failure(Failure(reason: "an absolute path; write it relative to \(shownFolder)"))
            }
            var depth = 0
            for part in path.split(separator: "/", omittingEmptySubsequences: true) {
                if part == ".." { depth -= 1 } else if part != "." { depth += 1 }
                if depth < 0 { return .failure(Failure(reason: "the path leaves \(shownFolder)")) }
            }
            let joined = folder + "/" + path
            guard let real = FileTransform.realPath(joined) else {
                let code = errno
                return .failure(Failure(reason: code == ENOENT || code == ENOTDIR
                                            ? "no such file in \(shownFolder)"
                                            : "cannot read the file: \(SystemErrorWords.words(errno: code))"))
            }
            guard real.hasPrefix(folder == "/" ? "/" : folder + "/") else {
                return .failure(Failure(reason: "the path leads out of \(shownFolder) (through a symbolic link)"))
            }
            var status = stat()
            guard stat(real, &status) == 0 else {
                return .failure(Failure(reason: "cannot read the file: \(SystemErrorWords.words(errno: errno))"))
            }
            if let kind = Step.notRegular(status) { return .failure(Failure(reason: "\(kind), not a regular file")) }
            if let tooBig = Step.tooBig(status) { return .failure(tooBig) }
            // Not blocking on a FIFO put in place since the check; not following a symlink either.
            let fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return .failure(Failure(reason: "cannot read the file: \(SystemErrorWords.words(errno: errno))")) }
            defer { close(fd) }
            guard fstat(fd, &status) == 0 else {
                return .failure(Failure(reason: "cannot read the file: \(SystemErrorWords.words(errno: errno))"))
            }
            if let kind = Step.notRegular(status) { return .failure(Failure(reason: "\(kind), not a regular file")) }
            if let tooBig = Step.tooBig(status) { return .failure(tooBig) }
            let size = Int(status.st_size)
            var bytes = [UInt8](repeating: 0, count: size)
            var done = 0
            while done < size {
                let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, size - done) }
                if n < 0 {
                    if errno == EINTR { continue }
                    return .failure(Failure(reason: "cannot read the file: \(SystemErrorWords.words(errno: errno))"))
                }
                if n == 0 { break }
                done += n
            }
            // A file that shrank while read is what it now holds, never zero padding.
            if done < size { bytes.removeSubrange(done...) }
            return .success(bytes)
        }

        static func notRegular(_ status: stat) -> String? {
            switch status.st_mode & S_IFMT {
            case S_IFREG: nil
            case S_IFDIR: "a folder"
            case S_IFIFO: "a FIFO"
            case S_IFSOCK: "a socket"
            case S_IFCHR, S_IFBLK: "a device"
            default: "a special file"
            }
        }

        static func tooBig(_ status: stat) -> Failure? {
            guard status.st_size > FileTransform.maximumBytes else { return nil }
            return Failure(reason: "the file is \(Int64(status.st_size)) bytes, over the limit of 16 MB (\(FileTransform.maximumBytes) bytes)")
        }
    }
}
