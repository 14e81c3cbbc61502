import Foundation
import Diagnostics

/// Scanning helpers over a string's UTF-8 bytes, for the transforms' hot paths: they decode only
/// the few scalars they look at and never build intermediate strings.
public enum UTF8Text {
    /// The scalar starting at byte `i` and its length in bytes. The input is valid UTF-8 (it came
    /// from a `String`), so only the lead byte decides the length; bounds are checked all the same.
    @inlinable @inline(__always)
    public static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (value: UInt32, length: Int) {
        let b0 = UInt32(bytes[i])
        if b0 < 0x80 { return (b0, 1) }
        let length = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : 2
        guard i + length <= bytes.count else { return (0xFFFD, 1) }
        var value = b0 & (0x7F >> UInt32(length))
        for k in 1..<length { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
        return (value, length)
    }

    /// The scalar ending just before byte `end` and its length in bytes.
    @inlinable @inline(__always)
    public static func scalar(in bytes: UnsafeBufferPointer<UInt8>, before end: Int) -> (value: UInt32, length: Int) {
        var start = end - 1
        // Step back over continuation bytes (10xxxxxx) to the lead byte.
        while start > 0, end - start < 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        let decoded = scalar(in: bytes, at: start)
        return decoded.length == end - start ? decoded : (0xFFFD, 1)
    }

    /// Whitespace that spreadsheet exports leave around values: ASCII blanks and line breaks, NEL,
    /// every Unicode space separator (Zs: NBSP, figure space, narrow NBSP, ideographic space, ...),
    /// the line and paragraph separators, the zero-width space and a stray byte order mark.
    @inlinable @inline(__always)
    public static func isTrimmable(_ v: UInt32) -> Bool {
        switch v {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
            return true
        default:
            return false
        }
    }

    /// The byte range of `bytes[from..<to]` without trimmable scalars at either end.
    @inlinable @inline(__always)
    public static func trimmedRange(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Range<Int> {
        var start = from, end = to
        while start < end {
            let (v, n) = scalar(in: bytes, at: start)
            guard isTrimmable(v) else { break }
            start += n
        }
        while end > start {
            let (v, n) = scalar(in: bytes, before: end)
            guard isTrimmable(v) else { break }
            end -= n
        }
        return start..<end
    }

    /// Runs `body` on the string's UTF-8 bytes without copying them (native strings are contiguous;
    /// a bridged one is made contiguous first).
    @inlinable @inline(__always)
    public static func withBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try s.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = s
        copy.makeContiguousUTF8()
        return try copy.utf8.withContiguousStorageIfAvailable(body) ?? body(UnsafeBufferPointer(start: nil, count: 0))
    }

    /// Text from bytes a reader has already checked as UTF-8 (libcsv's chunks, the JSON
    /// scanner's strings), made without checking them again where the standard library can:
    /// `UTF8Span`, in Swift 6.2's runtime (Linux, and Apple's systems from 26). Older systems
    /// check them again, as `String(decoding:)` does. The bytes must be valid UTF-8.
    @inlinable @inline(__always)
    public static func fromValidUTF8(_ bytes: UnsafeRawBufferPointer) -> String {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            return unsafe String(copying: UTF8Span(unchecked: bytes.assumingMemoryBound(to: UInt8.self).span))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` in double quotes for messages (see `Snippet.quoted`).
    public static func quoted(_ text: String) -> String {
        Snippet.quoted(text)
    }

    /// The scalar `v` as a string for messages, with invisible ones named by their code point.
    public static func describe(_ v: UInt32) -> String {
        guard let scalar = Unicode.Scalar(v) else { return "U+\(String(v, radix: 16, uppercase: true))" }
        if isTrimmable(v) || v < 0x20 || v == 0x7F {
            let hex = String(v, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "'\(Character(scalar))'"
    }
}
