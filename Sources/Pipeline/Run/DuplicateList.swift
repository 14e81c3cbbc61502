import Foundation
import Diagnostics
import Safeguards

extension ImportLog {
    /// The duplicates of a run, in the order they were logged. A large export can have hundreds of
    /// thousands, so they are kept in a temporary file (in the store's folder), and only where each
    /// one starts in memory: 8 bytes each rather than about 300. Reading one reads the file.
    public struct DuplicateList: RandomAccessCollection {
        let storage: DuplicateStorage
        public let count: Int

        public var startIndex: Int { 0 }
        public var endIndex: Int { count }

        public subscript(position: Int) -> Duplicate {
            precondition(position >= 0 && position < count, "duplicate \(position) of \(count)")
            return storage.read(position)
        }
    }
}

/// Duplicates encoded one after another in a `SpillFile`, created with the first.
final class DuplicateStorage {
    private let directory: URL
    private var file: SpillFile?
    /// Where each duplicate starts; one more at the end of the last.
    private var starts: [Int64] = [0]
    private var encoded: [UInt8] = []
    /// The bytes read last, from `windowStart`: a report reads the duplicates in order, a read
    /// of the file for each one was a system call each (50,000 for the distinct job at 1M).
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0
    private var windowCount = 0
    private static let windowSize = 256 << 10

    init(directory: URL) {
        self.directory = directory
    }

    var count: Int { starts.count - 1 }

    func append(_ duplicate: ImportLog.Duplicate) throws {
        if file == nil { file = try SpillFile(directory: directory, holding: "the duplicates found", stage: "run") }
        // Encoded into a local buffer (the stored one, swapped out so that it keeps its capacity):
        // every change of a class's stored property is checked for exclusivity at run time.
        var bytes: [UInt8] = []
        swap(&bytes, &encoded)
        defer { swap(&bytes, &encoded) }
        bytes.removeAll(keepingCapacity: true)
        Self.put(duplicate.source, into: &bytes)
        Self.put(duplicate.entity, into: &bytes)
        Self.put(duplicate.key, into: &bytes)
        Self.put(duplicate.first, into: &bytes)
        Self.put(duplicate.again, into: &bytes)
        Self.put(UInt32(duplicate.differences.count), into: &bytes)
        for difference in duplicate.differences {
            Self.put(difference.attribute, into: &bytes)
            Self.put(difference.first, into: &bytes)
            Self.put(difference.again, into: &bytes)
        }
        bytes.append(duplicate.updated ? 1 : 0)
        try bytes.withUnsafeBufferPointer { try file!.append($0) }
        starts.append(file!.size)
    }

    func read(_ index: Int) -> ImportLog.Duplicate {
        let start = starts[index], length = Int(starts[index + 1] - start)
        do {
            guard let file else { throw PipelineError(.io, code: .tempCutShort, stage: "run", "no file") }
            if start < windowStart || start + Int64(length) > windowStart + Int64(windowCount) {
                let wanted = max(length, Int(min(Int64(Self.windowSize), starts[starts.count - 1] - start)))
                windowStart = start
                windowCount = try file.read(wanted, at: start, into: &window)
                guard windowCount >= length else {
                    windowCount = 0
                    throw PipelineError(.io, code: .tempCutShort, stage: "run", "the temporary file of the duplicates found is cut short")
                }
            }
            let from = Int(start - windowStart)
            var reader = Reader(bytes: window, position: from, end: from + length)
            var duplicate = ImportLog.Duplicate(entity: "", key: "", first: Location(file: ""), again: Location(file: ""),
                                                differences: [], updated: false)
            duplicate.source = try reader.string()
            duplicate.entity = try reader.string()
            duplicate.key = try reader.string()
            duplicate.first = try reader.location()
            duplicate.again = try reader.location()
            for _ in 0..<(try reader.integer(UInt32.self)) {
                duplicate.differences.append((try reader.string(), try reader.string(), try reader.string()))
            }
            duplicate.updated = try reader.integer(UInt8.self) == 1
            return duplicate
        } catch {
            // Only a failing disk gets here, after the run wrote the file: the duplicate says so
            // where it is shown rather than stopping the report.
            return ImportLog.Duplicate(entity: "?", key: "(unreadable: \(error))", first: Location(file: "?"),
                                       again: Location(file: "?"), differences: [], updated: false)
        }
    }

    // MARK: Encoding

    private static func put<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func put(_ text: String, into bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            put(UInt32(utf8.count), into: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    private static func put(_ location: Location, into bytes: inout [UInt8]) {
        put(Int64(location.line ?? -1), into: &bytes)
        put(Int64(location.column ?? -1), into: &bytes)
        // As the process's numbers of its names where it has them: no name to look up again.
        if let numbers = location.numbers {
            bytes.append(2)
            put(numbers.file, into: &bytes)
            put(numbers.pathPrefix, into: &bytes)
            put(numbers.pathIndex, into: &bytes)
            return
        }
        bytes.append(0)
        put(location.file, into: &bytes)
        if let path = location.path {
            bytes.append(1)
            put(path, into: &bytes)
        } else {
            bytes.append(0)
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        init(bytes: [UInt8], position: Int, end: Int) {
            self.bytes = bytes
            self.position = position
            self.end = end
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
            let size = MemoryLayout<T>.size
            guard position + size <= end else { throw PipelineError(.io, code: .tempCutShort, stage: "run", "a duplicate cut short") }
            let value = bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: T.self)) }
            position += size
            return value
        }

        mutating func string() throws -> String {
            let count = Int(try integer(UInt32.self))
            guard position + count <= end else { throw PipelineError(.io, code: .tempCutShort, stage: "run", "a duplicate cut short") }
            defer { position += count }
            return String(decoding: bytes[position..<(position + count)], as: UTF8.self)
        }

        mutating func location() throws -> Location {
            let line = try integer(Int64.self), column = try integer(Int64.self)
            let (lineOrNil, columnOrNil) = (line < 0 ? nil : Int(line), column < 0 ? nil : Int(column))
            if try integer(UInt8.self) == 2 {
                let file = try integer(Int32.self), prefix = try integer(Int32.self), index = try integer(Int32.self)
                return Location(fileNumber: file, pathPrefix: prefix, pathIndex: index, line: lineOrNil, column: columnOrNil)
            }
            let file = try string()
            let path = try integer(UInt8.self) == 1 ? try string() : nil
            return Location(file: file, line: lineOrNil, column: columnOrNil, path: path)
        }
    }
}
