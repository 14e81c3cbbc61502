/// A table from date values to their instants, for `DateTransform`: 16,384 places (512 KB, made
/// on first use), each holding the last value of up to 16 bytes that hashed there. A value is its
/// own key (its bytes, not a hash of them), so a value found is always the value asked for.
/// Exports repeat their dates: the benchmark's 100,000 rows have 13,000 distinct ones.
struct RecentDates {
    /// A value's UTF-8, zero-padded, and its length.
    struct Key: Equatable {
        let low: UInt64, high: UInt64, count: Int
    }

    private static let placeBits = 14
    static let places = 1 << placeBits
    private var keys: [Key?] = []
    private var instants: [Double] = []

    /// The key of `text`; nil for a value longer than 16 bytes, which is never kept.
    static func key(_ text: String) -> Key? {
        var text = text
        return text.withUTF8 { bytes -> Key? in
            guard bytes.count <= 16 else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
            return Key(low: words.0, high: words.1, count: bytes.count)
        }
    }

    /// The place of a key: its words folded and multiplied, the top 14 bits of the product (a
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
            guard !keys.isEmpty else { return nil }
            let place = RecentDates.place(of: key)
            return keys[place] == key ? instants[place] : nil
        }
        set {
            guard let newValue else { return }
            if keys.isEmpty {
                keys = Array(repeating: nil, count: RecentDates.places)
                instants = Array(repeating: 0, count: RecentDates.places)
            }
            let place = RecentDates.place(of: key)
            keys[place] = key
            instants[place] = newValue
        }
    }
}
