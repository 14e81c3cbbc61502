import Foundation
import Diagnostics
import Pipeline
import Safeguards
import CoreDataFormat
import SQLite

/// The unique-key SQLite sink: builds a store from entity records, finding or creating linked
/// records by their unique keys, and puts it in place atomically.
///
/// ```swift
/// let sink = try SQLiteSink(settings: pipeline.store, model: pipeline.model)
/// try Runner(pipeline: pipeline).run(into: sink)
/// ```
///
/// The store is built in `.<name>.pipectl-building-<pid>` beside the target (see `buildingURL(for:)`)
/// and renamed over it by `finish(log:)` once committed and checked; `discard()` (or dropping the
/// sink unfinished) deletes it and leaves the previous store as it was.
///
/// Layout `sqlite`: one table per concrete entity with `id INTEGER PRIMARY KEY`, its attributes and
/// a `<relationship>_id` foreign key per to-one relationship; metadata in `pipectl_metadata`.
/// Layout `coredata`: the store Core Data writes for the model (`ZITEM`, `Z_PK`, Z_METADATA with
/// the version hashes and the metadata keys), which an app opens without migrating it.
public final class SQLiteSink: PrefetchingSink {
    private enum State { case building, finished, discarded }

    private var state = State.building
    private let file: StoreFile
    private let layout: any TableLayout
    private var connection: SQLiteConnection?
    /// One per model entity; nil for abstract entities. Unchecked: read several times for every
    /// record, emptied only by `finish` and `discard` on the same thread.
    @exclusivity(unchecked) var writers: [EntityWriter?]
    /// Whether an update moved or took away a link: a record only links made may then be linked
    /// from nothing, and is removed as the store is finished (`removeUnlinkedPlaceholders`).
    var mayHaveUnlinkedPlaceholders = false
    /// Buffers for a list's join rows waiting to be added (`storeLists`), kept from list to list.
    var spareJoinRows: [[(row: Int64, order: Int64?)]] = []
    /// The pipeline file's `store:` entry, for errors about the store as a whole.
    private let location: Location?

    /// Where this process builds a store for `target` before it replaces it:
    /// `.<name>.pipectl-building-<process id>` in the same folder. A leftover from a killed run is
    /// removed when the next run starts.
    public static func buildingURL(for target: URL) -> URL {
        StoreFile.buildingURL(for: target.standardizedFileURL)
    }

    /// The lock file a run holds while it builds a store for `target` (`.<name>.pipectl-lock`).
    public static func lockURL(for target: URL) -> URL {
        StoreLock.url(for: target.standardizedFileURL)
    }

    /// Takes the store's lock, opens a new temporary store beside `settings.path` and creates the
    /// schema for `model`. `waitingForLock`: seconds to wait for another run building the same
    /// store to finish.
    ///
    /// Throws `PipelineError` when the model cannot be expressed in the layout, the store cannot
    /// be written there, or (`.busy`) another run holds the store's lock.
    /// `dryRun`: the store is built apart (nothing is written beside the target) to be thrown away.
    public convenience init(settings: StoreSettings, model: StoreModel, waitingForLock: Double = 0, dryRun: Bool = false) throws {
        try self.init(settings: settings, model: model, keyLimits: .standard, waitingForLock: waitingForLock, dryRun: dryRun)
    }

    /// `keyLimits`: how many unique keys stay in memory before they go to disk; tests set them low.
    init(settings: StoreSettings, model: StoreModel, keyLimits: KeyIndex.Limits, waitingForLock: Double = 0, dryRun: Bool = false) throws {
        location = settings.location
        layout = try StoreTables.layout(model: model, settings: settings)
        file = try StoreFile(target: settings.path, location: settings.location, lockWait: waitingForLock, dryRun: dryRun)
        do {
            let connection = try SQLiteConnection(path: file.building.path, readOnly: false)
            try layout.configure(connection)
            // These only ever affect the temporary file, which is renamed into place only when
            // complete and checked: no journal or syncing needed while it is built.
            try connection.execute("PRAGMA journal_mode=OFF")
            try connection.execute("PRAGMA synchronous=OFF")
            // Rows are appended in row id order and keys are found without SQLite (`KeyIndex`), so a
            // small cache holds what is written. A large one slows the indexes built at the end:
            // SQLite's sorter then sorts bigger runs in memory, with more cache misses, rather
            // than merging small sorted runs (in temporary files, which stay on disk: in memory
            // they are chained chunks read from their start, and merging them gets far slower).
            try connection.execute("PRAGMA cache_size=-8192")  // 8 MiB
            try connection.execute("BEGIN EXCLUSIVE")
            try layout.createSchema(in: connection)
            let spillDirectory = file.building.deletingLastPathComponent()
            writers = try layout.tables.enumerated().map { entity, table in
                try table.map {
                    let keys = KeyIndex(spillDirectory: spillDirectory, limits: keyLimits)
                    return try EntityWriter(entity: entity, table: $0, model: model, connection: connection, keys: keys)
                }
            }
            self.connection = connection
            shareJoinSides()
            markRequiredValuesBelow()
            // Keys with relationships show the linked record's key (`recipe=(name=Soup)`).
            for case let writer? in writers where writer.hasLinkKey {
                writer.linkKeyText = { [unowned self] link in self.writers[link.entity]?.keyText(of: link) ?? "" }
                writer.linkedRowKeyText = { [unowned self, unowned writer] slot, row in
                    let target = writer.table.linkTargets[slot].first.flatMap { self.writers[$0] }
                    return (try? target?.keyText(ofRow: row)) ?? "row \(row)"
                }
            }
        } catch {
            writers = []
            try? file.removeBuilding()
            state = .discarded
            throw PipelineError.converting(error, at: settings.location)
        }
    }

    deinit {
        discard()
    }

    /// Writes one record after finding or creating the records it links to; see `RecordSink`.
    @discardableResult
    public func write(_ record: inout EntityRecord, onDuplicate: DuplicatePolicy, log: ImportLog) throws -> Bool {
        guard state == .building else { throw notBuilding() }
        do {
            return try store(&record, onDuplicate: onDuplicate, linkedFrom: nil, log: log) != nil
        } catch {
            throw PipelineError.converting(error, at: record.location)
        }
    }

    /// Checks the links that say `missing: reject` (the records before it may be what they name)
    /// and, for a new row, the values the model requires.
    public func check(_ records: inout [EntityRecord], at index: Int) throws {
        let writer = try self.writer(for: records[index])
        if records[index].hasRejectingLinks { try checkMissingLinks(of: records[index], of: writer, before: records[..<index]) }
        if writer.mayLackRequiredValue, !writer.hasLinkKey, let slot = writer.missingRequiredValue(in: records[index]) {
            // Only a new row needs the value: a record with an empty key is skipped, a stored one kept.
            var isNew = !writer.hasKey
            if let key = writer.key(of: records[index]) {
                isNew = try writer.storedRow(key, hash: records[index].keyHash) == nil
            }
            if isNew { throw writer.missingValue(slot, at: records[index].location) }
        }
    }

    /// Starts loading where the record's key will be looked up: by then, the wait is over.
    public func prefetch(_ record: inout EntityRecord) {
        guard let hash = record.keyHash, writers.indices.contains(record.entity),
              let writer = writers[record.entity].map(Unmanaged.passUnretained) else { return }
        // Unretained, as in `store`: `writers` keeps the writer.
        writer._withUnsafeGuaranteedRef { $0.keys.prefetch(hash) }
    }

    /// Commits, checks (foreign keys, integrity), shows the complete store to `review`, and puts it
    /// in place as a single file in journal mode DELETE (or, without `publish`, deletes it). On
    /// failure the temporary store is deleted and the previous one stays.
    public func finish(log: ImportLog, publish: Bool) throws {
        guard state == .building, let connection else { throw notBuilding() }
        do {
            // The indexes are built now; their sorter runs are smaller still with SQLite's default
            // 2 MB cache (see init; docs/benchmarks.md has the figures).
            try connection.execute("PRAGMA cache_size=-2000")
            // The reading thread is done: the sorter may sort and merge its runs on helper
            // threads while it reads the table, where there are cores for them (on one, the
            // helpers cost more than they give). The index is built from the same sorted rows:
            // the same bytes.
            try connection.execute("PRAGMA threads=\(Cores.usable > 1 ? Cores.usable : 0)")
            if mayHaveUnlinkedPlaceholders { try removeUnlinkedPlaceholders(log: log) }
            for case let writer? in writers { try writer.dropReplacingIndexes() }
            try reportPlaceholders(to: log)
            let external = try SQLiteSink.moveOutLargeValues(of: layout.tables, in: connection, to: file.supportStaging)
            // The files `file` steps loaded are inputs too, read only as the records named them.
            let loaded = log.loadedDigests.flatMap { $0 }
            try layout.complete(in: connection, storeUUID: { () throws -> String? in
                guard let derived = try self.uuidWorker?.result() else { return nil }
                return loaded.isEmpty ? derived : CoreDataMetadata.storeUUID(from: Array(derived.utf8) + loaded)
            }, checkingLinks: !linksCheckedInReview)
            let linkQueries = linkCountQueries()
            try connection.execute("COMMIT")
            let mode = try connection.rows("PRAGMA journal_mode=DELETE").first?.first
            guard mode == .text("delete") else {
                throw PipelineError(.io, code: .storeJournalMode, stage: "sqlite",
                                    "cannot switch the new store to journal mode DELETE (it reports \(mode?.displayText ?? "nothing"))")
            }
            writers = []  // finalizes the statements, so that the connection closes now
            try connection.close()
            self.connection = nil
            let path = file.building.path
            // The disk's wait, not a core's: it passes while the checks read the store (the nested
            // recipes at 1M: 64 ms of 4.1 s).
            let flushing = publish ? WorkerThread { _ in StoreFile.flushEarly(path) } : nil
            defer { flushing?.cancel() }
            // The links are counted on the finished store, on a thread of their own: each count
            // reads a foreign key's index, and beside the checks, on two cores, they take no wall
            // time (the nested recipes at 1M: 50 ms, which the run waited for before the commit).
            let countLinks = { @Sendable in try SQLiteSink.countLinks(linkQueries, in: SQLiteConnection(path: path, readOnly: true)) }
            var counting: WorkerThread<[(relationship: String, count: Int)]>?
            defer {
                counting?.cancel()
                linkCounting = nil
            }
            // SQLite's own checks read the finished store on a connection of their own.
            let check = { @Sendable in try SQLiteSink.check(SQLiteConnection(path: path, readOnly: true)) }
            if let review, reviewOnlyReads {
                counting = WorkerThread { _ in try countLinks() }
                linkCounting = counting
                // On a thread of their own while the review reads the store on its connections:
                // on two cores the checks cost no wall time. Their failure comes first, as the
                // review read a damaged store.
                let checking = WorkerThread { _ in try check() }
                let reviewed = Result { try review(file.building) }
                try checking.result()
                try reviewed.get()
            } else {
                try check()
                // A review that writes into the store runs alone: the links are counted before
                // it, in the store as the sink wrote it.
                counting = WorkerThread { _ in try countLinks() }
                linkCounting = counting
                _ = try counting?.result()
                try review?(file.building)
            }
            log.links = try counting?.result() ?? []
            guard publish else { return discard() }
            try file.publish(support: external.map { SupportFiles(folder: CoreDataExternalData.folder(of: file.target), names: $0) })
            state = .finished
        } catch {
            discard()
            throw PipelineError.converting(error, at: location)
        }
    }

    /// Works out the Core Data store's UUID (`Z_UUID`), for a store whose settings give none.
    /// Deriving it from a digest of every input reads them all again: it runs from the moment it
    /// is set, on a thread of its own at the lowest priority, in the time the run leaves the
    /// cores idle, and `finish` waits for it where it writes the UUID. Run after the rows, it
    /// competed with the building of the indexes.
    /// The error it throws fails the run.
    ///
    /// The work is given whether its result is still wanted: `discard()` cancels it and waits for
    /// its thread, so that nothing reads on once the run has failed.
    public var storeUUID: (@Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> String)? {
        didSet {
            uuidWorker?.cancel()
            uuidWorker = storeUUID.map { work in WorkerThread(background: true) { token in try work { token.isCancelled } } }
        }
    }
    private var uuidWorker: WorkerThread<String>?

    /// Called by `finish` with the new store, closed, complete and checked, while the previous
    /// store is still in place: to compare the two before one replaces the other. An error it
    /// throws fails the run.
    public var review: ((_ newStore: URL) throws -> Void)?

    /// The links the new store holds per relationship, as `finish` sets them in the log once the
    /// review is done: for a review that shows them (a report), waiting for the thread counting
    /// them since the store was complete. Only while `review` runs.
    public func linkCounts() throws -> [(relationship: String, count: Int)] {
        guard let linkCounting else { throw notBuilding() }
        return try linkCounting.result()
    }
    private var linkCounting: WorkerThread<[(relationship: String, count: Int)]>?

    /// Whether `review` reads every link of the new store against the row it names (as
    /// `StoreRowChecks` does): `finish` then leaves out its own link checks, which would read
    /// the same rows again (the nested recipes job: 319M of its 6,099M instructions at 100k).
    public var linksCheckedInReview = false

    /// Whether `review` only reads the new store: `finish` then runs SQLite's own checks beside
    /// it rather than before it. A review that writes into the store must run alone.
    public var reviewOnlyReads = false

    /// Deletes the temporary store; the previous store stays byte for byte as it was.
    public func discard() {
        uuidWorker?.cancel()
        guard state == .building else { return }
        state = .discarded
        writers = []
        connection = nil  // closes it: its statements went with the writers
        // Best effort: a leftover is removed by the next run anyway.
        try? file.removeBuilding()
    }

    /// Whether the store at the target has a row in any table of its own (not SQLite's, not Core
    /// Data's bookkeeping, not pipectl's metadata). A file that is not a readable store has none.
    public func previousOutputHasRecords() throws -> Bool {
        guard StoreFile.isSQLiteDatabase(file.target.path), let store = try? SQLiteStore(readingAt: file.target) else { return false }
        let bookkeeping: Set<String> = ["Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY", "pipectl_metadata"]
        let tables = (try? store.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")) ?? []
        for case .text(let table)? in tables.map(\.first) where !bookkeeping.contains(table) {
            if (try? store.scalar("SELECT EXISTS (SELECT 1 FROM \(SQL.quote(table)))")) == .integer(1) { return true }
        }
        return false
    }

    /// The store must pass SQLite's own checks before it replaces anything.
    private static func check(_ connection: SQLiteConnection) throws {
        let orphans = try connection.rows("PRAGMA foreign_key_check")
        if let first = orphans.first {
            // Rows: table, rowid, referenced table, foreign key index.
            throw PipelineError(.io, code: .storeCheckFailed, stage: "sqlite",
                                "the new store fails its foreign key check: \(orphans.count) row(s) link to missing rows, "
                                    + "first row \(first[1].displayText) of '\(first[0].displayText)' to '\(first[2].displayText)'")
        }
        // quick_check reads every page and row as integrity_check does, but does not look each
        // row up in every index: O(n) rather than O(n log n), about ten times faster on a million
        // rows. The indexes are built by SQLite from the finished tables (or kept by it row by
        // row), so that lookup would check SQLite against itself.
        let problems = try connection.rows("PRAGMA quick_check").map { $0.first?.displayText ?? "" }
        guard problems == ["ok"] else {
            throw PipelineError(.io, code: .storeCheckFailed, stage: "sqlite",
                                "the new store fails its integrity check: \(problems.prefix(3).joined(separator: "; "))")
        }
    }

    private func notBuilding() -> PipelineError {
        PipelineError(.io, code: .storeNotBuilding, at: location, stage: "sqlite",
                      "the store '\(file.target.path)' was already \(state == .finished ? "finished" : "discarded")")
    }
}
