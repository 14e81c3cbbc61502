import Foundation
import SinksSQLite
import Testing
import SQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 27's attacks, each through the built binary on real files: outputs that would overwrite
/// what they must not, two runs at once, signals, inputs that are not files or change while read,
/// and sources that give nothing. In each, the previous store must stay byte for byte.
@Suite(.serialized) struct NothingLostTests {
    /// A folder with KillTests' pipeline, `rows` rows of input and the store they make.
    final class Scratch {
        let root: URL
        var store: URL { root.appendingPathComponent("store.sqlite") }

        init(rows: Int = 1_000) throws {
            root = try BadInput.scratchFolder("nothing-lost")
            try KillTests.pipeline.write(to: root.appendingPathComponent("pipeline.yaml"), atomically: true, encoding: .utf8)
            try KillTests.writeInput(rows: rows, to: root)
            let first = try run("run", "-q", "pipeline.yaml")
            #expect(first.status == 0, "\(first.stderr)")
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        @discardableResult
        func run(_ arguments: String...) throws -> Pipectl.Result { try Pipectl.run(arguments, in: root) }

        func write(_ text: String, to name: String) throws {
            try text.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }

        func bytes(_ name: String = "store.sqlite") throws -> Data { try Data(contentsOf: root.appendingPathComponent(name)) }

        var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted() }

        /// Starts `pipectl ARGUMENTS` without waiting for it.
        func start(_ arguments: [String], output: URL? = nil) throws -> Process {
            let process = Process()
            process.executableURL = Pipectl.productsDirectory.appendingPathComponent("pipectl")
            process.arguments = arguments
            process.currentDirectoryURL = root
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try output.map { _ = FileManager.default.createFile(atPath: $0.path, contents: nil); return try FileHandle(forWritingTo: $0) }
                ?? FileHandle.nullDevice
            try process.run()
            return process
        }

        /// Waits up to 30 s for `name` to appear in the folder (a run has started building).
        func waitFor(prefix: String) -> Bool {
            for _ in 0..<600 {
                if files.contains(where: { $0.hasPrefix(prefix) }) { return true }
                usleep(50_000)
            }
            return false
        }
    }

    // MARK: Outputs never overwrite what they must not

    @Test("a report path naming the store, an input, the pipeline file or the other report is an error at its line, before anything runs")
    func reportPathsThatWouldDestroy() throws {
        let scratch = try Scratch()
        let store = try scratch.bytes(), input = try scratch.bytes("items.csv")
        let cases: [(report: String, what: String)] = [
            ("{ json: store.sqlite }", "the store"),
            ("{ json: ./items.csv }", "the input of source 'items'"),
            ("{ json: bad.yaml }", "the pipeline file"),
            ("{ json: store.sqlite-journal }", "a file SQLite keeps beside the store"),
            ("{ json: r.json, xlsx: r.json }", "another report"),
        ]
        for (report, what) in cases {
            try scratch.write(KillTests.pipeline + "report: \(report)\n", to: "bad.yaml")
            for arguments in [["run", "-q", "bad.yaml"], ["run", "-q", "--dry-run", "bad.yaml"]] {
                let result = try Pipectl.run(arguments, in: scratch.root)
                #expect(result.status == 65, "\(report): \(result.stderr)")
                #expect(result.stderr.hasPrefix("bad.yaml:14:"), "\(result.stderr)")
                #expect(result.stderr.contains("is \(what): writing the report there would destroy it"), "\(result.stderr)")
            }
            #expect(try scratch.bytes() == store)
            #expect(try scratch.bytes("items.csv") == input)
        }
        let extra = try scratch.run("run", "-q", "pipeline.yaml", "--report", "store.sqlite.json")
        #expect(extra.status == 0, "a name of its own is fine: \(extra.stderr)")
        let clash = try scratch.run("run", "-q", "--report", "items.json", "pipeline.yaml")
        #expect(clash.status == 0, "\(clash.stderr)")
        try scratch.write(KillTests.pipeline + "report: { json: r.json }\n", to: "one.yaml")
        let same = try scratch.run("run", "-q", "one.yaml", "--report", "r.json")
        #expect(same.status == 65)
        #expect(same.stderr == "error: pipectl: --report 'r.json' is another report: writing the report there would destroy it; name a file of its own\n")
        // A symbolic link to the store is the store.
        try FileManager.default.createSymbolicLink(atPath: scratch.root.appendingPathComponent("link.json").path, withDestinationPath: "store.sqlite")
        let linked = try scratch.run("run", "-q", "pipeline.yaml", "--report", "link.json")
        #expect(linked.status == 65, "\(linked.stderr)")
        #expect(try scratch.bytes() == scratch.bytes("link.json"))
        #expect(StoreFileCheck.isSQLite(try scratch.bytes()))
    }

    @Test("a report path that is a FIFO or a folder is refused before the run, and nothing is written to it")
    func reportPathsThatAreNotFiles() throws {
        let scratch = try Scratch()
        let store = try scratch.bytes()
        #expect(mkfifo(scratch.root.appendingPathComponent("fifo.json").path, 0o644) == 0)
        try FileManager.default.createDirectory(at: scratch.root.appendingPathComponent("folder.json"), withIntermediateDirectories: false)
        for (path, what) in [("fifo.json", "a FIFO"), ("folder.json", "a folder")] {
            let result = try scratch.run("run", "-q", "pipeline.yaml", "--report", path)
            #expect(result.status == 74)
            #expect(result.stderr == "\(path): error: report: the report path is \(what), and pipectl writes reports to regular files only; name a file\n")
        }
        #expect(try scratch.bytes() == store)
    }

    // MARK: One run per store at a time

    @Test("two runs of one store: the second exits 75 naming the first, or waits for it with --wait; the store is always whole")
    func concurrentRuns() throws {
        let scratch = try Scratch()
        try KillTests.writeInput(rows: KillTests.rows, to: scratch.root)
        let first = try scratch.start(["run", "-q", "pipeline.yaml"])
        #expect(scratch.waitFor(prefix: ".store.sqlite.pipectl-building-"))
        let lock = try String(contentsOf: SQLiteSink.lockURL(for: scratch.store), encoding: .utf8)
        #expect(lock == "\(first.processIdentifier)\n")

        let second = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(second.status == 75)
        #expect(second.stderr.contains("error: sqlite: another pipectl run (process \(first.processIdentifier)) is building the store "), "\(second.stderr)")
        #expect(second.stderr.contains("give --wait SECONDS to wait for it"))
        // It touched nothing of the first run's.
        #expect(first.isRunning)

        // One that waits runs once the first is done, and builds the same store.
        let waiting = try scratch.run("run", "-q", "--wait", "120", "pipeline.yaml")
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(waiting.status == 0, "\(waiting.stderr)")
        #expect(try KillTests.itemCount(scratch.store) == KillTests.rows)
        #expect(try SQLiteStore(readingAt: scratch.store).scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(scratch.files == ["items.csv", "pipeline.yaml", "store.sqlite"])

        // A lock file left by a killed run (the kernel released its lock) stops nobody.
        try "424242\n".write(to: SQLiteSink.lockURL(for: scratch.store), atomically: true, encoding: .utf8)
        #expect(try scratch.run("run", "-q", "pipeline.yaml").status == 0)
        #expect(scratch.files == ["items.csv", "pipeline.yaml", "store.sqlite"])
    }

    // MARK: Clean endings

    @Test("SIGINT, SIGTERM and SIGHUP remove the store being built and the lock, exit 130, 143 and 129, and keep the old store")
    func signals() throws {
        let scratch = try Scratch()
        let old = try scratch.bytes()
        try KillTests.writeInput(rows: KillTests.rows, to: scratch.root)
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, 143), (SIGHUP, 129)] {
            let log = scratch.root.appendingPathComponent("stderr.txt")
            let run = try scratch.start(["run", "-q", "pipeline.yaml", "--report", "report.json"], output: log)
            #expect(scratch.waitFor(prefix: ".store.sqlite.pipectl-building-"))
            usleep(200_000)
            kill(run.processIdentifier, signal)
            run.waitUntilExit()
            #expect(run.terminationReason == .exit && run.terminationStatus == status, "signal \(signal): \(run.terminationStatus)")
            #expect(try String(contentsOf: log, encoding: .utf8).hasSuffix("pipectl: interrupted; the store and reports were left as they were\n"))
            try FileManager.default.removeItem(at: log)
            #expect(try scratch.bytes() == old)
            #expect(scratch.files == ["items.csv", "pipeline.yaml", "store.sqlite"], "signal \(signal)")
        }
    }

    // MARK: Inputs are what they were

    @Test("an input that is a device or a FIFO is an error at its source, at once")
    func inputsThatAreNotFiles() throws {
        let scratch = try Scratch()
        let old = try scratch.bytes()
        #expect(mkfifo(scratch.root.appendingPathComponent("fifo.csv").path, 0o644) == 0)
        for (input, what) in [("/dev/zero", "a device"), ("fifo.csv", "a FIFO (a named pipe)")] {
            try scratch.write(KillTests.pipeline.replacingOccurrences(of: "items.csv", with: input) + "report: { json: r.json }\n", to: "p.yaml")
            let started = Date()
            let result = try scratch.run("run", "-q", "p.yaml")
            #expect(Date().timeIntervalSince(started) < 20)
            #expect(result.status == 66)
            #expect(result.stderr.hasPrefix("p.yaml:12:11: error: pipeline: the input '\(input)' is \(what); pipectl reads regular files only"),
                    "\(result.stderr)")
        }
        #expect(try scratch.bytes() == old)
    }

    @Test("an input truncated while the run reads it fails the run with exit 74 and keeps the old store")
    func inputChangedDuringTheRun() throws {
        let scratch = try Scratch()
        let old = try scratch.bytes()
        try KillTests.writeInput(rows: KillTests.rows, to: scratch.root)
        let log = scratch.root.appendingPathComponent("stderr.txt")
        let run = try scratch.start(["run", "-q", "pipeline.yaml"], output: log)
        #expect(scratch.waitFor(prefix: ".store.sqlite.pipectl-building-"))
        #expect(truncate(scratch.root.appendingPathComponent("items.csv").path, 100_000) == 0)
        run.waitUntilExit()
        #expect(run.terminationStatus == 74)
        #expect(try String(contentsOf: log, encoding: .utf8).hasPrefix("items.csv: error: pipeline: the file changed while the run read it"))
        #expect(try scratch.bytes() == old)
    }

    // MARK: Empty results are suspicious

    @Test("a source whose every record is rejected does not replace a store that holds records, unless allow_empty")
    func everyRecordRejected() throws {
        let scratch = try Scratch()
        let old = try scratch.bytes()
        try scratch.write("name,quantity,unit,note\nMilk,lots,l,x\nBread,some,pcs,y\n", to: "items.csv")
        let result = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(result.status == 67)
        #expect(result.stderr.hasPrefix("pipeline.yaml:11:5: error: pipeline: source 'items' gave the store no record (2 read: 2 rejected), "
                                            + "and the store it would replace holds records: the store was left as it was."), "\(result.stderr)")
        #expect(try scratch.bytes() == old)

        try scratch.write(KillTests.pipeline + "allow_empty: true\n", to: "pipeline.yaml")
        #expect(try scratch.run("run", "-q", "pipeline.yaml").status == 0)
        #expect(try KillTests.itemCount(scratch.store) == 0)
        // Into an empty store, or on a first run, a source whose records were all rejected fails
        // the run too: a store without them would look like a success.
        try scratch.write(KillTests.pipeline, to: "pipeline.yaml")
        let empty = try scratch.bytes()
        let again = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(again.status == 67)
        #expect(again.stderr.contains("source 'items' gave the store no record (2 read: 2 rejected): no store was written"), "\(again.stderr)")
        #expect(try scratch.bytes() == empty)
        try FileManager.default.removeItem(at: scratch.store)
        let first = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(first.status == 67, "\(first.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.store.path))
        try scratch.write(KillTests.pipeline + "allow_empty: true\n", to: "pipeline.yaml")
        #expect(try scratch.run("run", "-q", "pipeline.yaml").status == 0)
        #expect(try KillTests.itemCount(scratch.store) == 0)
    }

    @Test("a record rejected by one of its entities writes none of them; a source of such records does not replace the store")
    func rejectedRecordWritesNothing() throws {
        let scratch = try Scratch()
        let pipeline = """
            version: 1
            name: shelves
            store: { path: store.sqlite, layout: sqlite }
            entities:
              Unit: { unique: name, attributes: { name: string } }
              Shelf: { unique: name, attributes: { name: string } }
              Item:
                unique: name
                attributes: { name: string }
                relationships: { unit: { to: Unit, inverse: items }, shelf: { to: Shelf, inverse: items } }
            sources:
              - name: units
                read: { csv: units.csv }
                load: { Unit: { name: name } }
              - name: items
                read: { csv: items.csv }
                load:
                  Shelf: { name: shelf }
                  Item: { name: name, shelf: { Shelf: { name: shelf } }, unit: { Unit: { name: unit }, missing: reject } }

            """
        try scratch.write(pipeline, to: "pipeline.yaml")
        try scratch.write("name\nkg\nl\n", to: "units.csv")
        try scratch.write("name,shelf,unit\nMilk,Fridge,l\nFlour,Pantry,kg\n", to: "items.csv")
        let first = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try SQLiteStore(readingAt: scratch.store).rows("SELECT count(*) FROM Item UNION ALL SELECT count(*) FROM Shelf")
                == [[.integer(2)], [.integer(2)]])
        let old = try scratch.bytes()
        // Every item names a unit the store lacks: their shelves, loaded from the same rows, are
        // not written either, and the run keeps the store of two items.
        try scratch.write("name,shelf,unit\nMilk,Cellar,litre\nFlour,Attic,kilo\n", to: "items.csv")
        let rejected = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(rejected.status == 67, "\(rejected.stderr)")
        #expect(rejected.stderr.contains("source 'items' gave the store no record (2 read: 2 rejected)"), "\(rejected.stderr)")
        #expect(try scratch.bytes() == old)
        // One good row and one bad: the bad row's shelf is not in the store.
        try scratch.write("name,shelf,unit\nMilk,Cellar,l\nFlour,Attic,kilo\n", to: "items.csv")
        #expect(try scratch.run("run", "-q", "pipeline.yaml").status == 0)
        #expect(try SQLiteStore(readingAt: scratch.store).rows("SELECT name FROM Shelf ORDER BY name") == [[.text("Cellar")]])
        // A link may name what an entity before it in the same record loads.
        try scratch.write(pipeline.replacingOccurrences(of: "Shelf: { name: shelf }\n", with: "Unit: { name: unit }\n      Shelf: { name: shelf }\n"),
                          to: "pipeline.yaml")
        let together = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(together.status == 0, "\(together.stderr)")
        #expect(try SQLiteStore(readingAt: scratch.store).rows("SELECT i.name, u.name FROM Item i JOIN Unit u ON u.id = i.unit_id ORDER BY i.name")
                == [[.text("Flour"), .text("kilo")], [.text("Milk"), .text("l")]])
    }
}

/// Whether bytes start as a SQLite database does.
enum StoreFileCheck {
    static func isSQLite(_ data: Data) -> Bool { data.prefix(16) == Data("SQLite format 3\0".utf8) }
}
