import Pipeline

/// Locations in 16 bytes each, for the first record of every unique key.
///
/// A location is a file, a line, a column and, in tree formats, a path such as `items/item[17]`.
/// The numbers are kept as 32-bit integers; the file and the path up to its last `[index]`, the
/// same for every record of a source, once per distinct pair. A location that does not fit (a
/// line past 2^31, a path of another shape that would make every pair distinct) is kept whole.
struct LocationList {
    /// A location in 16 bytes: what the list keeps per record, and what `KeySpill` writes to disk.
    struct Compact {
        /// -1 where the location has none.
        var line: Int32
        var column: Int32
        var pathIndex: Int32
        /// Index into `contexts`, or -1: the location is kept whole.
        var context: Int32

        static let whole = Compact(line: -1, column: -1, pathIndex: -1, context: -1)
    }

    private struct Context: Hashable {
        var file: String
        var pathPrefix: String?
    }

    private var compacts: [Compact] = []
    private var contexts: [Context] = []
    private var contextNumbers: [Context: Int32] = [:]
    private var lastContext: Int32 = -1
    private var whole: [Int: Location] = [:]

    subscript(_ index: Int) -> Location {
        let compact = compacts[index]
        guard compact.context >= 0 else { return whole[index] ?? Location(file: "") }
        return location(compact)
    }

    mutating func append(_ location: Location) {
        guard let compact = compact(location) else {
            whole[compacts.count] = location
            compacts.append(.whole)
            return
        }
        compacts.append(compact)
    }

    /// `location` in 16 bytes, its file and path prefix numbered here; nil when it does not fit.
    mutating func compact(_ location: Location) -> Compact? {
        guard let line = Self.small(location.line), let column = Self.small(location.column) else { return nil }
        var prefix = location.path, pathIndex: Int32 = -1
        if let path = location.path {
            guard let (head, index) = Self.split(path) else { return nil }
            prefix = head
            pathIndex = index
        }
        let context = Context(file: location.file, pathPrefix: prefix)
        let number: Int32
        // Consecutive records share their context: compare with the last before hashing.
        if lastContext >= 0, contexts[Int(lastContext)] == context {
            number = lastContext
        } else if let known = contextNumbers[context] {
            number = known
        } else {
            // A context per record would make this list larger than the locations themselves.
            guard contexts.count < 4096 else { return nil }
            number = Int32(contexts.count)
            contexts.append(context)
            contextNumbers[context] = number
        }
        lastContext = number
        return Compact(line: line, column: column, pathIndex: pathIndex, context: number)
    }

    /// The location `compact(_:)` made `compact` of; not for `Compact.whole`.
    func location(_ compact: Compact) -> Location {
        let context = contexts[Int(compact.context)]
        var path = context.pathPrefix
        if compact.pathIndex >= 0, let prefix = path { path = "\(prefix)[\(compact.pathIndex)]" }
        return Location(file: context.file, line: compact.line < 0 ? nil : Int(compact.line),
                        column: compact.column < 0 ? nil : Int(compact.column), path: path)
    }

    /// -1 for none; nil when the number does not fit.
    private static func small(_ number: Int?) -> Int32? {
        guard let number else { return -1 }
        guard number >= 0, let small = Int32(exactly: number) else { return nil }
        return small
    }

    /// `items/item[17]` as `items/item` and 17, when the path ends in an index written as
    /// `String(Int32)` writes it (so that it reads back the same); nil otherwise.
    static func split(_ path: String) -> (String, Int32)? {
        let utf8 = path.utf8
        guard utf8.last == UInt8(ascii: "]"), let open = utf8.lastIndex(of: UInt8(ascii: "[")) else { return nil }
        let digits = utf8[utf8.index(after: open)..<utf8.index(before: utf8.endIndex)]
        guard let first = digits.first, first != UInt8(ascii: "0") || digits.count == 1, digits.count <= 10 else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        guard let index = Int32(exactly: value) else { return nil }
        return (String(path[..<open]), index)
    }
}
