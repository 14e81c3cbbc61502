import Checksums
import Foundation
import Pipeline

extension ImportReport {
    /// The report of `runner`'s run so far (complete once `run` has returned or thrown).
    ///
    /// `digest` gives an input's size and SHA-256 (by default read here; pipectl passes the ones
    /// it has already read for the store's UUID); an input that cannot be read is listed without
    /// them (the outcome says why the run failed). `display` turns URLs into the paths the report
    /// shows (relative ones keep reports comparable across machines). `changes` is the comparison
    /// with the store the run replaced, or why there is none.
    public init(runner: Runner, outcome: Outcome, changes: Result<StoreChanges, ChangesUnavailable>, display: (URL) -> String,
                digest: (URL) -> (bytes: Int64, sha256: String)? = ImportReport.digest(of:)) {
        let pipeline = runner.pipeline
        let log = runner.log
        let rejected = log.rejections.map {
            Issue(kind: .rejected, source: $0.source ?? "", stage: $0.stage,
                  location: $0.location.description, field: $0.field, rawValue: $0.rawValue, reason: $0.reason)
        }
        let skipped = log.skips.map {
            Issue(kind: .skipped, source: $0.source, entity: $0.entity,
                  location: $0.location.description, reason: $0.reason)
        }
        let filtered = log.filtered.map {
            Issue(kind: .filtered, source: $0.source ?? "", stage: $0.stage, location: $0.location.description, reason: $0.reason)
        }
        let duplicates = log.duplicates.map {
            Duplicate(source: $0.source, entity: $0.entity, key: $0.key, first: $0.first.description, again: $0.again.description,
                      differences: $0.differences.map { .init(field: $0.attribute, first: $0.first, again: $0.again) },
                      updated: $0.updated)
        }
        self.init(
            pipelineName: pipeline.name,
            pipelineFile: display(pipeline.file),
            storePath: display(pipeline.store.path),
            storeLayout: pipeline.store.layout.rawValue,
            outcome: outcome,
            inputs: pipeline.sources.map { source in
                let digest = digest(source.reader.input.url)
                let details = source.reader.input.details.snapshot
                let warnings = source.reader.input.warnings.snapshot.warnings.map {
                    InputFile.Warning(location: $0.location.description, stage: $0.stage, message: $0.text)
                }
                return InputFile(source: source.name, path: source.reader.input.displayPath,
                                 bytes: digest?.bytes, sha256: digest?.sha256,
                                 detected: details.isEmpty ? nil : Dictionary(details.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
                                 warnings: warnings.isEmpty ? nil : warnings)
            },
            sources: zip(log.sourceNames, log.sources).map { Counts(name: $0, $1) },
            entities: zip(pipeline.model.entities, log.entities).filter { !$0.0.isAbstract }.map { Counts(name: $0.name, $1) },
            issues: rejected + skipped + filtered,
            duplicates: duplicates,
            createdByLinks: log.placeholders.map { CreatedByLink(entity: $0.entity, key: $0.key, first: $0.first.description) },
            changes: try? changes.get(),
            changesUnavailable: { if case .failure(let why) = changes { why.reason } else { nil } }(),
            durations: runner.durations.map { Duration(stage: $0.stage, seconds: $0.seconds) })
        links = log.links.map { Links(relationship: $0.relationship, count: $0.count) }
        bytesLoaded = log.bytesLoaded.isEmpty ? nil
            : log.bytesLoaded.map { BytesLoaded(attribute: $0.attribute, values: $0.values, bytes: $0.bytes) }
        checks = log.checkResults.map { Check(name: $0.name, passed: $0.passed, detail: $0.detail, offending: $0.offending) }
    }

    /// Size and SHA-256 of a file, read in 1 MiB chunks so that a large export is never held whole.
    public static func digest(of url: URL) -> (bytes: Int64, sha256: String)? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var hasher = Checksum(.sha256)
        var size: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(chunk)
                size += Int64(chunk.count)
            }
        } catch {
            return nil
        }
        return (size, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }

    /// A fixed moment derived from the inputs' checksums, for the workbook's `created` property:
    /// identical inputs give identical workbooks, and it is a plausible date (2001...2020).
    var pinnedCreationTime: Int {
        var hasher = Checksum(.sha256)
        for input in inputs { hasher.update(Data((input.sha256 ?? input.path).utf8)) }
        let digest = hasher.finalize()
        let value = digest.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        return 978_307_200 + value % 630_720_000
    }
}

extension ImportReport {
    /// Why a report shows no changes.
    public struct ChangesUnavailable: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }
}
