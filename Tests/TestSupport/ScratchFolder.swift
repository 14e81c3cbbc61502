import Foundation

/// Where the test helpers write their input files: a folder per test process, removed as the
/// process exits. The helpers hand out inputs by URL and cannot tell when a test is done with
/// one; a folder per file, never removed, had piled up by the thousand in /tmp.
public enum ScratchFolder {
    public static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pipectl-tests-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: root)
        atexit { try? FileManager.default.removeItem(at: ScratchFolder.root) }
        return root
    }()

    /// A new, empty folder inside `root`.
    public static func make(_ prefix: String) throws -> URL {
        let folder = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
