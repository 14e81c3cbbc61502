/// Decides a file's encoding from its first chunk, for `encoding: auto`, and finds byte order marks.
///
/// The rule, in order:
/// 1. A byte order mark decides: EF BB BF is UTF-8, FF FE is UTF-16LE, FE FF is UTF-16BE.
/// 2. Without one, NUL bytes at every other position (a quarter of the 16-bit units or more, and
///    almost none at the other parity) mean UTF-16 in that byte order: ASCII text in UTF-16.
/// 3. A chunk that is valid UTF-8 is UTF-8 (plain ASCII included), and so is one with more
///    well-formed multi-byte characters than malformed bytes (its bad bytes are then reported).
/// 4. Else it is Windows-1252 or Mac Roman (see `singleByte(_:)`).
enum EncodingDetector {
    /// The text encodings the reader decodes.
    enum Resolved: Equatable {
        case utf8
        case utf16(bigEndian: Bool)
        case singleByte(SingleByteEncoding)

        /// The encoding as `encoding:` names it.
        var option: CSVReader.Encoding {
            switch self {
            case .utf8: return .utf8
            case .utf16(let bigEndian): return bigEndian ? .utf16BigEndian : .utf16LittleEndian
            case .singleByte(let encoding): return encoding.option
            }
        }

        var name: String {
            switch self {
            case .utf8: return "UTF-8"
            case .utf16(let bigEndian): return bigEndian ? "UTF-16BE" : "UTF-16LE"
            case .singleByte(let encoding): return encoding.name
            }
        }
    }

    /// The byte order mark at the start of `bytes`, if any, and its length.
    static func byteOrderMark(_ bytes: UnsafeRawBufferPointer) -> (Resolved, length: Int)? {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { return (.utf8, 3) }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xFE { return (.utf16(bigEndian: false), 2) }
        if bytes.count >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF { return (.utf16(bigEndian: true), 2) }
        return nil
    }

    /// The encoding of a file without a byte order mark, from its first chunk.
    static func detect(_ bytes: UnsafeRawBufferPointer, atEOF: Bool) -> Resolved {
        let sample = min(bytes.count, 4096) & ~1
        var zerosAtEven = 0, zerosAtOdd = 0
        var i = 0
        while i < sample {
            if bytes[i] == 0 { zerosAtEven += 1 }
            if bytes[i + 1] == 0 { zerosAtOdd += 1 }
            i += 2
        }
        let units = sample / 2
        if units > 0 {
            if zerosAtOdd * 4 >= units, zerosAtEven * 16 <= zerosAtOdd { return .utf16(bigEndian: false) }
            if zerosAtEven * 4 >= units, zerosAtOdd * 16 <= zerosAtEven { return .utf16(bigEndian: true) }
        }
        if UTF8Validator.validate(bytes, atEOF: atEOF).invalid == nil { return .utf8 }
        // UTF-8 with a stray byte: read as UTF-8, so that the stray byte is reported where it is,
        // rather than every accented letter silently turning into two (Crème into CrÃ¨me).
        if isMostlyUTF8(UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, 4096)])) { return .utf8 }
        return .singleByte(singleByte(bytes))
    }

    /// Whether the bytes hold more well-formed multi-byte UTF-8 characters than malformed
    /// sequences: single-byte text almost never forms one by chance.
    static func isMostlyUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var multiByte = 0, malformed = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): if scalar.count > 1 { multiByte += 1 }
            case .error: malformed += 1
            case .emptyInput: return multiByte > malformed
            }
        }
    }

    /// Windows-1252 or Mac Roman, whichever reads the bytes above 0x7F as more plausible text.
    ///
    /// Bytes 0x81, 0x8D, 0x8F, 0x90 and 0x9D are not characters in Windows-1252, so any of them
    /// means Mac Roman. Otherwise each byte above 0x7F scores in both encodings by what it would be:
    /// a lowercase letter 2, an uppercase letter 0, and either 2 more when next to an ASCII letter
    /// (accents sit inside words: "Crème"); common punctuation and symbols (€ ’ “ ” – — … « » ° •
    /// and the like) 1, and 4 more for a ’ or ‘ between letters ("don’t"); anything else 0. The two
    /// tables put the accented lowercase letters in different places (Windows-1252 at 0xE0...0xFF,
    /// where Mac Roman has uppercase letters and symbols; Mac Roman at 0x87...0x9F, where
    /// Windows-1252 has punctuation), so real words score clearly higher in their own encoding.
    /// The higher total wins; a tie goes to Windows-1252, the more common of the two today.
    static func singleByte(_ bytes: UnsafeRawBufferPointer) -> SingleByteEncoding {
        let windows = SingleByteEncoding.windows1252, mac = SingleByteEncoding.macRoman
        var windowsScore = 0, macScore = 0
        for i in 0..<bytes.count where bytes[i] >= 0x80 {
            let byte = bytes[i]
            guard let inWindows = windows.scalar(byte) else { return mac }
            let before: UInt8 = i > 0 ? bytes[i - 1] : 0x20
            let after: UInt8 = i + 1 < bytes.count ? bytes[i + 1] : 0x20
            windowsScore += score(inWindows, before: before, after: after)
            if let inMac = mac.scalar(byte) { macScore += score(inMac, before: before, after: after) }
        }
        return macScore > windowsScore ? mac : windows
    }

    private static func score(_ scalar: Unicode.Scalar, before: UInt8, after: UInt8) -> Int {
        let nextToLetter = isASCIILetter(before) || isASCIILetter(after)
        let properties = scalar.properties
        if properties.isAlphabetic {
            return (properties.isLowercase ? 2 : 0) + (nextToLetter ? 2 : 0)
        }
        switch scalar.value {
        case 0x2018, 0x2019:  // ‘ ’
            return isASCIILetter(before) && isASCIILetter(after) ? 5 : 1
        case 0x20AC, 0x201C, 0x201D, 0x2013, 0x2014, 0x2026, 0x00AB, 0x00BB, 0x00B0, 0x2022, 0x00A0, 0x00A3, 0x00A7, 0x00B7:
            return 1
        default:
            return 0
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
