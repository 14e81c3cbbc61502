import Foundation
import SinksSQLite
import Testing
import SQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash safety: `pipectl run` killed with SIGKILL at many moments of a large import never leaves
/// anything but the old store or the complete new one, and the next run clears what it left.
@Suite(.serialized) struct KillTests {
    /// How many times a run is killed. Moments are spread evenly over a whole run, each at a
    /// random point within its slot, so that every phase (reading, writing, checking, renaming)
    /// is hit across runs.
    static let killPoints = 30
    /// Of those, how many fall around the end of the run.
    static let endPoints = 6

    @Test func killedRunsLeaveTheOldStoreOrTheCompleteNewOne() throws {
        let manager = FileManager.default
        let root = try BadInput.scratchFolder("kill")
        defer { try? manager.removeItem(at: root) }
        let store = root.appendingPathComponent("store.sqlite")
        let building = root.appendingPathComponent(".store.sqlite.pipectl-building")
        try KillTests.pipeline.write(to: root.appendingPathComponent("pipeline.yaml"), atomically: true, encoding: .utf8)

        // The old store, from a smaller input; then the new one, timed, from the large input.
        try KillTests.writeInput(rows: 1_000, to: root)
        #expect(try Pipectl.run(["run", "-q", "pipeline.yaml"], in: root).status == 0)
        let old = try Data(contentsOf: store)
        try KillTests.writeInput(rows: KillTests.rows, to: root)
        let started = Date()
        let complete = try Pipectl.run(["run", "-q", "pipeline.yaml"], in: root)
        let duration = Date().timeIntervalSince(started)
        try #require(complete.status == 0, "\(complete.stderr)")
        let new = try Data(contentsOf: store)
        try #require(try KillTests.itemCount(store) == KillTests.rows)

        var outcomes: [String: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for point in 0..<KillTests.killPoints {
            try old.write(to: store)
            // Most points spread over the measured run; the last few around its end, where the
            // store is checked, flushed and renamed, and run times vary from run to run.
            let spread = KillTests.killPoints - KillTests.endPoints
            let delay = point < spread
                ? duration / Double(spread) * (Double(point) + Double.random(in: 0..<1, using: &generator))
                : duration * Double.random(in: 0.9..<1.6, using: &generator)
            let killed = try KillTests.runAndKill(after: delay, in: root)

            let now = try Data(contentsOf: store)
            let state: String
            if now == old {
                state = "old store"
            } else if now == new {
                state = "new store"
            } else {
                // Not byte-identical to either: it must at least be whole and complete.
                let check = try SQLiteStore(readingAt: store).scalar("PRAGMA integrity_check")
                let count = try KillTests.itemCount(store)
                Issue.record("kill \(point) at \(delay)s: the store is neither the old nor the new one (integrity \(String(describing: check)), \(count) items)")
                state = "other"
            }
            for suffix in ["-journal", "-wal", "-shm"] {
                #expect(!manager.fileExists(atPath: store.path + suffix), "kill \(point): \(store.lastPathComponent)\(suffix) beside the store")
            }
            let leftover = manager.fileExists(atPath: building.path)
            outcomes["\(killed ? "killed" : "finished"), \(state)\(leftover ? ", temporary file left" : "")", default: 0] += 1
        }

        // A completing run clears whatever the killed ones left.
        try old.write(to: store)
        #expect(try Pipectl.run(["run", "-q", "pipeline.yaml"], in: root).status == 0)
        #expect(try Data(contentsOf: store) == new)
        let names = try manager.contentsOfDirectory(atPath: root.path).sorted()
        #expect(names == ["items.csv", "pipeline.yaml", "store.sqlite"], "files left after a completing run")

        // The figures for docs/reliability.md.
        print("KillTests: \(KillTests.killPoints) kill points over a \(String(format: "%.2f", duration)) s run of \(KillTests.rows) rows: "
                + outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; "))
        #expect(outcomes.keys.contains { $0.hasPrefix("killed, old store") }, "no kill landed before the rename: \(outcomes)")
    }

    /// Enough rows for a run of over a second in a debug build, short enough to kill 30 times.
    static let rows = 60_000

    static let pipeline = """
        version: 1
        name: kill
        store: { path: store.sqlite, layout: sqlite }
        entities:
          Unit: { unique: name, attributes: { name: string } }
          Item:
            unique: name
            attributes: { name: string, quantity: float, note: string }
            relationships: { unit: { to: Unit, inverse: items } }
        sources:
          - name: items
            read: { csv: items.csv }
            load: { Item: { name: name, quantity: quantity, note: note, unit: { Unit: { name: unit } } } }

        """

    static func writeInput(rows: Int, to folder: URL) throws {
        var text = "name,quantity,unit,note\n"
        text.reserveCapacity(rows * 48)
        for row in 0..<rows { text += "item \(row),\(row % 97).5,unit \(row % 13),note for row \(row)\n" }
        try text.write(to: folder.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
    }

    static func itemCount(_ store: URL) throws -> Int {
        guard case .integer(let count)? = try SQLiteStore(readingAt: store).scalar("SELECT count(*) FROM Item") else { return -1 }
        return Int(count)
    }

    /// Starts `pipectl run`, sends SIGKILL after `delay` seconds, and tells whether the signal
    /// is what ended it (false when the run had finished by then).
    static func runAndKill(after delay: Double, in folder: URL) throws -> Bool {
        let process = Process()
        process.executableURL = Pipectl.productsDirectory.appendingPathComponent("pipectl")
        process.arguments = ["run", "-q", "pipeline.yaml"]
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(useconds_t(delay * 1_000_000))
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }
}
