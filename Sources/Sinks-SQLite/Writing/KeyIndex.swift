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

    /// The entry of a key written before, if any.
    @inline(__always)
    func lookup(_ key: Key) -> Entry? {
        let slot: Int32? = switch key {
        case .text(let text): texts[text]
        case .value(let value): values[value]
        case .values(let tuple): tuples[tuple]
        }
        return slot.map { entries[Int($0)] }
    }

    /// Records the row written for a new key.
    mutating func insert(_ key: Key, _ entry: Entry) throws {
        guard entries.count < Int32.max else {
            throw PipelineError(.io, stage: "sqlite", "more than \(Int32.max) records of one entity")
        }
        let slot = Int32(entries.count)
        entries.append(entry)
        switch key {
        case .text(let text): texts[text] = slot
        case .value(let value): values[value] = slot
        case .values(let tuple): tuples[tuple] = slot
        }
    }
}
