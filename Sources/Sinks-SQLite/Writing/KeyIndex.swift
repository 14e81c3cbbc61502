import Foundation
import Diagnostics
import Pipeline
import CoreDataFormat
import SQLite
internal import CPrefetch

/// The unique keys written so far for one entity: each key's row id and where it was first seen.
///
/// The store is always built from scratch, so this index is complete and finding a key never
/// touches SQLite. With a million keys it is the run's largest structure, so it is kept compact:
/// a text key (the common case) is stored as its UTF-8 bytes in one shared buffer, found through
/// an open-addressing table of 32-bit entry numbers (`TextKeyTable`), not as a `String` object
/// per key in a `Dictionary`; where each key was first seen is kept in 16 bytes (`LocationList`).
/// A key of integers (the rows a key over relationships names) is kept as bytes in the same table,
/// and a key of two rows that comes grouped by its first row, as a list's elements do, in an array
/// in that order (`PairRuns`). Past `Limits.memoryKeys` of these keys, new ones go to a `KeySpill`
/// on disk beside the store, so that memory stops growing. Other single keys are hashed as their
/// `Value`, other composite keys as an array, and always stay in memory. A class, so that a lookup
/// through its writer does not copy (retain and release) every one of its buffers.
final class KeyIndex {
    struct Limits {
        /// Text keys kept in memory, about 70 bytes each with short keys; later ones are spilled.
        var memoryKeys: Int
        /// Spilled keys collected in memory before they are written out as a sorted run.
        var runKeys: Int
        /// The bytes of the text keys kept in memory: long keys spill before `memoryKeys` do. At
        /// most 3.75 GB, so that the table's 32-bit offsets always reach (`TextKeyTable.canHold`).
        var memoryBytes: Int = 256 << 20

        /// About 75 MB for the keys in memory (up to 256 MB more when keys are long), and 20 MB
        /// for those waiting to be written out.
        static let standard = Limits(memoryKeys: 1 << 20, runKeys: 1 << 18)
    }

    /// A key written before: its row, and what `firstLocation(of:)` reads.
    struct Entry {
        var rowID: Int64
        fileprivate var number: Int32
        fileprivate var spilledFirst: Location?
    }

    /// A record's key values, in the shape the index hashes.
    enum Key {
        case text(String)
        /// A text key given by the canonical bytes its hash carries (`TextKeyHash.hasInlineBytes`):
        /// the same key as `.text` of the text they came from.
        case canonical(TextKeyHash)
        case value(Value)
        case values([Value])
        /// Two integers (the rows a join entity's key links): the same key as `.values` of the
        /// two, without an array made for each record.
        case pair(Int64, Int64)
        /// A `.text` key a lookup did not find, with its hash and the scratch generation that still
        /// holds its canonical bytes: inserting it right after does not normalize it again. When
        /// `isCanonical`, its canonical bytes are its UTF-8 (`TextKeyHash.isCanonical`), and
        /// inserting it does not look at them again either.
        case absent(String, hash: UInt64, generation: UInt64, isCanonical: Bool)
    }

    /// `spillDirectory`: where text keys past `limits.memoryKeys` are written (the store's folder).
    init(spillDirectory: URL, limits: Limits = .standard) {
        state = State(spillDirectory: spillDirectory, limits: limits)
    }

    /// The entry of a key written before, if any. `hash`: a text key's hash, if known (see
    /// `EntityRecord.keyHash`); otherwise it is computed here.
    @inline(__always)
    func lookup(_ key: Key, hash: TextKeyHash? = nil) throws -> Entry? {
        var key = key
        return try state.lookup(&key, hash: hash)
    }

    /// `lookup(_:hash:)` for a key that is inserted next if it is not found: a text key not
    /// found comes back as `.absent`, which `insert` takes without computing its canonical bytes
    /// again (the NFC form of a long key that is not ASCII, which a hash cannot carry).
    @inline(__always)
    func lookup(insertingIfAbsent key: inout Key, hash: TextKeyHash? = nil) throws -> Entry? {
        try state.lookup(&key, hash: hash)
    }

    /// Starts loading the part of the index a lookup of a text key with `hash` reads first, for
    /// a lookup soon.
    @inline(__always)
    func prefetch(_ hash: TextKeyHash) {
        state.prefetch(hash)
    }

    /// The text keys held in memory; the others went to disk.
    var keysInMemory: Int { state.keysInMemory }

    /// The text keys kept in memory, as their canonical text, if there are at most `limit`
    /// (for suggestions; none otherwise, as comparing with each would take too long).
    func textKeys(limit: Int) -> [String] {
        state.textKeys(limit: limit)
    }

    /// Where the key of `entry` was first seen.
    func firstLocation(of entry: Entry) -> Location {
        state.firstLocation(of: entry)
    }

    /// Records the row written for a new key and where its record came from.
    func insert(_ key: Key, hash: TextKeyHash? = nil, rowID: Int64, first: Location) throws {
        try state.insert(key, hash: hash, rowID: rowID, first: first)
    }

    /// The index proper, a value: each call above changes it within one access, where every use
    /// of a class's stored property is checked at run time on its own. Unchecked: a sink's
    /// writing thread alone uses it, one call at a time, and even one check per call was six
    /// per record.
    @exclusivity(unchecked) private var state: State

    private struct State {
        private let limits: Limits
        private let spillDirectory: URL
        private var texts = TextKeyTable()
        private var pairs = PairRuns()
        private var values: [Value: Int32] = [:]
        private var tuples: [[Value]: Int32] = [:]
        private var rowIDs: [Int64] = []
        private var firsts = LocationList()
        private var spill: KeySpill?
        private var normalized: [UInt8] = []
        /// Counts the uses of `normalized`, so that an `.absent` key knows whether it still holds
        /// its bytes.
        private var generation: UInt64 = 0

        init(spillDirectory: URL, limits: Limits) {
            self.spillDirectory = spillDirectory
            self.limits = limits
        }

        @inline(__always)
        mutating func lookup(_ key: inout Key, hash: TextKeyHash?) throws -> Entry? {
            let number: Int32?
            switch key {
            case .text(let text), .absent(let text, _, _, _):
                // The scratch buffer is taken out for the call: `self` is read inside it.
                var scratch: [UInt8] = []
                swap(&scratch, &normalized)
                defer { swap(&scratch, &normalized) }
                generation &+= 1
                var found: Entry?
                var hashed: UInt64 = 0
                var isCanonical = false
                try Self.withCanonicalBytes(text, hash: hash, scratch: &scratch) {
                    hashed = $1
                    isCanonical = $2
                    found = try lookup(canonical: $0, hash: $1)
                }
                if found == nil { key = .absent(text, hash: hashed, generation: generation, isCanonical: isCanonical) }
                return found
            case .canonical(let hash):
                return try Self.withInlineBytes(of: hash) { try lookup(canonical: $0, hash: hash.value) }
            case .value(let value): number = values[value]
            case .values(let tuple):
                if let (a, b) = Self.integerPair(tuple) { return try lookupPair(a, b) }
                if let found = try Self.withPackedIntegers(tuple, { try lookup(canonical: $0, hash: TextKeyHash.hash($0)) }) { return found }
                number = tuples[tuple]
            case .pair(let a, let b):
                return try lookupPair(a, b)
            }
            return number.map { Entry(rowID: rowIDs[Int($0)], number: $0) }
        }

        // `mutating`, as `firstLocation` is, only so that the class's call reaches the state in
        // place: a non-mutating one copies it, retaining and releasing every array in it.
        mutating func prefetch(_ hash: TextKeyHash) {
            texts.prefetch(hash: UInt32(truncatingIfNeeded: hash.value))
            spill?.prefetch(hash.value)
        }

        var keysInMemory: Int { texts.count + pairs.count }

        mutating func textKeys(limit: Int) -> [String] {
            guard texts.count <= limit, spill == nil else { return [] }
            return (0..<texts.count).map { k in texts.withKey(k) { String(decoding: $0, as: UTF8.self) } }
        }

        mutating func firstLocation(of entry: Entry) -> Location {
            entry.spilledFirst ?? firsts[Int(entry.number)]
        }

        mutating func insert(_ key: Key, hash known: TextKeyHash?, rowID: Int64, first: Location) throws {
            // A key is at most a record (10 MB), three times that once normalized: the 256 MB
            // left above `memoryBytes` keeps the table's bytes within its 32-bit offsets.
            if keysInMemory >= limits.memoryKeys || texts.byteCount >= min(limits.memoryBytes, 15 << 28) {
                switch key {
                case .text(let text):
                    var scratch: [UInt8] = []
                    swap(&scratch, &normalized)
                    defer { swap(&scratch, &normalized) }
                    generation &+= 1
                    return try Self.withCanonicalBytes(text, hash: known, scratch: &scratch) { bytes, hash, _ in
                        try spill(canonical: bytes, hash: hash, rowID: rowID, first: first)
                    }
                case .absent(let text, let hash, let generation, let isCanonical):
                    var scratch: [UInt8] = []
                    swap(&scratch, &normalized)
                    defer { swap(&scratch, &normalized) }
                    let fresh = generation == self.generation
                    self.generation &+= 1
                    return try Self.withAbsentBytes(text, isCanonical: isCanonical, fresh: fresh, scratch: &scratch) {
                        try spill(canonical: $0, hash: hash, rowID: rowID, first: first)
                    }
                case .canonical(let hash):
                    return try Self.withInlineBytes(of: hash) { try spill(canonical: $0, hash: hash.value, rowID: rowID, first: first) }
                case .values(let tuple):
                    if let (a, _) = Self.integerPair(tuple) { pairs.noteElsewhere(a) }
                    if try Self.withPackedIntegers(tuple, { try spill(canonical: $0, hash: TextKeyHash.hash($0), rowID: rowID, first: first) }) != nil {
                        return
                    }
                case .pair(let a, let b):
                    pairs.noteElsewhere(a)
                    return try Self.withPacked(a, b) { try spill(canonical: $0, hash: TextKeyHash.hash($0), rowID: rowID, first: first) }
                case .value: break
                }
            }
            guard rowIDs.count < Int32.max else {
                throw PipelineError(.io, code: .storeTooManyRecords, stage: "sqlite", "more than \(Int32.max) records of one entity")
            }
            let number = Int32(rowIDs.count)
            rowIDs.append(rowID)
            firsts.append(first)
            switch key {
            case .text(let text):
                generation &+= 1
                Self.withCanonicalBytes(text, hash: known, scratch: &normalized) { bytes, hash, _ in
                    texts.insert(bytes, hash: UInt32(truncatingIfNeeded: hash), number)
                }
            case .absent(let text, let hash, let generation, let isCanonical):
                let fresh = generation == self.generation
                self.generation &+= 1
                Self.withAbsentBytes(text, isCanonical: isCanonical, fresh: fresh, scratch: &normalized) {
                    texts.insert($0, hash: UInt32(truncatingIfNeeded: hash), number)
                }
            case .canonical(let hash):
                Self.withInlineBytes(of: hash) { texts.insert($0, hash: UInt32(truncatingIfNeeded: hash.value), number) }
            case .value(let value): values[value] = number
            case .values(let tuple):
                if let (a, b) = Self.integerPair(tuple) {
                    insertPair(a, b, number)
                } else if Self.withPackedIntegers(tuple, { texts.insert($0, hash: UInt32(truncatingIfNeeded: TextKeyHash.hash($0)), number) }) == nil {
                    tuples[tuple] = number
                }
            case .pair(let a, let b):
                insertPair(a, b, number)
            }
        }

        // MARK: Keys of two rows

        /// A key of two integers: `.pair`, or `.values` of the two, which is the same key.
        private static func integerPair(_ tuple: [Value]) -> (Int64, Int64)? {
            guard tuple.count == 2, case .integer(let a) = tuple[0], case .integer(let b) = tuple[1] else { return nil }
            return (a, b)
        }

        private mutating func lookupPair(_ a: Int64, _ b: Int64) throws -> Entry? {
            if let number = pairs.find(a, b) { return Entry(rowID: rowIDs[Int(number)], number: number) }
            guard pairs.mayBeElsewhere(a) else { return nil }
            return try Self.withPacked(a, b) { try lookup(canonical: $0, hash: TextKeyHash.hash($0)) }
        }

        private mutating func insertPair(_ a: Int64, _ b: Int64, _ number: Int32) {
            if pairs.insert(a, b, number) { return }
            pairs.noteElsewhere(a)
            Self.withPacked(a, b) { texts.insert($0, hash: UInt32(truncatingIfNeeded: TextKeyHash.hash($0)), number) }
        }

        /// A key of integers only (the rows a key over relationships names, `recipe, ingredient`)
        /// as bytes: 0xFF, which never starts UTF-8 text, then each integer's 8 bytes. Kept in the
        /// text table (and spilled like text keys), such a key takes about 40 bytes where a
        /// dictionary entry holding its array took a few times that and a hash of each value.
        /// `body`'s result for those bytes, or nil (and `body` not called) when a part is not an
        /// integer. On the stack: appended to an array, a recipe ingredient's two rows cost about
        /// 250 instructions more for each of the key's two uses.
        // Not inlined, nor is `withPacked`: inlined, their stack buffers slowed the text keys'
        // lookups that share the calling switch (the distinct job: +24M at 100k).
        @inline(never)
        private static func withPackedIntegers<R>(_ tuple: [Value], _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1 + 8 * tuple.count) { bytes in
                bytes[0] = 0xFF
                var offset = 1
                for value in tuple {
                    guard case .integer(let number) = value else { return nil }
                    UnsafeMutableRawPointer(bytes.baseAddress! + offset).storeBytes(of: number.littleEndian, as: Int64.self)
                    offset += 8
                }
                return try body(UnsafeBufferPointer(bytes))
            }
        }

        /// `withPackedIntegers` of `[.integer(a), .integer(b)]`: the same bytes.
        @inline(never)
        private static func withPacked<R>(_ a: Int64, _ b: Int64, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 17) { bytes in
                bytes[0] = 0xFF
                UnsafeMutableRawPointer(bytes.baseAddress! + 1).storeBytes(of: a.littleEndian, as: Int64.self)
                UnsafeMutableRawPointer(bytes.baseAddress! + 9).storeBytes(of: b.littleEndian, as: Int64.self)
                return try body(UnsafeBufferPointer(bytes))
            }
        }

        // MARK: Text keys

        private mutating func lookup(canonical bytes: UnsafeBufferPointer<UInt8>, hash: UInt64) throws -> Entry? {
            if let k = texts.find(bytes, hash: UInt32(truncatingIfNeeded: hash)) {
                let number = texts.number(k)
                return Entry(rowID: rowIDs[Int(number)], number: number)
            }
            return try spill?.find(bytes, hash: hash).map { Entry(rowID: $0.rowID, number: -1, spilledFirst: $0.first) }
        }

        private mutating func spill(canonical bytes: UnsafeBufferPointer<UInt8>, hash: UInt64, rowID: Int64, first: Location) throws {
            if spill == nil { spill = try KeySpill(directory: spillDirectory, runKeys: limits.runKeys) }
            try spill!.insert(bytes, hash: hash, rowID: rowID, first: first)
        }

        /// Calls `body` with the canonical bytes a `.canonical` key carries.
        @inline(__always)
        private static func withInlineBytes<R>(of hash: TextKeyHash, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            guard let result = try hash.withInlineBytes(body) else {
                preconditionFailure("a canonical key without its bytes")
            }
            return result
        }

        /// Calls `body` with the canonical bytes of an `.absent` key: those `scratch` still holds
        /// from its lookup when `fresh`, else made again.
        @inline(__always)
        private static func withAbsentBytes<R>(_ text: String, isCanonical: Bool, fresh: Bool, scratch: inout [UInt8],
                                               _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            // A canonical key is its own bytes, and a lookup leaves nothing in `scratch` for it.
            if isCanonical, let result = try text.utf8.withContiguousStorageIfAvailable(body) { return result }
            if fresh {
                assert({ var check: [UInt8] = []; return TextKeyHash.withNormalizedBytes(text, scratch: &check) { Array($0) } }() == scratch,
                       "'\(text)': the scratch buffer no longer holds its canonical bytes")
                return try scratch.withUnsafeBufferPointer(body)
            }
            return try TextKeyHash.withCanonicalBytes(text, scratch: &scratch) { bytes, _ in try body(bytes) }
        }

        /// Calls `body` with the bytes `text` is compared by (see `TextKeyHash`), their hash,
        /// computed unless `known`, and whether they are its UTF-8. `scratch` holds the NFC form
        /// of text that is not canonical.
        @inline(__always)
        private static func withCanonicalBytes<R>(_ text: String, hash known: TextKeyHash?, scratch: inout [UInt8],
                                                  _ body: (UnsafeBufferPointer<UInt8>, UInt64, Bool) throws -> R) rethrows -> R {
            guard let known else {
                return try TextKeyHash.withCanonicalBytes(text, scratch: &scratch) { try body($0, TextKeyHash.hash($0), $1) }
            }
            assert(known == TextKeyHash(of: text, scratch: &scratch), "the hash given with '\(text)' is not its own")
            if known.isCanonical, let result = try text.utf8.withContiguousStorageIfAvailable({ try body($0, known.value, true) }) {
                return result
            }
            return try TextKeyHash.withNormalizedBytes(text, scratch: &scratch) { try body($0, known.value, false) }
        }
    }
}

/// Keys of two rows (`recipe, ingredient`) in the order they came, where they come grouped by a
/// first row that only grows: the elements of a list keyed by the row that lists them, stored
/// right after that row was made. A key is then found among its group's few, side by side, where
/// the text table reads a slot anywhere in a table of millions: its misses were a tenth of the
/// nested job's writing thread. A key that comes otherwise (a first row below the last group's),
/// or past a group's first `groupLimit`, goes to the text table, and lookups of its first row
/// read that table too (`mayBeElsewhere`).
struct PairRuns {
    private struct Pair {
        var first: Int64
        var second: Int64
        var number: Int32
    }

    /// Sorted by `first`: a group's keys are together.
    private var pairs: [Pair] = []
    /// Where the last group begins.
    private var lastGroup = 0
    /// The largest first row of a key kept elsewhere.
    private var elsewhere = Int64.min
    /// A lookup reads at most this many keys of a group: a long list's later keys go to the table.
    static let groupLimit = 16

    var count: Int { pairs.count }

    /// The entry number of the key `(first, second)`, if it is kept here.
    func find(_ first: Int64, _ second: Int64) -> Int32? {
        pairs.withUnsafeBufferPointer { pairs in
            guard let last = pairs.last, first <= last.first, first >= pairs[0].first else { return nil }
            var k = first == last.first ? lastGroup : Self.groupStart(of: first, in: pairs)
            while k < pairs.count && pairs[k].first == first {
                if pairs[k].second == second { return pairs[k].number }
                k += 1
            }
            return nil
        }
    }

    /// Whether a key whose first row is `first` may be kept elsewhere.
    func mayBeElsewhere(_ first: Int64) -> Bool {
        first <= elsewhere
    }

    /// Notes a key kept elsewhere (one `insert` turned away, or one past the memory limit).
    mutating func noteElsewhere(_ first: Int64) {
        elsewhere = max(elsewhere, first)
    }

    /// Keeps a key not kept anywhere yet, if it extends the last group or starts a new one; false
    /// where it is to be kept elsewhere.
    mutating func insert(_ first: Int64, _ second: Int64, _ number: Int32) -> Bool {
        guard first > elsewhere else { return false }
        if let last = pairs.last?.first {
            if first < last || (first == last && pairs.count - lastGroup >= Self.groupLimit) { return false }
            if first > last { lastGroup = pairs.count }
        }
        pairs.append(Pair(first: first, second: second, number: number))
        return true
    }

    private static func groupStart(of first: Int64, in pairs: UnsafeBufferPointer<Pair>) -> Int {
        var low = 0, high = pairs.count
        while low < high {
            let middle = (low + high) / 2
            if pairs[middle].first < first { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A hash table from byte strings to entry numbers: the bytes of every key one after another in
/// one buffer, and an open-addressing table (linear probing) whose slots hold each key's hash
/// beside its place in the buffer, so that probing compares hashes without touching anything else.
/// Callers hash the key (`TextKeyHash.hash(_:)`): the hash is kept for more than this table.
struct TextKeyTable {
    private var bytes: [UInt8] = []
    /// Key `k` is `bytes[starts[k]..<starts[k + 1]]`. 32 bits, half of an `Int`: with a million
    /// keys that is 4 MB of the run's peak; a table whose bytes would pass 4 GB takes no more keys
    /// (`canHold`), and its owner spills them.
    private var starts: [UInt32] = [0]
    private var numbers: [Int32] = []
    /// `hash << 32 | (k + 1)`, 0 for an empty slot; a power of two long, at most half full.
    private var slots = [UInt64](repeating: 0, count: 1024)

    var count: Int { numbers.count }
    /// The bytes of all keys.
    var byteCount: Int { bytes.count }

    /// The place `k` of `key`, if it was inserted; `number(k)` is its value.
    func find(_ key: UnsafeBufferPointer<UInt8>, hash: UInt32) -> Int? {
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if UInt32(truncatingIfNeeded: entry >> 32) == hash {
                let k = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                if equals(k, key) { return k }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Starts loading the slot where a lookup of a key with `hash` begins.
    @inline(__always)
    func prefetch(hash: UInt32) {
        slots.withUnsafeBufferPointer { pipectl_prefetch($0.baseAddress! + (Int(hash) & ($0.count - 1))) }
    }

    func number(_ k: Int) -> Int32 {
        numbers[k]
    }

    func withKey<R>(_ k: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[Int(starts[k])..<Int(starts[k + 1])])) }
    }

    /// Calls `body` with where each key starts among the bytes of all keys: key `k` at `starts[k]`.
    func withKeyStarts<R>(_ body: (UnsafeBufferPointer<UInt32>) throws -> R) rethrows -> R {
        try starts.withUnsafeBufferPointer(body)
    }

    /// Whether a key of `count` bytes still fits: all keys' bytes stay below 4 GB.
    func canHold(_ count: Int) -> Bool {
        bytes.count + count <= Int(UInt32.max)
    }

    /// Adds `key`, which is not in the table yet, with its `hash`; the table `canHold` it.
    mutating func insert(_ key: UnsafeBufferPointer<UInt8>, hash: UInt32, _ number: Int32) {
        precondition(canHold(key.count), "a key table past 4 GB")
        if (numbers.count + 1) * 2 > slots.count { grow() }
        let k = UInt64(numbers.count)
        bytes.append(contentsOf: key)
        starts.append(UInt32(truncatingIfNeeded: bytes.count))
        numbers.append(number)
        place(UInt64(hash) << 32 | (k + 1))
    }

    /// Empties the table and keeps its memory for the next keys.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        starts.append(0)
        numbers.removeAll(keepingCapacity: true)
        for i in slots.indices { slots[i] = 0 }
    }

    private mutating func place(_ entry: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: entry >> 32) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        for entry in old where entry != 0 { place(entry) }
    }

    private func equals(_ k: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = Int(starts[k]), count = Int(starts[k + 1]) - start
        guard count == key.count else { return false }
        return bytes.withUnsafeBufferPointer { stored in
            guard count > 0, let base = key.baseAddress, let storedBase = stored.baseAddress else { return true }
            return memcmp(storedBase + start, base, count) == 0
        }
    }
}
