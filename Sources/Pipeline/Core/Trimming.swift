/// The `trim` rule in one place: the `trim` transform applies it to values, and readers that trim
/// while reading (`TrimmingReader`) apply it to the bytes they make values from.
///
/// Leading and trailing whitespace goes (see `UTF8Text.isTrimmable`); inner whitespace stays.
public enum Trimming {
    /// The range of `bytes` (UTF-8) that is left once trimmed.
    @inlinable @inline(__always)
    public static func range(of bytes: UnsafeRawBufferPointer) -> Range<Int> {
        let utf8 = bytes.assumingMemoryBound(to: UInt8.self)
        guard let first = utf8.first, let last = utf8.last else { return 0..<0 }
        // Visible ASCII at both ends (0x21...0x7E): nothing to trim, and no scalar to decode.
        if (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) { return 0..<utf8.count }
        return UTF8Text.trimmedRange(utf8, from: 0, to: utf8.count)
    }

    /// UTF-8 `bytes` as text, trimmed.
    @inlinable @inline(__always)
    public static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range(of: bytes)]), as: UTF8.self)
    }

    /// `text` trimmed, or nil when there is nothing to trim (the common case, which then costs a
    /// look at the first and last byte and makes no new string).
    public static func trimmed(_ text: String) -> String? {
        UTF8Text.withBytes(text) { bytes -> String? in
            guard let first = bytes.first, let last = bytes.last else { return nil }
            if (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) { return nil }
            let range = UTF8Text.trimmedRange(bytes, from: 0, to: bytes.count)
            if range.count == bytes.count { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
    }
}
