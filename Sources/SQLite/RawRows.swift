import CSQLite
import Foundation
import Pipeline

/// Rows of a query kept as SQLite gave them, a batch in one buffer: read without making a `Value`
/// of each field, compared in SQLite's own order of stored values, and made values only where
/// shown. Comparing two stores of a million rows this way spares two million arrays of values.
///
/// Unchecked `Sendable`: a batch is filled by one thread, then handed to another that reads it.
public final class RawRows: @unchecked Sendable {
    /// Storage classes as kept in the buffer: a field is this byte, then the integer's or real's
    /// 8 bytes, or the text's or blob's own bytes.
    private enum Storage: UInt8 { case null, integer, real, text, blob }

    public let width: Int
    public var count: Int { state.pointee.count }
    /// The bytes of all fields so far.
    public var byteCount: Int { state.pointee.used }

    /// Behind a pointer rather than in stored properties: a class's `var`s are checked for
    /// exclusive access at run time on every read and write, a tenth of the time of reading rows.
    private let state: UnsafeMutablePointer<State>

    private struct State {
        var buffer: UnsafeMutableRawPointer
        var capacity: Int
        var used = 0
        var count = 0
        /// Where each field starts, `width` a row, then where the last one ends.
        var starts: UnsafeMutablePointer<Int>
        var startsCapacity: Int
        var startsCount = 1
    }

    /// Room for `rows` rows of `width` fields, and about `bytes` bytes of values to begin with.
    public init(width: Int, rows: Int = 1, bytes: Int = 256) {
        self.width = width
        let capacity = max(bytes, 16), startsCapacity = max(rows, 1) * width + 1
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: startsCapacity)
        starts[0] = 0
        state = .allocate(capacity: 1)
        state.initialize(to: State(buffer: .allocate(byteCount: capacity, alignment: 8), capacity: capacity,
                                   starts: starts, startsCapacity: startsCapacity))
    }

    deinit {
        state.pointee.buffer.deallocate()
        state.pointee.starts.deallocate()
        state.deallocate()
    }

    /// The keys of a table's rows by row id, to stand in for a column of row ids (a link): the
    /// related record's key without a join, which looks each row up in the table it names.
    public final class Lookup: @unchecked Sendable {
        /// Field 0 of each row is a key; read only once made.
        let keys: RawRows
        /// Row ids from 0 to a few times the count (Core Data's Z_PK counts from 1): the row of
        /// each, -1 for none; others by hashing.
        private let dense: [Int32]
        private let sparse: [Int64: Int]

        /// `keys`' row `i` is the key of the row whose id is `rowIDs[i]`.
        public init(keys: RawRows, rowIDs: [Int64]) {
            precondition(keys.count == rowIDs.count, "a row id for each key")
            self.keys = keys
            var dense = [Int32](repeating: -1, count: min(4 * rowIDs.count + 64, 1 << 20))
            var sparse: [Int64: Int] = [:]
            for (row, id) in rowIDs.enumerated() {
                if id >= 0 && id < dense.count {
                    if dense[Int(id)] < 0 { dense[Int(id)] = Int32(row) }
                } else if sparse[id] == nil {
                    sparse[id] = row
                }
            }
            self.dense = dense
            self.sparse = sparse
        }

        /// The row ids for which `other` gives another key than this (or none where this gives
        /// one, or one where this gives none): elsewhere a link's row id in one store stands for
        /// what the same id does in the other. Nil where there are more than `limit`.
        public func rowIDsKeyedOtherwise(in other: Lookup, limit: Int) -> Set<Int64>? {
            var differing: Set<Int64> = []
            func check(_ id: Int64) -> Bool {
                switch (row(id), other.row(id)) {
                case (nil, nil): return true
                case (let mine?, let theirs?) where keys.sameBytes(mine, as: other.keys, theirs, fields: 0..<1): return true
                default:
                    differing.insert(id)
                    return differing.count <= limit
                }
            }
            for lookup in [self, other] {
                for (id, row) in lookup.dense.enumerated() where row >= 0 { guard check(Int64(id)) else { return nil } }
                for id in lookup.sparse.keys { guard check(id) else { return nil } }
            }
            return differing
        }

        /// The row of `keys` holding the key of the row whose id is `id`; nil for none.
        public func row(_ id: Int64) -> Int? {
            if id >= 0 && id < dense.count {
                let row = dense[Int(id)]
                return row < 0 ? nil : Int(row)
            }
            return sparse.isEmpty ? nil : sparse[id]
        }
    }

    /// Appends the current row of `statement`, which has `width` columns; a column with a lookup
    /// in `lookups` (one for each column, or none) is read as the key of the row it names, NULL
    /// where it names none, as `LEFT JOIN` reads it. False, the row not appended, where such a
    /// column holds text or bytes: no row id, but a join would compare it by SQLite's rules.
    @discardableResult
    public func append(_ statement: SQLiteStatement, lookups: [Lookup?]) -> Bool {
        guard !lookups.isEmpty else {
            append(statement)
            return true
        }
        let mark = (state.pointee.used, state.pointee.startsCount)
        let handle = statement.handle
        for column in 0..<width {
            // Borrowed, not retained: a retain and release a field showed in reading a store.
            guard let lookup = unsafe lookups[column].map({ Unmanaged.passUnretained($0) }) else {
                appendColumn(handle, Int32(column))
                continue
            }
            let rowID: Int64?
            switch sqlite3_column_type(handle, Int32(column)) {
            case SQLITE_INTEGER: rowID = sqlite3_column_int64(handle, Int32(column))
            case SQLITE_FLOAT: rowID = Int64(exactly: sqlite3_column_double(handle, Int32(column)))
            case SQLITE_NULL: rowID = nil
            default:
                (state.pointee.used, state.pointee.startsCount) = mark
                return false
            }
            if let rowID, let row = lookup._withUnsafeGuaranteedRef({ $0.row(rowID) }) {
                lookup._withUnsafeGuaranteedRef { appendField(of: $0.keys, row: row, field: 0) }
            } else {
                put(.null, UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }
        state.pointee.count += 1
        return true
    }

    /// Appends the current row of `statement`, which has `width` columns.
    public func append(_ statement: SQLiteStatement) {
        let handle = statement.handle
        for column in 0..<Int32(width) { appendColumn(handle, column) }
        state.pointee.count += 1
    }

    private func appendColumn(_ handle: OpaquePointer, _ column: Int32) {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            put(.integer, sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            put(.real, sqlite3_column_double(handle, column).bitPattern)
        case SQLITE_TEXT:
            // Text first, then its length: the documented order that avoids a conversion.
            let text = sqlite3_column_text(handle, column)
            put(.text, UnsafeRawBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(handle, column))))
        case SQLITE_BLOB:
            let blob = sqlite3_column_blob(handle, column)
            put(.blob, UnsafeRawBufferPointer(start: blob, count: blob == nil ? 0 : Int(sqlite3_column_bytes(handle, column))))
        default:
            put(.null, UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    // Row by row from a record (`TableRecords`): fields put one at a time, then the row ended.

    /// Where the rows end now, to go back to (`rollBack(to:)`) when a row cannot be finished.
    var mark: (used: Int, startsCount: Int) { (state.pointee.used, state.pointee.startsCount) }

    func rollBack(to mark: (used: Int, startsCount: Int)) { (state.pointee.used, state.pointee.startsCount) = mark }

    func putNull() { put(.null, UnsafeRawBufferPointer(start: nil, count: 0)) }

    func putInteger(_ number: Int64) { put(.integer, number) }

    func putReal(_ bits: UInt64) { put(.real, bits) }

    func putBytes(text: Bool, _ bytes: UnsafeRawBufferPointer) { put(text ? .text : .blob, bytes) }

    /// The key `lookup` keeps in its row `row`.
    func appendKey(of lookup: Lookup, row: Int) { appendField(of: lookup.keys, row: row, field: 0) }

    func endRow() { state.pointee.count += 1 }

    /// Empties the rows and keeps their memory: a batch read again into memory still in the
    /// cache, rather than into a new allocation the processor has to fetch line by line.
    public func removeAll() {
        state.pointee.used = 0
        state.pointee.count = 0
        state.pointee.startsCount = 1
    }

    private func appendField(of other: RawRows, row: Int, field: Int) {
        let index = row * other.width + field
        let first = other.state.pointee.starts[index], end = other.state.pointee.starts[index + 1]
        reserve(end - first, fields: 1)
        let at = state.pointee.used
        state.pointee.buffer.advanced(by: at).copyMemory(from: other.state.pointee.buffer.advanced(by: first), byteCount: end - first)
        ended(at + end - first)
    }

    /// Appends the first `width` fields of row `row` of `other` (all of them, or its key).
    public func append(_ other: RawRows, row: Int) {
        precondition(width <= other.width && other !== self, "a row copied from other rows at least as wide")
        let from = other.state.pointee, base = row * other.width
        let first = from.starts[base], end = from.starts[base + width]
        reserve(end - first, fields: width)
        state.pointee.buffer.advanced(by: state.pointee.used).copyMemory(from: from.buffer.advanced(by: first), byteCount: end - first)
        for field in 1...width {
            state.pointee.starts[state.pointee.startsCount] = state.pointee.used + from.starts[base + field] - first
            state.pointee.startsCount += 1
        }
        state.pointee.used += end - first
        state.pointee.count += 1
    }

    /// Field `field` of row `row`, as `SQLiteStatement.value(at:)` reads it.
    public func value(_ row: Int, _ field: Int) -> Value {
        let (storage, bytes) = self[row, field]
        switch storage {
        case .null: return .null
        case .integer: return .integer(bytes.loadUnaligned(as: Int64.self))
        case .real: return .double(Double(bitPattern: bytes.loadUnaligned(as: UInt64.self)))
        case .text: return .text(String(decoding: bytes, as: UTF8.self))
        case .blob: return .binary(Array(bytes))
        }
    }

    /// The order of field `field` of row `row` and field `otherField` of `other`'s row `otherRow`,
    /// as SQLite sorts stored values (BINARY collation): NULL, then numbers by value, then text by
    /// bytes, then blobs by bytes. -1, 0 or 1.
    public func compare(_ row: Int, _ field: Int, with other: RawRows, _ otherRow: Int, _ otherField: Int) -> Int {
        let (a, x) = self[row, field], (b, y) = other[otherRow, otherField]
        let (ra, rb) = (Self.rank(a), Self.rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.null, _):
            return 0
        case (.integer, .integer):
            let (p, q) = (x.loadUnaligned(as: Int64.self), y.loadUnaligned(as: Int64.self))
            return p == q ? 0 : p < q ? -1 : 1
        case (.text, _), (.blob, _):
            let common = min(x.count, y.count)
            if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                let order = memcmp(p, q, common)
                if order != 0 { return order < 0 ? -1 : 1 }
            }
            return x.count == y.count ? 0 : x.count < y.count ? -1 : 1
        default:
            let (p, q) = (Self.number(a, x), Self.number(b, y))
            return p == q ? 0 : p < q ? -1 : 1
        }
    }

    /// Whether fields `fields` of row `row` hold the same storage and bytes as those of `other`'s
    /// row `otherRow`, field for field: then each pair compares equal. (False says nothing: an
    /// integer and a real of one value compare equal in other bytes.)
    public func sameBytes(_ row: Int, as other: RawRows, _ otherRow: Int, fields: Range<Int>) -> Bool {
        precondition(row >= 0 && row < count && otherRow >= 0 && otherRow < other.count
                     && fields.lowerBound >= 0 && fields.upperBound <= width && fields.upperBound <= other.width, "no such fields")
        guard !fields.isEmpty else { return true }
        let a = state.pointee, b = other.state.pointee
        let (i, j) = (row * width + fields.lowerBound, otherRow * other.width + fields.lowerBound)
        // Each field as long as its counterpart, so that equal bytes are equal fields.
        for field in 1...fields.count where a.starts[i + field] - a.starts[i] != b.starts[j + field] - b.starts[j] { return false }
        return memcmp(a.buffer + a.starts[i], b.buffer + b.starts[j], a.starts[i + fields.count] - a.starts[i]) == 0
    }

    /// Feeds fields `fields` of row `row` to `hasher` so that fields comparing equal hash alike (an
    /// integer and a real of the same value included).
    public func hash(_ row: Int, fields: Range<Int>, into hasher: inout Hasher) {
        for field in fields {
            let (storage, bytes) = self[row, field]
            hasher.combine(Self.rank(storage))
            switch storage {
            case .null: break
            case .integer, .real: hasher.combine(Self.number(storage, bytes))
            case .text, .blob: hasher.combine(bytes: bytes)
            }
        }
    }

    /// The bytes of row `row`'s fields.
    public func byteCount(ofRow row: Int) -> Int { state.pointee.starts[(row + 1) * width] - state.pointee.starts[row * width] }

    private subscript(row: Int, field: Int) -> (Storage, UnsafeRawBufferPointer) {
        precondition(row >= 0 && row < count && field >= 0 && field < width, "no such field")
        let index = row * width + field, state = state.pointee
        let first = state.starts[index], end = state.starts[index + 1]
        // Only this type writes the buffer, one known storage byte a field.
        let storage = Storage(rawValue: state.buffer.load(fromByteOffset: first, as: UInt8.self)).unsafelyUnwrapped
        return (storage, UnsafeRawBufferPointer(start: state.buffer.advanced(by: first + 1), count: end - first - 1))
    }

    private static func rank(_ storage: Storage) -> Int {
        switch storage {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }

    private static func number(_ storage: Storage, _ bytes: UnsafeRawBufferPointer) -> Double {
        storage == .integer ? Double(bytes.loadUnaligned(as: Int64.self)) : Double(bitPattern: bytes.loadUnaligned(as: UInt64.self))
    }

    private func put<T: FixedWidthInteger>(_ storage: Storage, _ number: T) {
        reserve(1 + MemoryLayout<T>.size, fields: 1)
        let at = state.pointee.used
        state.pointee.buffer.storeBytes(of: storage.rawValue, toByteOffset: at, as: UInt8.self)
        state.pointee.buffer.storeBytes(of: number, toByteOffset: at + 1, as: T.self)
        ended(at + 1 + MemoryLayout<T>.size)
    }

    private func put(_ storage: Storage, _ bytes: UnsafeRawBufferPointer) {
        reserve(1 + bytes.count, fields: 1)
        let at = state.pointee.used
        state.pointee.buffer.storeBytes(of: storage.rawValue, toByteOffset: at, as: UInt8.self)
        if let base = bytes.baseAddress, bytes.count > 0 {
            state.pointee.buffer.advanced(by: at + 1).copyMemory(from: base, byteCount: bytes.count)
        }
        ended(at + 1 + bytes.count)
    }

    private func ended(_ field: Int) {
        state.pointee.used = field
        state.pointee.starts[state.pointee.startsCount] = field
        state.pointee.startsCount += 1
    }

    private func reserve(_ bytes: Int, fields: Int) {
        if state.pointee.used + bytes > state.pointee.capacity {
            let grown = max(state.pointee.capacity * 2, state.pointee.used + bytes)
            let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
            larger.copyMemory(from: state.pointee.buffer, byteCount: state.pointee.used)
            state.pointee.buffer.deallocate()
            state.pointee.buffer = larger
            state.pointee.capacity = grown
        }
        if state.pointee.startsCount + fields > state.pointee.startsCapacity {
            let grown = max(state.pointee.startsCapacity * 2, state.pointee.startsCount + fields)
            let larger = UnsafeMutablePointer<Int>.allocate(capacity: grown)
            larger.update(from: state.pointee.starts, count: state.pointee.startsCount)
            state.pointee.starts.deallocate()
            state.pointee.starts = larger
            state.pointee.startsCapacity = grown
        }
    }
}
