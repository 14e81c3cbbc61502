import Pipeline

/// A date format (`dd/MM/yyyy HH:mm`) compiled once into parts and matched strictly against
/// values, without `DateFormatter` (slow, and lenient in ways that hide bad data).
///
/// Supported pattern letters (Unicode date-field symbols):
/// `yyyy` four-digit year, `yy` two-digit year (read with the `pivot` year), `M`/`d`/`H`/`h`/`m`/`s`
/// one or two digits, `MM`/`dd`/`HH`/`hh`/`mm`/`ss` exactly two digits, `S`... fraction of a
/// second with exactly that many digits, `MMM`/`MMMM` month names (`Jan`, `January`; German with
/// `locale: de`), `EEE`/`EEEE` weekday names (checked against the date), `a` AM/PM with `h`/`hh`,
/// and UTC offsets: `XXX` (`+02:00` or `Z`), `XX` and `Z` (`+0200`), `X` (`+02`), and `xxx`,
/// `xx`, `x` without `Z`.
/// Letters must be quoted to be literal (`'T'`); `''` is an apostrophe; every other character is
/// matched as is. Names match case-insensitively; the whole value must match.
struct DatePattern: Sendable {
    enum Field: Sendable, Equatable {
        case year, twoDigitYear, month, day, hour, hour12, minute, second, fraction
    }

    enum Part: Sendable, Equatable {
        case literal([UInt8])
        /// Digits for a field: exactly `digits`, or one to two when `digits` is 0.
        case number(Field, digits: Int, symbol: String)
        case monthName(full: Bool)
        case weekdayName(full: Bool)
        case dayPeriod
        /// A UTC offset: `+HH:MM` with `colon`, `+HHMM`, or `+HH` where `minutes` is false;
        /// `Z` for zero where `zulu`.
        case offset(colon: Bool, minutes: Bool, zulu: Bool, symbol: String)
    }

    /// Month and weekday names of a language, each with the spellings a value may use.
    struct Names: Sendable, Equatable {
        /// Per month: full names, then abbreviations.
        var months: [(full: [String], short: [String])]
        /// Per weekday from Sunday.
        var weekdays: [(full: [String], short: [String])]

        static func == (a: Names, b: Names) -> Bool {
            a.months.map { $0.full + $0.short } == b.months.map { $0.full + $0.short }
                && a.weekdays.map { $0.full + $0.short } == b.weekdays.map { $0.full + $0.short }
        }

        static let english = Names(
            months: DatePattern.monthNames.map { name in ([name], name == "September" ? ["Sept", "Sep"] : [String(name.prefix(3))]) },
            weekdays: DatePattern.weekdayNames.map { ([$0], [String($0.prefix(3))]) })
        static let german = Names(
            months: [(["Januar"], ["Jan"]), (["Februar"], ["Feb"]), (["März"], ["Mär", "Mrz"]), (["April"], ["Apr"]),
                     (["Mai"], ["Mai"]), (["Juni"], ["Jun"]), (["Juli"], ["Jul"]), (["August"], ["Aug"]),
                     (["September"], ["Sept", "Sep"]), (["Oktober"], ["Okt"]), (["November"], ["Nov"]), (["Dezember"], ["Dez"])],
            weekdays: [(["Sonntag"], ["So"]), (["Montag"], ["Mo"]), (["Dienstag"], ["Di"]), (["Mittwoch"], ["Mi"]),
                       (["Donnerstag"], ["Do"]), (["Freitag"], ["Fr"]), (["Samstag", "Sonnabend"], ["Sa"])])
    }

    /// The language of month and weekday names (`locale:`).
    enum Language: String, Sendable {
        case en, de
    }

    /// A date and time as read, before the time zone applies.
    struct LocalDateTime: Sendable, Equatable {
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
        /// Fraction of a second, in [0, 1).
        var fraction = 0.0
        /// The UTC offset the value gives, in seconds east; nil when it gives none.
        var offset: Int?
    }

    /// Why a value does not match, described only when a message is needed.
    enum Failure: Error, Sendable, Equatable {
        /// The part at `part` (or the end of the pattern, `part == parts.count`) does not match at byte `offset`.
        case mismatch(part: Int, offset: Int)
        /// The value has the pattern's shape, but a field is out of range.
        case outOfRange(Field, Int, LocalDateTime)
        /// The weekday name does not go with the date.
        case wrongWeekday(named: Int, actual: Int, LocalDateTime)
    }

    let source: String
    let parts: [Part]
    /// Whether the pattern has `yy`, which needs a pivot year.
    let hasTwoDigitYear: Bool
    /// The first year that `yy` stands for.
    var pivot = 1970
    /// The language of month and weekday names: a case, not the names, so that a pattern stays
    /// cheap to copy (one is copied for every date read).
    var language = Language.en
    var names: Names { language == .de ? .german : .english }
    /// Whether the pattern reads a UTC offset: then the value needs no time zone.
    var hasOffset: Bool { parts.contains { if case .offset = $0 { true } else { false } } }

    /// Compiles `pattern`; the error says what is wrong with it, for the user.
    init(_ pattern: String) throws(PatternError) {
        source = pattern
        var parts: [Part] = []
        var seen: [Field] = []
        var hasMonthName = false, hasWeekday = false, hasDayPeriod = false
        func literal(_ bytes: some Sequence<UInt8>) {
            if case .literal(let previous)? = parts.last {
                parts[parts.count - 1] = .literal(previous + bytes)
            } else {
                parts.append(.literal(Array(bytes)))
            }
        }
        func add(_ field: Field, _ digits: Int, _ symbol: String) throws(PatternError) {
            // A field read twice could disagree with itself; `yy` and `yyyy` are both the year.
            let key: Field = field == .twoDigitYear ? .year : field == .hour12 ? .hour : field
            if seen.contains(key) || (key == .month && hasMonthName) {
                throw PatternError("'\(symbol)' repeats a field already in the format")
            }
            seen.append(key)
            parts.append(.number(field, digits: digits, symbol: symbol))
        }

        let scalars = Array(pattern.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "'" {
                // `''` is an apostrophe; otherwise a quoted literal runs to the next quote.
                if i + 1 < scalars.count, scalars[i + 1] == "'" { literal([UInt8(ascii: "'")]); i += 2; continue }
                var j = i + 1
                var text = ""
                while j < scalars.count {
                    if scalars[j] == "'" {
                        if j + 1 < scalars.count, scalars[j + 1] == "'" { text.unicodeScalars.append("'"); j += 2; continue }
                        break
                    }
                    text.unicodeScalars.append(scalars[j])
                    j += 1
                }
                guard j < scalars.count else { throw PatternError("a quote opened at character \(i + 1) is not closed") }
                literal(text.utf8)
                i = j + 1
                continue
            }
            guard c.isASCII, c.properties.isAlphabetic else {
                literal(String(c).utf8)
                i += 1
                continue
            }
            var count = 1
            while i + count < scalars.count, scalars[i + count] == c { count += 1 }
            let symbol = String(repeating: String(c), count: count)
            i += count
            switch (c, count) {
            case ("y", 4): try add(.year, 4, symbol)
            case ("y", 2): try add(.twoDigitYear, 2, symbol)
            case ("y", _): throw PatternError("'\(symbol)' is not supported: use 'yyyy' (four digits) or 'yy' (two digits, with 'pivot')")
            case ("M", 1), ("M", 2): try add(.month, count == 1 ? 0 : 2, symbol)
            case ("M", 3), ("M", 4):
                if seen.contains(.month) || hasMonthName { throw PatternError("'\(symbol)' repeats a field already in the format") }
                hasMonthName = true
                parts.append(.monthName(full: count == 4))
            case ("d", 1), ("d", 2): try add(.day, count == 1 ? 0 : 2, symbol)
            case ("H", 1), ("H", 2): try add(.hour, count == 1 ? 0 : 2, symbol)
            case ("h", 1), ("h", 2): try add(.hour12, count == 1 ? 0 : 2, symbol)
            case ("m", 1), ("m", 2): try add(.minute, count == 1 ? 0 : 2, symbol)
            case ("s", 1), ("s", 2): try add(.second, count == 1 ? 0 : 2, symbol)
            case ("S", 1...9): try add(.fraction, count, symbol)
            case ("E", 3), ("E", 4):
                if hasWeekday { throw PatternError("'\(symbol)' repeats a field already in the format") }
                hasWeekday = true
                parts.append(.weekdayName(full: count == 4))
            case ("a", 1):
                if hasDayPeriod { throw PatternError("'a' repeats a field already in the format") }
                hasDayPeriod = true
                parts.append(.dayPeriod)
            case ("X", 1...3), ("x", 1...3), ("Z", 1...3), ("Z", 5):
                if parts.contains(where: { if case .offset = $0 { true } else { false } }) {
                    throw PatternError("'\(symbol)' repeats a field already in the format")
                }
                parts.append(.offset(colon: count == 3 || count == 5, minutes: count > 1 || c == "Z",
                                     zulu: c != "x" && !(c == "Z" && count < 4), symbol: symbol))
            default:
                throw PatternError("'\(symbol)' is not supported (supported: yyyy, yy, M, MM, MMM, MMMM, d, dd, H, HH, h, hh, a,"
                                   + " m, mm, s, ss, S to SSSSSSSSS, EEE, EEEE, X, XX, XXX, x, xx, xxx, Z, ZZZZZ; quote literal letters: 'T')")
            }
        }
        guard seen.contains(.year), seen.contains(.month) || hasMonthName, seen.contains(.day) else {
            throw PatternError("a format needs a year, a month and a day")
        }
        let has12 = parts.contains { if case .number(.hour12, _, _) = $0 { return true }; return false }
        if has12 != hasDayPeriod {
            throw PatternError(has12 ? "'h' needs 'a' (AM/PM); use 'H' for 0-23 hours" : "'a' (AM/PM) needs 'h' or 'hh' for the hour")
        }
        self.parts = parts
        hasTwoDigitYear = parts.contains { if case .number(.twoDigitYear, _, _) = $0 { return true }; return false }
    }

    struct PatternError: Error, Sendable {
        var message: String
        init(_ message: String) { self.message = message }
    }

    // MARK: - Matching

    /// Matches the whole of `b` against the pattern.
    func match(_ b: UnsafeBufferPointer<UInt8>) -> Result<LocalDateTime, Failure> {
        var value = LocalDateTime()
        var weekday: Int?
        var pm: Bool?
        var at = 0
        for (index, part) in parts.enumerated() {
            switch part {
            case .literal(let bytes):
                guard at + bytes.count <= b.count, bytes.indices.allSatisfy({ b[at + $0] == bytes[$0] }) else {
                    return .failure(.mismatch(part: index, offset: at))
                }
                at += bytes.count
            case .number(let field, let digits, _):
                var n = 0, length = 0
                let maxLength = digits == 0 ? 2 : digits
                while length < maxLength, at + length < b.count, (0x30...0x39).contains(b[at + length]) {
                    n = n * 10 + Int(b[at + length] - 0x30)
                    length += 1
                }
                guard length > 0, digits == 0 || length == digits else { return .failure(.mismatch(part: index, offset: at)) }
                at += length
                switch field {
                case .year: value.year = n
                case .twoDigitYear:
                    value.year = pivot - pivot % 100 + n
                    if value.year < pivot { value.year += 100 }
                case .month: value.month = n
                case .day: value.day = n
                case .hour, .hour12: value.hour = n
                case .minute: value.minute = n
                case .second: value.second = n
                case .fraction:
                    var scale = 1.0
                    for _ in 0..<digits { scale *= 10 }
                    value.fraction = Double(n) / scale
                }
            case .monthName(let full):
                guard let (month, length) = DatePattern.name(in: b, at: at, among: names.months.map { full ? $0.full : $0.short }) else {
                    return .failure(.mismatch(part: index, offset: at))
                }
                value.month = month + 1
                at += length
            case .weekdayName(let full):
                guard let (day, length) = DatePattern.name(in: b, at: at, among: names.weekdays.map { full ? $0.full : $0.short }) else {
                    return .failure(.mismatch(part: index, offset: at))
                }
                weekday = day
                at += length
            case .dayPeriod:
                guard at + 2 <= b.count, b[at + 1] | 0x20 == UInt8(ascii: "m"),
                      b[at] | 0x20 == UInt8(ascii: "a") || b[at] | 0x20 == UInt8(ascii: "p") else {
                    return .failure(.mismatch(part: index, offset: at))
                }
                pm = b[at] | 0x20 == UInt8(ascii: "p")
                at += 2
            case .offset(let colon, let minutes, let zulu, _):
                if zulu, at < b.count, b[at] == UInt8(ascii: "Z") {
                    value.offset = 0
                    at += 1
                    continue
                }
                guard at < b.count, b[at] == UInt8(ascii: "+") || b[at] == UInt8(ascii: "-") else {
                    return .failure(.mismatch(part: index, offset: at))
                }
                let sign = b[at] == UInt8(ascii: "-") ? -1 : 1
                var cursor = at + 1
                func twoDigits() -> Int? {
                    guard cursor + 2 <= b.count, (0x30...0x39).contains(b[cursor]), (0x30...0x39).contains(b[cursor + 1]) else { return nil }
                    defer { cursor += 2 }
                    return Int(b[cursor] - 0x30) * 10 + Int(b[cursor + 1] - 0x30)
                }
                guard let hours = twoDigits() else { return .failure(.mismatch(part: index, offset: at)) }
                var mins = 0
                if minutes {
                    if colon {
                        guard cursor < b.count, b[cursor] == UInt8(ascii: ":") else { return .failure(.mismatch(part: index, offset: at)) }
                        cursor += 1
                    }
                    guard let m = twoDigits() else { return .failure(.mismatch(part: index, offset: at)) }
                    mins = m
                }
                guard hours <= 18, mins <= 59 else { return .failure(.mismatch(part: index, offset: at)) }
                value.offset = sign * (hours * 3600 + mins * 60)
                at = cursor
            }
        }
        if at != b.count { return .failure(.mismatch(part: parts.count, offset: at)) }

        // Ranges, in the order a reader checks them.
        if let pm {
            guard (1...12).contains(value.hour) else { return .failure(.outOfRange(.hour12, value.hour, value)) }
            value.hour = value.hour % 12 + (pm ? 12 : 0)
        }
        if value.year == 0 { return .failure(.outOfRange(.year, 0, value)) }
        guard (1...12).contains(value.month) else { return .failure(.outOfRange(.month, value.month, value)) }
        guard value.day >= 1, value.day <= DatePattern.daysIn(month: value.month, year: value.year) else {
            return .failure(.outOfRange(.day, value.day, value))
        }
        guard value.hour <= 23 else { return .failure(.outOfRange(.hour, value.hour, value)) }
        guard value.minute <= 59 else { return .failure(.outOfRange(.minute, value.minute, value)) }
        guard value.second <= 59 else { return .failure(.outOfRange(.second, value.second, value)) }
        if let weekday {
            let actual = DatePattern.weekday(ofDay: DatePattern.days(year: value.year, month: value.month, day: value.day))
            if actual != weekday { return .failure(.wrongWeekday(named: weekday, actual: actual, value)) }
        }
        return .success(value)
    }

    /// What went wrong, for a rejection.
    func describe(_ failure: Failure, in text: String) -> String {
        switch failure {
        case .mismatch(let part, let offset):
            let character = String(decoding: text.utf8.prefix(offset), as: UTF8.self).count + 1
            guard part < parts.count else {
                let rest = String(decoding: text.utf8.dropFirst(offset), as: UTF8.self)
                return "does not match the format \"\(source)\": unexpected \(UTF8Text.quoted(rest)) after the date"
            }
            let expected: String
            switch parts[part] {
            case .literal(let bytes): expected = UTF8Text.quoted(String(decoding: bytes, as: UTF8.self))
            case .number(_, let digits, let symbol):
                expected = digits == 0 ? "1 or 2 digits for '\(symbol)'" : "\(digits) digit\(digits == 1 ? "" : "s") for '\(symbol)'"
            case .monthName(let full):
                let examples = names.months.prefix(2).map { full ? $0.full[0] : $0.short[0] }.joined(separator: ", ")
                expected = "a month \(full ? "name" : "abbreviation") (\(examples), ...) for '\(full ? "MMMM" : "MMM")'"
            case .weekdayName(let full):
                let examples = names.weekdays.dropFirst().prefix(2).map { full ? $0.full[0] : $0.short[0] }.joined(separator: ", ")
                expected = "a weekday \(full ? "name" : "abbreviation") (\(examples), ...) for '\(full ? "EEEE" : "EEE")'"
            case .dayPeriod: expected = "AM or PM for 'a'"
            case .offset(let colon, let minutes, let zulu, let symbol):
                expected = "a UTC offset (\(minutes ? (colon ? "+02:00" : "+0200") : "+02")\(zulu ? " or Z" : "")) for '\(symbol)'"
            }
            return "does not match the format \"\(source)\": expected \(expected) at character \(character)"
        case .outOfRange(let field, let n, let value):
            switch field {
            case .day:
                return "day \(n) does not exist in \(DatePattern.monthNames[value.month - 1]) \(value.year)"
            case .month: return "month \(n) is not between 1 and 12"
            case .year, .twoDigitYear: return "year 0 does not exist (1 BC is followed by 1 AD)"
            case .hour: return "hour \(n) is not between 0 and 23"
            case .hour12: return "hour \(n) is not between 1 and 12 (with AM/PM)"
            case .minute: return "minute \(n) is not between 0 and 59"
            case .second: return "second \(n) is not between 0 and 59"
            case .fraction: return "fraction \(n) is out of range"
            }
        case .wrongWeekday(let named, let actual, let value):
            return "\(DatePattern.isoDate(value)) is a \(DatePattern.weekdayNames[actual]), not a \(DatePattern.weekdayNames[named])"
        }
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian)

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]
    /// Index 0 is Sunday.
    static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// The index of the name at `at` among `names` (each index with its spellings), ignoring the
    /// case of ASCII letters, and its length in bytes: the longest spelling that matches.
    private static func name(in b: UnsafeBufferPointer<UInt8>, at: Int, among names: [[String]]) -> (Int, Int)? {
        var best: (Int, Int)?
        for (index, spellings) in names.enumerated() {
            for spelling in spellings {
                let length = spelling.utf8.count
                guard at + length <= b.count, length > (best?.1 ?? 0) else { continue }
                let same = zip(spelling.utf8, b[at..<(at + length)]).allSatisfy { a, c in
                    a == c || (a < 0x80 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A && a | 0x20 == c | 0x20)
                }
                if same { best = (index, length) }
            }
        }
        return best
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a civil date (Howard Hinnant's `days_from_civil`).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 0 for Sunday; 1970-01-01 was a Thursday.
    static func weekday(ofDay days: Int) -> Int {
        let w = (days + 4) % 7
        return w < 0 ? w + 7 : w
    }

    static func isoDate(_ v: LocalDateTime) -> String {
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(v.year, 4))-\(pad(v.month, 2))-\(pad(v.day, 2))"
    }

    static func isoDateTime(_ v: LocalDateTime) -> String {
        func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return "\(isoDate(v)) \(pad(v.hour)):\(pad(v.minute)):\(pad(v.second))"
    }
}
