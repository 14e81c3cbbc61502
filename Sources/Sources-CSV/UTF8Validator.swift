/// Checks UTF-8 by the well-formedness table of the Unicode standard (table 3-7): no overlong
/// forms, no surrogates, nothing above U+10FFFF.
enum UTF8Validator {
    /// How much of `bytes` is complete, valid UTF-8.
    ///
    /// - Returns: `valid`, the length of the longest prefix made of whole, valid sequences, and
    ///   `invalid`, the bytes that stop it: from the start of the bad sequence through the first
    ///   byte that cannot belong to it. `invalid` is nil when the rest is only the beginning of a
    ///   sequence cut by the end of `bytes` and more bytes follow (`atEOF` false).
    static func validate(_ bytes: UnsafeRawBufferPointer, atEOF: Bool) -> (valid: Int, invalid: [UInt8]?) {
        let count = bytes.count
        var i = 0
        while i < count {
            // Eight ASCII bytes at a time: the common case in spreadsheet exports.
            while i + 8 <= count, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < count else { break }
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            let continuations: Int
            switch lead {
            case 0xC2...0xDF: continuations = 1
            case 0xE0: continuations = 2; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: continuations = 2
            case 0xED: continuations = 2; high = 0x9F
            case 0xF0: continuations = 3; low = 0x90
            case 0xF1...0xF3: continuations = 3
            case 0xF4: continuations = 3; high = 0x8F
            default: return (i, [lead])
            }
            for k in 1...continuations {
                guard i + k < count else {
                    return (i, atEOF ? Array(bytes[i..<count]) : nil)
                }
                let byte = bytes[i + k]
                if byte < low || byte > high { return (i, Array(bytes[i...(i + k)])) }
                low = 0x80
                high = 0xBF
            }
            i += continuations + 1
        }
        return (count, nil)
    }
}
