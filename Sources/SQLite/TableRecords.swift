import CSQLite
import Foundation
import Pipeline

/// A rowid table's rows read straight from the database file, in row id order (the order of a
/// `SELECT ... FROM t NOT INDEXED`), into `RawRows`: comparing two stores of a million rows spent
/// two thirds of its time in SQLite's virtual machine and its per-column calls, a tenth of that here.
///
/// It reads only what it reads exactly as SQLite would, and says `Unreadable` for the rest, for the
/// caller to read through SQL instead: a file SQLite reads with its `-wal` (its last pages may be there),
/// text not in UTF-8, a table without row ids or with generated columns, the row id itself asked
/// for, and any page, cell or record not as SQLite's file format describes it (a damaged file).
/// Every page and cell is checked against the file's bounds before it is read.
///
/// The file is read through the connection's own open file (`SQLITE_FCNTL_FILE_POINTER`): no
/// second descriptor, whose closing would drop SQLite's locks on the file.
public final class TableRecords: @unchecked Sendable {
    /// The table or file is not one this reader reads exactly as SQLite: read it through SQL.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    /// A field of each row: a column of the table, or NULL (a column the store lacks).
    public enum Field: Equatable {
        case column(String)
        case null
    }

    public private(set) var isDone = false
    /// The fields of each row.
    public var width: Int { columns.count }

    private let file: UnsafeMutablePointer<sqlite3_file>
    private let pageSize: Int
    /// The page size less the bytes each page reserves at its end.
    private let usable: Int
    private let pageCount: Int

    /// For each field, the column of the record it is, and whether the column has REAL affinity
    /// (SQLite keeps a real without a fraction as an integer, and reads it back as a real); -1 for NULL.
    private let columns: UnsafeBufferPointer<Int>
    private let reals: UnsafeBufferPointer<Bool>
    /// Rows whose record holds `filter.value` in column `filter.column`, as `WHERE column = value`
    /// keeps them in a column of numeric affinity.
    private let filter: (column: Int, value: Int64)?
    /// The columns a record must have for every field (a shorter record's missing columns are
    /// NULL only where the column has no default).
    private let needed: Int
    private let defaultless: [Bool]

    /// The pages from the root down to the current leaf, each with its next child.
    private var levels: [Level] = []
    private var depth = 0
    private var leaf: Level?
    private var pagesRead = 0
    /// Leaf pages `readSkippingIdentical` passed whole, the same bytes as the other table's.
    private(set) var pagesSkipped = 0
    /// A record whose payload spills onto overflow pages, put together.
    private var assembled: UnsafeMutableRawPointer
    private var assembledCapacity: Int
    /// An overflow page as it is read.
    private let overflowPage: UnsafeMutableRawPointer
    /// Each record's columns: serial type and offset, `needed` of them.
    private let types: UnsafeMutablePointer<Int>
    private let offsets: UnsafeMutablePointer<Int>

    private final class Level {
        let page: UnsafeMutableRawPointer
        var header = 0
        var cells = 0
        var next = 0
        var rightChild = 0
        var isLeaf = false

        init(size: Int) { page = .allocate(byteCount: size, alignment: 8) }
        deinit { page.deallocate() }
    }

    /// Deeper than any table SQLite writes (a million rows of 4 KB pages is 3 or 4 levels).
    private static let maxDepth = 40

    /// Reads `table` of `connection`'s main database, `fields` of each row.
    public init(_ connection: SQLiteConnection, table: String, fields: [Field],
                filter: (column: String, value: Int64)?) throws {
        let db = try connection.openHandle()
        var pointer: UnsafeMutableRawPointer?
        guard sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
              let file = pointer?.assumingMemoryBound(to: sqlite3_file.self), file.pointee.pMethods != nil else {
            throw Unreadable(description: "no database file to read")
        }
        self.file = file
        var header = [UInt8](repeating: 0, count: 100)
        guard Self.read(file, into: &header, at: 0), header.starts(with: Array("SQLite format 3\u{0}".utf8)) else {
            // An encrypted store's VFS, say, gives other bytes than SQLite's own format.
            throw Unreadable(description: "not SQLite's file format")
        }
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        usable = pageSize - Int(header[20])
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0, usable >= 480 else {
            throw Unreadable(description: "page size \(pageSize)")
        }
        // A file in WAL mode is whole only where SQLite reads it without its `-wal` (an immutable
        // connection, opened where the `-wal` holds no changes): its journal mode then says so.
        guard header[18] == header[19], header[18] == 1
                || header[18] == 2 && (try? connection.rows("PRAGMA journal_mode").first?.first) != .text("wal") else {
            throw Unreadable(description: "the file is in WAL mode")
        }
        let encoding = UInt32(header[56]) << 24 | UInt32(header[57]) << 16 | UInt32(header[58]) << 8 | UInt32(header[59])
        guard encoding == 1 else { throw Unreadable(description: "text is not UTF-8") }
        var size: sqlite3_int64 = 0
        guard file.pointee.pMethods.pointee.xFileSize(file, &size) == SQLITE_OK else { throw Unreadable(description: "no file size") }
        pageCount = Int(size) / pageSize

        let statement = try connection.prepare("SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' AND name = ?")
        defer { statement.reset() }
        try statement.bind(Value.text(table), at: 1)
        guard try statement.step(), case .integer(let root) = statement.value(at: 0), root > 0,
              case .text(let sql) = statement.value(at: 1), !sql.uppercased().contains("WITHOUT") else {
            throw Unreadable(description: "'\(table)' is not a rowid table")
        }
        var names: [String] = [], affinities: [String] = [], defaults: [Bool] = [], keys: [Int] = []
        for row in try connection.rows("SELECT name, upper(type), dflt_value IS NULL, pk, hidden FROM pragma_table_xinfo(\(SQL.literal(table)))") {
            guard case .text(let name) = row[0], case .text(let type) = row[1], case .integer(let defaultless) = row[2],
                  case .integer(let key) = row[3], case .integer(0) = row[4] else {
                throw Unreadable(description: "'\(table)' has generated or hidden columns")
            }
            names.append(name)
            affinities.append(type)
            defaults.append(defaultless == 1)
            keys.append(Int(key))
        }
        let keyColumns = keys.indices.filter { keys[$0] > 0 }
        func column(_ name: String) throws -> Int {
            guard let index = names.firstIndex(of: name) else { throw Unreadable(description: "no column '\(name)'") }
            // A lone INTEGER PRIMARY KEY is the row id, which the record leaves NULL.
            if keyColumns == [index], affinities[index].trimmingCharacters(in: .whitespaces) == "INTEGER" {
                throw Unreadable(description: "'\(name)' is the row id")
            }
            return index
        }
        var columns: [Int] = [], reals: [Bool] = []
        for field in fields {
            switch field {
            case .null:
                columns.append(-1)
                reals.append(false)
            case .column(let name):
                let index = try column(name)
                columns.append(index)
                reals.append(Self.affinity(affinities[index]) == .real)
            }
        }
        if let filter {
            let index = try column(filter.column)
            // A column of text affinity compares the number as text; a huge one is not exact as a real.
            guard Self.affinity(affinities[index]) != .text, Self.affinity(affinities[index]) != .blob,
                  filter.value.magnitude < 1 << 53 else {
                throw Unreadable(description: "'\(filter.column)' does not compare as a number")
            }
            self.filter = (index, filter.value)
        } else {
            self.filter = nil
        }
        // Read for every field of every row: kept where reading them retains nothing.
        self.columns = UnsafeBufferPointer(Self.copy(columns))
        self.reals = UnsafeBufferPointer(Self.copy(reals))
        needed = max(columns.max() ?? -1, self.filter?.column ?? -1) + 1
        defaultless = defaults
        types = .allocate(capacity: max(needed, 1))
        offsets = .allocate(capacity: max(needed, 1))
        assembledCapacity = pageSize
        assembled = .allocate(byteCount: assembledCapacity, alignment: 8)
        overflowPage = .allocate(byteCount: pageSize, alignment: 8)

        let first = try load(Int(root), at: 0)
        if first.isLeaf { leaf = first } else { depth = 1 }
    }

    deinit {
        types.deallocate()
        offsets.deallocate()
        assembled.deallocate()
        overflowPage.deallocate()
        columns.deallocate()
        reals.deallocate()
    }

    private static func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
        let copy = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
        _ = copy.initialize(from: array)
        return UnsafeMutableBufferPointer(rebasing: copy[..<array.count])
    }

    /// Appends up to `limit` more rows to `rows` (fewer past `byteLimit` bytes, or at the end); a
    /// field with a lookup in `lookups` (one per field, or none) is read as the key of the row
    /// whose id it holds, as `RawRows.append(_:lookups:)` does. False where such a field holds
    /// text or bytes, the rows appended so far kept.
    public func read(into rows: RawRows, limit: Int, byteLimit: Int, lookups: [RawRows.Lookup?]) throws -> Bool {
        precondition(rows.width == columns.count && (lookups.isEmpty || lookups.count == columns.count), "rows as wide as the fields")
        // Borrowed, not retained, field by field: the lookups are kept alive for the call.
        let borrowed = lookups.map { $0.map { Unmanaged.passUnretained($0) } }
        return try withExtendedLifetime(lookups) {
            try borrowed.withUnsafeBufferPointer { lookups in
                while !isDone, rows.count < limit, rows.byteCount < byteLimit {
                    guard let record = try nextRecord() else { break }
                    guard try append(record, into: rows, lookups: lookups) else { return false }
                }
                return true
            }
        }
    }

    /// The values a field may hold, by how a record stores them (SQLite's serial types): NULL,
    /// integers within a range, reals, text, and blobs (of one length, where given).
    public struct StoredValues: Sendable, Equatable {
        public var null: Bool
        public var integers: ClosedRange<Int64>?
        public var reals: Bool
        public var text: Bool
        public var blobs: Bool
        /// The one length a blob may have, where `blobs`.
        public var blobLength: Int?

        public init(null: Bool = false, integers: ClosedRange<Int64>? = nil, reals: Bool = false, text: Bool = false,
                    blobs: Bool = false, blobLength: Int? = nil) {
            self.null = null
            self.integers = integers
            self.reals = reals
            self.text = text
            self.blobs = blobs
            self.blobLength = blobLength
        }

        /// Every value.
        public static let any = StoredValues(null: true, integers: Int64.min...Int64.max, reals: true, text: true, blobs: true)

        /// The values both allow.
        public func intersection(_ other: StoredValues) -> StoredValues {
            var both = StoredValues(null: null && other.null, reals: reals && other.reals, text: text && other.text,
                                    blobs: blobs && other.blobs, blobLength: blobLength ?? other.blobLength)
            if let mine = integers, let theirs = other.integers, mine.overlaps(theirs) {
                both.integers = max(mine.lowerBound, theirs.lowerBound)...min(mine.upperBound, theirs.upperBound)
            }
            if let mine = blobLength, let theirs = other.blobLength, mine != theirs { both.blobs = false }
            return both
        }
    }

    /// Whether every record from here to the end holds, in each field, only values `allowed` lets
    /// through (one per field): read from their headers, and for integers their bytes, as SQLite's
    /// file format stores them. A record whose field `cases.field` holds an integer `cases.sets`
    /// has is held to that set instead (a table of several entities, by its `Z_ENT`). False at the
    /// first record holding another value.
    public func everyRecord(holds allowed: [StoredValues], cases: (field: Int, sets: [Int64: [StoredValues]])? = nil) throws -> Bool {
        let width = columns.count
        precondition(allowed.count == width && cases.map { $0.field < width && $0.sets.values.allSatisfy { $0.count == width } } != false,
                     "a set of values for each field")
        // One array, `width` sets a case, `allowed` first: no array retained per record.
        var flat = allowed
        var caseIndex: [Int64: Int] = [:]
        for (value, sets) in cases?.sets ?? [:] {
            caseIndex[value] = flat.count
            flat += sets
        }
        let selector = cases.map { columns[$0.field] } ?? -1
        return try flat.withUnsafeBufferPointer { flat in
            while let record = try nextRecord() {
                guard let base = record.baseAddress else { return false }
                _ = try readHeader(base, size: record.count)
                var first = 0
                if selector >= 0 {
                    switch types[selector] {
                    case 0: break
                    case 1...6, 8, 9: first = caseIndex[integer(base + offsets[selector], types[selector])] ?? 0
                    // A real or text may equal a case as SQL compares them: not read here.
                    default: return false
                    }
                }
                for field in 0..<width {
                    let column = columns[field]
                    let type = column < 0 ? 0 : types[column]
                    let values = flat[first + field]
                    let holds = switch type {
                    case 0: values.null
                    case 1...6, 8, 9: values.integers?.contains(integer(base + offsets[column], type)) ?? false
                    case 7: values.reals
                    default: type & 1 == 1 ? values.text : values.blobs && (values.blobLength.map { $0 == (type - 12) / 2 } ?? true)
                    }
                    guard holds else { return false }
                }
            }
            return true
        }
    }

    /// Reads this table and `other` side by side, a record of each at a time, as `read(into:)`
    /// does: a pair whose records are the same bytes is only counted (`identical`), the others
    /// are appended, this table's to `rows` and the other's to `otherRows` (once `other` ends,
    /// this table's alone). Stops where `rows` reaches `limit` rows or `byteLimit` bytes, or
    /// this table ends: `otherRows` may hold more, and the rest of `other` is read by its own
    /// call. False where a looked-up field holds text or bytes.
    ///
    /// Same bytes are the same values only where both decode alike (`decodesLike(_:)`) and each
    /// looked-up link finds the same keys by the same row ids: the caller's to make sure, but for
    /// the row ids in `vetting` (by field: the ids the two lookups tell apart), which a pair of
    /// the same bytes holding one of them is read as two records like the others.
    public func readSkippingIdentical(_ other: TableRecords, into rows: RawRows, _ otherRows: RawRows, limit: Int, byteLimit: Int,
                                      lookups: [RawRows.Lookup?], _ otherLookups: [RawRows.Lookup?], vetting: [Int: Set<Int64>] = [:],
                                      identical: inout Int) throws -> Bool {
        precondition(other !== self && decodesLike(other) && lookups.count == otherLookups.count, "two tables read alike")
        let borrowed = lookups.map { $0.map { Unmanaged.passUnretained($0) } }
        let otherBorrowed = otherLookups.map { $0.map { Unmanaged.passUnretained($0) } }
        return try withExtendedLifetime((lookups, otherLookups)) {
            try borrowed.withUnsafeBufferPointer { lookups in
                try otherBorrowed.withUnsafeBufferPointer { otherLookups in
                    while rows.count < limit, rows.byteCount < byteLimit {
                        if vetting.isEmpty, let same = try skipSamePage(other) {
                            identical += same
                            continue
                        }
                        guard let mine = try nextRecord() else { break }
                        let theirs = other.isDone ? nil : try other.nextRecord()
                        // Paired before the filter, so that the filter reads one record of a pair, not two.
                        if let theirs, mine.count == theirs.count, memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0 {
                            if vetting.isEmpty {
                                if try keeps(mine) { identical += 1 }
                                continue
                            }
                            guard try readHeader(mine.baseAddress!, size: mine.count) else { continue }
                            if vetting.allSatisfy({ field, ids in !holdsRowID(of: mine.baseAddress!, field: field, in: ids) }) {
                                identical += 1
                                continue
                            }
                        }
                        guard try append(mine, into: rows, lookups: lookups) else { return false }
                        if let theirs, !(try other.append(theirs, into: otherRows, lookups: otherLookups)) { return false }
                    }
                    return true
                }
            }
        }
    }

    /// Where this table and `other` both stand at the start of a leaf page and the two pages are
    /// the same bytes, their records are too, each the same bytes as its pair: both move past the
    /// page, and the records the filter keeps on it are counted. A store written again from the
    /// same input is such pages nearly throughout, and a page compared whole costs less than one
    /// of its records read (the distinct job's 950,000 items: docs/benchmarks.md). Nil elsewhere,
    /// and where a record on the page spills onto overflow pages: the same page bytes say nothing
    /// of those.
    private func skipSamePage(_ other: TableRecords) throws -> Int? {
        guard pageSize == other.pageSize, usable == other.usable, let mine = try currentLeaf(), mine.next == 0,
              !other.isDone, let theirs = try other.currentLeaf(), theirs.next == 0, mine.header == theirs.header,
              memcmp(mine.page, theirs.page, usable) == 0 else { return nil }
        // Each cell checked against its page as `record(cell:of:)` checks it.
        let page = UnsafeRawPointer(mine.page)
        var kept = 0
        for cell in 0..<mine.cells {
            let (at, size) = try payload(cell: cell, of: mine)
            guard localSize(size) == size else { return nil }
            guard at + size <= usable else { throw Unreadable(description: "a record out of its page") }
            if try keeps(UnsafeRawBufferPointer(start: page + at, count: size)) { kept += 1 }
        }
        pagesSkipped += 1
        mine.next = mine.cells
        theirs.next = theirs.cells
        return kept
    }

    /// Whether a record of this table and the same bytes in `other` read as the same fields:
    /// the same columns of the record, with the same affinities, and the same filter.
    public func decodesLike(_ other: TableRecords) -> Bool {
        Array(columns) == Array(other.columns) && Array(reals) == Array(other.reals) && filter?.column == other.filter?.column
            && filter?.value == other.filter?.value && needed == other.needed
            && defaultless.prefix(needed) == other.defaultless.prefix(other.needed)
    }

    /// The next record as the file holds it (good until the next call), whether or not the
    /// filter keeps it; nil past the last.
    private func nextRecord() throws -> UnsafeRawBufferPointer? {
        guard let leaf = try currentLeaf() else {
            isDone = true
            return nil
        }
        let cell = leaf.next
        leaf.next += 1
        let (start, size) = try record(cell: cell, of: leaf)
        return UnsafeRawBufferPointer(start: start, count: size)
    }

    /// Appends the fields of `record`, from `nextRecord()`, unless the filter leaves it out.
    /// False where a looked-up field holds text or bytes, the row not appended.
    private func append(_ record: UnsafeRawBufferPointer, into rows: RawRows,
                        lookups: UnsafeBufferPointer<Unmanaged<RawRows.Lookup>?>) throws -> Bool {
        guard try readHeader(record.baseAddress!, size: record.count) else { return true }
        return decode(record.baseAddress!, into: rows, lookups: lookups)
    }

    /// Whether the filter keeps `record`, from `nextRecord()`: its header read only as far as
    /// the filter's column.
    private func keeps(_ record: UnsafeRawBufferPointer) throws -> Bool {
        guard let filter else { return true }
        return try readHeader(record.baseAddress!, size: record.count, columns: filter.column + 1)
    }

    /// Whether field `field` of the record whose header `readHeader` read last holds one of
    /// `ids`, or anything but a row id or NULL (then read as the others are, which says so).
    private func holdsRowID(of record: UnsafeRawPointer, field: Int, in ids: Set<Int64>) -> Bool {
        let column = columns[field]
        guard column >= 0 else { return false }
        let type = types[column], value = record + offsets[column]
        switch type {
        case 0: return false
        case 1...6, 8, 9: return ids.contains(integer(value, type))
        case 7: return Int64(exactly: Double(bitPattern: UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)))).map(ids.contains) ?? true
        default: return true
        }
    }

    /// Whether a value of serial type `type` at `value` equals `wanted`, as a column of numeric
    /// affinity compares them.
    private func matches(_ wanted: Int64, type: Int, at value: UnsafeRawPointer) -> Bool {
        switch type {
        case 1...6, 8, 9: integer(value, type) == wanted
        case 7: Double(bitPattern: UInt64(bigEndian: value.loadUnaligned(as: UInt64.self))) == Double(wanted)
        default: false
        }
    }

    /// The leaf with a cell left to read, or nil past the last.
    private func currentLeaf() throws -> Level? {
        while true {
            if let leaf, leaf.next < leaf.cells { return leaf }
            leaf = nil
            guard depth > 0 else { return nil }
            let level = levels[depth - 1]
            guard level.next <= level.cells else {
                depth -= 1
                continue
            }
            let child = level.next < level.cells ? try leftChild(of: level, cell: level.next) : level.rightChild
            level.next += 1
            guard depth < Self.maxDepth else { throw Unreadable(description: "a table deeper than \(Self.maxDepth) levels") }
            let loaded = try load(child, at: depth)
            if loaded.isLeaf { leaf = loaded } else { depth += 1 }
        }
    }

    /// Reads page `number` into level `index`.
    private func load(_ number: Int, at index: Int) throws -> Level {
        // Each page of the table is read once: more reads than pages means a loop.
        pagesRead += 1
        guard number >= 1, number <= pageCount, pagesRead <= pageCount else { throw Unreadable(description: "page \(number) out of the file") }
        // A page buffer for each level, made as the walk first goes that deep.
        if index == levels.count { levels.append(Level(size: pageSize)) }
        let level = levels[index]
        guard Self.read(file, into: level.page, count: pageSize, at: (number - 1) * pageSize) else {
            throw Unreadable(description: "cannot read page \(number)")
        }
        let header = number == 1 ? 100 : 0
        let page = level.page
        let kind = page.load(fromByteOffset: header, as: UInt8.self)
        guard kind == 0x0D || kind == 0x05 else { throw Unreadable(description: "page \(number) is not a table page") }
        level.header = header
        level.isLeaf = kind == 0x0D
        level.cells = Int(u16(page, header + 3))
        level.next = 0
        level.rightChild = level.isLeaf ? 0 : Int(u32(page, header + 8))
        let pointers = header + (level.isLeaf ? 8 : 12)
        guard pointers + 2 * level.cells <= usable else { throw Unreadable(description: "page \(number) lists too many cells") }
        return level
    }

    private func cellOffset(_ level: Level, _ cell: Int) throws -> Int {
        let offset = Int(u16(level.page, level.header + (level.isLeaf ? 8 : 12) + 2 * cell))
        guard offset >= level.header + (level.isLeaf ? 8 : 12) + 2 * level.cells, offset < usable else {
            throw Unreadable(description: "a cell out of its page")
        }
        return offset
    }

    private func leftChild(of level: Level, cell: Int) throws -> Int {
        let offset = try cellOffset(level, cell)
        guard offset + 4 <= usable else { throw Unreadable(description: "a cell out of its page") }
        return Int(u32(level.page, offset))
    }

    /// The record of leaf cell `cell`, put together where it spills onto overflow pages.
    private func record(cell: Int, of leaf: Level) throws -> (start: UnsafeRawPointer, size: Int) {
        let page = UnsafeRawPointer(leaf.page)
        let (at, payloadSize) = try payload(cell: cell, of: leaf)
        let local = localSize(payloadSize)
        guard at + local <= usable else { throw Unreadable(description: "a record out of its page") }
        if local == payloadSize { return (page + at, payloadSize) }
        guard at + local + 4 <= usable else { throw Unreadable(description: "a record out of its page") }
        try assemble(page + at, local: local, total: payloadSize, overflow: Int(u32(page, at + local)))
        return (UnsafeRawPointer(assembled), payloadSize)
    }

    /// Where the payload of leaf cell `cell` starts in its page, and its size (the whole record's,
    /// spilled or not).
    private func payload(cell: Int, of leaf: Level) throws -> (at: Int, size: Int) {
        var at = try cellOffset(leaf, cell)
        let page = UnsafeRawPointer(leaf.page)
        let size = try varint(page, &at, end: usable)
        _ = try varint(page, &at, end: usable)  // the row id
        // No record is larger than the file: a damaged size is not allocated.
        guard size >= 0, size <= Int(Int32.max), size <= pageCount * usable else {
            throw Unreadable(description: "a record's size")
        }
        return (at, size)
    }

    /// How much of a payload of `size` bytes a table leaf keeps in the cell (SQLite's file format, 1.6).
    private func localSize(_ size: Int) -> Int {
        let most = usable - 35
        guard size > most else { return size }
        let least = (usable - 12) * 32 / 255 - 23
        let local = least + (size - least) % (usable - 4)
        return local <= most ? local : least
    }

    /// Puts a spilled payload together: its cell's part, then each overflow page's.
    private func assemble(_ start: UnsafeRawPointer, local: Int, total: Int, overflow first: Int) throws {
        if assembledCapacity < total {
            assembled.deallocate()
            assembledCapacity = max(total, assembledCapacity * 2)
            assembled = .allocate(byteCount: assembledCapacity, alignment: 8)
        }
        assembled.copyMemory(from: start, byteCount: local)
        var filled = local, next = first, pages = 0
        while filled < total {
            pages += 1
            guard next >= 1, next <= pageCount, pages <= pageCount,
                  Self.read(file, into: overflowPage, count: pageSize, at: (next - 1) * pageSize) else {
                throw Unreadable(description: "an overflow page out of the file")
            }
            let part = min(usable - 4, total - filled)
            (assembled + filled).copyMemory(from: overflowPage + 4, byteCount: part)
            filled += part
            next = Int(u32(overflowPage, 0))
        }
    }

    /// Reads a record's header (SQLite's record format, 2.1) into `types` and `offsets`, its
    /// first `columns` columns (all those read, by default); false where the filter leaves the
    /// record out.
    private func readHeader(_ record: UnsafeRawPointer, size: Int, columns wanted: Int? = nil) throws -> Bool {
        let wanted = wanted ?? needed
        var at = 0
        let headerSize = try varint(record, &at, end: size)
        guard headerSize >= at, headerSize <= size else { throw Unreadable(description: "a record's header") }
        var data = headerSize, count = 0
        while count < wanted && at < headerSize {
            // Nearly every serial type is one byte: the loop of `varint` only for the others.
            let first = record.load(fromByteOffset: at, as: UInt8.self)
            let type: Int
            if first < 0x80 {
                type = Int(first)
                at += 1
            } else {
                type = try varint(record, &at, end: headerSize)
            }
            // A damaged header's type may be negative, or larger than the record.
            guard type >= 0 else { throw Unreadable(description: "a record's header") }
            let length = try Self.length(of: type)
            types[count] = type
            offsets[count] = data
            guard length <= size - data else { throw Unreadable(description: "a record's values past its end") }
            data += length
            count += 1
        }
        // A record may be shorter than its table (columns added later): the rest read as their default.
        for column in count..<max(wanted, count) {
            guard defaultless[column] else { throw Unreadable(description: "a record without a column that has a default") }
            types[column] = 0
        }
        guard let filter else { return true }
        return matches(filter.value, type: types[filter.column], at: record + offsets[filter.column])
    }

    /// Appends the fields of the record whose header `readHeader` read last. False where a
    /// looked-up field holds text or bytes, the row not appended.
    private func decode(_ record: UnsafeRawPointer, into rows: RawRows, lookups: UnsafeBufferPointer<Unmanaged<RawRows.Lookup>?>) -> Bool {
        let mark = rows.mark
        for field in 0..<columns.count {
            let column = columns[field]
            guard column >= 0 else {
                rows.putNull()
                continue
            }
            let type = types[column], value = record + offsets[column]
            if !lookups.isEmpty, let lookup = lookups[field] {
                let rowID: Int64?
                switch type {
                case 0: rowID = nil
                case 7: rowID = Int64(exactly: Double(bitPattern: UInt64(bigEndian: value.loadUnaligned(as: UInt64.self))))
                case 1...6, 8, 9: rowID = integer(value, type)
                default:
                    rows.rollBack(to: mark)
                    return false
                }
                if let rowID, let row = lookup._withUnsafeGuaranteedRef({ $0.row(rowID) }) {
                    lookup._withUnsafeGuaranteedRef { rows.appendKey(of: $0, row: row) }
                } else {
                    rows.putNull()
                }
                continue
            }
            switch type {
            case 0:
                rows.putNull()
            case 1...6, 8, 9:
                let number = integer(value, type)
                if reals[field] { rows.putReal(Double(number).bitPattern) } else { rows.putInteger(number) }
            case 7:
                rows.putReal(UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)))
            default:
                rows.putBytes(text: type & 1 == 1, UnsafeRawBufferPointer(start: value, count: (type - 12) / 2))
            }
        }
        rows.endRow()
        return true
    }

    /// A serial type's integer, big-endian two's complement of 1 to 8 bytes (8 and 9 are 0 and 1).
    private func integer(_ value: UnsafeRawPointer, _ type: Int) -> Int64 {
        switch type {
        case 8: return 0
        case 9: return 1
        default:
            let bytes = type == 5 ? 6 : type == 6 ? 8 : type
            var number = Int64(Int8(bitPattern: value.load(as: UInt8.self)))
            for index in 1..<bytes { number = number << 8 | Int64(value.load(fromByteOffset: index, as: UInt8.self)) }
            return number
        }
    }

    /// The bytes a value of serial type `type` takes in the record.
    private static func length(of type: Int) throws -> Int {
        switch type {
        case 0, 8, 9: return 0
        case 1, 2, 3, 4: return type
        case 5: return 6
        case 6, 7: return 8
        case 10, 11: throw Unreadable(description: "a reserved serial type")
        default: return (type - 12) / 2
        }
    }

    /// SQLite's variable-length integer at `at` (1 to 9 bytes), `at` moved past it.
    private func varint(_ bytes: UnsafeRawPointer, _ at: inout Int, end: Int) throws -> Int {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard at < end else { throw Unreadable(description: "a number past its page") }
            let byte = bytes.load(fromByteOffset: at, as: UInt8.self)
            at += 1
            if index == 8 { return Int(truncatingIfNeeded: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte < 0x80 { break }
        }
        return Int(truncatingIfNeeded: value)
    }

    private func u16(_ page: UnsafeRawPointer, _ at: Int) -> UInt16 {
        UInt16(page.load(fromByteOffset: at, as: UInt8.self)) << 8 | UInt16(page.load(fromByteOffset: at + 1, as: UInt8.self))
    }

    private func u32(_ page: UnsafeRawPointer, _ at: Int) -> UInt32 {
        UInt32(bigEndian: page.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    private static func read(_ file: UnsafeMutablePointer<sqlite3_file>, into bytes: inout [UInt8], at offset: Int) -> Bool {
        bytes.withUnsafeMutableBytes { read(file, into: $0.baseAddress!, count: $0.count, at: offset) }
    }

    private static func read(_ file: UnsafeMutablePointer<sqlite3_file>, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool {
        file.pointee.pMethods.pointee.xRead(file, buffer, Int32(count), sqlite3_int64(offset)) == SQLITE_OK
    }

    private enum Affinity { case integer, text, blob, real, numeric }

    /// A declared type's affinity, by SQLite's rules (3.1 of its datatypes page), in their order.
    private static func affinity(_ type: String) -> Affinity {
        if type.contains("INT") { return .integer }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .text }
        if type.contains("BLOB") || type.isEmpty { return .blob }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return .real }
        return .numeric
    }
}
