import Checksums
import Foundation

/// Core Data's external storage for a Binary attribute that allows it
/// (`allowsExternalBinaryDataStorage`): the column holds a marker byte, then either the value
/// (`0x01`) or the name of a file in `.<store name>_SUPPORT/_EXTERNAL_DATA/` beside the store
/// (`0x02`, the name an upper-case UUID in ASCII, then a NUL). docs/coredata.md says what of this
/// is confirmed and where from.
public enum CoreDataExternalData {
    public static let inlineMarker: UInt8 = 0x01
    public static let externalMarker: UInt8 = 0x02
    /// Values larger than this go to a file: 128 KB, the threshold reported for iOS.
    public static let threshold = 128 * 1024

    /// `.<store name without extension>_SUPPORT/_EXTERNAL_DATA` beside `store`.
    public static func folder(of store: URL) -> URL {
        let name = store.deletingPathExtension().lastPathComponent
        return store.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT")
            .appendingPathComponent("_EXTERNAL_DATA")
    }

    /// The column's bytes for a value kept inline.
    public static func inline(_ bytes: [UInt8]) -> [UInt8] { [inlineMarker] + bytes }

    /// The column's bytes for a value kept in file `name`.
    public static func reference(_ name: String) -> [UInt8] { [externalMarker] + Array(name.utf8) + [0] }

    /// A file name for one value, the same for the same row, attribute and bytes (so that runs
    /// on the same inputs give the same files) and different for any other: a UUID (version 8,
    /// RFC 9562's custom kind) from a SHA-256 of them all.
    public static func fileName(table: String, column: String, row: Int64, bytes: [UInt8]) -> String {
        var hash = Checksum(.sha256)
        hash.update(Array("\(table)\u{0}\(column)\u{0}\(row)\u{0}".utf8))
        hash.update(bytes)
        var digest = Array(hash.finalize().prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x80
        digest[8] = (digest[8] & 0x3F) | 0x80
        return digest.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }.uuidString
    }

    /// What a column holds, decoded: the value inline, or the name of its file.
    public enum Stored: Equatable {
        case inline([UInt8])
        case external(String)
    }

    /// Reads a column's bytes; nil when they are neither form.
    public static func decode(_ column: [UInt8]) -> Stored? {
        guard let marker = column.first else { return nil }
        switch marker {
        case inlineMarker: return .inline(Array(column.dropFirst()))
        case externalMarker:
            var name = column.dropFirst()
            while name.last == 0 { name = name.dropLast() }
            guard let text = String(bytes: name, encoding: .ascii), UUID(uuidString: text) != nil else { return nil }
            return .external(text)
        default: return nil
        }
    }

    /// The value a column holds, read from its file where it is external; nil when the column
    /// is in neither form or the file cannot be read.
    public static func value(of column: [UInt8], store: URL) -> [UInt8]? {
        switch decode(column) {
        case .inline(let bytes): bytes
        case .external(let name): (try? Data(contentsOf: folder(of: store).appendingPathComponent(name))).map { Array($0) }
        case nil: nil
        }
    }
}
