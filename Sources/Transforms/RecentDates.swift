/// A table from date values to their instants, for `DateTransform`: 4,096 places (128 KB, made on
/// first use), each holding the last value of up to 16 bytes that hashed there with its instant.
/// A value is its own key (its bytes, not a hash of them), so a value found is always the value
/// asked for.
///
/// Exports repeat their dates, and a value found here skips its pattern and the zone's rules
/// (about 1,100 instructions). The table stays small enough for the core's cache: at 16,384
/// places (512 KB) it missed the cache itself on most values of a column of tens of thousands
/// of dates (the benchmarks' 100k rows have 13,000): four fifths of the date step's own time at
/// 1M rows was that one load (docs/benchmarks.md has the figures).
struct RecentDates {
    /// A value's UTF-8, zero-padded, and its length.
    struct Key: Equatable {
        let low: UInt64, high: UInt64, count: Int
    }

    /// A key and its instant side by side: one cache line a lookup.
    private struct Entry {
        var low: UInt64, high: UInt64
        var instant: Double
        /// The value's length; 0 for a place never filled (an empty value is never kept).
        var count: UInt8
    }

    private static let placeBits = 12
    static let places = 1 << placeBits
    private var entries: [Entry] = []

    /// The key of `text`; nil for an empty value or one longer than 16 bytes, which is never kept.
    static func key(_ text: String) -> Key? {
        var text = text
        return text.withUTF8 { bytes -> Key? in
            guard bytes.count <= 16, !bytes.isEmpty else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
            return Key(low: words.0, high: words.1, count: bytes.count)
        }
    }

    /// The place of a key: its words folded and multiplied, the top bits of the product (a
    /// product's low bits see only the factors' low bits, which are a date's first characters).
    private static func place(of key: Key) -> Int {
        var h = key.low &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ (h >> 29) ^ key.high ^ UInt64(key.count)) &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 31
        h = h &* 0xC4CE_B9FE_1A85_EC53
        return Int(truncatingIfNeeded: h >> UInt64(64 - placeBits))
    }

    subscript(key: Key) -> Double? {
        get {
            guard !entries.isEmpty else { return nil }
            let entry = entries[RecentDates.place(of: key)]
            return entry.low == key.low && entry.high == key.high && Int(entry.count) == key.count ? entry.instant : nil
        }
        set {
            guard let newValue else { return }
            if entries.isEmpty {
                entries = Array(repeating: Entry(low: 0, high: 0, instant: 0, count: 0), count: RecentDates.places)
            }
            entries[RecentDates.place(of: key)] = Entry(low: key.low, high: key.high, instant: newValue, count: UInt8(key.count))
        }
    }
}
