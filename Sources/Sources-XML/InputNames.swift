import Foundation
import Pipeline

/// The element and attribute names an XML input's first megabyte uses, for the suggestion when a
/// field the pipeline names never came (read only on that rare path).
enum InputNames {
    static func xmlNames(_ input: Input) -> [String] {
        guard let handle = try? FileHandle(forReadingFrom: input.url) else { return [] }
        defer { try? handle.close() }
        let bytes = Array((try? handle.read(upToCount: 1 << 20)) ?? Data())
        func isNameByte(_ b: UInt8) -> Bool {
            b >= 0x80 || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: ":")
        }
        var names: [String] = [], seen = Set<String>()
        func add(_ start: Int, _ end: Int) {
            guard end > start else { return }
            let name = String(decoding: bytes[start..<end], as: UTF8.self)
            if seen.insert(name).inserted { names.append(name) }
        }
        var i = 0, inTag = false
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "<"), i + 1 < bytes.count, isNameByte(bytes[i + 1]) {
                var j = i + 1
                while j < bytes.count, isNameByte(bytes[j]) { j += 1 }
                add(i + 1, j)
                inTag = true
                i = j
                continue
            }
            if b == UInt8(ascii: ">") { inTag = false }
            if inTag, b == UInt8(ascii: "="), i > 0 {
                var end = i
                while end > 0, bytes[end - 1] == 0x20 { end -= 1 }
                var start = end
                while start > 0, isNameByte(bytes[start - 1]) { start -= 1 }
                add(start, end)
            }
            if inTag, b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                // Skip the attribute's value: an '=' in it names nothing.
                var j = i + 1
                while j < bytes.count, bytes[j] != b { j += 1 }
                i = j + 1
                continue
            }
            i += 1
        }
        return names
    }
}
