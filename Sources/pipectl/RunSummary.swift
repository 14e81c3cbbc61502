import Foundation
import Diagnostics
import Pipeline
import PipelineRun

/// The short report `pipectl run` prints: per source and per entity counts, then the records
/// that need a look (rejected, skipped, conflicting duplicates) as `file:line` lines.
struct RunSummary {
    let run: PipelineRun
    let dryRun: Bool
    /// Issues of each kind shown in full; the rest are counted (the report lists them all).
    static let shownPerKind = 10

    func print() throws {
        let log = run.log
        let pipeline = run.pipeline
        var out = ""
        let target = Terminal.display(pipeline.store.path)
        out += dryRun
            ? "\(pipeline.name): dry run, the store was not written (it would be \(target))\n"
            : "\(pipeline.name): wrote \(target) in \(String(format: "%.2f", run.elapsed)) s\n"
        // Records `keep` and `drop` turned away on purpose, in a column of their own when there are any.
        let filters = log.sources.contains { $0.filtered > 0 }
        let header = ["", "read", "inserted", "present", "updated", "skipped", "rejected"] + (filters ? ["filtered"] : [])
        var rows: [[String]] = []
        for (name, c) in zip(log.sourceNames, log.sources) {
            rows.append(["source \(name)", "\(c.read)", "\(c.inserted)", "\(c.alreadyPresent)", "\(c.updated)", "\(c.skipped)", "\(c.rejected)"]
                            + (filters ? ["\(c.filtered)"] : []))
        }
        // Abstract entities have no records of their own: their sub-entities' rows say it all.
        for (name, c) in zip(log.entityNames, log.entities) where pipeline.model[name]?.isAbstract != true {
            rows.append(["  \(name)", "", "\(c.inserted)", "\(c.alreadyPresent)", "\(c.updated)", "\(c.skipped)", c.rejected == 0 ? "" : "\(c.rejected)"]
                            + (filters ? [""] : []))
        }
        out += RunSummary.table([header] + rows)
        // Records only links made: a typo in a link value makes one, with default values.
        var created: [(entity: String, count: Int)] = []
        for placeholder in log.placeholders {
            if created.last?.entity == placeholder.entity { created[created.count - 1].count += 1 } else { created.append((placeholder.entity, 1)) }
        }
        if !created.isEmpty {
            out += "created by links only (no source loads them; listed in the report): "
                + created.map { "\($0.entity) \($0.count)" }.joined(separator: ", ") + "\n"
        }
        // Owned records an update's lists no longer hold, and records only links made that
        // nothing links any more: the store holds what the corrected sources say.
        let removed = zip(log.entityNames, log.entities).filter { $0.1.removed > 0 }
        if !removed.isEmpty {
            out += "removed by updates: " + removed.map { "\($0.0) \($0.1.removed)" }.joined(separator: ", ") + "\n"
        }
        let links = log.links.filter { $0.count > 0 }
        if !links.isEmpty {
            out += "links: " + links.map { "\($0.relationship) \($0.count.grouped)" }.joined(separator: ", ") + "\n"
        }
        if !log.bytesLoaded.isEmpty {
            out += "files loaded: " + log.bytesLoaded.map { "\($0.attribute) \($0.values.grouped) (\($0.bytes.grouped) bytes)" }
                .joined(separator: ", ") + "\n"
        }
        // How each CSV was read, where `auto` chose (a wrong guess shows here first).
        for source in pipeline.sources {
            let details = source.reader.input.details.snapshot
            guard details.contains(where: { $0.value.hasSuffix("(detected)") }) else { continue }
            out += "read \(source.reader.input.displayPath) as " + details.map { "\($0.name) \($0.value)" }.joined(separator: ", ") + "\n"
        }
        for record in log.filtered where log.filtered.first(where: { $0.source == record.source }) == record {
            out += "filtered from \(record.source ?? ""): first at \(record.location) (\(record.stage): \(record.reason))\n"
        }
        try Terminal.standardOutput.write(out)
        RunSummary.printChecks(log.checkResults)
        printIssues()
    }

    /// Each check of `checks:` with its result, and the first offending records of one that failed.
    static func printChecks(_ results: [CheckResult]) {
        guard !results.isEmpty else { return }
        let passed = results.filter(\.passed).count
        var out = "checks: \(passed) of \(results.count) passed\n"
        for result in results {
            out += "  \(result.passed ? "passed" : "FAILED") \(result.name)" + (result.detail.isEmpty ? "" : ": \(result.detail)") + "\n"
            for record in result.offending where !result.passed { out += "      \(record)\n" }
        }
        try? Terminal.standardOutput.write(out)
    }

    /// Rejected and skipped records and conflicting duplicates, as warnings on standard error.
    func printIssues() {
        let log = run.log
        var out = ""
        for rejection in log.rejections.prefix(Self.shownPerKind) {
            out += "\(rejection.location): warning: record rejected: \(rejection.stage): "
            if let field = rejection.field {
                out += "field '\(field)'"
                if let raw = rejection.rawValue { out += " \(Snippet.quoted(raw))" }
                out += ": "
            }
            out += rejection.reason + "\n"
        }
        if log.rejections.count > Self.shownPerKind { out += "... and \(log.rejections.count - Self.shownPerKind) more rejected records\n" }
        // Skips repeat one reason many times (every item without a unit): one line per reason.
        var skipGroups: [(first: ImportLog.Skip, count: Int)] = []
        var groupIndex: [String: Int] = [:]
        for skip in log.skips {
            let key = skip.entity + "\u{0}" + skip.reason
            if let i = groupIndex[key] { skipGroups[i].count += 1 } else {
                groupIndex[key] = skipGroups.count
                skipGroups.append((skip, 1))
            }
        }
        for (skip, count) in skipGroups {
            let times = count == 1 ? "" : " (\(count) records, the first here)"
            out += "\(skip.location): warning: \(skip.entity) skipped\(times): \(skip.reason)\n"
        }
        // Read from the log's file one at a time, up to the last one shown: a large run has
        // hundreds of thousands.
        var shown = 0
        for duplicate in log.duplicates where !duplicate.differences.isEmpty {
            guard shown < Self.shownPerKind else { break }
            shown += 1
            let diffs = duplicate.differences.map { "\($0.attribute) \(Snippet.quoted($0.first)) -> \(Snippet.quoted($0.again))" }
            out += "\(duplicate.again): warning: \(duplicate.entity) \(duplicate.key) was already loaded from "
                + "\(duplicate.first) with other values (\(diffs.joined(separator: ", "))); "
                + (duplicate.updated ? "updated\n" : "kept the first\n")
        }
        let conflicts = log.conflictingDuplicates
        if conflicts > shown { out += "... and \(conflicts - shown) more conflicting duplicates\n" }
        // Fields a tree input never gave: most likely a typo in the pipeline file.
        for missing in log.missingFields {
            out += "\(missing.location.map { "\($0)" } ?? missing.source): warning: pipeline: \(missing.message)\n"
        }
        // What the readers noticed in their inputs (a JSON key given twice), per input.
        for source in run.pipeline.sources {
            let (warnings, total) = source.reader.input.warnings.snapshot
            for warning in warnings.prefix(Self.shownPerKind) {
                out += "\(warning.location): warning: \(warning.stage): \(warning.text)\n"
            }
            if total > Self.shownPerKind { out += "... and \(total - Self.shownPerKind) more warnings about \(source.reader.input.displayPath)\n" }
        }
        if !out.isEmpty { Terminal.standardError.tell(out) }
    }

    static func table(_ rows: [[String]]) -> String {
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ").replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }
}
