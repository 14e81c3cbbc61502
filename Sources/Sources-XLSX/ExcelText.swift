import Foundation

/// How Excel writes text and numbers into a sheet's XML, read back as the user typed them.
enum ExcelText {
    /// A string: Excel writes a character XML cannot hold (a carriage return, a control character)
    /// as `_xHHHH_`, its UTF-16 code in hex, and a literal `_x0041_` as `_x005F_x0041_`, so that
    /// a cell holding "ABC\r\nDEF" arrives as `ABC_x000D_` and a line feed.
    static func string(_ bytes: [UInt8]) -> String {
        String(decoding: unescaped(bytes) ?? bytes, as: UTF8.self)
    }

    /// The UTF-8 of `string(bytes)`, or nil when it is `bytes` as they are.
    static func unescaped(_ bytes: [UInt8]) -> [UInt8]? {
        // Most strings have no underscore: no second pass for them.
        guard bytes.count >= 7, bytes.contains(UInt8(ascii: "_")) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if let unit = escape(bytes, at: i) {
                // A pair of surrogates is one character; a lone one stays as written.
                if UTF16.isLeadSurrogate(unit), let low = escape(bytes, at: i + 7), UTF16.isTrailSurrogate(low) {
                    let high: UInt32 = (UInt32(unit) - 0xD800) << 10
                    let code: UInt32 = 0x10000 + high + (UInt32(low) - 0xDC00)
                    if let scalar = Unicode.Scalar(code) {
                        append(scalar, to: &out)
                        i += 14
                        continue
                    }
                }
                if let scalar = Unicode.Scalar(UInt32(unit)) {
                    append(scalar, to: &out)
                    i += 7
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return out.count == bytes.count ? nil : out
    }

    /// The UTF-16 code of an `_xHHHH_` at `index`, if one starts there.
    private static func escape(_ bytes: [UInt8], at index: Int) -> UInt16? {
        guard index + 7 <= bytes.count, bytes[index] == UInt8(ascii: "_"), bytes[index + 1] == UInt8(ascii: "x"),
              bytes[index + 6] == UInt8(ascii: "_") else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[index + 2 ..< index + 6] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        out.append(contentsOf: String(Character(scalar)).utf8)
    }

    /// A number: Excel computes and shows 15 significant digits, but writes a fraction with the
    /// 17 that bring back its binary double exactly (10.2 as `10.199999999999999`, a sum as
    /// `18.364620000000002`). Such a number is read to Excel's 15 digits, as Excel shows it
    /// (`10.2`, `18.36462`); a number of 15 digits or fewer, and a whole number, stay as written.
    static func number(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        var significant = 0, fraction = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0"):
                if significant > 0 { significant += 1 }
            case UInt8(ascii: "1")...UInt8(ascii: "9"):
                significant += 1
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                fraction = true
            default:
                break
            }
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
        }
        guard significant > 15, fraction, let value = Double(text), value.isFinite,
              let rounded = Double(String(format: "%.15g", value)) else { return text }
        return rounded.description
    }

    /// A date cell (`t="d"`, which openpyxl writes and the format allows): ISO 8601, a date or a
    /// date and time, with or without a zone. Seconds since 2001-01-01 00:00, and whether the
    /// text named its zone (else the time is on the workbook's clock); nil for anything else,
    /// a time alone included, which stays text.
    static func isoDate(_ bytes: [UInt8]) -> (seconds: Double, zoned: Bool)? {
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[i ..< i + digits] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            i += digits
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
            return true
        }
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")), let day = number(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = Double(daysSince2001(year: year, month: month, day: day)) * 86_400
        var zoned = false
        if skip(UInt8(ascii: "T")) || skip(UInt8(ascii: " ")) {
            guard let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2), hour < 24, minute < 60 else { return nil }
            seconds += Double(hour * 3600 + minute * 60)
            if skip(UInt8(ascii: ":")) {
                guard let second = number(2), second < 61 else { return nil }
                seconds += Double(second)
                if skip(UInt8(ascii: ".")) {
                    var scale = 0.1
                    while i < bytes.count, (48...57).contains(bytes[i]) {
                        seconds += Double(bytes[i] - 48) * scale
                        scale /= 10
                        i += 1
                    }
                }
            }
            if skip(UInt8(ascii: "Z")) {
                zoned = true
            } else if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                let sign: Double = bytes[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let hours = number(2) else { return nil }
                _ = skip(UInt8(ascii: ":"))
                guard let minutes = number(2) else { return nil }
                seconds -= sign * Double(hours * 3600 + minutes * 60)
                zoned = true
            }
        }
        guard i == bytes.count else { return nil }
        return ((seconds * 1000).rounded() / 1000, zoned)
    }

    /// Days from 2001-01-01 to a day of the proleptic Gregorian calendar.
    static func daysSince2001(year: Int, month: Int, day: Int) -> Int {
        // Days from 1970-01-01 (Howard Hinnant's days_from_civil), less 2001's 11,323.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468 - 11_323
    }
}
