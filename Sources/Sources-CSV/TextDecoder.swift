/// Turns the raw bytes of one chunk into UTF-8 for libcsv, chunk by chunk.
///
/// UTF-8 is only checked and handed on as is; the other encodings are transcoded into a buffer
/// owned here and reused for every chunk. A character cut by the end of a chunk (a UTF-8 sequence,
/// an odd UTF-16 byte, the first half of a surrogate pair) is left unconsumed: the caller carries
/// it over to the front of the next chunk.
final class TextDecoder {
    /// One chunk's worth of UTF-8.
    struct Decoded {
        /// The UTF-8 text: valid until the next `decode` call (or, for UTF-8 input, until the input
        /// buffer changes).
        var utf8: UnsafeRawBufferPointer
        /// How many input bytes were used; the rest belongs to the next chunk.
        var consumed: Int
        /// Bytes that are not text in the encoding: `utf8` is the text before them.
        var invalid: String?
    }

    let encoding: EncodingDetector.Resolved
    private let output: UnsafeMutableRawBufferPointer

    /// - Parameter capacity: the most input bytes one `decode` call gets.
    init(encoding: EncodingDetector.Resolved, capacity: Int) {
        self.encoding = encoding
        switch encoding {
        case .utf8: output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        // A UTF-16 unit becomes at most 3 UTF-8 bytes; a single byte at most 3 (€ is E2 82 AC).
        case .utf16, .singleByte: output = .allocate(byteCount: capacity * 3 + 8, alignment: 8)
        }
    }

    deinit {
        output.deallocate()
    }

    func decode(_ input: UnsafeRawBufferPointer, atEOF: Bool) -> Decoded {
        switch encoding {
        case .utf8: return decodeUTF8(input, atEOF: atEOF)
        case .utf16(let bigEndian): return decodeUTF16(input, bigEndian: bigEndian, atEOF: atEOF)
        case .singleByte(let table): return decodeSingleByte(input, table: table)
        }
    }

    private func decodeUTF8(_ input: UnsafeRawBufferPointer, atEOF: Bool) -> Decoded {
        let (valid, invalid) = UTF8Validator.validate(input, atEOF: atEOF)
        return Decoded(
            utf8: UnsafeRawBufferPointer(rebasing: input[0..<valid]), consumed: valid,
            invalid: invalid.map {
                "invalid UTF-8 bytes \(TextDecoder.hex($0)) (the file is not UTF-8; set encoding: windows-1252 "
                    + "or macroman if it came from older Excel)"
            })
    }

    private func decodeUTF16(_ input: UnsafeRawBufferPointer, bigEndian: Bool, atEOF: Bool) -> Decoded {
        let count = input.count
        let out = output
        var i = 0, o = 0
        var invalid: String?
        @inline(__always) func unit(at j: Int) -> UInt32 {
            bigEndian ? UInt32(input[j]) << 8 | UInt32(input[j + 1]) : UInt32(input[j + 1]) << 8 | UInt32(input[j])
        }
        while i + 1 < count {
            var scalar = unit(at: i)
            if scalar < 0x80 {
                out[o] = UInt8(truncatingIfNeeded: scalar)
                o += 1
                i += 2
                continue
            }
            var width = 2
            if scalar & 0xF800 == 0xD800 {
                guard scalar < 0xDC00 else {
                    invalid = TextDecoder.unpairedSurrogate(input[i], input[i + 1])
                    break
                }
                guard i + 3 < count else {
                    // The low half may be in the next chunk.
                    if atEOF { invalid = TextDecoder.unpairedSurrogate(input[i], input[i + 1]) }
                    break
                }
                let low = unit(at: i + 2)
                guard low & 0xFC00 == 0xDC00 else {
                    invalid = TextDecoder.unpairedSurrogate(input[i], input[i + 1])
                    break
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                width = 4
            }
            o += TextDecoder.writeUTF8(scalar, to: out, at: o)
            i += width
        }
        if invalid == nil, atEOF, i < count, count - i == 1 {
            invalid = "the file ends in the middle of a UTF-16 character (byte \(TextDecoder.hex([input[i]])) "
                + "is half a character; the file is cut short or not UTF-16)"
        }
        return Decoded(utf8: UnsafeRawBufferPointer(rebasing: out[0..<o]), consumed: i, invalid: invalid)
    }

    private func decodeSingleByte(_ input: UnsafeRawBufferPointer, table: SingleByteEncoding) -> Decoded {
        let out = output
        var o = 0
        var invalid: String?
        var consumed = input.count
        table.utf8.withUnsafeBufferPointer { utf8 in
            for i in 0..<input.count {
                let byte = input[i]
                if byte < 0x80 {
                    out[o] = byte
                    o += 1
                    continue
                }
                let packed = utf8[Int(byte) - 0x80]
                guard packed != 0 else {
                    invalid = "invalid \(table.name) byte \(TextDecoder.hex([byte])) (\(table.name) has no character "
                        + "for it; set encoding: macroman if the file came from a Mac)"
                    consumed = i
                    return
                }
                let length = Int(packed & 0xFF)
                for k in 0..<length { out[o + k] = UInt8(truncatingIfNeeded: packed >> (8 * (k + 1))) }
                o += length
            }
        }
        return Decoded(utf8: UnsafeRawBufferPointer(rebasing: out[0..<o]), consumed: consumed, invalid: invalid)
    }

    /// Writes `scalar` (not a surrogate) as UTF-8 and returns its length.
    @inline(__always)
    private static func writeUTF8(_ scalar: UInt32, to out: UnsafeMutableRawBufferPointer, at o: Int) -> Int {
        switch scalar {
        case ..<0x80:
            out[o] = UInt8(truncatingIfNeeded: scalar)
            return 1
        case ..<0x800:
            out[o] = UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6)
            out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            out[o] = UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12)
            out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
            out[o + 2] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 3
        default:
            out[o] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
            out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F)
            out[o + 2] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
            out[o + 3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 4
        }
    }

    private static func unpairedSurrogate(_ first: UInt8, _ second: UInt8) -> String {
        "invalid UTF-16 bytes \(hex([first, second])) (half of a surrogate pair without its other half; "
            + "the file is damaged or not UTF-16)"
    }

    /// `0xC3 0x28`.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return "0x" + (digits.count < 2 ? "0" + digits : digits)
        }.joined(separator: " ")
    }
}
