import Foundation
import Pipeline

/// Writes an `ImportReport` as JSON for CI: keys sorted, two-space indents, one trailing newline
/// (schema in docs/report.md).
///
/// Identical runs give identical bytes except under `"durations"`, the only wall-clock part; CI
/// that diffs reports drops that key, or writes without it (`includeDurations: false`).
///
/// The lists that grow with the input (`duplicates`, `issues`) are encoded a slice at a time and
/// written as they come: `JSONEncoder` builds its whole document in memory first, and a 5M-row
/// export's 250,000 duplicates took 585 MB that way. The bytes are the same as encoding the
/// report whole.
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
    /// messages call it. Throws `PipelineError(.io, stage: "report")` when it cannot.
    public func write(_ report: ImportReport, to url: URL, name: String? = nil) throws {
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        defer { try? FileManager.default.removeItem(at: partial) }
        do {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partial.path])
            }
            let file = try FileHandle(forWritingTo: partial)
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
            throw PipelineError(.io, at: Location(file: name ?? url.path), stage: "report",
                                "cannot write the JSON report: \(error.localizedDescription)")
        }
        guard rename(partial.path, url.path) == 0 else {
            throw PipelineError(.io, at: Location(file: name ?? url.path), stage: "report",
                                "cannot put the JSON report in place: \(String(cString: strerror(errno)))")
        }
    }

    /// Hands the report's bytes to `emit`, in order.
    func write(_ report: ImportReport, to emit: (Data) throws -> Void) throws {
        var rest = report
        if !includeDurations { rest.durations = [] }
        rest.duplicates = []
        rest.issues = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var text = try encoder.encode(rest)
        text.append(UInt8(ascii: "\n"))
        var unwritten = text[...]
        // In key order.
        try fill("duplicates", with: report.duplicates, in: &unwritten, encoder, emit)
        try fill("issues", with: report.issues, in: &unwritten, encoder, emit)
        try emit(unwritten)
    }

    /// Emits `text` up to the top-level list `key`, empty in it, then `elements` as that list,
    /// and leaves `text` at the list's end.
    private func fill<Element: Encodable>(_ key: String, with elements: [Element], in text: inout Data,
                                          _ encoder: JSONEncoder, _ emit: (Data) throws -> Void) throws {
        guard !elements.isEmpty else { return }
        let emptyList = "\n\n  ]"
        guard let found = text.firstRange(of: Data("\n  \"\(key)\" : [\(emptyList)".utf8)) else {
            throw PipelineError(.io, stage: "report", "the JSON report has no '\(key)' list to fill")
        }
        try emit(text[..<(found.upperBound - emptyList.utf8.count)])
        // Each slice wrapped as the report holds it, so that its elements come out indented as
        // there: `{\n  "key" : [\n    {...},\n    {...}\n  ]\n}`, cut down to the elements.
        let prefix = "{\n  \"\(key)\" : [".utf8.count, suffix = "\n  ]\n}".utf8.count
        for start in stride(from: 0, to: elements.count, by: sliceSize) {
            let slice = Array(elements[start..<min(start + sliceSize, elements.count)])
            let wrapped = try encoder.encode([key: slice])
            if start > 0 { try emit(Data(",".utf8)) }
            try emit(wrapped.dropFirst(prefix).dropLast(suffix))
        }
        try emit(Data("\n  ]".utf8))
        text = text[found.upperBound...]
    }
}
