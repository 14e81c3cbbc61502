import Foundation
import Diagnostics

/// Reads, transforms and converts one source's records on a thread of its own, while the sink
/// writes the ones before: on two cores the two halves of a run overlap. Held to one core
/// (`Cores.usable`), the halves take turns on the writing thread, a batch at a time: a second
/// thread would only add its switches, and the batches waiting for the writer would no longer
/// fit the core's cache (docs/benchmarks.md has the figures).
///
/// Records travel in batches that go back and forth between the threads and are refilled in
/// place, so the entity records in them cost no allocation per record. The writing thread takes
/// the batches in reading order and does all the logging, so the store, the log and the report
/// come out exactly as if one thread did everything.
final class RecordFeed: @unchecked Sendable {
    // @unchecked: the reader belongs to the reading thread alone, the transforms and loads to
    // one thread (the reading one, or the writing one where `convertsOnWriter`); batches change
    // hands only under `condition`.

    /// One source record, ready for the sink or turned away.
    struct Item {
        /// One entity record per load; filled unless `rejection` is set.
        var records: [EntityRecord]
        var rejection: Rejection?
        /// The load whose values were rejected, if it was the load stage that rejected them.
        var rejectedEntity: Int?
        /// Set when a `keep` or `drop` step turned the record away.
        var filtered: Filtered?
        /// The record as read, for the writing thread to convert (`convertsOnWriter`); once
        /// converted, back for the reader to reuse its arrays.
        var source: Record?

        /// Neither rejected nor turned away: its records are to be written. Matched in place:
        /// `rejection == nil` copied the optional (and its strings) to compare it, a generic copy
        /// and destroy, for every record.
        var isLoadable: Bool {
            if case .some = rejection { return false }
            if case .some = filtered { return false }
            return true
        }

        /// Clears the outcome of the record before: assigning nil to a nil optional destroyed it
        /// through the same generic path.
        mutating func clearOutcome() {
            if case .some = rejection { rejection = nil }
            rejectedEntity = nil
            if case .some = filtered { filtered = nil }
        }
    }

    struct Batch {
        var items: [Item]
        var count = 0
        /// The reader's position after the batch, for progress.
        var bytesRead: Int64 = 0
        /// The reader is done after this batch: at the end of its input, or stopped by `error`.
        var isLast = false
        /// Why reading stopped early; the run fails with it once the batch is written.
        var error: (any Error)?
        /// On the last batch: the fields watched (`watch`) that no record gave a value.
        var neverSeen: [Int] = []
    }

    private let reader: any RecordReader
    private let recycler: (any RecyclingReader)?
    private let steps: [any Transform]
    private let loads: [LoadBinding]
    /// Fields of the reader that no record has given a value yet; empty once all have (or none
    /// is watched), when the check costs one test a record.
    private var unseen: [Int]
    /// Whether the reader gave any record: with none (every one rejected as read), no field can
    /// be said to be missing.
    private var gaveRecords = false
    private let condition = NSCondition()
    private var filled: [Batch] = []
    private var empty: [Batch]
    /// Whether a thread waits on `condition`: the other wakes it only then, and the reading
    /// thread only once `refillTogether` batches are back (each wake-up is a system call on the
    /// thread that makes it, the writing thread most often).
    private var readerWaits = false
    private var writerWaits = false
    private let refillTogether: Int
    /// The reader, the steps and the loads are used from the reading thread alone, once it runs.
    private var confinement = ThreadConfinement("a source's reader, transforms and loads")
    private var started = false
    private var stopped = false
    /// The steps that load files; none for most sources, which then never weigh a batch.
    private let loading: [any ByteLoadingStep]
    /// Whether a load gives lists, whose elements count towards `batchRecords`.
    private let hasLists: Bool
    /// The bytes a batch may hold that its steps loaded: 16 batches of them stay far under the
    /// memory pipectl needs otherwise, where 256 records of 16 MB photos each would not.
    static let batchByteBudget = 4 << 20
    /// The records a batch holds, counting each element of their lists: a batch of recipes with
    /// a dozen listed records each would hold a dozen flat batches' worth, and the records then
    /// leave the cores' caches while they wait for the other thread (docs/benchmarks.md).
    static let batchRecords = 256
    /// On one core, where a batch is filled and then written on the same thread: its records are
    /// still in the core's cache when the sink reads them. 256 did not stay there (the distinct
    /// job at 100k under `taskset -c 0`, simulated 512 KB cache: 11.2M misses against 7.5M).
    static let oneCoreBatchRecords = 64
    /// The records a batch holds, counting list elements: `batchRecords`, or on one core
    /// `oneCoreBatchRecords`.
    private let recordsPerBatch: Int
    private var finished = false
    /// False on one core: `take()` fills the batch on the calling thread.
    private let threaded: Bool
    /// The reading thread only reads, and `take()` converts the records, on the writing thread:
    /// for a reader slower than the rest of the reading thread's work (XML, whose reading thread
    /// ran 2.2 times the writing thread's instructions). Not for lists, whose elements size the
    /// batches, nor for files loaded by a step, whose bytes do.
    private let convertsOnWriter: Bool

    /// `batches` of `batchSize` source records (fewer where their lists fill `batchRecords`):
    /// enough that neither thread waits for the other while either's pace varies (a new key
    /// costs the sink more than a known one, its key table grows now and then), few enough to
    /// stay small (measured in docs/benchmarks.md, "Why the code is as it is").
    /// `watch`: fields of the reader to tell, at the end, whether any record gave a value.
    init(reader: any RecordReader, steps: [any Transform], loads: [LoadBinding], location: Location,
         watch: [Int] = [], batchSize: Int = 256, batches: Int = 16, threaded: Bool = Cores.usable > 1) {
        self.threaded = threaded
        self.reader = reader
        self.unseen = watch
        self.recycler = reader as? any RecyclingReader
        self.steps = steps
        self.loading = steps.compactMap { $0 as? any ByteLoadingStep }
        self.loads = loads
        hasLists = loads.contains { !$0.lists.isEmpty }
        convertsOnWriter = threaded && reader.readsSlowly && !hasLists && loading.isEmpty
        // The feed is what fills from these bindings, in this order: their last reads of a
        // field may take its value.
        LoadBinding.takeLastUses(in: loads)
        let item = Item(records: loads.map { $0.emptyRecord(at: location) })
        recordsPerBatch = threaded ? RecordFeed.batchRecords : RecordFeed.oneCoreBatchRecords
        let size = threaded ? batchSize : min(batchSize, RecordFeed.oneCoreBatchRecords)
        empty = (0..<(threaded ? batches : 1)).map { _ in Batch(items: Array(repeating: item, count: size)) }
        refillTogether = min(4, batches)
    }

    /// Starts the reading thread; `stop()` must follow, whatever happens.
    func start() {
        guard threaded else { return }
        let thread = Thread { [self] in produce() }
        // 8 MiB, as the main thread has on Linux and macOS, where the readers are tested and fuzzed.
        thread.stackSize = 8 << 20
        thread.name = "pipectl reader"
        condition.lock()
        started = true
        condition.unlock()
        thread.start()
    }

    /// The next batch in reading order, once it is filled. After one whose `isLast` is set,
    /// there is none.
    func take() -> Batch {
        if !threaded {
            // The runner gives each batch back before it takes the next.
            var batch = empty.removeFirst()
            fill(&batch)
            return batch
        }
        condition.lock()
        defer { condition.unlock() }
        while filled.isEmpty {
            writerWaits = true
            condition.wait()
        }
        writerWaits = false
        var batch = filled.removeFirst()
        if convertsOnWriter {
            condition.unlock()
            convert(&batch)
            condition.lock()
        }
        return batch
    }

    /// Converts the records the reading thread left in `batch` (`convertsOnWriter`).
    private func convert(_ batch: inout Batch) {
        for i in 0..<batch.count {
            guard var record = batch.items[i].source.take() else { continue }
            let error = convert(&record, into: &batch.items[i])
            batch.items[i].source = consume record
            if let error {
                // The records after it are not loaded, as when the reading thread converts.
                batch.error = error
                batch.isLast = true
                batch.count = i
                return
            }
        }
    }

    /// Hands a written batch back to be filled again.
    func giveBack(_ batch: consuming Batch) {
        guard threaded else { return empty.append(batch) }
        condition.lock()
        empty.append(batch)
        if readerWaits && empty.count >= refillTogether { condition.broadcast() }
        condition.unlock()
    }

    /// Stops the reading thread (after the batch it is filling) and waits until it has ended,
    /// so that nothing reads on once the run has moved on or failed.
    func stop() {
        guard threaded else { return }
        condition.lock()
        stopped = true
        condition.broadcast()
        while started && !finished { condition.wait() }
        condition.unlock()
    }

    private func produce() {
        while var batch = nextEmpty() {
            fill(&batch)
            let isLast = batch.isLast
            condition.lock()
            filled.append(batch)
            if writerWaits { condition.broadcast() }
            condition.unlock()
            if isLast { break }
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func nextEmpty() -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        if empty.isEmpty {
            while empty.count < refillTogether && !stopped {
                readerWaits = true
                condition.wait()
            }
            readerWaits = false
        }
        return stopped ? nil : empty.removeFirst()
    }

    private func fill(_ batch: inout Batch) {
        confinement.check()
        batch.count = 0
        defer { batch.bytesRead = reader.bytesRead }
        let loadedBefore = loading.isEmpty ? 0 : loadedBytes()
        var records = 0
        while batch.count < batch.items.count && records < recordsPerBatch {
            if convertsOnWriter, let converted = batch.items[batch.count].source.take() { recycler?.recycle(converted) }
            var next: Record?
            do {
                next = try reader.next()
            } catch let rejection as Rejection {
                batch.items[batch.count].rejection = rejection
                batch.items[batch.count].rejectedEntity = nil
                batch.items[batch.count].filtered = nil
                batch.count += 1
                continue
            } catch {
                batch.error = error
                batch.isLast = true
                return
            }
            // Moved out, not copied: the transforms then change the values array in place.
            guard var record = next.take() else {
                batch.isLast = true
                batch.neverSeen = gaveRecords ? unseen : []
                return
            }
            if !unseen.isEmpty {
                gaveRecords = true
                unseen.removeAll { $0 < record.values.count && !record.values[$0].isEmpty }
            }
            let i = batch.count
            if convertsOnWriter {
                batch.items[i].clearOutcome()
                batch.items[i].source = consume record
                records += 1
                batch.count += 1
                continue
            }
            if let error = convert(&record, into: &batch.items[i]) {
                batch.error = error
                batch.isLast = true
                return
            }
            recycler?.recycle(consume record)
            records += hasLists ? 1 + RecordFeed.listed(in: batch.items[i].records) : 1
            batch.count += 1
            if !loading.isEmpty, loadedBytes() - loadedBefore >= RecordFeed.batchByteBudget { return }
        }
    }

    /// Runs the steps and the loads on `record` into `item`, which then holds its entity records,
    /// its rejection or its filter; returns an error that ends the run.
    private func convert(_ record: inout Record, into item: inout Item) -> (any Error)? {
        item.clearOutcome()
        do {
            for step in steps { try step.apply(&record) }
            // Every entity's values are converted before any is written, so a record is loaded
            // whole or not at all.
            for k in loads.indices {
                // Unretained: `loads` keeps the binding, and a retain and release per record are
                // two atomic operations.
                do {
                    try Unmanaged.passUnretained(loads[k])._withUnsafeGuaranteedRef { try $0.fill(&item.records[k], from: &record) }
                } catch let rejection as Rejection {
                    item.rejectedEntity = loads[k].entity
                    throw rejection
                }
            }
        } catch let rejection as Rejection {
            item.rejection = rejection
        } catch let filtered as Filtered {
            item.filtered = filtered
        } catch {
            return error
        }
        return nil
    }

    /// The elements of the records' lists, and of theirs.
    private static func listed(in records: [EntityRecord]) -> Int {
        var count = 0
        for record in records {
            for list in record.lists { count += list.count + listed(in: list) }
        }
        return count
    }

    private func loadedBytes() -> Int { loading.reduce(0) { $0 + $1.bytesLoaded } }
}
