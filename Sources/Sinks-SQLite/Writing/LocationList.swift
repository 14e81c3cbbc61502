import Diagnostics
import Pipeline
import CoreDataFormat
import SQLite

/// Locations in 16 bytes each, for the first record of every unique key.
///
/// A location is a file, a line, a column and, in tree formats, a path such as `items/item[17]`.
/// The numbers are kept as 32-bit integers; the file and the path up to its last `[index]`, the
/// same for every record of a source, once per distinct pair, by their numbers in the process's
/// table of names (`Location.numbers`). A location that does not fit (a line past 2^31, a name
/// the table had no room for) is kept whole.
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

    /// A file and a path prefix, as `Location.numbers` gives them.
    private struct Context: Hashable {
        var file: Int32
        var pathPrefix: Int32
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
        guard let line = Self.small(location.line), let column = Self.small(location.column),
              let numbers = location.numbers else { return nil }
        let context = Context(file: numbers.file, pathPrefix: numbers.pathPrefix)
        let number: Int32
        // Consecutive records share their context: compare with the last before hashing.
        if lastContext >= 0, contexts[Int(lastContext)] == context {
            number = lastContext
        } else if let known = contextNumbers[context] {
            number = known
        } else {
            number = Int32(contexts.count)
            contexts.append(context)
            contextNumbers[context] = number
        }
        lastContext = number
        return Compact(line: line, column: column, pathIndex: numbers.pathIndex, context: number)
    }

    /// The location `compact(_:)` made `compact` of; not for `Compact.whole`.
    func location(_ compact: Compact) -> Location {
        let context = contexts[Int(compact.context)]
        return Location(fileNumber: context.file, pathPrefix: context.pathPrefix, pathIndex: compact.pathIndex,
                        line: compact.line < 0 ? nil : Int(compact.line), column: compact.column < 0 ? nil : Int(compact.column))
    }

    /// -1 for none; nil when the number does not fit.
    private static func small(_ number: Int?) -> Int32? {
        guard let number else { return -1 }
        guard number >= 0, let small = Int32(exactly: number) else { return nil }
        return small
    }
}
