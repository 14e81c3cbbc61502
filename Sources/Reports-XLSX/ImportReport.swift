import Foundation
import Pipeline

/// What a run imported, for the people who review it (`XLSXReportWriter`) and for CI
/// (`JSONReportWriter`): the pipeline, the store, how the run ended, the inputs with their
/// checksums, counts per source and per entity, every rejected or skipped record, every
/// duplicate key, and the durations.
///
/// ```swift
/// let report = ImportReport(runner: runner, outcome: .succeeded, display: { $0.path })
/// try JSONReportWriter().write(report, to: url)
/// ```
///
/// Everything but `durations` depends on the inputs only, so identical runs give identical reports.
public struct ImportReport: Sendable, Codable, Equatable {
    /// How the run ended.
    public enum Outcome: Sendable, Codable, Equatable {
        case succeeded
        case dryRun
        /// The run stopped with this message (the error as `pipectl` printed it); the store was
        /// left as it was.
        case failed(String)

        /// `succeeded`, `dry run` or `failed`, as the report shows it.
        public var name: String {
            switch self {
            case .succeeded: "succeeded"
            case .dryRun: "dry run"
            case .failed: "failed"
            }
        }

        /// Why the run failed; nil unless it did.
        public var message: String? {
            if case .failed(let message) = self { message } else { nil }
        }

        private enum CodingKeys: String, CodingKey { case status, message }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            switch try container.decode(String.self, forKey: .status) {
            case "succeeded": self = .succeeded
            case "dry run": self = .dryRun
            case "failed": self = .failed(try container.decodeIfPresent(String.self, forKey: .message) ?? "")
            case let other:
                throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: "unknown outcome '\(other)'")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .status)
            try container.encodeIfPresent(message, forKey: .message)
        }
    }

    /// One input file a source reads.
    public struct InputFile: Sendable, Codable, Equatable {
        public var source: String
        /// The path as shown in messages.
        public var path: String
        /// Size in bytes; nil when the file cannot be read.
        public var bytes: Int64?
        /// SHA-256 of the contents, lower-case hex; nil when the file cannot be read.
        public var sha256: String?
        /// What the reader found the file to be (a CSV's encoding, delimiter, line ends, byte
        /// order mark; `(detected)` where `auto` chose); nil for formats that say nothing.
        public var detected: [String: String]?
        /// What the reader warned of in the file without stopping the run (a JSON key given
        /// twice, a workbook's formulas saved without their values); nil when nothing.
        public var warnings: [Warning]?

        public init(source: String, path: String, bytes: Int64?, sha256: String?, detected: [String: String]? = nil,
                    warnings: [Warning]? = nil) {
            self.source = source
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
            self.detected = detected
            self.warnings = warnings
        }

        /// One warning about an input, as the run's summary printed it.
        public struct Warning: Sendable, Codable, Equatable {
            public var location: String
            public var stage: String
            public var message: String

            public init(location: String, stage: String, message: String) {
                self.location = location
                self.stage = stage
                self.message = message
            }
        }
    }

    /// What happened to the records of one source or entity.
    public struct Counts: Sendable, Codable, Equatable {
        public var name: String
        public var read: Int
        public var inserted: Int
        public var alreadyPresent: Int
        public var updated: Int
        public var skipped: Int
        public var rejected: Int
        /// Turned away by `keep` or `drop` (sources only).
        public var filtered: Int
        /// Rows an `on_duplicate: update` took away (entities only; absent when none).
        public var removed: Int?

        public init(name: String, _ counts: ImportLog.Counts) {
            self.name = name
            read = counts.read
            inserted = counts.inserted
            alreadyPresent = counts.alreadyPresent
            updated = counts.updated
            skipped = counts.skipped
            rejected = counts.rejected
            filtered = counts.filtered
            removed = counts.removed == 0 ? nil : counts.removed
        }
    }

    /// A record turned away (`rejected`: a value could not be converted, a line could not be
    /// parsed), not loaded (`skipped`: its unique key is empty), or left out on purpose
    /// (`filtered` by `keep` or `drop`: the first few of each source).
    public struct Issue: Sendable, Codable, Equatable {
        public enum Kind: String, Sendable, Codable { case rejected, skipped, filtered }
        public var kind: Kind
        /// The source that read the record (empty when no source reads its file).
        public var source: String
        /// The entity a skipped record was for; nil for rejections.
        public var entity: String?
        /// The stage that rejected it (`csv`, `number`, `date`, `load`, ...); nil for skips.
        public var stage: String?
        /// `file:line[:col]` or `file: at path`.
        public var location: String
        public var field: String?
        public var rawValue: String?
        public var reason: String

        public init(kind: Kind, source: String, entity: String? = nil, stage: String? = nil, location: String,
                    field: String? = nil, rawValue: String? = nil, reason: String) {
            self.kind = kind
            self.source = source
            self.entity = entity
            self.stage = stage
            self.location = location
            self.field = field
            self.rawValue = rawValue
            self.reason = reason
        }
    }

    /// A record whose unique key was loaded before.
    public struct Duplicate: Sendable, Codable, Equatable {
        /// An attribute whose values differ between the two records.
        public struct Difference: Sendable, Codable, Equatable {
            public var field: String
            public var first: String
            public var again: String
        }

        /// The source that read the record seen again.
        public var source: String
        public var entity: String
        /// The key as users read it (`name=Milk`).
        public var key: String
        public var first: String
        public var again: String
        public var differences: [Difference]
        /// Whether the later record replaced the stored values (`on_duplicate: update`); otherwise the
        /// first was kept.
        public var updated: Bool
    }

    /// A record only links created, never loaded by a source of its own entity.
    public struct CreatedByLink: Sendable, Codable, Equatable {
        public var entity: String
        /// The key as users read it (`name=Fetta`).
        public var key: String
        /// Where the first link to it was.
        public var first: String
    }

    /// The files a `file` step loaded into one Binary attribute (`Recipe.photo`): how many values, how many bytes.
    public struct BytesLoaded: Sendable, Codable, Equatable {
        public var attribute: String
        public var values: Int
        public var bytes: Int
    }

    /// The links the store holds through one relationship (`Recipe.tags`).
    public struct Links: Sendable, Codable, Equatable {
        public var relationship: String
        public var count: Int
    }

    /// Wall-clock seconds of one stage: a source (read, transform, write) or `finish`.
    public struct Duration: Sendable, Codable, Equatable {
        public var stage: String
        public var seconds: Double
    }

    public var pipelineName: String
    public var pipelineFile: String
    public var storePath: String
    /// `sqlite` or `coredata`.
    public var storeLayout: String
    public var outcome: Outcome
    public var inputs: [InputFile]
    public var sources: [Counts]
    /// Concrete entities only: an abstract entity's records are its sub-entities'.
    public var entities: [Counts]
    public var issues: [Issue]
    public var duplicates: [Duplicate]
    /// Records only links created (placeholders), by entity, then as the store holds them.
    public var createdByLinks: [CreatedByLink]
    /// Per relationship, in model order, the links the finished store holds.
    public var links: [Links] = []
    /// Per Binary attribute, what sources with a `file` step loaded into it; nil when none has one.
    public var bytesLoaded: [BytesLoaded]?
    /// The pipeline's `checks:` on the new store, with what each found.
    public var checks: [Check] = []

    /// One data check and its result.
    public struct Check: Sendable, Codable, Equatable {
        public var name: String
        public var passed: Bool
        public var detail: String
        /// The first offending records, by key.
        public var offending: [String]
    }
    /// What the run changed in the store it replaced (on a dry run: would replace), per entity by
    /// unique key; nil when `changesUnavailable` says why there is nothing to show.
    public var changes: StoreChanges?
    /// Why there are no changes to show: no store at the target before the run, a failed run, or a
    /// previous store that could not be compared.
    public var changesUnavailable: String?
    /// The only part that differs between identical runs.
    public var durations: [Duration]

    public init(pipelineName: String, pipelineFile: String, storePath: String, storeLayout: String, outcome: Outcome,
                inputs: [InputFile], sources: [Counts], entities: [Counts], issues: [Issue], duplicates: [Duplicate],
                createdByLinks: [CreatedByLink] = [], changes: StoreChanges? = nil, changesUnavailable: String? = nil,
                durations: [Duration]) {
        self.pipelineName = pipelineName
        self.pipelineFile = pipelineFile
        self.storePath = storePath
        self.storeLayout = storeLayout
        self.outcome = outcome
        self.inputs = inputs
        self.sources = sources
        self.entities = entities
        self.issues = issues
        self.duplicates = duplicates
        self.createdByLinks = createdByLinks
        self.changes = changes
        self.changesUnavailable = changesUnavailable
        self.durations = durations
    }
}
