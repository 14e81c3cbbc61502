import Foundation
import Pipeline

/// The names an input's start uses, for the suggestion when a field the pipeline names never
/// came: read only on that rare path, from the first megabyte.
enum InputNames {
    static let scanned = 1 << 20

    static func head(of input: Input) -> [UInt8] {
        guard let handle = try? FileHandle(forReadingFrom: input.url) else { return [] }
        defer { try? handle.close() }
        return Array((try? handle.read(upToCount: scanned)) ?? Data())
    }

    /// The object keys of JSON text: strings followed by a colon, each once, in order.
    static func jsonKeys(_ bytes: [UInt8]) -> [String] {
        var keys: [String] = [], seen = Set<String>()
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "\"") else { i += 1; continue }
            var j = i + 1
            while j < bytes.count, bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
            var k = j + 1
            while k < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[k]) { k += 1 }
            if k < bytes.count, bytes[k] == UInt8(ascii: ":"), j <= bytes.count {
                let key = String(decoding: bytes[(i + 1)..<min(j, bytes.count)], as: UTF8.self)
                if seen.insert(key).inserted { keys.append(key) }
            }
            i = j + 1
        }
        return keys
    }
}
