import Foundation
import Diagnostics
import Safeguards
import Pipeline
import CoreDataFormat
import SQLite
internal import CPrefetch

/// The text keys of one entity past what `KeyIndex` keeps in memory, in runs in a temporary
/// file beside the store: memory stays flat however many distinct keys an export has.
///
/// New keys collect in memory (`pending`, found like the index's own) and are written out every
/// `runKeys` keys as a run: the records, then an index of (hash, record offset) grouped into
/// buckets by the hash's top bits.
/// Finding a key that is in no run, which is what almost every key of a large export is, costs a
/// look at one Bloom filter over all spilled keys, one cache line. A key that may be in a run (a
/// duplicate, or about one lookup in a thousand) asks each run's own filter and reads the runs
/// that may hold it: the index entries of its bucket, then the candidate record, two `pread`s.
///
/// A value, kept by its key index's state: its fields are then checked for exclusive access when
/// compiled, not at run time on every use (a class's are), which showed on the writing thread
/// once most keys of a large export went through here.
struct KeySpill {
    struct Found {
        var rowID: Int64
        var first: Location
    }

    private struct Run {
        var indexStart: Int64
        var count: Int
        /// Where each bucket of the index starts, and where the last one ends (see `IndexEntry.bucketed`).
        var buckets: IndexEntry.Buckets
        var filter: BloomFilter
    }

    /// Index entries per bucket, on average: what a lookup reads of each run that may hold its key.
    private static let bucketSize = 64
    /// A record: rowID, a `LocationList.Compact` (four Int32) and the key's length (UInt32), then the key.
    private static let recordHeader = 28

    private let file: SpillFile
    private let runKeys: Int
    private var pending = TextKeyTable()
    private var pendingHashes: [UInt64] = []
    private var pendingRowIDs: [Int64] = []
    private var pendingFirsts: [LocationList.Compact] = []
    /// Numbers files and path prefixes for the compact locations; holds no locations itself.
    private var locations = LocationList()
    /// First locations too unusual to compact, by row id (see `LocationList`).
    private var wholeFirsts: [Int64: Location] = [:]
    private var runs: [Run] = []
    /// Every key in `runs` and `pending`, set as each key comes, just after its lookup read the
    /// same block: set a run at a time, each key's block would be a cache miss again.
    private var spilled: BloomFilter
    private var spilledCount = 0
    private var readBuffer: [UInt8] = []
    private var recordBuffer: [UInt8] = []

    init(directory: URL, runKeys: Int) throws {
        file = try SpillFile(directory: directory, holding: "the unique keys", stage: "sqlite")
        self.runKeys = max(runKeys, 1)
        spilled = BloomFilter(capacity: 4 * self.runKeys, bitsPerKey: 16)
    }

    mutating func find(_ key: UnsafeBufferPointer<UInt8>, hash: UInt64) throws -> Found? {
        if let k = pending.find(key, hash: UInt32(truncatingIfNeeded: hash)) {
            return Found(rowID: pendingRowIDs[k], first: first(pendingFirsts[k], rowID: pendingRowIDs[k]))
        }
        guard !runs.isEmpty, spilled.mayContain(hash) else { return nil }
        for run in runs where run.filter.mayContain(hash) {
            if let found = try probe(run, key, hash: hash) { return found }
        }
        return nil
    }

    /// Starts loading what `find` reads first for a key with `hash`: the pending keys' slot and
    /// the runs' filter block. `mutating` only so that the index's call reaches the spill in place:
    /// a non-mutating one copied it, retaining and releasing each of its arrays, for every key
    /// once keys spill.
    mutating func prefetch(_ hash: UInt64) {
        pending.prefetch(hash: UInt32(truncatingIfNeeded: hash))
        spilled.prefetch(hash)
    }

    /// Adds `key`, which `find` did not find.
    mutating func insert(_ key: UnsafeBufferPointer<UInt8>, hash: UInt64, rowID: Int64, first: Location) throws {
        let compact: LocationList.Compact
        if let small = locations.compact(first) {
            compact = small
        } else {
            wholeFirsts[rowID] = first
            compact = .whole
        }
        if !pending.canHold(key.count) { try writeRun() }
        if spilledCount >= spilled.capacity { try rebuildSpilledFilter(capacity: 2 * spilled.capacity) }
        spilled.insert(hash)
        spilledCount += 1
        pending.insert(key, hash: UInt32(truncatingIfNeeded: hash), Int32(pendingHashes.count))
        pendingHashes.append(hash)
        pendingRowIDs.append(rowID)
        pendingFirsts.append(compact)
        if pendingHashes.count >= runKeys { try writeRun() }
    }

    private func first(_ compact: LocationList.Compact, rowID: Int64) -> Location {
        compact.context >= 0 ? locations.location(compact) : wholeFirsts[rowID] ?? Location(file: "")
    }

    // MARK: Runs

    private mutating func writeRun() throws {
        let count = pendingHashes.count
        let start = file.size
        // Records in the order they came, reading the pending arrays front to back (in hash
        // order, each record cost a few cache misses); only the index is in bucket order.
        // The closures below use this, not `self`: capturing `self` while `pending` is in use
        // copied the spill (each of its arrays retained and released) for every record.
        let file = file
        for k in 0..<count {
            let rowID = pendingRowIDs[k], first = pendingFirsts[k]
            try pending.withKey(k) { key in
                try file.append(count: Self.recordHeader + key.count) { record in
                    record.storeBytes(of: rowID.littleEndian, toByteOffset: 0, as: Int64.self)
                    record.storeBytes(of: first.line.littleEndian, toByteOffset: 8, as: Int32.self)
                    record.storeBytes(of: first.column.littleEndian, toByteOffset: 12, as: Int32.self)
                    record.storeBytes(of: first.pathIndex.littleEndian, toByteOffset: 16, as: Int32.self)
                    record.storeBytes(of: first.context.littleEndian, toByteOffset: 20, as: Int32.self)
                    record.storeBytes(of: UInt32(key.count).littleEndian, toByteOffset: 24, as: UInt32.self)
                    if let base = key.baseAddress { (record + Self.recordHeader).copyMemory(from: base, byteCount: key.count) }
                }
            }
        }
        // Record k starts after k headers and the keys before it.
        let (index, buckets) = pending.withKeyStarts { keyStarts in
            assert(file.size == start + Int64(count * Self.recordHeader + Int(keyStarts[count])), "the run's records are not back to back")
            return IndexEntry.bucketed(pendingHashes, offset: { start + Int64($0 * Self.recordHeader + Int(keyStarts[$0])) },
                                       bucketSize: Self.bucketSize)
        }
        let indexStart = file.size
        var filter = BloomFilter(capacity: count, bitsPerKey: 10)
        for entry in index {
            try file.append(count: 16) { bytes in
                bytes.storeBytes(of: entry.hash.littleEndian, toByteOffset: 0, as: UInt64.self)
                bytes.storeBytes(of: entry.offset.littleEndian, toByteOffset: 8, as: Int64.self)
            }
            filter.insert(entry.hash)
        }
        try file.flush()
        runs.append(Run(indexStart: indexStart, count: count, buckets: buckets, filter: filter))

        pending.removeAll()
        pendingHashes.removeAll(keepingCapacity: true)
        pendingRowIDs.removeAll(keepingCapacity: true)
        pendingFirsts.removeAll(keepingCapacity: true)
    }

    /// A larger filter over all spilled keys, from the runs' hashes on disk and the pending ones:
    /// it doubles, so each key is read back about once over the whole run.
    private mutating func rebuildSpilledFilter(capacity: Int) throws {
        var filter = BloomFilter(capacity: capacity, bitsPerKey: 16)
        let chunk = 4096
        for run in runs {
            var position = 0
            while position < run.count {
                let n = min(chunk, run.count - position)
                try readIndex(of: run, from: position, count: n)
                readBuffer.withUnsafeBytes { raw in
                    for e in 0..<n { filter.insert(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: e * 16, as: UInt64.self))) }
                }
                position += n
            }
        }
        for hash in pendingHashes { filter.insert(hash) }
        spilled = filter
    }

    private mutating func probe(_ run: Run, _ key: UnsafeBufferPointer<UInt8>, hash: UInt64) throws -> Found? {
        var (position, end) = run.buckets.range(of: hash)
        while position < end {
            let n = min(4 * Self.bucketSize, end - position)
            try readIndex(of: run, from: position, count: n)
            for e in 0..<n {
                let (entryHash, offset) = readBuffer.withUnsafeBytes { raw in
                    (UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: e * 16, as: UInt64.self)),
                     Int64(littleEndian: raw.loadUnaligned(fromByteOffset: e * 16 + 8, as: Int64.self)))
                }
                if entryHash == hash, let found = try record(at: offset, matching: key) { return found }
            }
            position += n
        }
        return nil
    }

    private mutating func readIndex(of run: Run, from position: Int, count: Int) throws {
        guard try file.read(count * 16, at: run.indexStart + Int64(position) * 16, into: &readBuffer) == count * 16 else {
            throw cutShort()
        }
    }

    /// A read that came back short from a file this run wrote: only a failing disk does that.
    private func cutShort() -> PipelineError {
        PipelineError(.io, code: .tempCutShort, stage: "sqlite", "the temporary file of the unique keys is cut short")
    }

    private mutating func record(at offset: Int64, matching key: UnsafeBufferPointer<UInt8>) throws -> Found? {
        // As long as `key`'s record would be: a shorter record there ends the read early only
        // at the end of the file, and its length already says it is another key.
        let read = try file.read(Self.recordHeader + key.count, at: offset, into: &recordBuffer)
        guard read >= Self.recordHeader else { throw cutShort() }
        let length = recordBuffer.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self))) }
        guard length == key.count else { return nil }
        guard read == Self.recordHeader + length else { throw cutShort() }
        return recordBuffer.withUnsafeBytes { raw -> Found? in
            guard length == 0 || memcmp(raw.baseAddress! + Self.recordHeader, key.baseAddress!, length) == 0 else { return nil }
            let rowID = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: Int64.self))
            let compact = LocationList.Compact(line: Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: Int32.self)),
                                               column: Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 12, as: Int32.self)),
                                               pathIndex: Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: Int32.self)),
                                               context: Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 20, as: Int32.self)))
            return Found(rowID: rowID, first: first(compact, rowID: rowID))
        }
    }
}

/// A run's index entry: a key's hash and where its record starts in the file.
struct IndexEntry {
    var hash: UInt64
    var offset: Int64

    /// Where each bucket of a run's index starts: bucket `b` holds the entries whose hash's top
    /// `bits` bits are `b`.
    struct Buckets {
        let bits: Int
        /// `buckets + 1` positions: bucket `b` is `starts[b]..<starts[b + 1]`.
        let starts: [UInt32]

        func bucket(of hash: UInt64) -> Int {
            Self.bucket(of: hash, bits: bits)
        }

        static func bucket(of hash: UInt64, bits: Int) -> Int {
            Int(truncatingIfNeeded: (hash >> 32) >> UInt64(32 - bits))
        }

        /// The positions in the index of the entries that may have `hash`.
        func range(of hash: UInt64) -> (start: Int, end: Int) {
            let b = bucket(of: hash)
            return (Int(starts[b]), Int(starts[b + 1]))
        }
    }

    /// An index entry for each of `hashes`, the k-th at `offset(k)`, grouped into buckets of about
    /// `bucketSize` entries by the hash's top bits, and where the buckets start. Within a bucket
    /// the entries keep their order: a lookup reads the whole bucket.
    ///
    /// Counted, then each entry written straight to its bucket's next place: a few thousand
    /// buckets keep the places being written in the cache, where sorting the index fully by hash
    /// misses the cache for most entries.
    static func bucketed(_ hashes: [UInt64], offset: (Int) -> Int64, bucketSize: Int) -> (entries: [IndexEntry], buckets: Buckets) {
        var bits = 0
        while bits < 24, hashes.count >> bits > bucketSize { bits += 1 }
        let buckets = 1 << bits
        var starts = [UInt32](repeating: 0, count: buckets + 1)
        let next = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: buckets)
        defer { next.deallocate() }
        next.initialize(repeating: 0)
        for hash in hashes { next[Buckets.bucket(of: hash, bits: bits)] += 1 }
        var start: UInt32 = 0
        for b in 0..<buckets {
            starts[b] = start
            (next[b], start) = (start, start + next[b])
        }
        starts[buckets] = start
        let entries = [IndexEntry](unsafeUninitializedCapacity: hashes.count) { entries, initialized in
            for (k, hash) in hashes.enumerated() {
                let b = Buckets.bucket(of: hash, bits: bits)
                (entries.baseAddress! + Int(next[b])).initialize(to: IndexEntry(hash: hash, offset: offset(k)))
                next[b] += 1
            }
            initialized = hashes.count
        }
        return (entries, Buckets(bits: bits, starts: starts))
    }
}

/// A Bloom filter of 64-bit hashes that sets and tests all of a hash's bits in one 64-byte block,
/// one cache line: a lookup costs one memory access however large the filter.
struct BloomFilter {
    private var words: [UInt64]
    private let blockMask: UInt64
    /// The keys it was sized for; past that, false positives grow quickly.
    let capacity: Int

    init(capacity: Int, bitsPerKey: Int) {
        var blocks = 1
        while blocks * 512 < capacity * bitsPerKey { blocks <<= 1 }
        words = [UInt64](repeating: 0, count: blocks * 8)
        blockMask = UInt64(blocks - 1)
        self.capacity = capacity
    }

    mutating func insert(_ hash: UInt64) {
        let block = Int(truncatingIfNeeded: (hash >> 32) & blockMask) * 8
        var bits = Self.bits(hash)
        words.withUnsafeMutableBufferPointer { words in
            for _ in 0..<6 {
                let bit = Int(truncatingIfNeeded: bits >> 55)
                words[block + bit >> 6] |= 1 << UInt64(bit & 63)
                bits <<= 9
            }
        }
    }

    /// Starts loading the block `mayContain` reads for `hash`.
    func prefetch(_ hash: UInt64) {
        let block = Int(truncatingIfNeeded: (hash >> 32) & blockMask) * 8
        words.withUnsafeBufferPointer { pipectl_prefetch($0.baseAddress! + block) }
    }

    func mayContain(_ hash: UInt64) -> Bool {
        let block = Int(truncatingIfNeeded: (hash >> 32) & blockMask) * 8
        var bits = Self.bits(hash)
        return words.withUnsafeBufferPointer { words in
            for _ in 0..<6 {
                let bit = Int(truncatingIfNeeded: bits >> 55)
                if words[block + bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
                bits <<= 9
            }
            return true
        }
    }

    /// Six 9-bit positions in the block, from the top of the product (the block took the top half).
    @inline(__always)
    private static func bits(_ hash: UInt64) -> UInt64 {
        (hash & 0xFFFF_FFFF | 1 << 32) &* 0x9E37_79B9_7F4A_7C15
    }
}
