import Foundation
import Testing
import SQLite
import SinksSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 38, items 2 and 9, through the built binary on real files: a store path must be a
/// regular file or absent (a link stands for its target, locked as such); a dry run and `init`
/// write nothing where they must not; `inspect`, `diff` and `check` give one answer for what is
/// not a store, create nothing beside a store they read, and run none of its views.
@Suite(.serialized) struct StorePathTests {
    typealias Scratch = NothingLostTests.Scratch

    // MARK: The store path

    /// A Unix domain socket bound at `path`: the file stays once the descriptor is closed.
    static func bindSocket(at path: String) -> Bool {
        #if canImport(Darwin)
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    @Test("a store path that is a FIFO, a socket, or a link to a device, is refused (exit 74), on --dry-run too, and stays what it was")
    func storePathsThatAreNotFiles() throws {
        let scratch = try Scratch()
        #expect(mkfifo(scratch.root.appendingPathComponent("fifo.sqlite").path, 0o644) == 0)
        #expect(Self.bindSocket(at: scratch.root.appendingPathComponent("socket.sqlite").path))
        // /dev/null itself would be replaced by today's code run as root: reached through a link, it is refused all the same.
        try FileManager.default.createSymbolicLink(atPath: scratch.root.appendingPathComponent("null.sqlite").path, withDestinationPath: "/dev/null")
        let expected = [("fifo.sqlite", "'\(scratch.root.path)/fifo.sqlite' is a FIFO (a named pipe)"),
                        ("socket.sqlite", "'\(scratch.root.path)/socket.sqlite' is a socket"),
                        ("null.sqlite", "'/dev/null' is a character device")]
        for (path, what) in expected {
            try scratch.write(KillTests.pipeline.replacingOccurrences(of: "path: store.sqlite", with: "path: \(path)"), to: "other.yaml")
            for dryRun in [false, true] {
                let result = try Pipectl.run(dryRun ? ["run", "-q", "--dry-run", "other.yaml"] : ["run", "-q", "other.yaml"], in: scratch.root)
                #expect(result.status == 74, "\(path): \(result.stderr)")
                #expect(result.stderr == "other.yaml:3:8: error: sqlite: the store path \(what), and pipectl writes stores to "
                            + "regular files only; name a file\n")
            }
        }
        var status = stat()
        #expect(lstat(scratch.root.appendingPathComponent("fifo.sqlite").path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(scratch.root.appendingPathComponent("null.sqlite").path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
        #expect(lstat(scratch.root.appendingPathComponent("socket.sqlite").path, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK)
        #expect(stat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        #expect(scratch.files == ["fifo.sqlite", "items.csv", "null.sqlite", "other.yaml", "pipeline.yaml", "socket.sqlite", "store.sqlite"])
    }

    @Test("a store reached through a symbolic link: the run updates the real store, the link stays a link, and the lock is the real store's")
    func linkedStore() throws {
        let scratch = try Scratch(rows: 10)
        let manager = FileManager.default
        try manager.createDirectory(at: scratch.root.appendingPathComponent("real"), withIntermediateDirectories: false)
        try manager.moveItem(at: scratch.store, to: scratch.root.appendingPathComponent("real/store.sqlite"))
        try manager.createSymbolicLink(atPath: scratch.store.path, withDestinationPath: "real/store.sqlite")
        let before = try scratch.bytes("real/store.sqlite")

        // Another run holding the real store's lock stops a run through the link.
        let real = scratch.root.appendingPathComponent("real/store.sqlite")
        let lock = open(SQLiteSink.lockURL(for: real).path, O_RDWR | O_CREAT, 0o644)
        #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
        try KillTests.writeInput(rows: 20, to: scratch.root)
        let busy = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(busy.status == 75, "\(busy.stderr)")
        #expect(busy.stderr.contains("is building the store '\(real.path)'"), "\(busy.stderr)")
        close(lock)
        unlink(SQLiteSink.lockURL(for: real).path)
        #expect(try scratch.bytes("real/store.sqlite") == before)

        let result = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try manager.destinationOfSymbolicLink(atPath: scratch.store.path) == "real/store.sqlite")
        #expect(try KillTests.itemCount(real) == 20)
        #expect(try SQLiteStore(readingAt: real).scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(scratch.files == ["items.csv", "pipeline.yaml", "real", "store.sqlite"])
        #expect(try manager.contentsOfDirectory(atPath: scratch.root.appendingPathComponent("real").path) == ["store.sqlite"])

        // A link that leads nowhere is refused, not followed into a new file.
        try manager.removeItem(at: real)
        let broken = try scratch.run("run", "-q", "pipeline.yaml")
        #expect(broken.status == 74, "\(broken.stderr)")
        #expect(broken.stderr == "pipeline.yaml:3:8: error: sqlite: the store path '\(scratch.store.path)' is a symbolic link to "
                    + "'real/store.sqlite', which cannot be followed (No such file or directory); point the link at a store "
                    + "or name the store file itself\n")
        #expect(!manager.fileExists(atPath: real.path))
    }

    @Test("a pipeline file and an export reached through symbolic links are read and checksummed as the files they name: the same store and report checksums as without the links")
    func linkedInputs() throws {
        let scratch = try Scratch(rows: 10)
        let manager = FileManager.default
        // Core Data's layout, whose store UUID is derived from the inputs' checksums.
        try scratch.write(KillTests.pipeline.replacingOccurrences(of: "layout: sqlite", with: "layout: coredata"), to: "pipeline.yaml")
        let plain = try scratch.run("run", "-q", "pipeline.yaml", "--report", "plain.json")
        #expect(plain.status == 0, "\(plain.stderr)")
        let store = try scratch.bytes()

        try manager.createDirectory(at: scratch.root.appendingPathComponent("real"), withIntermediateDirectories: false)
        try manager.moveItem(at: scratch.root.appendingPathComponent("items.csv"), to: scratch.root.appendingPathComponent("real/items.csv"))
        try manager.createSymbolicLink(atPath: scratch.root.appendingPathComponent("items.csv").path, withDestinationPath: "real/items.csv")
        try manager.moveItem(at: scratch.root.appendingPathComponent("pipeline.yaml"), to: scratch.root.appendingPathComponent("real.yaml"))
        try manager.createSymbolicLink(atPath: scratch.root.appendingPathComponent("pipeline.yaml").path, withDestinationPath: "real.yaml")
        // The checksum took a link for "not a regular file": a Core Data run failed once its store
        // was built (exit 74), and a report's input had no checksum.
        let linked = try scratch.run("run", "-q", "pipeline.yaml", "--report", "linked.json")
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(linked.stderr.isEmpty, "\(linked.stderr)")
        // The store's UUID comes from the inputs' names and bytes, which the links leave as they were.
        #expect(try scratch.bytes() == store)
        let inputs = { (name: String) throws -> [[String: String]] in
            let report = try JSONSerialization.jsonObject(with: scratch.bytes(name)) as? [String: Any]
            return (report?["inputs"] as? [[String: Any]] ?? []).map { input in
                ["path": input["path"] as? String ?? "", "sha256": input["sha256"] as? String ?? ""]
            }
        }
        let expected = try inputs("plain.json")
        #expect(expected.count == 1 && expected.first?["sha256"]?.count == 64, "\(expected)")
        #expect(try inputs("linked.json") == expected)
    }

    @Test("--dry-run builds in a private folder of its own: a link planted at the name it used to build at is not followed, and nothing is left")
    func dryRunBuildsInAPrivateFolder() throws {
        let scratch = try Scratch(rows: 10)
        let temporary = scratch.root.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        // The names the next process ids would have built at, each a link to a file of its own.
        let next = Int(getpid())
        for pid in next..<(next + 400) {
            symlink(scratch.root.appendingPathComponent("victim-\(pid)").path, temporary.appendingPathComponent("pipectl-dry-run-\(pid)-store.sqlite").path)
        }
        let planted = try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted()
        let store = try scratch.bytes()
        let pipectl = Pipectl.productsDirectory.appendingPathComponent("pipectl").path
        let result = try Pipectl.runTool(pipectl, ["run", "-q", "--dry-run", "pipeline.yaml"], in: scratch.root,
                                         environment: ["TMPDIR": temporary.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!scratch.files.contains { $0.hasPrefix("victim-") }, "\(scratch.files)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted() == planted)
        #expect(try scratch.bytes() == store)
    }

    // MARK: init -o

    @Test("init -o never writes over an input, the model, a link or a FIFO, --force or not")
    func initOutputs() throws {
        let ws = try Workspace()
        let model = "pipelines/model/Grocery.xcdatamodeld"
        let input = "pipelines/data/grocery.csv"
        let contents = try ws.contentsOfModel()
        let csv = try ws.bytes(input)
        try FileManager.default.createSymbolicLink(atPath: ws.root.appendingPathComponent("link.yaml").path, withDestinationPath: input)
        try FileManager.default.createSymbolicLink(atPath: ws.root.appendingPathComponent("elsewhere.yaml").path, withDestinationPath: "nowhere.yaml")
        #expect(mkfifo(ws.root.appendingPathComponent("fifo.yaml").path, 0o644) == 0)
        let modelFile = try #require(FileManager.default.subpaths(atPath: ws.root.appendingPathComponent(model).path)?
            .first { $0.hasSuffix("/contents") })
        let cases: [(output: String, exit: Int32, message: String)] = [
            (input, 65, "this is an input '\(input)': writing the pipeline file there would destroy it; choose another with -o"),
            ("./pipelines/data/../data/grocery.csv", 65, "this is an input '\(input)': writing the pipeline file there would destroy it; choose another with -o"),
            ("\(model)/\(modelFile)", 65, "this is the model '\(model)': writing the pipeline file there would destroy it; choose another with -o"),
            ("link.yaml", 74, "the path is a symbolic link, and init writes its pipeline file to a regular file only; choose another with -o"),
            ("elsewhere.yaml", 74, "the path is a symbolic link, and init writes its pipeline file to a regular file only; choose another with -o"),
            ("fifo.yaml", 74, "the path is a FIFO, and init writes its pipeline file to a regular file only; choose another with -o"),
        ]
        for (output, exit, message) in cases {
            let result = try ws.run("init", "--model", model, input, "-o", output, "--force")
            #expect(result.status == exit, "\(output): \(result.stderr)")
            #expect(result.stderr == "\(output): error: init: \(message)\n")
        }
        #expect(try ws.bytes(input) == csv)
        #expect(try ws.contentsOfModel() == contents)
        #expect(!FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("nowhere.yaml").path))
        // A regular file of its own is replaced with --force, as before.
        try ws.write("old", to: "draft.yaml")
        let replaced = try ws.run("init", "--model", model, input, "-o", "draft.yaml", "--force")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try ws.bytes("draft.yaml") != Data("old".utf8))
    }

    // MARK: inspect, diff and check read a store as it is

    /// A pipeline with a check, for `check`; its store is the Scratch's.
    static let checked = KillTests.pipeline + "checks:\n  Item: { count: { min: 1 } }\n"

    @Test("a 0-byte file, a text file and a FIFO: one answer from inspect, diff and check (exit 66)")
    func notStores() throws {
        let scratch = try Scratch(rows: 10)
        try scratch.write(Self.checked, to: "checked.yaml")
        try scratch.write("", to: "empty.sqlite")
        #expect(mkfifo(scratch.root.appendingPathComponent("fifo.sqlite").path, 0o644) == 0)
        let answers = [("empty.sqlite", "the file is empty, not a SQLite database"),
                       ("items.csv", "this file is not a SQLite database (it does not begin with \"SQLite format 3\")"),
                       ("fifo.sqlite", "this is a FIFO (a named pipe), not a SQLite database")]
        for (file, answer) in answers {
            for (stage, arguments) in [("inspect", ["inspect", file]), ("diff", ["diff", file, "store.sqlite"]),
                                       ("diff", ["diff", "store.sqlite", file]), ("check", ["check", file, "--pipeline", "checked.yaml"])] {
                let result = try Pipectl.runTool("timeout", ["-s", "KILL", "20", Pipectl.productsDirectory.appendingPathComponent("pipectl").path] + arguments,
                                                 in: scratch.root)
                #expect(result.status == 66, "\(arguments): \(result.stderr)")
                #expect(result.stderr == "\(file): error: \(stage): \(answer)\n", "\(arguments)")
            }
        }
    }

    @Test("a WAL store: inspect, diff and check create nothing beside it, and see the changes its -wal holds")
    func walStores() throws {
        let scratch = try Scratch(rows: 10)
        try scratch.write(Self.checked, to: "checked.yaml")
        try FileManager.default.copyItem(at: scratch.store, to: scratch.root.appendingPathComponent("old.sqlite"))
        let wal = scratch.root.appendingPathComponent("wal")
        try FileManager.default.createDirectory(at: wal, withIntermediateDirectories: false)
        let store = wal.appendingPathComponent("store.sqlite")
        try FileManager.default.copyItem(at: scratch.store, to: store)
        do {
            let writer = try SQLiteConnection(path: store.path, readOnly: false)
            try writer.execute("PRAGMA journal_mode=WAL")
        }
        // A clean WAL store (its last connection closed): nothing beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: wal.path) == ["store.sqlite"])
        let commands = [["inspect", "wal/store.sqlite"], ["diff", "old.sqlite", "wal/store.sqlite", "--pipeline", "pipeline.yaml"],
                        ["check", "wal/store.sqlite", "--pipeline", "checked.yaml"]]
        for arguments in commands {
            let result = try Pipectl.run(arguments, in: scratch.root)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: wal.path) == ["store.sqlite"], "\(arguments)")
        }

        // A WAL holding a change, as an app killed with the store open leaves it: seen, and still nothing created.
        let live = scratch.root.appendingPathComponent("live")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: false)
        let open = live.appendingPathComponent("store.sqlite")
        try FileManager.default.copyItem(at: store, to: open)
        let writer = try SQLiteConnection(path: open.path, readOnly: false)
        try writer.execute("PRAGMA wal_autocheckpoint=0")
        try writer.execute("INSERT INTO Item (name, quantity) VALUES ('in the wal', 1)")
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: open.path + suffix, toPath: wal.appendingPathComponent("store.sqlite" + suffix).path + ".tmp")
        }
        try FileManager.default.removeItem(at: store)
        for suffix in ["", "-wal"] {
            try FileManager.default.moveItem(atPath: store.path + suffix + ".tmp", toPath: store.path + suffix)
        }
        let walBytes = try Data(contentsOf: URL(fileURLWithPath: store.path + "-wal"))
        let files = try FileManager.default.contentsOfDirectory(atPath: wal.path).sorted()
        #expect(files == ["store.sqlite", "store.sqlite-wal"])
        let diff = try Pipectl.run(["diff", "old.sqlite", "wal/store.sqlite", "--pipeline", "pipeline.yaml"], in: scratch.root)
        #expect(diff.status == 1, "\(diff.stderr)")
        #expect(diff.stdout.contains("Item (by name): 1 added, 0 removed, 0 changed, 10 unchanged"), "\(diff.stdout)")
        for arguments in commands {
            _ = try Pipectl.run(arguments, in: scratch.root)
            #expect(try FileManager.default.contentsOfDirectory(atPath: wal.path).sorted() == files, "\(arguments)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path + "-wal")) == walBytes)
        withExtendedLifetime(writer) {}
    }

    /// A binary property list: a dictionary whose key "k" holds an array of `references`
    /// references to one string of `bytes` bytes (as Foundation's writer never shares one).
    static func sharedStringPlist(references: Int, bytes: Int) -> [UInt8] {
        func be(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
        var plist = Array("bplist00".utf8), offsets: [Int] = []
        offsets.append(plist.count)
        plist += [0xD1, 1, 2]
        offsets.append(plist.count)
        plist += [0x51, UInt8(ascii: "k")]
        offsets.append(plist.count)
        plist += [0xAF, 0x12] + be(references, 4) + Array(repeating: 3, count: references)
        offsets.append(plist.count)
        plist += [0x5F, 0x12] + be(bytes, 4) + Array(repeating: UInt8(ascii: "a"), count: bytes)
        let table = plist.count
        for offset in offsets { plist += be(offset, 4) }
        return plist + [0, 0, 0, 0, 0, 0, 4, 1] + be(offsets.count, 8) + be(0, 8) + be(table, 8)
    }

    /// A binary property list whose root is a dictionary of `keys` keys, every key and value one string.
    static func wideDictionaryPlist(keys: Int) -> [UInt8] {
        func be(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
        var plist = Array("bplist00".utf8) + [0xDF, 0x12] + be(keys, 4) + Array(repeating: 1, count: 2 * keys)
        let string = plist.count
        plist += [0x51, UInt8(ascii: "k")]
        let table = plist.count
        plist += be(8, 4) + be(string, 4)
        return plist + [0, 0, 0, 0, 0, 0, 4, 1] + be(2, 8) + be(0, 8) + be(table, 8)
    }

    @Test("inspect on a store whose Z_METADATA property list is a reference bomb: refused at once (exit 66), as the readers refuse one")
    func metadataBombs() throws {
        let scratch = try Scratch(rows: 10)
        // 592 bytes: 16^26 objects once decoded; one 1 MB string referred to 600 times, 600 MB;
        let bombs = [("nested.sqlite", Array(try Data(contentsOf: BadInput.folder.appendingPathComponent("plist-nested-references.plist"))),
                      "the binary property list decodes into more than 10,000,000 objects"),
                     ("shared.sqlite", Self.sharedStringPlist(references: 600, bytes: 1 << 20),
                      "the binary property list decodes into more than 512 MB of strings and data"),
                     // 9M references to one string: 9M objects, within that budget (24 s, 1.1 GB, a 45 MB line printed).
                     ("list.sqlite", Self.sharedStringPlist(references: 9_000_000, bytes: 1),
                      "the binary property list has an array of 9,000,000 values (object 2), more than the 1,000,000 pipectl reads in one list"),
                     // A root dictionary of 16,385 keys (4M took 3 s): metadata holds tens.
                     ("keys.sqlite", Self.wideDictionaryPlist(keys: 16_385),
                      "the binary property list has a dictionary of 16,385 keys (object 0), more than the 16,384 pipectl reads in one")]
        for (file, plist, answer) in bombs {
            do {
                let store = try SQLiteConnection(path: scratch.root.appendingPathComponent(file).path, readOnly: false)
                try store.execute("""
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Item', 0, 0);
                    CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)
                    """)
                let insert = try store.prepare("INSERT INTO Z_METADATA VALUES (1, 'B0A1C2D3-0000-4000-8000-000000000000', ?1)")
                try insert.bind(.binary(plist), at: 1)
                try insert.run()
            }
            let started = Date()
            let result = try Pipectl.runTool("timeout", ["-s", "KILL", "20", Pipectl.productsDirectory.appendingPathComponent("pipectl").path,
                                                         "inspect", file], in: scratch.root)
            #expect(result.status == 66, "\(file): \(result.stderr)")
            #expect(result.stderr.hasPrefix("\(file): error: inspect: Z_METADATA's Z_PLIST: \(answer)"), "\(result.stderr)")
            #expect(Date().timeIntervalSince(started) < 5, "\(file)")
        }
    }

    @Test("a view where a table is read (a recursive one, named like an entity's table) is refused by check, not run: exit 66 at once")
    func views() throws {
        let scratch = try Scratch(rows: 10)
        try scratch.write(Self.checked, to: "checked.yaml")
        try FileManager.default.copyItem(at: scratch.store, to: scratch.root.appendingPathComponent("viewed.sqlite"))
        do {
            let connection = try SQLiteConnection(path: scratch.root.appendingPathComponent("viewed.sqlite").path, readOnly: false)
            try connection.execute("DROP TABLE Item")
            try connection.execute("CREATE VIEW Item AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
                                       + "SELECT x AS id, 'item' AS name, 1.0 AS quantity, '' AS note, NULL AS unit_id FROM n")
        }
        let pipectl = Pipectl.productsDirectory.appendingPathComponent("pipectl").path
        let started = Date()
        let check = try Pipectl.runTool("timeout", ["-s", "KILL", "20", pipectl, "check", "viewed.sqlite", "--pipeline", "checked.yaml"], in: scratch.root)
        #expect(check.status == 66, "\(check.stderr)")
        #expect(check.stderr.hasPrefix("viewed.sqlite: error: sqlite: 'Item' is a view, not a table: pipectl reads only a store's "
                                           + "tables and runs none of its views; SQL: "), "\(check.stderr)")
        #expect(Date().timeIntervalSince(started) < 10)
        // diff matches tables by their names in sqlite_master: a view is no table, so the entity's is gone.
        let diff = try Pipectl.runTool("timeout", ["-s", "KILL", "20", pipectl, "diff", "store.sqlite", "viewed.sqlite", "--pipeline", "pipeline.yaml"],
                                       in: scratch.root)
        #expect(diff.status == 1, "\(diff.stderr)")
        #expect(diff.stdout.contains("note: Item: table 'Item' is gone"), "\(diff.stdout)")
        // inspect counts tables only: the view is not one.
        let inspect = try Pipectl.run(["inspect", "viewed.sqlite"], in: scratch.root)
        #expect(inspect.status == 0, "\(inspect.stderr)")
    }
}

extension Workspace {
    /// Every file of the grocery model, by path, with its bytes.
    func contentsOfModel() throws -> [String: Data] {
        let folder = root.appendingPathComponent("pipelines/model/Grocery.xcdatamodeld")
        var contents: [String: Data] = [:]
        for path in FileManager.default.subpaths(atPath: folder.path) ?? [] {
            var isFolder: ObjCBool = false
            let url = folder.appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                contents[path] = try Data(contentsOf: url)
            }
        }
        return contents
    }
}
