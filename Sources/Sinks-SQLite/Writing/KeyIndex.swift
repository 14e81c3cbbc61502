import Pipeline

/// The unique keys written so far for one entity: each key's row id and where it was first seen.
///
/// The store is always built from scratch, so this map is complete and finding a key never
/// touches SQLite. A single text key (the common case) is hashed as the `String` itself; other
/// single keys as their `Value`; only composite keys build an array.
struct KeyIndex {
    struct Entry {
        /// 0 while the key's row is not written (SQLite never hands out row id 0).
        var rowID: Int64
        var first: Location
    }

    /// A record's key values, in the shape the index hashes.
    enum Key {
        case text(String)
        case value(Value)
        case values([Value])
    }

    private var texts: [String: Entry] = [:]
    private var values: [Value: Entry] = [:]
    private var tuples: [[Value]: Entry] = [:]

    /// Calls `body` with the entry for `key`, added with row id 0 when the key is new: one hash
    /// whether the key is found or added.
    mutating func withEntry<R>(for key: Key, firstSeenAt location: Location, _ body: (inout Entry) throws -> R) rethrows -> R {
        switch key {
        case .text(let text): try body(&texts[text, default: Entry(rowID: 0, first: location)])
        case .value(let value): try body(&values[value, default: Entry(rowID: 0, first: location)])
        case .values(let tuple): try body(&tuples[tuple, default: Entry(rowID: 0, first: location)])
        }
    }
}
