import Foundation

/// Where something came from: a file and, where known, a line and column or an element path.
///
/// Printed as `file:line:col`, `file:line`, or `file: at path` so that editors and CI logs link to it.
///
/// Every record carries one, and a run copies it several times per record on two threads: the
/// file name and the path (up to a trailing `[index]`) are kept as numbers into a table of names
/// shared by the process, so that a copy is a few integers, with no reference count for the two
/// threads to pass between their caches, and a record's path (`items/item[17]`) is no string.
public struct Location: Sendable, Hashable, CustomStringConvertible {
    /// `Int.min` for none: no line or column is ever that.
    private var lineValue: Int
    private var columnValue: Int
    /// The file's number in `NameTable.shared`, or -1: it is in `overflow`.
    private var fileNumber: Int32
    /// The number of the path up to its trailing `[index]`; -1 without a path, -2 when it is in
    /// `overflow`.
    private var pathNumber: Int32 = -1
    /// The path's trailing `[index]`, or -1; below -1, a workbook row the path's prefix (a sheet
    /// and column, `Items!A`) ends with: row 12 is -14.
    private var pathIndex: Int32 = -1
    /// The names the table had no room for; nil for almost every location.
    private var overflow: Overflow?

    public init(file: String, line: Int? = nil, column: Int? = nil, path: String? = nil) {
        lineValue = line ?? .min
        columnValue = column ?? .min
        fileNumber = -1
        self.file = file
        self.path = path
    }

    /// 1-based line, if the format has lines.
    public var line: Int? {
        get { lineValue == .min ? nil : lineValue }
        set { lineValue = newValue ?? .min }
    }

    /// 1-based column in characters, if known.
    public var column: Int? {
        get { columnValue == .min ? nil : columnValue }
        set { columnValue = newValue ?? .min }
    }

    /// The file as shown to the user (relative to the working directory where possible).
    public var file: String {
        get { fileNumber >= 0 ? NameTable.shared.name(fileNumber) : overflow?.file ?? "" }
        set {
            let number = NameTable.shared.number(for: newValue)
            fileNumber = number ?? -1
            setOverflow(file: number == nil ? newValue : nil)
        }
    }

    /// Element path (`items/item[3]`) or key path (`data.items[3]`) for tree formats.
    public var path: String? {
        get {
            let prefix: String? = switch pathNumber {
            case -1: nil
            case -2: overflow?.pathPrefix ?? ""
            default: NameTable.shared.name(pathNumber)
            }
            guard let prefix else { return nil }
            if pathIndex < -1 { return "\(prefix)\(-Int(pathIndex) - 2)" }
            return pathIndex < 0 ? prefix : "\(prefix)[\(pathIndex)]"
        }
        set {
            pathIndex = -1
            var prefix = newValue
            if let path = newValue, let (head, index) = Location.splitIndex(path) {
                prefix = head
                pathIndex = index
            } else if let path = newValue, Location.isCell(path), let (head, row) = Location.splitRow(path) {
                prefix = head
                pathIndex = -row - 2
            }
            let number = prefix.flatMap(NameTable.shared.number(for:))
            pathNumber = prefix == nil ? -1 : number ?? -2
            setOverflow(pathPrefix: number == nil ? prefix : nil)
        }
    }

    /// This location with `[index]` appended to its path: the path of the `index`th record under
    /// it (`items/item` gives `items/item[3]`). Readers call it per record; it makes no string.
    public func appendingPathIndex(_ index: Int) -> Location {
        var location = self
        if pathNumber != -1, pathIndex < 0, let small = Int32(exactly: index), small >= 0 {
            location.pathIndex = small
        } else {
            location.path = (path ?? "") + "[\(index)]"
        }
        return location
    }

    /// This location, whose path is a sheet and a column (`Items!A`), at a row of the sheet:
    /// `Items!A12`. Readers call it per record; it makes no string, and the table of names holds
    /// one entry per column, not one per cell.
    public func cell(row: Int) -> Location {
        var location = self
        if pathNumber != -1, let small = Int32(exactly: row), small > 0, small < Int32.max - 2 {
            location.pathIndex = -small - 2
        } else {
            location.path = (path ?? "") + "\(row)"
        }
        return location
    }

    /// This cell's neighbour `offset` columns to the right: `Items!B12` and 2 give `Items!D12`, the
    /// cell of a later field of the row. It names the column, so it is for messages, not for
    /// every record. A location that is no cell is returned as it is.
    public func cell(columnsRight offset: Int) -> Location {
        guard offset > 0, let row = cellRow, let path, let bang = path.lastIndex(of: "!") else { return self }
        var column = 0
        for scalar in path[path.index(after: bang)...].unicodeScalars {
            guard (65...90).contains(scalar.value) else { break }
            column = column * 26 + Int(scalar.value - 64)
        }
        var n = column + offset, letters = ""
        while n > 0 {
            letters = String(UnicodeScalar(UInt8(65 + (n - 1) % 26))) + letters
            n = (n - 1) / 26
        }
        var location = self
        location.path = path[...bang] + letters
        return location.cell(row: row)
    }

    /// The workbook row of a location made by `cell(row:)`.
    public var cellRow: Int? {
        pathIndex < -1 ? Int(-pathIndex - 2) : nil
    }

    public var description: String {
        guard let line else {
            guard let path else { return file }
            return file + (Location.isCell(path) ? ": \(path)" : ": at \(path)")
        }
        let numbered = Location.numbered(file, line: line, column: column)
        guard let path else { return numbered }
        return numbered + " (\(path))"
    }

    /// `file:line:column` (or `file:line`), made as one string: appending the two interpolations
    /// to the name made two or three strings, and a report writes two locations for each of
    /// 50,000 duplicates.
    static func numbered(_ file: String, line: Int, column: Int?) -> String {
        var file = file
        return file.withUTF8 { name in
            // A colon, a sign and 20 digits at most for each number.
            String(unsafeUninitializedCapacity: name.count + 44) { buffer in
                var at = UnsafeMutableBufferPointer(rebasing: buffer[..<name.count]).initialize(from: name).1
                func put(_ number: Int) {
                    buffer[at] = UInt8(ascii: ":")
                    at += 1
                    if number < 0 {
                        buffer[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    var rest = number.magnitude, digits = 0
                    repeat {
                        digits += 1
                        rest /= 10
                    } while rest > 0
                    rest = number.magnitude
                    for place in stride(from: at + digits - 1, through: at, by: -1) {
                        buffer[place] = UInt8(ascii: "0") + UInt8(rest % 10)
                        rest /= 10
                    }
                    at += digits
                }
                put(line)
                if let column { put(column) }
                return at
            }
        }
    }

    /// A workbook's cell (`Items!C12`), which reads as it is: `Groceries.xlsx: Items!C12`.
    static func isCell(_ path: String) -> Bool {
        guard let bang = path.lastIndex(of: "!") else { return false }
        let cell = path[path.index(after: bang)...].unicodeScalars
        guard let firstDigit = cell.firstIndex(where: { (48...57).contains($0.value) }), firstDigit != cell.startIndex else { return false }
        return cell[..<firstDigit].allSatisfy { (65...90).contains($0.value) } && cell[firstDigit...].allSatisfy { (48...57).contains($0.value) }
    }

    /// The file and path prefix as numbers in the process's table of names, and the path's
    /// index (-1 for none; `pathPrefix` -1 without a path): for a list that keeps many locations
    /// in a few bytes each. Nil when a name is not in the table (see `NameTable`).
    package var numbers: (file: Int32, pathPrefix: Int32, pathIndex: Int32)? {
        guard overflow == nil else { return nil }
        return (fileNumber, pathNumber, pathIndex)
    }

    /// The location `numbers` gave.
    package init(fileNumber: Int32, pathPrefix: Int32, pathIndex: Int32, line: Int?, column: Int?) {
        self.fileNumber = fileNumber
        self.pathNumber = pathPrefix
        self.pathIndex = pathPrefix < 0 ? -1 : pathIndex
        lineValue = line ?? .min
        columnValue = column ?? .min
    }

    private mutating func setOverflow(file: String?) {
        guard file != nil || overflow?.file != nil else { return }
        overflow = Overflow(file: file, pathPrefix: overflow?.pathPrefix)
    }

    private mutating func setOverflow(pathPrefix: String?) {
        guard pathPrefix != nil || overflow?.pathPrefix != nil else { return }
        overflow = Overflow(file: overflow?.file, pathPrefix: pathPrefix)
    }

    /// A cell `Items!C12` as `Items!C` and 12, when the row is written as `String(Int32)` writes
    /// it; nil otherwise.
    static func splitRow(_ cell: String) -> (prefix: String, row: Int32)? {
        let utf8 = cell.utf8
        guard let start = utf8.lastIndex(where: { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }).map(utf8.index(after:)),
              start != utf8.endIndex, utf8[start] != UInt8(ascii: "0"), utf8.distance(from: start, to: utf8.endIndex) <= 9,
              let row = Int32(String(cell[start...])) else { return nil }
        return (String(cell[..<start]), row)
    }

    /// `items/item[17]` as `items/item` and 17, when the index is written as `String(Int32)`
    /// writes it (so that the path reads back the same); nil otherwise.
    static func splitIndex(_ path: String) -> (prefix: String, index: Int32)? {
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

extension Location {
    /// Names that did not fit in the table, compared by value. A class: one reference, nil for
    /// almost every location, keeps the location small and free of reference counting.
    private final class Overflow: Sendable, Hashable {
        let file: String?
        let pathPrefix: String?

        init?(file: String?, pathPrefix: String?) {
            guard file != nil || pathPrefix != nil else { return nil }
            self.file = file
            self.pathPrefix = pathPrefix
        }

        static func == (a: Overflow, b: Overflow) -> Bool { a.file == b.file && a.pathPrefix == b.pathPrefix }

        func hash(into hasher: inout Hasher) {
            hasher.combine(file)
            hasher.combine(pathPrefix)
        }
    }

    /// The names locations refer to, for the life of the process. They are few (the input files
    /// and the shapes of their paths); a limit keeps a file of unusual paths (a path per record
    /// that is not `prefix[index]`) from growing the table without end: past it, names are kept
    /// in the location itself. Whether a name is numbered depends on the name alone (the table
    /// only grows), so equal locations have equal fields.
    final class NameTable: @unchecked Sendable {
        // @unchecked: `names` and `numbers` are read and written under `lock` only.
        static let shared = NameTable(limit: 1 << 16)

        private let limit: Int
        private let lock = NSLock()
        private var names: [String] = []
        private var numbers: [String: Int32] = [:]

        init(limit: Int) {
            self.limit = limit
        }

        /// The name's number; nil when it has none and the table is full.
        func number(for name: String) -> Int32? {
            lock.lock()
            defer { lock.unlock() }
            if let known = numbers[name] { return known }
            guard names.count < limit else { return nil }
            let number = Int32(names.count)
            names.append(name)
            numbers[name] = number
            return number
        }

        func name(_ number: Int32) -> String {
            lock.lock()
            defer { lock.unlock() }
            return names[Int(number)]
        }
    }
}
