import Foundation

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

    public let sourceNames: [String]
    public let entityNames: [String]
    public private(set) var sources: [Counts]
    public private(set) var entities: [Counts]
    public private(set) var rejections: [Rejection] = []
    public private(set) var skips: [Skip] = []
    /// Kept in a temporary file: see `DuplicateList`.
    public var duplicates: DuplicateList { DuplicateList(storage: duplicateStorage, count: duplicateStorage.count) }
    private let duplicateStorage: DuplicateStorage
    /// The source whose records are being written.
    public var currentSource = 0

    /// `temporaryDirectory`: where the duplicates are kept while the run lasts (the store's folder).
    public init(sourceNames: [String], entityNames: [String],
                temporaryDirectory: URL = FileManager.default.temporaryDirectory) {
        self.duplicateStorage = DuplicateStorage(directory: temporaryDirectory)
        self.sourceNames = sourceNames
        self.entityNames = entityNames
        self.sources = Array(repeating: Counts(), count: sourceNames.count)
        self.entities = Array(repeating: Counts(), count: entityNames.count)
    }

    public func recordRead() {
        sources[currentSource].read += 1
    }

    public func reject(_ rejection: Rejection) {
        sources[currentSource].rejected += 1
        var rejection = rejection
        rejection.source = sourceNames[currentSource]
        rejections.append(rejection)
    }

    /// Counts what the sink did with a record of entity `entity` (index into the model).
    public func count(_ outcome: Outcome, entity: Int) {
        switch outcome {
        case .inserted: sources[currentSource].inserted += 1; entities[entity].inserted += 1
        case .alreadyPresent: sources[currentSource].alreadyPresent += 1; entities[entity].alreadyPresent += 1
        case .updated: sources[currentSource].updated += 1; entities[entity].updated += 1
        case .skipped: sources[currentSource].skipped += 1; entities[entity].skipped += 1
        }
    }

    public func skip(entity: Int, at location: Location, reason: String) {
        count(.skipped, entity: entity)
        skips.append(Skip(source: sourceNames[currentSource], entity: entityNames[entity], location: location, reason: reason))
    }

    public func duplicate(_ duplicate: Duplicate) throws {
        var duplicate = duplicate
        duplicate.source = sourceNames[currentSource]
        try duplicateStorage.append(duplicate)
    }

    /// Rejections counted per entity are the load stage's: a record rejected while converting
    /// values for `entity`.
    public func countRejected(entity: Int) {
        entities[entity].rejected += 1
    }
}
