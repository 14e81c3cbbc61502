import Foundation
import Pipeline

/// Writes an `ImportReport` as JSON for CI: keys sorted, two-space indents, one trailing newline
/// (schema in docs/report.md).
///
/// Identical runs give identical bytes except under `"durations"`, the only wall-clock part; CI
/// that diffs reports drops that key, or writes without it (`includeDurations: false`).
public struct JSONReportWriter: Sendable {
    public var includeDurations: Bool

    public init(includeDurations: Bool = true) {
        self.includeDurations = includeDurations
    }

    /// The report's JSON text.
    public func data(for report: ImportReport) throws -> Data {
        var report = report
        if !includeDurations { report.durations = [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(report)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Writes the report to `url` (atomically: a reader never sees half a report); `name` is how
    /// messages call it. Throws `PipelineError(.io, stage: "report")` when it cannot.
    public func write(_ report: ImportReport, to url: URL, name: String? = nil) throws {
        do {
            try data(for: report).write(to: url, options: .atomic)
        } catch {
            throw PipelineError(.io, at: Location(file: name ?? url.path), stage: "report",
                                "cannot write the JSON report: \(error.localizedDescription)")
        }
    }
}
