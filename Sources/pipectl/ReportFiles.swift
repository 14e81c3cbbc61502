import Foundation
import Pipeline
import ReportsXLSX
import StoreTools

/// The reports a run writes: the pipeline's `report:` files plus `--report FILE`, each as XLSX or
/// JSON by its extension.
struct ReportFiles {
    enum Format { case xlsx, json }

    let files: [(url: URL, format: Format)]
    /// The inputs' sizes and checksums, shared with the store's UUID.
    let digests: InputDigests

    init(settings: ReportSettings, extra: String?, digests: InputDigests) {
        self.digests = digests
        var files: [(URL, Format)] = []
        if let xlsx = settings.xlsx { files.append((xlsx, .xlsx)) }
        if let json = settings.json { files.append((json, .json)) }
        if let extra, let format = ReportFiles.format(of: extra) { files.append((URL(fileURLWithPath: extra), format)) }
        self.files = files
    }

    /// The format a report path asks for, or nil when its extension is neither `.xlsx` nor `.json`.
    static func format(of path: String) -> Format? {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "xlsx": .xlsx
        case "json": .json
        default: nil
        }
    }

    /// Writes every report of `runner`'s run; the workbook's entity sheets come from the finished
    /// store, so only a run that put a store in place has them. `status` shows which is being
    /// written (a large store's workbook takes a while).
    func write(runner: Runner, outcome: ImportReport.Outcome, changes: ChangeReview, status: StatusLine? = nil) throws {
        defer { status?.clear() }
        guard !files.isEmpty else { return }
        let report = ImportReport(runner: runner, outcome: outcome, changes: changes.result, display: Terminal.display) {
            digests.digest(of: $0).map { ($0.bytes, $0.hex) }
        }
        for (url, format) in files {
            let name = Terminal.display(url)
            status?.show("writing \(name)")
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw PipelineError(.io, at: Location(file: name), stage: "report",
                                    "cannot create the report's folder: \(error.localizedDescription)")
            }
            switch format {
            case .json:
                try JSONReportWriter().write(report, to: url, name: name)
            case .xlsx:
                let settings = runner.pipeline.report
                let rows = outcome == .succeeded ? try StoredRowsQuery.rows(of: runner.pipeline, limit: settings.storedRows) : []
                try XLSXReportWriter(includeDurations: settings.durations, rowsPerEntity: settings.storedRows)
                    .write(report, storedRows: rows, to: url, name: name)
            }
        }
    }
}
