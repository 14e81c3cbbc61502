import Foundation
import Pipeline
internal import CSQLite

/// The text keys of one entity past what `KeyIndex` keeps in memory, in sorted runs in a temporary
/// file beside the store: memory stays flat however many distinct keys an export has.
///
/// New keys collect in memory (`pending`, found like the index's own) and are written out every
/// `runKeys` keys as a run: the records, then an index of (hash, record offset) sorted by hash.
/// Finding a key that is in no run, which is what almost every key of a large export is, costs a
/// look at one Bloom filter over all runs, one cache line. A key that may be in a run (a
/// duplicate, or about one lookup in a thousand) asks each run's own filter and reads the runs
/// that may hold it: the index entries near its hash, then the candidate record, two `pread`s.
///
/// A value, kept by its key index's state: its fields are then checked for exclusive access when
/// compiled, not at run time on every use (a class's are), which cost 5% of the writing thread
/// once most keys of a 5M-row export went through here.
struct KeySpill {
    struct Found {
        var rowID: Int64
        var first: Location
    }

    private struct Run {
        var indexStart: Int64
        var count: Int
        /// Every `sampleSpacing`-th hash of the index, to find where a hash would be.
        var samples: [UInt64]
        var filter: BloomFilter
    }

    private static let sampleSpacing = 128
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
    /// Every key in `runs`.
    private var written: BloomFilter
    private var writtenCount = 0
    private var readBuffer: [UInt8] = []

    init(directory: URL, runKeys: Int) throws {
        file = try SpillFile(directory: directory, holding: "the unique keys", stage: "sqlite")
        self.runKeys = max(runKeys, 1)
        written = BloomFilter(capacity: 4 * self.runKeys, bitsPerKey: 16)
    }

    mutating func find(_ key: UnsafeBufferPointer<UInt8>, hash: UInt64) throws -> Found? {
        if let k = pending.find(key, hash: UInt32(truncatingIfNeeded: hash)) {
            return Found(rowID: pendingRowIDs[k], first: first(pendingFirsts[k], rowID: pendingRowIDs[k]))
        }
        guard writtenCount > 0, written.mayContain(hash) else { return nil }
        for run in runs where run.filter.mayContain(hash) {
            if let found = try probe(run, key, hash: hash) { return found }
        }
        return nil
    }

    /// Starts loading what `find` reads first for a key with `hash`: the pending keys' slot and
    /// the runs' filter block. `mutating` only so that the index's call reaches the spill in place:
    /// a non-mutating one copied it, retaining and releasing each of its arrays, for every key
    /// once keys spill (0.2 s of a 5M-row load).
    mutating func prefetch(_ hash: UInt64) {
        pending.prefetch(hash: UInt32(truncatingIfNeeded: hash))
        if writtenCount > 0 { written.prefetch(hash) }
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
        // Records in the order they came, reading the pending arrays front to back (in hash
        // order, each record cost a few cache misses); only the index is sorted.
        var index: [IndexEntry] = []
        index.reserveCapacity(count)
        // The closures below use this, not `self`: capturing `self` while `pending` is in use
        // copied the spill (each of its arrays retained and released) for every record.
        let file = file
        for k in 0..<count {
            index.append(IndexEntry(hash: pendingHashes[k], offset: file.size))
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
        IndexEntry.sortByHash(&index)
        let indexStart = file.size
        var samples: [UInt64] = []
        samples.reserveCapacity(count / Self.sampleSpacing + 1)
        var filter = BloomFilter(capacity: count, bitsPerKey: 10)
        for position in index.indices {
            let entry = index[position]
            try file.append(count: 16) { bytes in
                bytes.storeBytes(of: entry.hash.littleEndian, toByteOffset: 0, as: UInt64.self)
                bytes.storeBytes(of: entry.offset.littleEndian, toByteOffset: 8, as: Int64.self)
            }
            if position % Self.sampleSpacing == 0 { samples.append(entry.hash) }
            filter.insert(entry.hash)
        }
        try file.flush()
        runs.append(Run(indexStart: indexStart, count: count, samples: samples, filter: filter))

        if writtenCount + count > written.capacity {
            try rebuildWrittenFilter(capacity: max(2 * written.capacity, writtenCount + count))
        } else {
            for hash in pendingHashes { written.insert(hash) }
        }
        writtenCount += count
        pending.removeAll()
        pendingHashes.removeAll(keepingCapacity: true)
        pendingRowIDs.removeAll(keepingCapacity: true)
        pendingFirsts.removeAll(keepingCapacity: true)
    }

    /// A larger filter over all runs, from their hashes on disk: it doubles, so each key is read
    /// back about once over the whole run.
    private mutating func rebuildWrittenFilter(capacity: Int) throws {
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
        written = filter
    }

    private mutating func probe(_ run: Run, _ key: UnsafeBufferPointer<UInt8>, hash: UInt64) throws -> Found? {
        // The first sample not below `hash`; entries with the hash start after the one before it.
        var low = 0, high = run.samples.count
        while low < high {
            let middle = (low + high) / 2
            if run.samples[middle] < hash { low = middle + 1 } else { high = middle }
        }
        var position = max(low - 1, 0) * Self.sampleSpacing
        while position < run.count {
            let n = min(2 * Self.sampleSpacing, run.count - position)
            try readIndex(of: run, from: position, count: n)
            for e in 0..<n {
                let (entryHash, offset) = readBuffer.withUnsafeBytes { raw in
                    (UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: e * 16, as: UInt64.self)),
                     Int64(littleEndian: raw.loadUnaligned(fromByteOffset: e * 16 + 8, as: Int64.self)))
                }
                if entryHash < hash { continue }
                if entryHash > hash { return nil }
                if let found = try record(at: offset, matching: key) { return found }
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
        PipelineError(.io, stage: "sqlite", "the temporary file of the unique keys is cut short")
    }

    private mutating func record(at offset: Int64, matching key: UnsafeBufferPointer<UInt8>) throws -> Found? {
        // As long as `key`'s record would be: a shorter record there ends the read early only
        // at the end of the file, and its length already says it is another key.
        let read = try file.read(Self.recordHeader + key.count, at: offset, into: &readBuffer)
        guard read >= Self.recordHeader else { throw cutShort() }
        let length = readBuffer.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self))) }
        guard length == key.count else { return nil }
        guard read == Self.recordHeader + length else { throw cutShort() }
        return readBuffer.withUnsafeBytes { raw -> Found? in
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

    /// Sorts `entries` by hash in place: into buckets by the top 16 bits (an American flag sort,
    /// which needs no second array: a run's index is 4 MB, at the run's memory peak), then each
    /// bucket, a handful of entries with a run's evenly spread hashes, by insertion. A quarter of
    /// the time `sort(by:)` took.
    static func sortByHash(_ entries: inout [IndexEntry]) {
        guard entries.count > 1 else { return }
        let buckets = 1 << 16
        @inline(__always) func bucket(_ entry: IndexEntry) -> Int { Int(truncatingIfNeeded: entry.hash >> 48) }
        let next = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: buckets)
        let ends = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: buckets)
        defer { next.deallocate(); ends.deallocate() }
        ends.initialize(repeating: 0)
        entries.withUnsafeMutableBufferPointer { entries in
            for entry in entries { ends[bucket(entry)] += 1 }
            var start: UInt32 = 0
            for b in 0..<buckets { (next[b], start) = (start, start + ends[b]); ends[b] = start }
            // Each entry taken out goes straight to the next free place of its bucket; the one
            // there comes out in its turn, until an entry of this bucket comes back.
            for b in 0..<buckets {
                while next[b] < ends[b] {
                    var entry = entries[Int(next[b])]
                    var home = bucket(entry)
                    while home != b {
                        swap(&entry, &entries[Int(next[home])])
                        next[home] += 1
                        home = bucket(entry)
                    }
                    entries[Int(next[b])] = entry
                    next[b] += 1
                }
            }
            var low = 0
            for b in 0..<buckets {
                let high = Int(ends[b])
                if high - low > 32 {
                    var slice = UnsafeMutableBufferPointer(rebasing: entries[low..<high])
                    slice.sort { $0.hash < $1.hash }
                } else if high - low > 1 {
                    for i in (low + 1)..<high {
                        let entry = entries[i]
                        var j = i
                        while j > low, entries[j - 1].hash > entry.hash {
                            entries[j] = entries[j - 1]
                            j -= 1
                        }
                        entries[j] = entry
                    }
                }
                low = high
            }
        }
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
