import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A store that does not fit: the run stops with exit 74 and a clear message, the old store stays
/// byte-for-byte, and the temporary store is gone.
@Suite(.serialized) struct DiskFullTests {
    /// A 2 MB tmpfs holds the old store (about 20 KB) but not the new one (about 8 MB).
    @Test(.enabled(if: SmallFileSystem.canMount, SmallFileSystem.whyNot))
    func fullFileSystem() throws {
        let root = try BadInput.scratchFolder("disk-full")
        defer { try? FileManager.default.removeItem(at: root) }
        let disk = root.appendingPathComponent("disk")
        let mount = try SmallFileSystem(at: disk, megabytes: 2)
        defer { mount.unmount() }

        let outcome = try DiskFull.run(storeFolder: disk, inputFolder: root, wrap: nil)
        #expect(outcome.status == 74)
        #expect(outcome.stderr == """
            pipeline.yaml:3:8: error: sqlite: cannot write the store: the disk is full \
            (database or disk is full); free some space or choose another store path

            """)
        #expect(outcome.storeKept)
        #expect(outcome.files == ["store.sqlite"], "files left on the full disk")
    }

    /// The same with a file-size limit (`ulimit -f`), which works without root and on macOS:
    /// writes past the limit fail with EFBIG (SIGXFSZ is ignored, as a shell's `trap '' XFSZ` does).
    @Test func fileSizeLimit() throws {
        let root = try BadInput.scratchFolder("file-size-limit")
        defer { try? FileManager.default.removeItem(at: root) }
        // 2 MB in 512-byte blocks: the old store is written first, without the limit.
        let outcome = try DiskFull.run(storeFolder: root, inputFolder: root,
                                       wrap: "trap '' XFSZ; ulimit -f 4096; exec \"$0\" \"$@\"")
        #expect(outcome.status == 74)
        #expect(outcome.stderr == """
            pipeline.yaml:3:8: error: sqlite: cannot write the store: disk I/O error; \
            check the disk and the store path

            """)
        #expect(outcome.storeKept)
        #expect(outcome.files == ["items.csv", "pipeline.yaml", "store.sqlite"], "files left beside the store")
    }
}

enum DiskFull {
    struct Outcome {
        var status: Int32
        var stderr: String
        var storeKept: Bool
        /// What is left in the store's folder.
        var files: [String]
    }

    /// Builds a small store in `storeFolder`, then runs a pipeline whose store is far bigger,
    /// with pipectl started through `sh -c wrap` when given.
    static func run(storeFolder: URL, inputFolder: URL, wrap: String?) throws -> Outcome {
        let pipeline = """
            version: 1
            name: disk-full
            store: { path: \(storeFolder.appendingPathComponent("store.sqlite").path), layout: sqlite }
            entities:
              Item: { unique: name, attributes: { name: string, note: string } }
            sources:
              - name: items
                read: { csv: items.csv }
                load: { Item: { name: name, note: note } }

            """
        try pipeline.write(to: inputFolder.appendingPathComponent("pipeline.yaml"), atomically: true, encoding: .utf8)
        try input(rows: 10).write(to: inputFolder.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
        let first = try Pipectl.run(["run", "-q", "pipeline.yaml"], in: inputFolder)
        guard first.status == 0 else { throw BadInput.Failure("the old store cannot be built: \(first.stderr)") }
        let store = storeFolder.appendingPathComponent("store.sqlite")
        let old = try Data(contentsOf: store)

        try input(rows: 60_000).write(to: inputFolder.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
        let result: Pipectl.Result
        if let wrap {
            let pipectl = Pipectl.productsDirectory.appendingPathComponent("pipectl").path
            result = try shell(["-c", wrap, pipectl, "run", "-q", "pipeline.yaml"], in: inputFolder)
        } else {
            result = try Pipectl.run(["run", "-q", "pipeline.yaml"], in: inputFolder)
        }
        return Outcome(status: result.status,
                       stderr: result.stderr.replacingOccurrences(of: storeFolder.standardizedFileURL.path, with: "$STORE"),
                       storeKept: (try? Data(contentsOf: store)) == old,
                       files: try FileManager.default.contentsOfDirectory(atPath: storeFolder.path).sorted())
    }

    /// `/bin/sh` with `arguments`, its output collected as `Pipectl.run` does.
    static func shell(_ arguments: [String], in folder: URL) throws -> Pipectl.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Pipectl.Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                              stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Rows of about 130 bytes: 60,000 make a store of about 8 MB.
    static func input(rows: Int) -> String {
        var text = "name,note\n"
        for row in 0..<rows {
            text += "item \(row),\(String(repeating: "a note that takes room in the store ", count: 3))\(row)\n"
        }
        return text
    }
}

/// A tmpfs of a few megabytes, mounted for one test (Linux, root with mount permission).
struct SmallFileSystem {
    let folder: URL

    init(at folder: URL, megabytes: Int) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let status = try SmallFileSystem.command("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", folder.path])
        guard status == 0 else { throw BadInput.Failure("mount failed with status \(status)") }
        self.folder = folder
    }

    func unmount() {
        _ = try? SmallFileSystem.command("/bin/umount", [folder.path])
    }

    /// Whether this process may mount a tmpfs, found by trying once.
    static let canMount: Bool = {
        #if os(Linux)
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return false }
        guard let probe = try? BadInput.scratchFolder("mount-probe") else { return false }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard (try? command("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe.path])) == 0 else { return false }
        _ = try? command("/bin/umount", [probe.path])
        return true
        #else
        return false
        #endif
    }()

    static let whyNot: Comment = "a tmpfs can be mounted only on Linux, as root with mount permission (CI runs so); fileSizeLimit covers the rest"

    static func command(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
