import Foundation
import Pipeline

/// The unique keys written so far for one entity: each key's row id and where it was first seen.
///
/// The store is always built from scratch, so this index is complete and finding a key never
/// touches SQLite. With a million keys it is the run's largest structure, so it is kept compact:
/// a text key (the common case) is stored as its UTF-8 bytes in one shared buffer, found through
/// an open-addressing table of 32-bit entry numbers (`TextKeyTable`), not as a `String` object
/// per key in a `Dictionary`; where each key was first seen is kept in 16 bytes (`LocationList`).
/// Other single keys are hashed as their `Value`, composite keys as an array. A class, so that a
/// lookup through its writer does not copy (retain and release) every one of its buffers.
final class KeyIndex {
    /// A key written before: its row, and the entry that `firstLocation(of:)` reads.
    struct Entry {
        var rowID: Int64
        fileprivate var number: Int32
    }

    /// A record's key values, in the shape the index hashes.
    enum Key {
        case text(String)
        case value(Value)
        case values([Value])
    }

    private var texts = TextKeyTable()
    /// Text that is not canonically equivalent to any ASCII text, by `String`'s own equality.
    private var unicodeTexts: [String: Int32] = [:]
    private var values: [Value: Int32] = [:]
    private var tuples: [[Value]: Int32] = [:]
    private var rowIDs: [Int64] = []
    private var firsts = LocationList()

    /// The entry of a key written before, if any.
    @inline(__always)
    func lookup(_ key: Key) -> Entry? {
        let number: Int32? = switch key {
        case .text(let text): lookup(text)
        case .value(let value): values[value]
        case .values(let tuple): tuples[tuple]
        }
        return number.map { Entry(rowID: rowIDs[Int($0)], number: $0) }
    }

    /// Where the key of `entry` was first seen.
    func firstLocation(of entry: Entry) -> Location {
        firsts[Int(entry.number)]
    }

    /// Records the row written for a new key and where its record came from.
    func insert(_ key: Key, rowID: Int64, first: Location) throws {
        guard rowIDs.count < Int32.max else {
            throw PipelineError(.io, stage: "sqlite", "more than \(Int32.max) records of one entity")
        }
        let number = Int32(rowIDs.count)
        rowIDs.append(rowID)
        firsts.append(first)
        switch key {
        case .text(let text): insert(text, number)
        case .value(let value): values[value] = number
        case .values(let tuple): tuples[tuple] = number
        }
    }

    // MARK: Text keys

    // `String` equality is canonical equivalence: "é" as one scalar equals "e" and a combining
    // accent. Bytes compare equal only for ASCII, so other text goes by its ASCII equivalent where
    // it has one, and else through a `Dictionary` keyed by the `String`.

    private func lookup(_ text: String) -> Int32? {
        var contiguous = text  // native strings are contiguous UTF-8 already: no copy
        return contiguous.withUTF8 { bytes in
            if TextKeyTable.isASCII(bytes) { return texts.find(bytes) }
            if let ascii = TextKeyTable.asciiEquivalent(of: bytes) {
                return ascii.withUnsafeBufferPointer { texts.find($0) }
            }
            return unicodeTexts[text]
        }
    }

    private func insert(_ text: String, _ number: Int32) {
        var contiguous = text
        contiguous.withUTF8 { bytes in
            if TextKeyTable.isASCII(bytes) {
                texts.insert(bytes, number)
            } else if let ascii = TextKeyTable.asciiEquivalent(of: bytes) {
                ascii.withUnsafeBufferPointer { texts.insert($0, number) }
            } else {
                unicodeTexts[text] = number
            }
        }
    }
}

/// A hash table from byte strings to entry numbers: the bytes of every key one after another in
/// one buffer, and an open-addressing table (linear probing) whose slots hold each key's hash
/// beside its number, so that probing compares hashes without touching anything else.
struct TextKeyTable {
    private var bytes: [UInt8] = []
    /// Key `k` is `bytes[starts[k]..<starts[k + 1]]`.
    private var starts: [Int] = [0]
    private var numbers: [Int32] = []
    /// `hash << 32 | (k + 1)`, 0 for an empty slot; a power of two long, at most half full.
    private var slots = [UInt64](repeating: 0, count: 1024)

    /// The value of `key`, if it was inserted.
    func find(_ key: UnsafeBufferPointer<UInt8>) -> Int32? {
        let hash = Self.hash(key)
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if UInt32(truncatingIfNeeded: entry >> 32) == hash {
                let k = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                if equals(k, key) { return numbers[k] }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Adds `key`, which is not in the table yet.
    mutating func insert(_ key: UnsafeBufferPointer<UInt8>, _ number: Int32) {
        if (numbers.count + 1) * 2 > slots.count { grow() }
        let k = UInt64(numbers.count)
        bytes.append(contentsOf: key)
        starts.append(bytes.count)
        numbers.append(number)
        place(UInt64(Self.hash(key)) << 32 | (k + 1))
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
        let start = starts[k], count = starts[k + 1] - start
        guard count == key.count else { return false }
        return bytes.withUnsafeBufferPointer { stored in
            guard count > 0, let base = key.baseAddress, let storedBase = stored.baseAddress else { return true }
            return memcmp(storedBase + start, base, count) == 0
        }
    }

    /// A fast 32-bit hash of bytes, eight at a time (multiply and fold, then a final mix).
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let raw = UnsafeRawBufferPointer(key)
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)
        var i = 0
        while i + 8 <= raw.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < raw.count {
            tail |= UInt64(raw[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        return UInt32(truncatingIfNeeded: h)
    }

    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        while i + 8 <= raw.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < raw.count {
            if raw[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The ASCII text that non-ASCII `bytes` are canonically equivalent to, if any. Only three
    /// scalars decompose to ASCII (GREEK QUESTION MARK to ';', GREEK VARIA to '`', KELVIN SIGN to
    /// 'K'), and any other non-ASCII scalar keeps text non-ASCII in every normal form.
    static func asciiEquivalent(of bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var ascii: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x80 {
                ascii.append(byte)
                i += 1
                continue
            }
            let next = i + 1 < bytes.count ? bytes[i + 1] : 0, third = i + 2 < bytes.count ? bytes[i + 2] : 0
            switch (byte, next, third) {
            case (0xCD, 0xBE, _):  // U+037E, two bytes
                ascii.append(UInt8(ascii: ";"))
                i += 2
            case (0xE1, 0xBF, 0xAF):  // U+1FEF
                ascii.append(UInt8(ascii: "`"))
                i += 3
            case (0xE2, 0x84, 0xAA):  // U+212A
                ascii.append(UInt8(ascii: "K"))
                i += 3
            default:
                return nil
            }
        }
        return ascii
    }
}
