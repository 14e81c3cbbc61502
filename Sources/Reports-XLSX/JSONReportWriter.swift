import Foundation
import Diagnostics
import Pipeline

/// Writes an `ImportReport` as JSON for CI: keys sorted, two-space indents, one trailing newline
/// (schema in docs/report.md).
///
/// Identical runs give identical bytes except under `"durations"`, the only wall-clock part; CI
/// that diffs reports drops that key, or writes without it (`includeDurations: false`).
///
/// Written a member at a time (`JSONObjectStream`), and the lists that grow with the input
/// (`duplicates`, `issues`) a slice at a time, as they come: `JSONEncoder` builds its whole
/// document in memory first, which for a large export's duplicates takes hundreds of MB.
/// The bytes are the same as encoding the report whole.
public struct JSONReportWriter: Sendable {
    public var includeDurations: Bool
    /// Elements of a long list encoded together.
    var sliceSize = 4096

    public init(includeDurations: Bool = true) {
        self.includeDurations = includeDurations
    }

    /// The report's JSON text.
    public func data(for report: ImportReport) throws -> Data {
        var data = Data()
        try write(report) { data.append($0) }
        return data
    }

    /// Writes the report to `url` (atomically: a reader never sees half a report); `name` is how
    /// messages call it. Throws `PipelineError(.io, stage: "report")` when it cannot
    /// (`report.cannot-write`, `report.cannot-publish`).
    public func write(_ report: ImportReport, to url: URL, name: String? = nil) throws {
        let partial = PartialFile.url(beside: url)
        defer { try? FileManager.default.removeItem(at: partial) }
        let shown = name ?? url.path
        // Opened here, not by FileManager.createFile, whose failure keeps no errno to tell why.
        let descriptor = open(partial.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw PipelineError(.io, code: .reportCannotWrite, at: Location(file: shown), stage: "report",
                                "cannot write \(shown): \(SystemErrorWords.words(errno: errno))")
        }
        do {
            let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            defer { try? file.close() }
            var buffer = Data()
            try write(report) { part in
                buffer.append(part)
                guard buffer.count >= 1 << 20 else { return }
                try file.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
            try file.write(contentsOf: buffer)
            try file.close()
        } catch {
            throw PipelineError(.io, code: .reportCannotWrite, at: Location(file: shown), stage: "report",
                                "cannot write \(shown): \(SystemErrorWords.words(for: error))")
        }
        guard rename(partial.path, url.path) == 0 else {
            throw PipelineError(.io, code: .reportCannotPublish, at: Location(file: shown), stage: "report",
                                "cannot put the JSON report in place: \(SystemErrorWords.words(errno: errno))")
        }
    }

    /// Hands the report's bytes to `emit`, in order: a member at a time, in key order.
    func write(_ report: ImportReport, to emit: @escaping (Data) throws -> Void) throws {
        var object = JSONObjectStream(emit: emit)
        try object.member("bytesLoaded", report.bytesLoaded)
        try object.member("changes", report.changes)
        try object.member("changesUnavailable", report.changesUnavailable)
        try object.member("checks", report.checks)
        try object.list("createdByLinks", report.createdByLinks, sliceSize: sliceSize)
        try object.list("duplicates", report.duplicates, sliceSize: sliceSize)
        try object.member("durations", includeDurations ? report.durations : [])
        try object.member("entities", report.entities)
        try object.member("inputs", report.inputs)
        try object.list("issues", report.issues, sliceSize: sliceSize)
        try object.member("links", report.links)
        try object.member("outcome", report.outcome)
        try object.member("pipelineFile", report.pipelineFile)
        try object.member("pipelineName", report.pipelineName)
        try object.member("sources", report.sources)
        try object.member("storeLayout", report.storeLayout)
        try object.member("storePath", report.storePath)
        try object.end()
    }
}

/// Writes a JSON object a member at a time, laid out as `JSONEncoder` lays out a whole document
/// (pretty, sorted keys, slashes as they are), so that no list has to be one document in memory.
/// Members come in the order they are written: the caller writes them in key order.
struct JSONObjectStream {
    let emit: (Data) throws -> Void
    private let encoder: JSONEncoder
    private var members = 0
    #if DEBUG
    private var lastKey = ""
    #endif

    init(emit: @escaping (Data) throws -> Void) {
        self.emit = emit
        encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    }

    /// `"key" : value`; nothing for nil, as `encodeIfPresent` leaves it out.
    mutating func member<Value: Encodable>(_ key: String, _ value: Value?) throws {
        guard let value else { return }
        try start(key)
        try emit(JSONObjectStream.indented(try encoder.encode(value), by: 2))
    }

    /// `"key" : [ ... ]` with the elements encoded `sliceSize` at a time.
    mutating func list<Element: Encodable>(_ key: String, _ elements: [Element], sliceSize: Int) throws {
        guard !elements.isEmpty else { return try member(key, elements) }
        try start(key)
        try emit(Data("[\n".utf8))
        for start in stride(from: 0, to: elements.count, by: sliceSize) {
            // `[\n  {...},\n  {...}\n]` cut down to its elements, one level deeper.
            let slice = try encoder.encode(Array(elements[start..<min(start + sliceSize, elements.count)]))
            if start > 0 { try emit(Data(",\n".utf8)) }
            try emit(Data("  ".utf8) + JSONObjectStream.indented(slice.dropFirst(2).dropLast(2), by: 2))
        }
        try emit(Data("\n  ]".utf8))
    }

    /// `"key" : [ ... ]` for elements that write themselves (`JSONListElement`): the same bytes,
    /// an element at a time, `sliceSize` elements emitted together.
    mutating func list<Element: Encodable & JSONListElement>(_ key: String, _ elements: [Element], sliceSize: Int) throws {
        guard !elements.isEmpty else { return try member(key, elements) }
        try start(key)
        var text = JSONText()
        text.literal("[\n")
        for (index, element) in elements.enumerated() {
            if index > 0 {
                text.literal(",\n")
                if index % sliceSize == 0 {
                    try emit(text.data)
                    text.removeAll()
                }
            }
            text.indent(2)
            element.writeJSON(to: &text, level: 2)
        }
        text.literal("\n  ]")
        try emit(text.data)
    }

    /// Closes the object, with the newline that ends the file.
    func end() throws {
        try emit(Data((members == 0 ? "{\n\n}" : "\n}") .utf8) + Data("\n".utf8))
    }

    private mutating func start(_ key: String) throws {
        #if DEBUG
        assert(members == 0 || key > lastKey, "JSON members out of key order: '\(key)' after '\(lastKey)'")
        lastKey = key
        #endif
        try emit(Data(((members == 0 ? "{\n" : ",\n") + "  \"\(key)\" : ").utf8))
        members += 1
    }

    /// `json` with `spaces` more indentation on every line but the first; empty lines stay empty,
    /// as JSONEncoder leaves them. Strings hold no raw line break (JSON escapes it), so every
    /// newline is the layout's.
    ///
    /// Copied a line at a time into an array: `Data.append` of one byte goes through
    /// `replaceSubrange`, and the distinct job's 22 MB report took 1.4 s a byte at a time.
    static func indented(_ json: some Collection<UInt8>, by spaces: Int) -> Data {
        let newline = UInt8(ascii: "\n")
        let pad = [UInt8](repeating: UInt8(ascii: " "), count: spaces)
        var out: [UInt8] = []
        func indent(_ bytes: UnsafeBufferPointer<UInt8>) {
            out.reserveCapacity(bytes.count + bytes.count / 8)
            var start = 0
            while let end = bytes[start...].firstIndex(of: newline) {
                out.append(contentsOf: bytes[start...end])
                start = end + 1
                if start < bytes.count, bytes[start] != newline { out.append(contentsOf: pad) }
            }
            out.append(contentsOf: bytes[start...])
        }
        if json.withContiguousStorageIfAvailable(indent) == nil { Array(json).withUnsafeBufferPointer(indent) }
        return Data(out)
    }
}

/// An element of a long report list that writes its own JSON, laid out as `JSONEncoder` lays it
/// out (pretty, sorted keys, slashes as they are): the generic encoder took 0.4 s for the 49,658
/// duplicates of the distinct job at 1M. `ReportWriterTests` holds the two to the same bytes.
protocol JSONListElement {
    /// Appends the element at nesting `level` (its members one deeper), from its opening brace.
    func writeJSON(to text: inout JSONText, level: Int)
}

/// JSON text as `JSONEncoder` writes it, pretty: two spaces a level, `"key" : value`.
///
/// Its bytes are kept in a buffer of its own: an array's `append(contentsOf:)` is a generic call
/// of about 90 instructions, and a duplicate is 44 appends (220,000 for the distinct job at 100k).
/// A copy shares the bytes: pass it `inout`.
struct JSONText {
    private final class Buffer {
        var start: UnsafeMutablePointer<UInt8>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            start = .allocate(capacity: capacity)
        }

        deinit { start.deallocate() }

        /// Room for `more` bytes past `count`.
        @inline(__always)
        func reserve(_ more: Int) {
            guard count + more > capacity else { return }
            capacity = max(2 * capacity, count + more)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: start, count: count)
            start.deallocate()
            start = grown
        }
    }

    private let buffer = Buffer(capacity: 4096)

    /// The text so far.
    var data: Data { Data(bytes: buffer.start, count: buffer.count) }

    /// Empties the text, keeping its room.
    mutating func removeAll() { buffer.count = 0 }

    @inline(__always)
    mutating func byte(_ byte: UInt8) {
        buffer.reserve(1)
        buffer.start[buffer.count] = byte
        buffer.count += 1
    }

    @inline(__always)
    mutating func bytes(_ start: UnsafePointer<UInt8>, count: Int) {
        buffer.reserve(count)
        (buffer.start + buffer.count).update(from: start, count: count)
        buffer.count += count
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    mutating func indent(_ level: Int) {
        let count = 2 * level
        guard count <= Self.spaces.count else {
            for _ in 0..<count { byte(UInt8(ascii: " ")) }
            return
        }
        Self.spaces.withUnsafeBufferPointer { bytes($0.baseAddress!, count: count) }
    }

    mutating func literal(_ text: StaticString) {
        bytes(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// `{`, then each member on a line of its own at `level + 1`, then `}` at `level`; members
    /// are written by `body` in key order, each through `member`, whose key JSON needs no escape
    /// for (a name of the report's schema): it is copied as it is.
    mutating func object(level: Int, _ body: (inout JSONText, _ member: (inout JSONText, StaticString) -> Void) -> Void) {
        byte(UInt8(ascii: "{"))
        var first = true
        body(&self) { text, key in
            if first { text.byte(UInt8(ascii: "\n")) } else { text.literal(",\n") }
            first = false
            text.indent(level + 1)
            text.byte(UInt8(ascii: "\""))
            text.literal(key)
            text.literal("\" : ")
        }
        byte(UInt8(ascii: "\n"))
        indent(level)
        byte(UInt8(ascii: "}"))
    }

    /// `[`, the elements a line each at `level + 1`, `]` at `level`; an empty list as `[`, an
    /// empty line, `]`, as `JSONEncoder` has it.
    mutating func array<Element>(_ elements: [Element], level: Int, _ write: (inout JSONText, Element) -> Void) {
        literal("[\n")
        for (index, element) in elements.enumerated() {
            if index > 0 { literal(",\n") }
            indent(level + 1)
            write(&self, element)
        }
        byte(UInt8(ascii: "\n"))
        indent(level)
        byte(UInt8(ascii: "]"))
    }

    mutating func bool(_ value: Bool) {
        if value { literal("true") } else { literal("false") }
    }

    /// A string, escaped as `JSONEncoder` escapes it: quote, backslash, the control characters
    /// (`\n`, `\t`, ... or `\u001f`); slashes and all else as they are.
    mutating func string(_ value: String) {
        byte(UInt8(ascii: "\""))
        if value.utf8.withContiguousStorageIfAvailable({ escaping($0) }) == nil {
            Array(value.utf8).withUnsafeBufferPointer { escaping($0) }
        }
        byte(UInt8(ascii: "\""))
    }

    private mutating func escaping(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var plain = 0, index = 0
        while index < count {
            // Eight bytes at a time past those that need no escape, nearly all of a report's.
            if index + 8 <= count, !Self.mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = base[index]
            index += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes(base + plain, count: index - 1 - plain)
            plain = index
            self.byte(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): self.byte(byte)
            case 0x08: self.byte(UInt8(ascii: "b"))
            case 0x0C: self.byte(UInt8(ascii: "f"))
            case 0x0A: self.byte(UInt8(ascii: "n"))
            case 0x0D: self.byte(UInt8(ascii: "r"))
            case 0x09: self.byte(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                literal("u00")
                self.byte(hex.utf8Start[Int(byte >> 4)])
                self.byte(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        bytes(base + plain, count: count - plain)
    }

    /// Whether one of the eight bytes of `word` may need an escape: it is below 0x20, a quote or a
    /// backslash (each test exact for "any byte", as in Bit Twiddling Hacks' `haszero`/`hasless`).
    @inline(__always)
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let below = (word &- ones &* 0x20) & ~word & highs != 0
        return below || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
    }
}

extension ImportReport.Duplicate: JSONListElement {
    func writeJSON(to text: inout JSONText, level: Int) {
        text.object(level: level) { text, member in
            member(&text, "again"); text.string(again)
            member(&text, "differences")
            text.array(differences, level: level + 1) { text, difference in
                text.object(level: level + 2) { text, member in
                    member(&text, "again"); text.string(difference.again)
                    member(&text, "field"); text.string(difference.field)
                    member(&text, "first"); text.string(difference.first)
                }
            }
            member(&text, "entity"); text.string(entity)
            member(&text, "first"); text.string(first)
            member(&text, "key"); text.string(key)
            member(&text, "source"); text.string(source)
            member(&text, "updated"); text.bool(updated)
        }
    }
}
