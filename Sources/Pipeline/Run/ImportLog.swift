import Foundation
import Diagnostics

/// What happened to each record: counts per source and per entity, and the details the report
/// lists (every rejected or skipped record, every duplicate key).
public final class ImportLog {
    public struct Counts: Sendable, Equatable {
        public var read = 0
        public var inserted = 0
        public var alreadyPresent = 0
        public var updated = 0
        public var skipped = 0
        public var rejected = 0
        /// Turned away by a `keep` or `drop` step (sources only).
        public var filtered = 0
        /// Source records that are in the store, whole: every entity they load written (inserted,
        /// updated or already present), none rejected (sources only; the rows a record's links
        /// made do not count).
        public var loaded = 0
        /// Rows an `on_duplicate: update` took away: owned records its lists no longer hold
        /// (entities only).
        public var removed = 0
        public init() {}
    }

    public enum Outcome: Sendable {
        case inserted, alreadyPresent, updated, skipped
    }

    /// A record skipped because its unique key is empty (or similar), never inserted.
    public struct Skip: Sendable {
        /// The pipeline source whose record it was.
        public var source: String
        public var entity: String
        public var location: Location
        public var reason: String
    }

    /// A record whose unique key was seen before, whether its values differ or not.
    public struct Duplicate: Sendable {
        /// The pipeline source of the record seen again; the log fills it in.
        public var source = ""
        public var entity: String
        /// The key as shown to users (`name=Milk`).
        public var key: String
        public var first: Location
        public var again: Location
        /// Attributes whose values differ (none for an identical duplicate): (attribute, value
        /// stored first, value seen again).
        public var differences: [(attribute: String, first: String, again: String)]
        /// Whether the later record's values replaced the stored ones (`on_duplicate: update`).
        public var updated: Bool

        public init(entity: String, key: String, first: Location, again: Location,
                    differences: [(attribute: String, first: String, again: String)], updated: Bool) {
            self.entity = entity
            self.key = key
            self.first = first
            self.again = again
            self.differences = differences
            self.updated = updated
        }
    }

    /// A record only a link created, never loaded by a source of its own entity: a placeholder
    /// with the link's values and the entity's defaults (a typo in a link value makes one).
    public struct Placeholder: Sendable {
        public var entity: String
        /// The key as users read it (`name=Fetta`).
        public var key: String
        /// Where the first link to it was.
        public var first: Location
        public init(entity: String, key: String, first: Location) {
            self.entity = entity
            self.key = key
            self.first = first
        }
    }

    public let sourceNames: [String]
    /// Records created by links and never completed by a record of their own, in entity then
    /// row order; known once the sink has finished.
    public private(set) var placeholders: [Placeholder] = []
    /// Per relationship (`Recipe.tags`), the links the store holds once written: rows whose
    /// to-one is set, rows of a many-to-many's join table. Told by the sink as it finishes.
    public var links: [(relationship: String, count: Int)] = []
    public let entityNames: [String]
    public var sources: [Counts] { Array(counts[..<sourceNames.count]) }
    public var entities: [Counts] { Array(counts[sourceNames.count...]) }
    public private(set) var rejections: [Rejection] = []
    public private(set) var skips: [Skip] = []
    /// Kept in a temporary file: see `DuplicateList`. Every one, unless `describedConflicts` limits them.
    public var duplicates: DuplicateList { DuplicateList(storage: duplicateStorage, count: duplicateStorage.count) }
    private let duplicateStorage: DuplicateStorage
    /// The duplicates whose values differ from the first record's, counted as they are logged.
    public private(set) var conflictingDuplicates = 0
    /// How many duplicates whose values differ the log keeps, described; nil (the default) keeps
    /// every duplicate, identical ones too, as a report lists them. A run nobody reads them all
    /// from (`pipectl run` without a report shows the first ten) describes no more: a value's
    /// text for a message costs more than comparing it, and 50,000 duplicates were 1.4% of a run.
    /// Set before the run; `conflictingDuplicates` counts them all either way.
    public var describedConflicts: Int?
    /// Whether the sink is to describe the next duplicate (`duplicate(_:)`) rather than only
    /// count it (`countDuplicate(differing:)`).
    public var describesDuplicates: Bool {
        describedConflicts.map { keptConflicts < $0 } ?? true
    }
    private var keptConflicts = 0
    /// The source whose records are being written.
    public var currentSource: Int {
        get { current.pointee }
        set {
            precondition(sourceNames.indices.contains(newValue), "source number out of range")
            current.pointee = newValue
        }
    }
    /// The counts of every source, then of every entity, and the current source, in memory of
    /// their own: a record is counted several times, and changing an array property of a class
    /// pays an exclusivity check and a uniqueness check each time.
    private let counts: UnsafeMutableBufferPointer<Counts>
    private let current: Pinned<Int>

    /// `temporaryDirectory`: where the duplicates are kept while the run lasts (the store's folder).
    public init(sourceNames: [String], entityNames: [String],
                temporaryDirectory: URL = FileManager.default.temporaryDirectory) {
        self.duplicateStorage = DuplicateStorage(directory: temporaryDirectory)
        self.sourceNames = sourceNames
        self.entityNames = entityNames
        self.counts = .allocate(capacity: sourceNames.count + entityNames.count)
        counts.initialize(repeating: Counts())
        self.current = Pinned(0)
    }

    deinit {
        counts.deallocate()
    }

    /// Where the current source's counts are; checked, as the counts' memory is not.
    private var source: Int {
        precondition(current.pointee < sourceNames.count, "records are logged, but the run has no sources")
        return current.pointee
    }

    public func recordRead() {
        counts[source].read += 1
    }

    /// A field the pipeline names that no record of a tree input (JSON, XML, plist) gave a value.
    public struct MissingField: Sendable {
        public var source: String
        public var field: String
        /// Where the pipeline file names it.
        public var location: Location?
        /// The closest name that the input does have.
        public var suggestion: String?

        public init(source: String, field: String, location: Location?, suggestion: String?) {
            self.source = source
            self.field = field
            self.location = location
            self.suggestion = suggestion
        }

        public var message: String {
            var hint = suggestion.map { "; did you mean '\($0)'?" } ?? ""
            // `listed: false` names a field "false": the constant is written `{ value: false }`.
            if suggestion == nil, Options.bool(field) != nil || Double(field) != nil {
                hint = "; for the value itself, write '{ value: \(field) }'"
            }
            return "no record of source '\(source)' has a value for '\(field)'\(hint) (every record loads it empty)"
        }
    }

    public private(set) var missingFields: [MissingField] = []
    /// The results of the pipeline's `checks:` on the new store, once they ran.
    public var checkResults: [CheckResult] = []

    /// Per Binary attribute (`Recipe.photo`), in the order first loaded, the values and bytes the
    /// records of sources with a `file` step put in the store.
    public private(set) var bytesLoaded: [BytesLoaded] = []

    /// The values and bytes loaded into one Binary attribute.
    public struct BytesLoaded: Sendable, Equatable {
        public var attribute: String
        public var values: Int
        public var bytes: Int
    }

    /// The digests of what each source's `file` steps loaded, in source then step order; the
    /// Core Data store's UUID takes them in (`ByteLoadingStep.loadedDigest`).
    public var loadedDigests: [[UInt8]] = []

    /// Counts `bytes` loaded into `attribute` (`Recipe.photo`).
    public func countBytes(_ bytes: Int, into attribute: String) {
        if let i = bytesLoaded.firstIndex(where: { $0.attribute == attribute }) {
            bytesLoaded[i].values += 1
            bytesLoaded[i].bytes += bytes
        } else {
            bytesLoaded.append(BytesLoaded(attribute: attribute, values: 1, bytes: bytes))
        }
    }

    public func fieldNeverCame(_ missing: MissingField) {
        missingFields.append(missing)
    }

    /// The first filtered records of each source, for the summary and the report; the counts
    /// have them all.
    public private(set) var filtered: [Filtered] = []
    public static let filteredShownPerSource = 5

    public func filter(_ record: Filtered) {
        counts[source].filtered += 1
        guard counts[source].filtered <= Self.filteredShownPerSource else { return }
        var record = record
        record.source = sourceNames[currentSource]
        filtered.append(record)
    }

    public func reject(_ rejection: Rejection) {
        counts[source].rejected += 1
        var rejection = rejection
        rejection.source = sourceNames[currentSource]
        rejections.append(rejection)
    }

    /// Counts what the sink did with a record of entity `entity` (index into the model).
    public func count(_ outcome: Outcome, entity: Int) {
        precondition(entityNames.indices.contains(entity), "entity number out of range")
        let source = source, entity = sourceNames.count + entity
        switch outcome {
        case .inserted: counts[source].inserted += 1; counts[entity].inserted += 1
        case .alreadyPresent: counts[source].alreadyPresent += 1; counts[entity].alreadyPresent += 1
        case .updated: counts[source].updated += 1; counts[entity].updated += 1
        case .skipped: counts[source].skipped += 1; counts[entity].skipped += 1
        }
    }

    public func skip(entity: Int, at location: Location, reason: String) {
        count(.skipped, entity: entity)
        skips.append(Skip(source: sourceNames[currentSource], entity: entityNames[entity], location: location, reason: reason))
    }

    /// Counts a record that completed a row a link had created: an insert of the current source;
    /// its entity counted the row when the link made it.
    public func countCompleted() {
        counts[source].inserted += 1
    }

    /// Notes a record that only links created (the sink tells, as it finishes).
    public func placeholder(_ placeholder: Placeholder) {
        placeholders.append(placeholder)
    }

    public func duplicate(_ duplicate: Duplicate) throws {
        let differs = !duplicate.differences.isEmpty
        if differs { conflictingDuplicates += 1 }
        if let describedConflicts {
            guard differs, keptConflicts < describedConflicts else { return }
            keptConflicts += 1
        }
        var duplicate = duplicate
        duplicate.source = sourceNames[currentSource]
        try duplicateStorage.append(duplicate)
    }

    /// Counts a duplicate the sink did not describe (`describesDuplicates` said no): whether its
    /// values differ from the first record's is all the log keeps of it.
    public func countDuplicate(differing: Bool) {
        if differing { conflictingDuplicates += 1 }
    }

    /// Counts a source record of the current source that is in the store whole (`Counts.loaded`).
    public func recordLoaded() {
        counts[source].loaded += 1
    }

    /// Counts a row of entity `entity` that an update removed (`Counts.removed`).
    public func countRemoved(entity: Int) {
        precondition(entityNames.indices.contains(entity), "entity number out of range")
        counts[sourceNames.count + entity].removed += 1
    }

    /// Rejections counted per entity are the load stage's: a record rejected while converting
    /// values for `entity`.
    public func countRejected(entity: Int) {
        precondition(entityNames.indices.contains(entity), "entity number out of range")
        counts[sourceNames.count + entity].rejected += 1
    }
}
