import Pipeline

/// How an export writes numbers, and the parser that turns them into canonical text: ASCII digits,
/// an optional `-`, `.` as the decimal point, no grouping, no exponent (`-1234.5`, `0.125`, `3`),
/// which `AttributeType.convert` reads exactly as an integer, a double or a decimal.
///
/// Accepted around the digits: a sign (`+`, `-`, `−`) or accounting parentheses `(12.50)`, one
/// currency before or after (`$`, `€`, `£`, `¥`, any other currency symbol, or a common ISO 4217
/// code such as `EUR`, `USD`, `CHF`), with or without a space, and a trailing `%`, which divides
/// by 100 exactly by moving the decimal point. Grouping separators must sit at thousands
/// positions; spaces (also no-break, narrow no-break, figure and thin spaces) and apostrophes
/// (Swiss `1'234.50`) always count as grouping.
public struct NumberFormat: Sendable, Hashable {
    /// `.` or `,`.
    public let decimal: UInt8
    /// The configured grouping separator (`.`, `,`, a space or `'`).
    public let grouping: UInt8

    public init(decimal: UInt8 = UInt8(ascii: "."), grouping: UInt8? = nil) {
        self.decimal = decimal
        self.grouping = grouping ?? (decimal == UInt8(ascii: ".") ? UInt8(ascii: ",") : UInt8(ascii: "."))
    }

    /// Why a text is not a number in this format.
    public enum Problem: Error, Sendable, Hashable {
        case noDigits
        case unexpected(UInt32)
        case twoDecimalSeparators
        case groupingAfterDecimal(UInt32)
        case misplacedGrouping(UInt32)
        case mixedGrouping(UInt32, UInt32)
        case twoSigns
        case twoCurrencies
        case twoPercentSigns
        case unbalancedParenthesis
        /// Longer than `NumberBudget.maxLength` bytes.
        case tooLong(Int)
    }

    /// The canonical form of `text`; nil when `text` already is canonical (so nothing is allocated).
    /// Empty or blank text gives `""`: no value.
    public func canonical(_ text: String) throws(Problem) -> String? {
        let length = text.utf8.count
        guard length <= NumberBudget.maxLength else { throw .tooLong(length) }
        let result: Result<String?, Problem> = UTF8Text.withBytes(text) { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * bytes.count + 8) { scratch in
                parse(bytes, scratch: scratch)
            }
        }
        return try result.get()
    }

    /// The reason given in a rejection.
    public func reason(_ problem: Problem) -> String {
        let detail: String
        switch problem {
        case .noDigits: detail = "no digits"
        case .unexpected(let v): detail = "unexpected \(UTF8Text.describe(v))"
        case .twoDecimalSeparators: detail = "more than one decimal separator \(NumberFormat.show(decimal))"
        case .groupingAfterDecimal(let v): detail = "grouping separator \(UTF8Text.describe(v)) after the decimal separator"
        case .misplacedGrouping(let v):
            detail = "grouping separator \(UTF8Text.describe(v)) must separate groups of three digits"
        case .mixedGrouping(let a, let b):
            detail = "mixed grouping separators \(UTF8Text.describe(a)) and \(UTF8Text.describe(b))"
        case .twoSigns: detail = "more than one sign"
        case .twoCurrencies: detail = "more than one currency"
        case .twoPercentSigns: detail = "more than one '%'"
        case .unbalancedParenthesis: detail = "unbalanced parenthesis"
        case .tooLong(let length): return NumberBudget.tooLong(length)
        }
        return "not a number with decimal \(NumberFormat.show(decimal)) and grouping \(NumberFormat.show(grouping)): \(detail)"
    }

    static func show(_ byte: UInt8) -> String { "'\(Character(Unicode.Scalar(byte)))'" }

    // MARK: - Parsing

    private func parse(_ b: UnsafeBufferPointer<UInt8>, scratch: UnsafeMutableBufferPointer<UInt8>) -> Result<String?, Problem> {
        if let plain = plainDigits(b, into: scratch) {
            return .success(NumberFormat.written(scratch, integerDigits: plain.integer, fractionDigits: plain.fraction,
                                                 negative: plain.negative, percent: false, original: b))
        }
        var range = UTF8Text.trimmedRange(b, from: 0, to: b.count)
        if range.isEmpty { return .success(b.isEmpty ? nil : "") }
        var lo = range.lowerBound, hi = range.upperBound
        var negative = false, signed = false, currency = false, percent = false

        // Digits at both ends (after a leading '-'), as most values have: no parenthesis, percent
        // sign, currency or other sign can be there, and the loops looking for them are skipped.
        if NumberFormat.isDigit(b[hi - 1]),
           NumberFormat.isDigit(b[lo]) || (b[lo] == UInt8(ascii: "-") && hi - lo >= 2 && NumberFormat.isDigit(b[lo + 1])) {
            if b[lo] == UInt8(ascii: "-") {
                negative = true
                signed = true
                lo += 1
            }
        } else {
            if b[lo] == UInt8(ascii: "(") || b[hi - 1] == UInt8(ascii: ")") {
                guard hi - lo >= 2, b[lo] == UInt8(ascii: "("), b[hi - 1] == UInt8(ascii: ")") else {
                    return .failure(.unbalancedParenthesis)
                }
                negative = true
                signed = true
                range = UTF8Text.trimmedRange(b, from: lo + 1, to: hi - 1)
                lo = range.lowerBound
                hi = range.upperBound
            }

            // Suffixes: `%` and a currency, in either order, each with optional spaces before it.
            while hi > lo {
                let (v, n) = UTF8Text.scalar(in: b, before: hi)
                if v == 0x25 {  // %
                    if percent { return .failure(.twoPercentSigns) }
                    percent = true
                    hi -= n
                } else if let n = NumberFormat.currencyLength(b, endingAt: hi, from: lo) {
                    if currency { return .failure(.twoCurrencies) }
                    currency = true
                    hi -= n
                } else {
                    break
                }
                hi = UTF8Text.trimmedRange(b, from: lo, to: hi).upperBound
            }

            // Prefixes: a sign and a currency, in either order (`-$12`, `$-12`, `€ -12,50`).
            while lo < hi {
                let (v, n) = UTF8Text.scalar(in: b, at: lo)
                if v == 0x2B || v == 0x2D || v == 0x2212 {  // + - −
                    if signed { return .failure(.twoSigns) }
                    signed = true
                    negative = v != 0x2B
                    lo += n
                } else if let n = NumberFormat.currencyLength(b, startingAt: lo, to: hi) {
                    if currency { return .failure(.twoCurrencies) }
                    currency = true
                    lo += n
                } else {
                    break
                }
                lo = UTF8Text.trimmedRange(b, from: lo, to: hi).lowerBound
            }
        }

        // The digits, collected without separators into the scratch buffer's first half.
        var integerDigits = 0, fractionDigits = 0
        var inFraction = false
        var groupSeparator: UInt32?  // the first grouping separator seen; later ones must match it
        var groupLength = 0  // digits since the last grouping separator
        var problem: Problem?  // a structural problem; an unexpected character found later wins over it
        var i = lo
        while i < hi {
            let (v, n) = UTF8Text.scalar(in: b, at: i)
            i += n
            if v >= 0x30, v <= 0x39 {
                scratch[integerDigits + fractionDigits] = UInt8(v)
                if inFraction { fractionDigits += 1 } else { integerDigits += 1; groupLength += 1 }
            } else if v == UInt32(decimal) {
                if inFraction { problem = problem ?? .twoDecimalSeparators; continue }
                if let separator = groupSeparator, groupLength != 3 { problem = problem ?? .misplacedGrouping(separator) }
                inFraction = true
            } else if let kind = groupingKind(v) {
                if inFraction { problem = problem ?? .groupingAfterDecimal(v); continue }
                if let separator = groupSeparator, groupingKind(separator) != kind {
                    problem = problem ?? .mixedGrouping(separator, v)
                }
                // The first group has one to three digits, every later group exactly three.
                if groupLength == 0 || groupLength > 3 || (groupSeparator != nil && groupLength != 3) {
                    problem = problem ?? .misplacedGrouping(v)
                }
                if groupSeparator == nil { groupSeparator = v }
                groupLength = 0
            } else {
                return .failure(.unexpected(v))
            }
        }
        if let separator = groupSeparator, !inFraction, groupLength != 3 { problem = problem ?? .misplacedGrouping(separator) }
        if let problem { return .failure(problem) }
        if integerDigits + fractionDigits == 0 { return .failure(.noDigits) }
        return .success(NumberFormat.written(scratch, integerDigits: integerDigits, fractionDigits: fractionDigits,
                                             negative: negative, percent: percent, original: b))
    }

    /// The digits of the commonest shape, copied into `scratch`: ASCII digits with at most one
    /// decimal separator between them, after an optional `-` (`12`, `0,75`, `-3.5`). Nothing to
    /// trim, decode or look for around them; anything else is left to the whole parse, which
    /// reads these the same.
    @inline(__always)
    private func plainDigits(_ b: UnsafeBufferPointer<UInt8>, into scratch: UnsafeMutableBufferPointer<UInt8>)
        -> (integer: Int, fraction: Int, negative: Bool)? {
        let negative = b.count > 1 && b[0] == UInt8(ascii: "-")
        var i = negative ? 1 : 0
        var integer = 0, fraction = 0, inFraction = false
        while i < b.count {
            let byte = b[i]
            if NumberFormat.isDigit(byte) {
                scratch[integer + fraction] = byte
                if inFraction { fraction += 1 } else { integer += 1 }
            } else if byte == decimal, !inFraction, integer > 0 {
                inFraction = true
            } else {
                return nil
            }
            i += 1
        }
        guard integer > 0, !inFraction || fraction > 0 else { return nil }
        return (integer, fraction, negative)
    }

    /// The canonical form of the digits in the first `integerDigits + fractionDigits` places of
    /// `scratch`, written into the places after them; nil when it is `original` as it is.
    private static func written(_ scratch: UnsafeMutableBufferPointer<UInt8>, integerDigits: Int, fractionDigits: Int,
                                negative: Bool, percent: Bool, original b: UnsafeBufferPointer<UInt8>) -> String? {
        let total = integerDigits + fractionDigits
        // Write the canonical form into the scratch buffer's second half. A percentage moves the
        // decimal point two places left, in text, so `12,5 %` is exactly 0.125.
        let digits = UnsafeMutableBufferPointer(rebasing: scratch[0..<total])
        let out = UnsafeMutableBufferPointer(rebasing: scratch[total...])
        var count = 0
        func put(_ byte: UInt8) { out[count] = byte; count += 1 }

        let point = integerDigits - (percent ? 2 : 0)  // digits before the decimal point
        var fractionEnd = total
        while fractionEnd > max(point, 0), digits[fractionEnd - 1] == UInt8(ascii: "0") { fractionEnd -= 1 }
        var firstSignificant = 0
        while firstSignificant < min(point, fractionEnd), digits[firstSignificant] == UInt8(ascii: "0") { firstSignificant += 1 }
        let isZero = !digits.contains { $0 != UInt8(ascii: "0") }

        if negative, !isZero { put(UInt8(ascii: "-")) }
        if point <= 0 || firstSignificant == point {
            put(UInt8(ascii: "0"))
        } else {
            for k in firstSignificant..<point { put(digits[k]) }
        }
        if fractionEnd > max(point, 0) {
            put(UInt8(ascii: "."))
            if point < 0 { for _ in 0 ..< -point { put(UInt8(ascii: "0")) } }
            for k in max(point, 0)..<fractionEnd { put(digits[k]) }
        }

        let canonical = UnsafeBufferPointer(rebasing: out[0..<count])
        // A plain loop: the generic `elementsEqual` was not specialized here and cost more than the parse.
        if count == b.count {
            var k = 0
            while k < count, canonical[k] == b[k] { k += 1 }
            if k == count { return nil }
        }
        return String(decoding: canonical, as: UTF8.self)
    }

    /// Which grouping family a scalar belongs to (separators of one number must be of one family),
    /// or nil if it is not a grouping separator in this format.
    private func groupingKind(_ v: UInt32) -> UInt32? {
        switch v {
        case 0x20, 0xA0, 0x2007, 0x2009, 0x202F: return 0x20  // spaces of every width
        case 0x27, 0x2019: return 0x27  // apostrophes, straight or typographic
        case UInt32(grouping): return v
        default: return nil
        }
    }

    // MARK: - Currencies

    /// The byte length of a currency symbol or ISO code starting at `i`, if there is one.
    private static func currencyLength(_ b: UnsafeBufferPointer<UInt8>, startingAt i: Int, to end: Int) -> Int? {
        let (v, n) = UTF8Text.scalar(in: b, at: i)
        if isCurrencySymbol(v) { return n }
        guard i + 3 <= end, isISOCode(b, at: i) else { return nil }
        if i + 3 < end, isLetter(b[i + 3]) { return nil }
        return 3
    }

    /// The byte length of a currency symbol or ISO code ending just before `end`, if there is one.
    private static func currencyLength(_ b: UnsafeBufferPointer<UInt8>, endingAt end: Int, from start: Int) -> Int? {
        let (v, n) = UTF8Text.scalar(in: b, before: end)
        if isCurrencySymbol(v) { return n }
        guard end - 3 >= start, isISOCode(b, at: end - 3) else { return nil }
        if end - 3 > start, isLetter(b[end - 4]) { return nil }
        return 3
    }

    private static func isCurrencySymbol(_ v: UInt32) -> Bool {
        if v < 0x80 { return v == 0x24 }  // $
        return Unicode.Scalar(v)?.properties.generalCategory == .currencySymbol
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isISOCode(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        var packed: UInt32 = 0
        for k in 0..<3 {
            let byte = b[i + k]
            guard (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) else { return false }
            packed = packed << 8 | UInt32(byte)
        }
        return isoCodes.contains(packed)
    }

    /// The ISO 4217 codes accepted as currencies: the common ones, fixed here (rather than taken
    /// from the platform's locale data) so that every machine accepts the same values. Unit
    /// abbreviations such as `PCS` or `KGS` are deliberately not currencies.
    public static let currencyCodes: [String] = [
        "AED", "ARS", "AUD", "BGN", "BRL", "CAD", "CHF", "CLP", "CNY", "COP", "CZK", "DKK", "EGP", "EUR",
        "GBP", "HKD", "HUF", "IDR", "ILS", "INR", "ISK", "JPY", "KES", "KRW", "MAD", "MXN", "MYR", "NGN",
        "NOK", "NZD", "PEN", "PHP", "PKR", "PLN", "QAR", "RON", "RUB", "SAR", "SEK", "SGD", "THB", "TRY",
        "TWD", "UAH", "USD", "VND", "ZAR",
    ]

    private static let isoCodes: Set<UInt32> = Set(currencyCodes.map { code in
        code.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    })
}
