import Foundation
import Diagnostics
import Pipeline
import PipelineRun
import Safeguards

/// The draft run on the records `init` sampled, before it is written: `PipelineRun` as `pipectl
/// run --dry-run` runs it, each source reading no more records than `init` sampled, into a store
/// in a temporary folder removed after. The store the draft names is never touched. What it
/// tells: how many records load, and why the first of each source that does not was turned away.
struct DraftTrial {
    struct Source {
        var name: String
        var read = 0
        /// Inserted or updated: records the store holds once the run is done.
        var loaded = 0
        /// Records whose key an earlier record had: the first of each is kept.
        var repeated = 0
        /// The first record rejected or skipped, as the run's warning says it.
        var firstTurnedAway: String?
        /// Whether the sample was the whole input.
        var whole = false
    }

    var sources: [Source]
    /// Why the run failed as a whole, when it did: then nothing loads.
    var failure: PipelineError?
    /// Per entity, the records only links created (no source gives them): a link by the wrong
    /// field (a number where the key is a name) makes one per value. How many, and the first.
    var placeholders: [(entity: String, count: Int, first: ImportLog.Placeholder)] = []

    var read: Int { sources.reduce(0) { $0 + $1.read } }
    var loaded: Int { failure == nil ? sources.reduce(0) { $0 + $1.loaded } : 0 }
    var whole: Bool { sources.allSatisfy(\.whole) }

    /// Runs `pipeline` on the first `limit` records of each source.
    static func run(_ pipeline: PipelineDefinition, limit: Int) throws -> DraftTrial {
        let folder = try PrivateFolder(prefix: "pipectl-init")
        defer { folder.remove() }
        var trial = pipeline
        trial.store.path = folder.url.appendingPathComponent(pipeline.store.path.lastPathComponent)
        // A store thrown away needs no UUID from the inputs (which reads each whole), no
        // reports, no checks; every record is tried, and a source that loads nothing is counted,
        // not fatal.
        trial.store.uuid = "00000000-0000-0000-0000-000000000000"
        trial.report = ReportSettings()
        trial.checks = []
        trial.onReject = .continue
        trial.allowEmpty = true
        let ends = trial.sources.map { _ in SampleEnd() }
        for i in trial.sources.indices {
            trial.sources[i].reader.kind = SampledReaderKind(base: trial.sources[i].reader.kind, limit: limit, end: ends[i])
        }
        let run = PipelineRun(pipeline: trial, options: PipelineRun.Options(dryRun: true))
        var failure: PipelineError?
        do {
            try run.execute()
        } catch {
            failure = error
        }
        let log = run.log
        var sources: [Source] = []
        for (i, source) in trial.sources.enumerated() {
            // A source's counts include the records its links find or create: what it loads is
            // what it read, less its own records rejected, skipped or found again.
            let counts = log.sources[i]
            let entities = Set(source.loads.map(\.entity))
            let skips = log.skips.filter { $0.source == source.name && entities.contains($0.entity) }
            let repeated = log.duplicates.filter { $0.source == source.name && entities.contains($0.entity) && !$0.updated }.count
            var result = Source(name: source.name, read: counts.read,
                                loaded: max(0, counts.read - counts.rejected - counts.filtered - skips.count - repeated),
                                repeated: repeated, whole: ends[i].reached)
            if let rejection = log.rejections.first(where: { $0.source == source.name }) {
                result.firstTurnedAway = rejection.description
            } else if let skip = skips.first {
                result.firstTurnedAway = "\(skip.location): skipped: \(skip.reason)"
            }
            sources.append(result)
        }
        var placeholders: [(entity: String, count: Int, first: ImportLog.Placeholder)] = []
        for placeholder in log.placeholders {
            if let i = placeholders.firstIndex(where: { $0.entity == placeholder.entity }) {
                placeholders[i].count += 1
            } else {
                placeholders.append((placeholder.entity, 1, placeholder))
            }
        }
        return DraftTrial(sources: sources, failure: failure, placeholders: placeholders)
    }

    /// "3 of 5 records load", or "sampled records" when the sample was not all of the input.
    static func tally(_ loaded: Int, of read: Int, whole: Bool) -> String {
        "\(loaded) of \(read) \(whole ? "" : "sampled ")record\(read == 1 ? "" : "s") load\(read == 1 ? "s" : "")"
    }

    /// The comment at the top of the draft: the tally, then each source's, with the first record
    /// it turned away.
    var comment: [String] {
        var lines = ["# Run on \(whole ? "its inputs" : "the first \(InputSample.sampled) records of each input") before it was written: "
                        + Self.tally(loaded, of: read, whole: whole) + "."]
        if let failure {
            lines.append("#   the run fails: \(failure.description.split(separator: "\n").first ?? "")")
        }
        for source in sources {
            var line = "#   \(source.name): " + Self.tally(failure == nil ? source.loaded : 0, of: source.read, whole: source.whole)
            if source.repeated > 0 {
                line += "; \(source.repeated) repeat\(source.repeated == 1 ? "s" : "") a key loaded before (the first is kept)"
            }
            if let first = source.firstTurnedAway { line += "; first: \(first)" }
            lines.append(line)
        }
        for (entity, count, first) in placeholders {
            lines.append("#   links made \(count) \(entity) record\(count == 1 ? "" : "s") no source gives (the first, \(first.key), "
                            + "at \(first.first)): check that each link's field holds its key")
        }
        return lines
    }
}

/// Whether a sampled source's reader came to the end of its input.
final class SampleEnd: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var reached: Bool {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// A reader kind that reads no more than `limit` records of its input (rejected ones aside, as
/// `InputSample` counts them), as the sample `init` drafted from.
struct SampledReaderKind: ReaderKind {
    let base: any ReaderKind
    let limit: Int
    let end: SampleEnd

    var name: String { base.name }
    var spec: ComponentSpec { base.spec }
    func validate(_ options: Options) throws { try base.validate(options) }
    var picksFieldsByName: Bool { base.picksFieldsByName }
    func namesInInput(_ input: Input, options: Options) -> [String] { base.namesInInput(input, options: options) }

    func makeReader(input: Input, options: Options, fields: [String]) throws -> any RecordReader {
        SampledReader(base: try base.makeReader(input: input, options: options, fields: fields), limit: limit, end: end)
    }
}

final class SampledReader: RecordReader {
    let base: any RecordReader
    private var left: Int
    private let end: SampleEnd

    init(base: any RecordReader, limit: Int, end: SampleEnd) {
        self.base = base
        self.left = limit
        self.end = end
    }

    var fieldNames: [String] { base.fieldNames }
    var bytesRead: Int64 { base.bytesRead }
    var whereRecordsBegin: Location? { base.whereRecordsBegin }

    func next() throws -> Record? {
        guard left > 0 else {
            // One more look tells whether the sample was the whole input.
            if left == 0 {
                left = -1
                do {
                    if try base.next() == nil { end.reached = true }
                } catch {}
            }
            return nil
        }
        guard let record = try base.next() else {
            end.reached = true
            return nil
        }
        left -= 1
        return record
    }
}
