import Pipeline

/// The unique keys written so far for one entity: each key's row id and where it was first seen.
///
/// The store is always built from scratch, so this map is complete and finding a key never
/// touches SQLite. A single text key (the common case) is hashed as the `String` itself; other
/// single keys as their `Value`; only composite keys build an array. The maps hold a small index
/// into `entries`, which is only appended to: with a million keys the maps outgrow the CPU caches,
/// and small slots there make each lookup cheaper.
struct KeyIndex {
    struct Entry {
        var rowID: Int64
        var first: Location
    }

    /// A record's key values, in the shape the index hashes.
    enum Key {
        case text(String)
        case value(Value)
        case values([Value])
    }

    private var texts: [String: Int32] = [:]
    private var values: [Value: Int32] = [:]
    private var tuples: [[Value]: Int32] = [:]
    private var entries: [Entry] = []

    /// The entry of `key`, or, for a new key, the entry `insert` makes (hashing the key once).
    ///
    /// `insert` writes the row; when it throws, the key stays new.
    mutating func find(_ key: Key, orInsert insert: () throws -> Entry) throws -> (entry: Entry, isNew: Bool) {
        switch key {
        case .text(let text): try KeyIndex.find(in: &texts[text, default: -1], entries: &entries, orInsert: insert)
        case .value(let value): try KeyIndex.find(in: &values[value, default: -1], entries: &entries, orInsert: insert)
        case .values(let tuple): try KeyIndex.find(in: &tuples[tuple, default: -1], entries: &entries, orInsert: insert)
        }
    }

    @inline(__always)
    private static func find(in slot: inout Int32, entries: inout [Entry],
                             orInsert insert: () throws -> Entry) throws -> (entry: Entry, isNew: Bool) {
        // A slot of -1 was just added for a key not written yet (or whose first write failed).
        guard slot < 0 else { return (entries[Int(slot)], false) }
        guard entries.count < Int32.max else {
            throw PipelineError(.io, stage: "sqlite", "more than \(Int32.max) records of one entity")
        }
        let entry = try insert()
        slot = Int32(entries.count)
        entries.append(entry)
        return (entry, true)
    }
}
