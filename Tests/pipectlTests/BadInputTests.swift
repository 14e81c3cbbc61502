import Foundation
import SinksSQLite
import Testing
import SQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bad-input corpus (`Fixtures/bad-input/cases.json`): every case runs the built `pipectl` on a
/// bad input or pipeline file, with a good store already in place, and checks the exit code, the
/// whole message, that the previous store is byte-for-byte as it was, that no temporary file is
/// left, and that no file outside the pipeline's inputs was read.
///
/// `RECORD_BAD_INPUT=1 swift test --filter BadInputTests` rewrites the manifest's exit codes and
/// messages from what pipectl now prints, and fails so that a recording never passes silently.
@Suite struct BadInputTests {
    @Test(arguments: try BadInput.cases())
    func badInput(_ badCase: BadInput.Case) throws {
        let outcome = try BadInput.run(badCase)
        #expect(outcome.status == badCase.exit, "\(badCase.name): exit code")
        #expect(outcome.stderr == badCase.stderr.joined(separator: "\n"), "\(badCase.name): message")
        for problem in outcome.problems { Issue.record("\(badCase.name): \(problem)") }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RECORD_BAD_INPUT"] == "1"))
    func recordManifest() throws {
        var cases = try BadInput.cases()
        for index in cases.indices {
            let outcome = try BadInput.run(cases[index])
            cases[index].exit = outcome.status
            cases[index].stderr = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        try BadInput.save(cases)
        Issue.record("recorded \(cases.count) cases into \(BadInput.manifest.path); review the diff, then run again without RECORD_BAD_INPUT")
    }
}

enum BadInput {
    /// One entry of `cases.json`.
    struct Case: Codable, Sendable, CustomTestStringConvertible {
        /// Also the name of the folder the case runs in.
        var name: String
        /// What the case shows, for people browsing the corpus.
        var about: String
        /// A template in `pipelines/` (`csv`, `xml`, `json`, `jsonl`, `plist`) whose `INPUT` becomes
        /// the input's name, run as `pipeline.yaml`; or a pipeline file of the corpus, run as is.
        var pipeline: String
        /// The input file: from the corpus, or written by `generate` at run time.
        var input: String?
        /// A generator of big inputs that are not committed (see `Generator`).
        var generate: String?
        /// Something to arrange before the run (see `Setup`).
        var setup: String?
        /// `pipectl`'s arguments; `run` and the pipeline file when absent.
        var arguments: [String]?
        var exit: Int32
        /// The whole standard error, line by line; `$CASE` stands for the case's folder.
        var stderr: [String]

        var testDescription: String { name }

        var isTemplate: Bool { !pipeline.hasSuffix(".yaml") }
        var pipelineFile: String { isTemplate ? "pipeline.yaml" : pipeline }
    }

    enum Setup: String {
        /// The store file has no write permission (root included: the mode is what counts).
        case readOnlyStore = "read-only-store"
        /// The store path holds a file that is not a SQLite database.
        case notSQLiteStore = "not-sqlite-store"
        /// The store path is a folder.
        case storeIsAFolder = "store-is-a-folder"
        /// A TCP listener on 127.0.0.1 whose port replaces `PORT` in the input; nothing may connect.
        case listen
    }

    enum Generator: String {
        /// A CSV whose second field is 100 MB long, unquoted.
        case csvHugeField = "csv-huge-field"
        /// A CSV whose second field is 100 MB long, quoted.
        case csvHugeQuotedField = "csv-huge-quoted-field"
        /// A JSON string value of 100 MB.
        case jsonHugeString = "json-huge-string"
        /// A JSON Lines line of 100 MB.
        case jsonlHugeLine = "jsonl-huge-line"
        /// An XML attribute value of 100 MB.
        case xmlHugeAttribute = "xml-huge-attribute"
        /// An XML text node of 100 MB.
        case xmlHugeText = "xml-huge-text"
        /// JSON arrays nested 100,000 deep.
        case jsonDeepNesting = "json-deep-nesting"
        /// XML elements nested 100,000 deep.
        case xmlDeepNesting = "xml-deep-nesting"
        /// One 1 MB entity referenced 10,000 times: 10 GB if expanded.
        case xmlQuadraticBlowup = "xml-quadratic-blowup"
        /// A binary property list whose array holds 100,000 references to one dictionary of 1 KB.
        case plistReferenceBomb = "plist-reference-bomb"
        /// A CSV row of 100M commas: 100M empty fields.
        case csvWideRow = "csv-wide-row"
        /// A CSV row of nine fields just under 8 MB each: 72 MB.
        case csvLongRow = "csv-long-row"
        /// A JSON string of 7.5 MB of text, then 1M `\n` escapes: 8.5 MB decoded, of which the
        /// escapes were not counted (a string of escapes alone takes seconds to read in a debug build).
        case jsonEscapedString = "json-escaped-string"
        /// A JSON number of 10M digits.
        case jsonLongNumber = "json-long-number"
        /// An XML text of 200 MB cut by a comment every kilobyte.
        case xmlTextSplitByComments = "xml-text-split-by-comments"
        /// An XML text of 50 MB cut by a CDATA section every kilobyte.
        case xmlTextSplitByCDATA = "xml-text-split-by-cdata"
        /// An XML text of 20 MB cut by an empty child element every kilobyte.
        case xmlTextSplitByElements = "xml-text-split-by-elements"
    }

    static let folder = Pipectl.repository.appendingPathComponent("Tests/pipectlTests/Fixtures/bad-input")
    static let manifest = folder.appendingPathComponent("cases.json")
    /// Files every case folder holds besides its own: a good CSV for pipeline cases, and the
    /// file that XML entities and DTDs point at, which must never be read.
    static let sharedFiles = ["previous.csv", "secret.txt"]
    static let secret = "secret.txt"

    static func cases() throws -> [Case] {
        try JSONDecoder().decode([Case].self, from: Data(contentsOf: manifest))
    }

    static func save(_ cases: [Case]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(cases) + Data("\n".utf8)).write(to: manifest)
    }

    /// The store every case starts from: `previous.csv` through the csv template.
    static let previousStore: Result<Data, any Error> = Result {
        let root = try scratchFolder("previous")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.copyItem(at: folder.appendingPathComponent("pipelines/previous.csv"),
                                         to: root.appendingPathComponent("previous.csv"))
        try template("csv", input: "previous.csv").write(to: root.appendingPathComponent("pipeline.yaml"))
        let result = try Pipectl.run(["run", "-q", "pipeline.yaml"], in: root)
        guard result.status == 0 else { throw Failure("the previous store cannot be built: \(result.stderr)") }
        return try Data(contentsOf: root.appendingPathComponent("store.sqlite"))
    }

    struct Outcome {
        var status: Int32
        var stderr: String
        /// Whatever else went wrong: the store changed, a file was left or read, a connection made.
        var problems: [String] = []
    }

    static func run(_ badCase: Case) throws -> Outcome {
        let manager = FileManager.default
        let root = try scratchFolder(badCase.name)
        defer { try? manager.removeItem(at: root) }
        let store = root.appendingPathComponent("store.sqlite")

        for name in sharedFiles {
            let from = name == "previous.csv" ? folder.appendingPathComponent("pipelines/previous.csv") : folder.appendingPathComponent(name)
            try manager.copyItem(at: from, to: root.appendingPathComponent(name))
        }
        if badCase.isTemplate {
            try template(badCase.pipeline, input: badCase.input ?? "").write(to: root.appendingPathComponent("pipeline.yaml"))
        } else {
            try manager.copyItem(at: folder.appendingPathComponent(badCase.pipeline), to: root.appendingPathComponent(badCase.pipeline))
        }
        if let input = badCase.input {
            let target = root.appendingPathComponent(input)
            if let name = badCase.generate {
                guard let generator = Generator(rawValue: name) else { throw Failure("unknown generator '\(name)'") }
                try generator.write(to: target)
            } else if !manager.fileExists(atPath: target.path) {
                try manager.copyItem(at: folder.appendingPathComponent(input), to: target)
            }
        }

        var previous = try previousStore.get()
        var listener: Listener?
        switch badCase.setup.map({ Setup(rawValue: $0) }) {
        case nil:
            try previous.write(to: store)
        case .readOnlyStore?:
            try previous.write(to: store)
            try manager.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path)
        case .notSQLiteStore?:
            previous = Data("name,unit\nMilk,l\n".utf8)
            try previous.write(to: store)
        case .storeIsAFolder?:
            try manager.createDirectory(at: store, withIntermediateDirectories: false)
            previous = Data()
        case .listen?:
            try previous.write(to: store)
            let open = try Listener()
            listener = open
            let input = root.appendingPathComponent(badCase.input ?? "")
            let text = try String(contentsOf: input, encoding: .utf8)
            try Data(text.replacingOccurrences(of: "PORT", with: String(open.port)).utf8).write(to: input)
        case .some(nil):
            throw Failure("unknown setup '\(badCase.setup ?? "")'")
        }
        let filesBefore = try manager.contentsOfDirectory(atPath: root.path).sorted()
        let secretWatch = try AccessWatch(root.appendingPathComponent(secret))

        // Guarded: the corpus holds memory bombs, and a regression must fail the case, not the machine.
        let result = try Pipectl.runGuarded(badCase.arguments ?? ["run", badCase.pipelineFile], in: root)
        var outcome = Outcome(status: result.status,
                              stderr: result.stderr.replacingOccurrences(of: root.standardizedFileURL.path, with: "$CASE"))

        if badCase.setup != Setup.storeIsAFolder.rawValue {
            let now = (try? Data(contentsOf: store)) ?? Data()
            if result.status != 0, now != previous {
                outcome.problems.append("the previous store changed")
            }
            if result.status == 0 {
                if now == previous { outcome.problems.append("the run succeeded but the store is unchanged") }
                let check = try SQLiteStore(readingAt: store).scalar("PRAGMA integrity_check")
                if check != .text("ok") { outcome.problems.append("the new store fails integrity_check: \(String(describing: check))") }
            }
        }
        let filesAfter = try manager.contentsOfDirectory(atPath: root.path).sorted()
        if filesAfter != filesBefore {
            outcome.problems.append("files changed beside the store: \(filesBefore) became \(filesAfter)")
        }
        if secretWatch.wasRead() { outcome.problems.append("\(secret) was read") }
        if result.stderr.contains("TOP-SECRET") { outcome.problems.append("\(secret)'s content was printed") }
        if let listener, listener.acceptedAConnection() { outcome.problems.append("pipectl connected to the network") }
        return outcome
    }

    static func template(_ name: String, input: String) throws -> Data {
        let text = try String(contentsOf: folder.appendingPathComponent("pipelines/\(name).yaml"), encoding: .utf8)
        return Data(text.replacingOccurrences(of: "INPUT", with: input).utf8)
    }

    static func scratchFolder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pipectl-bad-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension BadInput.Generator {
    static let hundredMB = 100 * 1024 * 1024

    func write(to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw BadInput.Failure("cannot create \(url.path)")
        }
        let file = try FileHandle(forWritingTo: url)
        defer { try? file.close() }
        func put(_ text: String) throws { try file.write(contentsOf: Data(text.utf8)) }
        /// `count` bytes of `byte`, written a megabyte at a time.
        func fill(_ byte: UInt8, _ count: Int) throws {
            let chunk = Data(repeating: byte, count: 1 << 20)
            var left = count
            while left > 0 {
                try file.write(contentsOf: left >= chunk.count ? chunk : chunk.prefix(left))
                left -= chunk.count
            }
        }
        /// `text` `times` times, written a megabyte or so at a time.
        func fill(repeating text: String, times: Int) throws {
            let perChunk = max(1, (1 << 20) / text.utf8.count)
            let chunk = Data(String(repeating: text, count: perChunk).utf8)
            var left = times
            while left > 0 {
                try file.write(contentsOf: left >= perChunk ? chunk : Data(String(repeating: text, count: left).utf8))
                left -= perChunk
            }
        }
        let a = UInt8(ascii: "a")
        switch self {
        case .csvHugeField:
            try put("name,unit\nMilk,")
            try fill(a, Self.hundredMB)
            try put("\n")
        case .csvHugeQuotedField:
            try put("name,unit\nMilk,\"")
            try fill(a, Self.hundredMB)
            try put("\"\n")
        case .jsonHugeString:
            try put("[\n  {\"name\": \"Milk\", \"unit\": \"")
            try fill(a, Self.hundredMB)
            try put("\"}\n]\n")
        case .jsonlHugeLine:
            try put("{\"name\": \"Milk\", \"unit\": \"")
            try fill(a, Self.hundredMB)
            try put("\"}\n")
        case .xmlHugeAttribute:
            try put("<items>\n  <item name=\"Milk\" unit=\"")
            try fill(a, Self.hundredMB)
            try put("\"/>\n</items>\n")
        case .xmlHugeText:
            try put("<items>\n  <item name=\"Milk\"><unit>")
            try fill(a, Self.hundredMB)
            try put("</unit></item>\n</items>\n")
        case .jsonDeepNesting:
            try put("[")
            try fill(UInt8(ascii: "["), 100_000)
            try fill(UInt8(ascii: "]"), 100_000)
            try put("]\n")
        case .xmlDeepNesting:
            try put("<items>\n")
            try put(String(repeating: "<item>", count: 100_000))
            try put(String(repeating: "</item>", count: 100_000))
            try put("\n</items>\n")
        case .xmlQuadraticBlowup:
            try put("<?xml version=\"1.0\"?>\n<!DOCTYPE items [\n  <!ENTITY a \"")
            try fill(a, 1 << 20)
            try put("\">\n]>\n<items>\n  <item name=\"Milk\"><unit>")
            try put(String(repeating: "&a;", count: 10_000))
            try put("</unit></item>\n</items>\n")
        case .plistReferenceBomb:
            try file.write(contentsOf: PlistBomb.make())
        case .csvWideRow:
            try put("name,unit\nMilk,")
            try fill(UInt8(ascii: ","), Self.hundredMB)
            try put("\n")
        case .csvLongRow:
            try put("name,unit\n")
            for field in 0..<9 {
                if field > 0 { try put(",") }
                try fill(a, 8 * 1024 * 1024 - 1)
            }
            try put("\n")
        case .jsonEscapedString:
            try put("[\n  {\"name\": \"Milk\", \"unit\": \"")
            try fill(a, 15 << 19)
            try fill(repeating: "\\n", times: 1 << 20)
            try put("\"}\n]\n")
        case .jsonLongNumber:
            try put("[\n  {\"name\": \"Milk\", \"unit\": 1")
            try fill(UInt8(ascii: "7"), 10 << 20)
            try put("}\n]\n")
        case .xmlTextSplitByComments, .xmlTextSplitByCDATA, .xmlTextSplitByElements:
            let (cut, megabytes) = self == .xmlTextSplitByComments ? ("<!---->", 200)
                : self == .xmlTextSplitByCDATA ? ("<![CDATA[b]]>", 50) : ("<b/>", 20)
            try put("<items>\n  <item name=\"Milk\"><unit>")
            try fill(repeating: String(repeating: "a", count: 1023) + cut, times: megabytes << 10)
            try put("</unit></item>\n</items>\n")
        }
    }
}

/// A binary property list that is small on disk (100 KB) and big once parsed: an array of 100,000
/// references, 1 byte each, to one dictionary whose value is 1 KB: 100 MB if each were copied.
enum PlistBomb {
    static func make() -> Data {
        let count = 100_000
        // Objects: 0 the array, 1 the dictionary, 2 "name", 3 "unit", 4 the 1 KB string.
        var data = Data("bplist00".utf8)
        var offsets: [Int] = []
        offsets.append(data.count)
        // The array: its count as a 4-byte int object, then `count` 1-byte references to object 1.
        data.append(0xAF)  // array, count follows as an int
        data.append(0x12)  // int of 4 bytes
        withUnsafeBytes(of: UInt32(count).bigEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: [UInt8](repeating: 1, count: count))
        offsets.append(data.count)
        data.append(contentsOf: [0xD2, 2, 3, 4, 4])  // dictionary of 2: keys 2 and 3, both valued 4
        offsets.append(data.count)
        data.append(0x54)
        data.append(contentsOf: Array("name".utf8))
        offsets.append(data.count)
        data.append(0x54)
        data.append(contentsOf: Array("unit".utf8))
        offsets.append(data.count)
        data.append(0x5F)  // ASCII string, count follows
        data.append(0x11)  // int of 2 bytes
        withUnsafeBytes(of: UInt16(1024).bigEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: [UInt8](repeating: UInt8(ascii: "a"), count: 1024))
        let table = data.count
        for offset in offsets { withUnsafeBytes(of: UInt32(offset).bigEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: [0, 0, 0, 0, 0, 0, 4, 1])  // offset size 4, reference size 1
        for value in [UInt64(offsets.count), 0, UInt64(table)] {
            withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
        }
        return data
    }
}

/// Tells whether a file was read, by its access time: set far in the past before the run, it moves
/// on the next read on file systems that keep access times (relatime does, for times older than a
/// day). Where they are not kept, the check says nothing rather than something false.
struct AccessWatch {
    let path: String
    let isMeaningful: Bool
    private static let past: time_t = 978_307_200  // 2001-01-01

    init(_ url: URL) throws {
        path = url.path
        try AccessWatch.setAccessTime(path)
        // Probe: read it ourselves and see whether the time moves, then set it back.
        _ = try Data(contentsOf: url)
        isMeaningful = AccessWatch.accessTime(path) != AccessWatch.past
        try AccessWatch.setAccessTime(path)
    }

    func wasRead() -> Bool { isMeaningful && AccessWatch.accessTime(path) != AccessWatch.past }

    private static func setAccessTime(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { throw BadInput.Failure("cannot stat \(path)") }
        #if canImport(Darwin)
        let modified = status.st_mtimespec
        #else
        let modified = status.st_mtim
        #endif
        var times = [timespec(tv_sec: past, tv_nsec: 0), modified]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw BadInput.Failure("cannot set the access time of \(path)") }
    }

    private static func accessTime(_ path: String) -> time_t {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        #if canImport(Darwin)
        return status.st_atimespec.tv_sec
        #else
        return status.st_atim.tv_sec
        #endif
    }
}

/// A TCP socket listening on 127.0.0.1: whoever connects lands in its backlog, so a
/// non-blocking accept after the run tells whether anything connected, with no waiting.
final class Listener {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw BadInput.Failure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw BadInput.Failure("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    func acceptedAConnection() -> Bool {
        let client = accept(descriptor, nil, nil)
        guard client >= 0 else { return false }
        close(client)
        return true
    }
}

/// docs/reliability.md's figures about the corpus are the corpus's: a case added there changes them.
@Suite struct BadInputDocsTests {
    @Test func figuresInTheDocs() throws {
        let cases = try BadInput.cases()
        let doc = try String(contentsOf: Pipectl.repository.appendingPathComponent("docs/reliability.md"), encoding: .utf8)
        let failing = cases.filter { $0.exit != 0 }.count
        #expect(doc.contains("| \(cases.count) cases, each with its exact message; previous store intact in all \(failing) failing ones |"))
        #expect(doc.contains("How the \(cases.count) cases are answered:"))
        for (exit, count) in Dictionary(grouping: cases, by: \.exit).mapValues(\.count) {
            #expect(doc.range(of: "| \(exit) | \(count) |") != nil, "exit \(exit): \(count) cases")
        }
        var byPrefix: [String: Int] = [:]
        for c in cases { byPrefix[String(c.name.prefix { $0 != "-" }), default: 0] += 1 }
        let order = ["csv", "xml", "json", "jsonl", "plist", "xlsx", "pipeline", "store"]
        #expect(Set(byPrefix.keys) == Set(order))
        let line = order.map { "\($0) \(byPrefix[$0] ?? 0)" }.joined(separator: ", ")
        #expect(doc.replacingOccurrences(of: "\n", with: " ").contains("By the prefix of their names: \(line) "), "\(line)")
    }
}
