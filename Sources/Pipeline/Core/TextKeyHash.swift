/// The hash of a unique key that is one text value, as a sink's key index finds it.
///
/// `String` equality is canonical equivalence: "é" as one scalar equals "e" and a combining
/// accent. Canonically equivalent texts have the same NFC form, so a key is hashed and compared
/// as the UTF-8 of its NFC form (its canonical bytes). Text of characters below U+0300 (ASCII,
/// Latin-1's accented letters, Latin Extended-A and -B, IPA) is in NFC already, and its UTF-8 is
/// used as it is (`isCanonical`).
///
/// Loads compute it for each record they make (`EntityRecord.keyHash`), on the reading thread,
/// so that the writing thread, the busier one, does not.
///
/// Short keys travel with their canonical bytes (`withInlineBytes`): the writing thread then finds
/// and stores the key without touching the string, which the reading thread made. Taking a
/// reference to that string (a retain) moves its memory from one core to the other, for every
/// record (docs/benchmarks.md has the share it cost).
public struct TextKeyHash: Sendable, Equatable {
    /// `TextKeyHash.hash(_:)` of the text's canonical bytes.
    public let value: UInt64
    /// The text's UTF-8 is its canonical bytes (`isCanonical(_:)`).
    public let isCanonical: Bool
    /// Keys of up to this many canonical bytes carry them.
    public static let inlineCapacity = 24
    @usableFromInline var inlineCount = UInt8.max
    @usableFromInline var inlineBytes: (UInt64, UInt64, UInt64) = (0, 0, 0)

    /// The hash of `text`; `scratch` holds the NFC form of text that is not ASCII.
    public init(of text: String, scratch: inout [UInt8]) {
        // Most keys are their own canonical bytes: hashed and checked in one pass over them.
        let direct = text.utf8.withContiguousStorageIfAvailable { bytes -> (UInt64, Inline)? in
            guard let value = TextKeyHash.hashIfCanonical(bytes) else { return nil }
            return (value, Inline(bytes))
        }
        let inline: Inline
        if case let (value, carried)?? = direct {
            self.value = value
            isCanonical = true
            inline = carried
        } else {
            (value, inline) = TextKeyHash.withNormalizedBytes(text, scratch: &scratch) { (TextKeyHash.hash($0), Inline($0)) }
            isCanonical = false
        }
        inlineCount = inline.count
        inlineBytes = inline.bytes
    }

    /// Canonical bytes as they travel with the hash, if they are few enough.
    private struct Inline {
        var count = UInt8.max
        var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)

        @inline(__always)
        init(_ canonical: UnsafeBufferPointer<UInt8>) {
            guard canonical.count <= TextKeyHash.inlineCapacity else { return }
            count = UInt8(canonical.count)
            withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(canonical)) }
        }
    }

    /// Whether the canonical bytes travel with the hash.
    @inlinable public var hasInlineBytes: Bool { inlineCount != .max }

    /// Calls `body` with the canonical bytes, if they travel with the hash; nil otherwise.
    @inlinable
    public func withInlineBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard inlineCount != .max else { return nil }
        let count = Int(inlineCount)
        return try withUnsafeBytes(of: inlineBytes) { raw in
            try body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
        }
    }

    /// The same key: canonically equivalent texts are equal whichever form each is in, so
    /// `isCanonical`, a property of the form, is left out.
    public static func == (a: TextKeyHash, b: TextKeyHash) -> Bool {
        a.value == b.value && a.inlineCount == b.inlineCount
            && a.inlineBytes.0 == b.inlineBytes.0 && a.inlineBytes.1 == b.inlineBytes.1 && a.inlineBytes.2 == b.inlineBytes.2
    }

    /// Calls `body` with the canonical bytes of `text` and whether they are its UTF-8. Native
    /// strings are contiguous UTF-8: text that `isCanonical` is passed without a copy; `scratch`
    /// holds the NFC form of other text.
    @inline(__always)
    public static func withCanonicalBytes<R>(_ text: String, scratch: inout [UInt8],
                                             _ body: (UnsafeBufferPointer<UInt8>, _ isCanonical: Bool) throws -> R) rethrows -> R {
        var result: R?
        let usedAsItIs = try text.utf8.withContiguousStorageIfAvailable { bytes in
            guard isCanonical(bytes) else { return false }
            result = try body(bytes, true)
            return true
        }
        if usedAsItIs == true, let result { return result }
        return try withNormalizedBytes(text, scratch: &scratch) { try body($0, false) }
    }

    /// Calls `body` with the NFC form of `text`, in `scratch`.
    public static func withNormalizedBytes<R>(_ text: String, scratch: inout [UInt8],
                                              _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        scratch.removeAll(keepingCapacity: true)
        // The standard library's own NFC, which its `==` compares by: about 0.4 µs a key, where
        // Foundation's `precomposedStringWithCanonicalMapping` takes 1.8 µs. Underscored but
        // public, in every standard library since Swift 5 (Linux and Apple's).
        text._withNFCCodeUnits { scratch.append($0) }
        return try scratch.withUnsafeBufferPointer(body)
    }

    /// A fast 64-bit hash of bytes, eight at a time (multiply and fold, then a final mix).
    public static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let raw = UnsafeRawBufferPointer(key)
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)
        var i = 0
        while i + 8 <= raw.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 29
            i += 8
        }
        return finish(h, tail: tail(of: raw, from: i))
    }

    /// `hash(key)` when `isCanonical(key)`, nil otherwise: both in one pass over the bytes.
    public static func hashIfCanonical(_ key: UnsafeBufferPointer<UInt8>) -> UInt64? {
        let raw = UnsafeRawBufferPointer(key)
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)
        var combining: UInt64 = 0
        var i = 0
        while i + 8 <= raw.count {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            combining |= bytesFromCombiningMarks(word)
            h = (h ^ word) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 29
            i += 8
        }
        let last = tail(of: raw, from: i)
        guard combining | bytesFromCombiningMarks(last) == 0 else { return nil }
        return finish(h, tail: last)
    }

    /// The bytes after the last whole word, in a word's order, zero above them.
    @inline(__always)
    private static func tail(of raw: UnsafeRawBufferPointer, from i: Int) -> UInt64 {
        let left = raw.count - i
        if left == 0 { return 0 }
        #if _endian(little)
        // The key's last eight bytes, those of the last word shifted out: one load, not `left`.
        if raw.count >= 8 {
            return raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self) >> UInt64(8 * (8 - left))
        }
        #endif
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        for k in i..<raw.count {
            tail |= UInt64(raw[k]) << shift
            shift += 8
        }
        return tail
    }

    @inline(__always)
    private static func finish(_ folded: UInt64, tail: UInt64) -> UInt64 {
        var h = (folded ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        return h
    }

    /// 0x80 in each byte of `word` of 0xCC or above (see `isCanonical`), 0 elsewhere: a byte of
    /// 0x80 or above has its low seven bits plus 0x34 reach 0x80 exactly then, and no sum
    /// carries into the next byte.
    @inline(__always)
    private static func bytesFromCombiningMarks(_ word: UInt64) -> UInt64 {
        ((word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x3434_3434_3434_3434) & word & 0x8080_8080_8080_8080
    }

    /// Whether UTF-8 `bytes` are their own NFC form because every character is below U+0300: no
    /// byte is 0xCC or above (0xCC starts U+0300, the first combining mark). Every such character
    /// has NFC quick-check Yes and combining class 0, so NFC leaves the text as it is; a text that
    /// has a combining mark or a character from U+0300 on takes the full normalization.
    public static func isCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        // ASCII eight bytes at a time; a word with a byte of 0x80 or above is looked at byte by byte.
        while i + 8 <= raw.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                for k in i..<(i + 8) where raw[k] >= 0xCC { return false }
            }
            i += 8
        }
        while i < raw.count {
            if raw[i] >= 0xCC { return false }
            i += 1
        }
        return true
    }
}
