import Foundation
import Pipeline
import SinksSQLite
import XCTest
import SQLite

/// Runs the built `pipectl` binary, the way users and CI do.
struct Pipectl {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The folder holding the built products (`pipectl` sits next to the test bundle).
    static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        fatalError("no .xctest bundle loaded")
        #else
        return Bundle.main.bundleURL
        #endif
    }

    /// The pipectl the tests run: the one built beside them, or the one `PIPECTL_BINARY` names
    /// (the release binary, which CI runs the bad-input corpus against: `.ci/run`).
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["PIPECTL_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return productsDirectory.appendingPathComponent("pipectl")
    }

    /// The repository root, for the example pipelines.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `standardOutput`: a file to write to instead of a pipe (such as /dev/full); `stdout` is then empty.
    @discardableResult
    static func run(_ arguments: [String], in directory: URL, standardOutput: FileHandle? = nil) throws -> Result {
        try run(executable: binary, arguments, in: directory,
                standardOutput: standardOutput)
    }

    /// The address space a guarded run may use: a memory bomb that gets past a limit then fails
    /// to allocate (exit 134) instead of taking the machine down. pipectl needs under 256 MB.
    static let memoryGuardKB = 1 << 20

    /// CPU seconds a guarded run may take: a kept fuzz input that hangs again fails its test
    /// (killed by SIGXCPU) instead of holding up the suite.
    static let cpuGuardSeconds = 120

    /// Runs pipectl under `ulimit -t cpuGuardSeconds` and `ulimit -v memoryGuardKB`. The memory
    /// limit not under AddressSanitizer or ThreadSanitizer, which reserve terabytes of address
    /// space for their shadow memory; nor on macOS, whose kernel does not enforce it.
    @discardableResult
    static func runGuarded(_ arguments: [String], in directory: URL) throws -> Result {
        let environment = ProcessInfo.processInfo.environment
        let sanitized = environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
        let memory = sanitized ? "" : "ulimit -v \(memoryGuardKB) 2>/dev/null; "
        let pipectl = binary.path
        return try run(executable: URL(fileURLWithPath: "/bin/sh"),
                       ["-c", "ulimit -t \(cpuGuardSeconds) 2>/dev/null; \(memory)exec \"$0\" \"$@\"", pipectl] + arguments,
                       in: directory)
    }

    /// Runs another product of the package, built beside pipectl (a fuzz target's replayer).
    static func runProduct(_ name: String, _ arguments: [String], in directory: URL) throws -> Result {
        try run(executable: productsDirectory.appendingPathComponent(name), arguments, in: directory)
    }

    /// Runs another tool found on the PATH, such as `script` or `sqlite3`; `environment` adds to
    /// (or, with an empty value, removes from) the test's own.
    static func runTool(_ name: String, _ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> Result {
        try run(executable: URL(fileURLWithPath: "/usr/bin/env"), [name] + arguments, in: directory, environment: environment)
    }

    private static func run(executable: URL, _ arguments: [String], in directory: URL,
                            standardOutput: FileHandle? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (name, value) in environment { merged[name] = value.isEmpty ? nil : value }
            process.environment = merged
        }
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = standardOutput ?? out
        process.standardError = err
        try process.run()
        if standardOutput != nil { try out.fileHandleForWriting.close() }
        // Read both pipes before waiting, so a chatty run cannot fill a pipe and block.
        let outData = standardOutput == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A scratch folder holding a copy of `pipelines/`, removed at the end of the test.
final class Workspace {
    let root: URL
    var pipelines: URL { root.appendingPathComponent("pipelines") }
    var build: URL { root.appendingPathComponent("build") }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pipectl-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Pipectl.repository.appendingPathComponent("pipelines"), to: pipelines)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    @discardableResult
    func run(_ arguments: String...) throws -> Pipectl.Result {
        try Pipectl.run(arguments, in: root)
    }

    func write(_ text: String, to path: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(path)) }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path) }

    func store(_ path: String) throws -> SQLiteStore { try SQLiteStore(readingAt: root.appendingPathComponent(path)) }

    /// A workspace with `big.csv`, `rows` items named by `name`, and `big.yaml` loading them into
    /// `build/big.sqlite` (the plain layout's `Item`, its name indexed).
    static func bigExport(rows: Int, name: (Int) -> String) throws -> Workspace {
        let ws = try Workspace()
        var csv = "name;quantity\n"
        for i in 0..<rows { csv += "\(name(i));\(i % 7),5\n" }
        try ws.write(csv, to: "big.csv")
        try ws.write("""
            version: 1
            name: big
            store: { path: build/big.sqlite }
            entities: { Item: { unique: name, attributes: { name: { type: string, indexed: true }, quantity: double } } }
            sources:
              - name: items
                read: { csv: big.csv }
                transform: [ { number: { fields: [quantity], decimal: "," } } ]
                load: { Item: { name: name, quantity: quantity } }
            """, to: "big.yaml")
        return ws
    }
}
