import Foundation

/// A binary property list (`bplist00`) writer whose output depends only on its input.
///
/// `PropertyListSerialization` writes dictionary entries in the dictionary's iteration order,
/// which Swift randomizes per instance: two runs would give different Z_PLIST bytes. Here keys
/// are written in sorted order and nothing is shared between objects, so the same metadata always
/// gives the same bytes. Any property-list reader (Core Data's included) reads the result.
public enum BinaryPropertyList {
    /// A property-list value.
    public indirect enum Object: Sendable, Hashable {
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        /// Seconds since 2001-01-01T00:00:00Z.
        case date(Double)
        case data([UInt8])
        case string(String)
        case array([Object])
        /// Written in ascending key order whatever order the dictionary has.
        case dictionary([String: Object])
    }

    /// The encoded property list.
    public static func encode(_ root: Object) -> Data {
        let count = objectCount(root)
        let refSize = byteWidth(UInt64(count))
        var objects = [[UInt8]](repeating: [], count: count)
        var next = 0
        _ = write(root, into: &objects, next: &next, refSize: refSize)

        var out = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        offsets.reserveCapacity(count)
        for object in objects {
            offsets.append(UInt64(out.count))
            out += object
        }
        let tableOffset = UInt64(out.count)
        let offsetSize = byteWidth(tableOffset)
        for offset in offsets { appendBigEndian(offset, width: offsetSize, to: &out) }
        out += [UInt8](repeating: 0, count: 6)
        out += [UInt8(offsetSize), UInt8(refSize)]
        appendBigEndian(UInt64(count), width: 8, to: &out)
        appendBigEndian(0, width: 8, to: &out)  // the root is object 0
        appendBigEndian(tableOffset, width: 8, to: &out)
        return Data(out)
    }

    private static func objectCount(_ object: Object) -> Int {
        switch object {
        case .array(let items): 1 + items.reduce(0) { $0 + objectCount($1) }
        case .dictionary(let entries): 1 + entries.reduce(0) { $0 + 1 + objectCount($1.value) }
        default: 1
        }
    }

    /// Writes `object` and what it contains (pre-order), returning its object number.
    private static func write(_ object: Object, into objects: inout [[UInt8]], next: inout Int, refSize: Int) -> Int {
        let index = next
        next += 1
        var bytes: [UInt8] = []
        switch object {
        case .bool(let b):
            bytes = [b ? 0x09 : 0x08]
        case .integer(let i):
            appendInteger(i, to: &bytes)
        case .real(let d):
            bytes = [0x23]
            appendBigEndian(d.bitPattern, width: 8, to: &bytes)
        case .date(let t):
            bytes = [0x33]
            appendBigEndian(t.bitPattern, width: 8, to: &bytes)
        case .data(let data):
            appendMarker(0x40, count: data.count, to: &bytes)
            bytes += data
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) {
                appendMarker(0x50, count: s.utf8.count, to: &bytes)
                bytes += s.utf8
            } else {
                let units = Array(s.utf16)
                appendMarker(0x60, count: units.count, to: &bytes)
                for unit in units { appendBigEndian(UInt64(unit), width: 2, to: &bytes) }
            }
        case .array(let items):
            appendMarker(0xA0, count: items.count, to: &bytes)
            for item in items {
                appendBigEndian(UInt64(write(item, into: &objects, next: &next, refSize: refSize)), width: refSize, to: &bytes)
            }
        case .dictionary(let entries):
            let keys = entries.keys.sorted()
            appendMarker(0xD0, count: keys.count, to: &bytes)
            var valueRefs: [Int] = []
            for key in keys {
                appendBigEndian(UInt64(write(.string(key), into: &objects, next: &next, refSize: refSize)), width: refSize, to: &bytes)
            }
            for key in keys {
                if let value = entries[key] { valueRefs.append(write(value, into: &objects, next: &next, refSize: refSize)) }
            }
            for ref in valueRefs { appendBigEndian(UInt64(ref), width: refSize, to: &bytes) }
        }
        objects[index] = bytes
        return index
    }

    /// Non-negative integers in the fewest bytes (1, 2, 4); larger and negative ones in 8.
    private static func appendInteger(_ i: Int64, to bytes: inout [UInt8]) {
        let width = i < 0 ? 8 : byteWidth(UInt64(i))
        bytes.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(UInt64(bitPattern: i), width: width, to: &bytes)
    }

    /// A type marker with its count: in the low nibble, or 0xF followed by an integer object.
    private static func appendMarker(_ marker: UInt8, count: Int, to bytes: inout [UInt8]) {
        if count < 15 {
            bytes.append(marker | UInt8(count))
        } else {
            bytes.append(marker | 0x0F)
            appendInteger(Int64(count), to: &bytes)
        }
    }

    private static func byteWidth(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
