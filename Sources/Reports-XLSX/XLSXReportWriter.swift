import Foundation
import Diagnostics
import Pipeline

/// Writes an `ImportReport` as an Excel workbook for the people who review an import: a Summary
/// sheet (pipeline, store, outcome, inputs, counts and a chart of them), a Rejected sheet, a
/// Duplicates sheet, a Changes sheet (what the run changed in the store it replaced), and one
/// sheet per entity with its stored rows.
///
/// ```swift
/// try XLSXReportWriter().write(report, storedRows: rows, to: url, name: "build/report.xlsx")
/// ```
///
/// Identical runs give byte-identical workbooks: the creation time is derived from the inputs'
/// checksums, and durations are left out unless `includeDurations` is set.
public struct XLSXReportWriter: Sendable {
    /// Adds the durations to the Summary sheet (the workbook then differs from run to run).
    public var includeDurations: Bool
    /// The most stored rows the caller gives per entity (the pipeline's `report: { stored_rows: }`), for
    /// the Summary sheet to say so; nil when every row is given.
    public var rowsPerEntity: Int?
    /// Rows a sheet holds before a table goes on in the next one: Excel's limit, less in tests.
    var rowsPerSheet = XLSXWorkbook.maxRowsPerSheet

    public init(includeDurations: Bool = false, rowsPerEntity: Int? = nil) {
        self.includeDurations = includeDurations
        self.rowsPerEntity = rowsPerEntity
    }

    /// Writes the workbook to `url`; `name` is how messages call it. Throws
    /// `PipelineError(.io, stage: "report")` when the workbook cannot be written (`report.cannot-write`,
    /// `report.cannot-publish`), or what
    /// `storedRows` throws; either way no partial workbook is left at `url`.
    public func write(_ report: ImportReport, storedRows: [StoredRows] = [], to url: URL, name: String? = nil) throws {
        let name = name ?? url.path
        // libxlsxwriter writes in place: build aside and rename, so a failure leaves no half file.
        let partial = PartialFile.url(beside: url)
        defer { try? FileManager.default.removeItem(at: partial) }
        // Created first, to tell why it cannot be: libxlsxwriter would only find out at the end,
        // print its own "[ERROR]" lines and guess "Usually a permissions error".
        let probe = open(partial.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard probe >= 0 else {
            throw PipelineError(.io, code: .reportCannotWrite, at: Location(file: name), stage: "report",
                                "cannot write \(name): \(SystemErrorWords.words(errno: errno))")
        }
        close(probe)
        let workbook = try XLSXWorkbook(url: partial, name: name, created: report.pinnedCreationTime, rowsPerSheet: rowsPerSheet)
        try writeSummary(report, into: workbook)
        try writeIssues(report.issues, into: workbook)
        try writeDuplicates(report.duplicates, into: workbook)
        try writeCreatedByLinks(report.createdByLinks, into: workbook)
        try writeChanges(report, into: workbook)
        for rows in storedRows {
            try writeRows(rows, into: workbook)
        }
        try workbook.close()
        guard rename(partial.path, url.path) == 0 else {
            throw PipelineError(.io, code: .reportCannotPublish, at: Location(file: name), stage: "report",
                                "cannot put the workbook in place: \(String(cString: strerror(errno)))")
        }
    }

    private static let countTitles = ["read", "inserted", "already present", "updated", "skipped", "rejected", "filtered"]

    private func writeSummary(_ report: ImportReport, into workbook: XLSXWorkbook) throws {
        let sheet = try workbook.addSheet("Summary")
        var row = 0
        var facts = [("Pipeline", report.pipelineName), ("Pipeline file", report.pipelineFile),
                     ("Store", report.storePath), ("Layout", report.storeLayout), ("Outcome", report.outcome.name)]
        if let message = report.outcome.message { facts.append(("Why", message)) }
        if let limit = rowsPerEntity, report.outcome == .succeeded {
            facts.append(("Entity sheets", limit == 0 ? "left out (stored_rows: 0); the store has every row"
                : "the first \(limit) stored rows of each entity (stored_rows: \(limit)); the store has every row"))
        }
        for (label, value) in facts {
            try sheet.text(row, 0, label, bold: true)
            try sheet.text(row, 1, value, wrap: label == "Why")
            row += 1
        }

        row += 1
        // A column of warnings only where an input has some: most runs have none.
        let warned = report.inputs.contains { $0.warnings != nil }
        try sheet.header(["Input", "File", "Bytes", "SHA-256", "Read as"] + (warned ? ["Warnings"] : []), at: row, freeze: false)
        row += 1
        for input in report.inputs {
            try sheet.text(row, 0, input.source)
            try sheet.text(row, 1, input.path)
            if let bytes = input.bytes { try sheet.number(row, 2, Double(bytes)) } else { try sheet.text(row, 2, "unreadable") }
            if let sha = input.sha256 { try sheet.text(row, 3, sha) }
            if let detected = input.detected {
                try sheet.text(row, 4, detected.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
            }
            if let warnings = input.warnings {
                try sheet.text(row, 5, warnings.map { "\($0.location): \($0.stage): \($0.message)" }.joined(separator: "\n"), wrap: true)
            }
            row += 1
        }

        if !report.checks.isEmpty {
            row += 1
            try sheet.header(["Check", "Result", "Found", "First offending records"], at: row, freeze: false)
            row += 1
            for check in report.checks {
                try sheet.text(row, 0, check.name)
                try sheet.text(row, 1, check.passed ? "passed" : "FAILED")
                try sheet.text(row, 2, check.detail)
                if !check.offending.isEmpty { try sheet.text(row, 3, check.offending.joined(separator: "; ")) }
                row += 1
            }
        }

        if let loaded = report.bytesLoaded {
            row += 1
            try sheet.header(["Files loaded into", "Values", "Bytes"], at: row, freeze: false)
            row += 1
            for attribute in loaded {
                try sheet.text(row, 0, attribute.attribute)
                try sheet.number(row, 1, Double(attribute.values))
                try sheet.number(row, 2, Double(attribute.bytes))
                row += 1
            }
        }

        row += 1
        try sheet.header(["Counts"] + XLSXReportWriter.countTitles, at: row, freeze: false)
        row += 1
        func counts(_ label: String, _ c: ImportReport.Counts, read: Bool) throws {
            try sheet.text(row, 0, label)
            for (column, value) in [c.read, c.inserted, c.alreadyPresent, c.updated, c.skipped, c.rejected, c.filtered].enumerated()
            where (read || column > 0) && (read || column < 6) {
                try sheet.number(row, column + 1, Double(value))
            }
            row += 1
        }
        for source in report.sources { try counts("source \(source.name)", source, read: true) }
        let firstEntityRow = row
        for entity in report.entities { try counts(entity.name, entity, read: false) }
        let lastEntityRow = row - 1

        row += 1
        if let changes = report.changes {
            try sheet.header(["Changes", "added", "removed", "changed", "unchanged"], at: row, freeze: false)
            row += 1
            for entity in changes.entities {
                try sheet.text(row, 0, entity.name)
                for (column, value) in [entity.added, entity.removed, entity.changed, entity.unchanged].enumerated() {
                    try sheet.number(row, column + 1, Double(value))
                }
                row += 1
            }
        } else {
            try sheet.text(row, 0, "Changes", bold: true)
            try sheet.text(row, 1, report.changesUnavailable ?? "")
            row += 1
        }

        if includeDurations, !report.durations.isEmpty {
            row += 1
            try sheet.header(["Stage", "Seconds"], at: row, freeze: false)
            row += 1
            for duration in report.durations {
                try sheet.text(row, 0, duration.stage)
                try sheet.number(row, 1, (duration.seconds * 1000).rounded() / 1000)
                row += 1
            }
        }

        if !report.entities.isEmpty {
            // Column numbers in the counts table: inserted 2, already present 3, skipped 5, rejected 6.
            try workbook.addColumnChart(
                on: sheet, at: row + 1, 0, title: "Records per entity",
                categories: (sheet.title, firstEntityRow, lastEntityRow, 0),
                series: [("inserted", 2), ("already present", 3), ("skipped", 5), ("rejected", 6)])
        }
        try sheet.fitColumns()
    }

    private func writeIssues(_ issues: [ImportReport.Issue], into workbook: XLSXWorkbook) throws {
        let table = try XLSXTable("Rejected", titles: ["Kind", "Source", "Location", "Stage", "Entity", "Field", "Raw value", "Reason"],
                                  in: workbook)
        for issue in issues {
            try table.addRow([issue.kind.rawValue, issue.source, issue.location, issue.stage ?? "", issue.entity ?? "",
                              issue.field ?? "", issue.rawValue ?? "", issue.reason])
        }
        try table.finish()
    }

    private func writeDuplicates(_ duplicates: [ImportReport.Duplicate], into workbook: XLSXWorkbook) throws {
        let table = try XLSXTable("Duplicates", titles: ["Source", "Entity", "Key", "First location", "Again location", "Field",
                                                         "First value", "Again value", "Result"], in: workbook)
        for duplicate in duplicates {
            let result = duplicate.differences.isEmpty ? "same values" : duplicate.updated ? "updated" : "kept the first"
            // One row per differing field, so that the filter finds every conflict; one for a plain repeat.
            let differences = duplicate.differences.isEmpty ? [nil] : duplicate.differences.map(Optional.some)
            for difference in differences {
                try table.addRow([duplicate.source, duplicate.entity, duplicate.key, duplicate.first, duplicate.again,
                                  difference?.field ?? "", difference?.first ?? "", difference?.again ?? "", result])
            }
        }
        try table.finish()
    }

    /// Records only links made: a typo in a link value shows here before the store ships.
    private func writeCreatedByLinks(_ records: [ImportReport.CreatedByLink], into workbook: XLSXWorkbook) throws {
        let table = try XLSXTable("Created by links", titles: ["Entity", "Key", "First link"], in: workbook)
        for record in records {
            try table.addRow([record.entity, record.key, record.first])
        }
        try table.finish()
    }

    private func writeChanges(_ report: ImportReport, into workbook: XLSXWorkbook) throws {
        let table = try XLSXTable("Changes", titles: ["Entity", "Key", "Change", "Field", "Old value", "New value"], in: workbook)
        guard let changes = report.changes else {
            try table.addRow([report.changesUnavailable ?? ""])
            return try table.finish(filter: false)
        }
        for note in changes.notes {
            try table.addRow([note])
        }
        for change in changes.changes {
            // One row per changed field, so that the filter finds every one; one for an added or removed record.
            let fields = change.fields.isEmpty ? [nil] : change.fields.map(Optional.some)
            for field in fields {
                try table.addRow([change.entity, change.key, change.kind.rawValue, field?.name ?? "", field?.old ?? "", field?.new ?? ""])
            }
        }
        try table.finish()
    }

    private func writeRows(_ rows: StoredRows, into workbook: XLSXWorkbook) throws {
        let table = try XLSXTable(rows.entity, titles: rows.columns.map(\.name), in: workbook)
        let types = rows.columns.map(\.type)
        try rows.forEachRow { values in
            let (sheet, row) = try table.nextRow()
            for (column, value) in values.prefix(types.count).enumerated() {
                try XLSXReportWriter.write(value, as: types[column], into: sheet, row, column)
            }
        }
        try table.finish()
    }

    /// One stored value as the cell its attribute type calls for.
    static func write(_ value: Value, as type: AttributeType, into sheet: XLSXSheet, _ row: Int, _ column: Int) throws {
        switch (type, value) {
        case (_, .null): return
        case (.date, .double(let seconds)), (.date, .date(let seconds)):
            try sheet.date(row, column, secondsSince2001: seconds)
        case (.date, .integer(let seconds)):
            try sheet.date(row, column, secondsSince2001: Double(seconds))
        case (.bool, .integer(let i)):
            try sheet.bool(row, column, i != 0)
        case (.bool, .bool(let b)):
            try sheet.bool(row, column, b)
        case (.string, _), (.uri, _):
            try sheet.text(row, column, value.displayText)
        case (_, .integer(let i)):
            try sheet.number(row, column, Double(i))
        case (_, .double(let d)):
            try sheet.number(row, column, d)
        case (.uuid, .binary(let bytes)) where bytes.count == 16:
            let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            try sheet.text(row, column, uuid.uuidString)
        default:
            try sheet.text(row, column, value.displayText)
        }
    }
}
