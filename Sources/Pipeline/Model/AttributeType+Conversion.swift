import Foundation

extension AttributeType {
    /// Whether `convert` gives `value` back unchanged: already of this type, it moves on as it
    /// is, without a copy (`LoadBinding.fill`).
    func takesAsIs(_ value: Value) -> Bool {
        switch value {
        case .null: return false
        case .text(let s): return (self == .string || self == .uri) && !s.isEmpty
        case .integer: return self == .integer64
        case .double: return self == .double || self == .float
        case .decimal: return self == .decimal
        case .bool: return self == .bool
        case .date: return self == .date
        case .binary: return self == .binary || self == .transformable
        case .list, .object: return false
        }
    }

    /// A model's default value as an attribute of this type holds it, nil when it is no value.
    /// As `convert`, but the empty text is the empty string for a String attribute: a SwiftData
    /// `var name: String = ""`, or Xcode's `defaultValueString=""`, puts '' into each new row that
    /// gives no value, not NULL.
    public func convertDefault(_ value: Value) -> Result<Value?, ConversionFailure> {
        if self == .string, value == .text("") { return .success(value) }
        return convert(value).map { $0 == .null ? nil : $0 }
    }

    /// Converts a value reaching an attribute of this type, or explains why it cannot.
    ///
    /// Text is parsed strictly: number formats with commas or currency signs go through the
    /// `number` transform first, dates other than ISO 8601 through the `date` transform. Empty text
    /// means "no value" (`.null`), for strings too: an empty cell takes the attribute's default.
    public func convert(_ value: Value) -> Result<Value, ConversionFailure> {
        switch (self, value) {
        case (_, .null):
            return .success(.null)
        case (_, .text(let s)) where s.isEmpty:
            return .success(.null)
        case (.transformable, .list):
            // A SwiftData array property; the store's layout archives it (or says why it cannot).
            return .success(value)
        case (_, .list(let values)):
            return .failure(ConversionFailure("the field holds a list of \(values.count) values, and an attribute takes one; "
                                              + "load a list through a to-many relationship"))
        case (_, .object):
            return .failure(ConversionFailure("the field holds an object, and an attribute takes one value; "
                                              + "name a field inside it (object.field)"))
        case (.string, .text), (.uri, .text):
            return .success(value)
        case (.string, .integer), (.string, .double), (.string, .decimal), (.string, .bool), (.string, .date):
            return .success(.text(value.displayText))

        case (.integer16, _), (.integer32, _), (.integer64, _):
            return convertInteger(value)

        case (.double, .double), (.float, .double):
            return .success(value)
        case (.double, .integer(let i)), (.float, .integer(let i)):
            return .success(.double(Double(i)))
        case (.double, .decimal(let d)), (.float, .decimal(let d)):
            // Through the text form: NSDecimalNumber.doubleValue is not correctly rounded everywhere.
            return .success(.double(Double(d.description) ?? NSDecimalNumber(decimal: d).doubleValue))
        case (.double, .text(let s)), (.float, .text(let s)):
            if let d = AttributeType.plainDecimal(s) { return .success(.double(d)) }
            if s.utf8.count > NumberBudget.maxLength { return .failure(.init(NumberBudget.tooLong(s.utf8.count))) }
            guard let d = Double(s), d.isFinite, AttributeType.looksNumeric(s) else {
                return .failure(.init("not a number (use the 'number' transform for decimal commas, grouping or currency signs)"))
            }
            return .success(.double(d))

        case (.decimal, .decimal):
            return .success(value)
        case (.decimal, .integer(let i)):
            return .success(.decimal(Decimal(i)))
        case (.decimal, .double(let d)):
            return .success(.decimal(Decimal(d)))
        case (.decimal, .text(let s)):
            if s.utf8.count > NumberBudget.maxLength { return .failure(.init(NumberBudget.tooLong(s.utf8.count))) }
            guard AttributeType.looksNumeric(s), let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else {
                return .failure(.init("not a decimal number (use the 'number' transform for decimal commas, grouping or currency signs)"))
            }
            return .success(.decimal(d))

        case (.bool, .bool):
            return .success(value)
        case (.bool, .integer(let i)) where i == 0 || i == 1:
            return .success(.bool(i == 1))
        case (.bool, .text(let s)):
            switch s.lowercased() {
            case "true", "yes", "y", "1": return .success(.bool(true))
            case "false", "no", "n", "0": return .success(.bool(false))
            default: return .failure(.init("not a boolean (expected true/false, yes/no or 1/0)"))
            }

        case (.date, .date):
            return .success(value)
        case (.date, .text(let s)):
            guard let seconds = AttributeType.parseISO8601(s) else {
                return .failure(.init("not an ISO 8601 date (use the 'date' transform with the export's format and time zone)"))
            }
            return .success(.date(seconds))

        case (.binary, .binary), (.transformable, .binary):
            return .success(value)
        case (.uuid, .text(let s)):
            guard let uuid = UUID(uuidString: s) else { return .failure(.init("not a UUID")) }
            return .success(.text(uuid.uuidString))
        case (.uuid, .binary(let bytes)) where bytes.count == 16:
            return .success(value)

        default:
            return .failure(.init("a \(value.kindName) value cannot be stored in a \(rawValue) attribute"))
        }
    }

    private func convertInteger(_ value: Value) -> Result<Value, ConversionFailure> {
        let number: Int64
        switch value {
        case .integer(let i): number = i
        case .text(let s):
            if s.utf8.count > NumberBudget.maxLength { return .failure(.init(NumberBudget.tooLong(s.utf8.count))) }
            guard let i = Int64(s) else {
                return .failure(.init("not an integer"))
            }
            number = i
        case .double(let d):
            guard d.rounded() == d, let i = Int64(exactly: d) else { return .failure(.init("not a whole number")) }
            number = i
        case .decimal(let d):
            let n = NSDecimalNumber(decimal: d)
            guard let i = Int64(exactly: n.doubleValue), Decimal(i) == d else { return .failure(.init("not a whole number")) }
            number = i
        case .bool(let b): number = b ? 1 : 0
        default:
            return .failure(.init("a \(value.kindName) value cannot be stored in a \(rawValue) attribute"))
        }
        let range: ClosedRange<Int64> = switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
        guard range.contains(number) else {
            return .failure(.init("\(number) is out of range for \(rawValue) (\(range.lowerBound)...\(range.upperBound))"))
        }
        return .success(.integer(number))
    }

    /// Digits with an optional sign, point and exponent: no "nan", "inf" or hex that `Double()` takes.
    /// The double of plain decimal text (an optional `-`, digits, and a point with digits: what
    /// the `number` transform writes), when its digits make an integer below 2^53 and it has at
    /// most 22 decimals; nil otherwise. Both that integer and the power of ten are then exact
    /// doubles, so one division rounds correctly: the same double as `Double(s)`, without the
    /// C library's `strtod`, a visible share of the reading thread (docs/benchmarks.md).
    static func plainDecimal(_ s: String) -> Double? {
        let parsed = s.utf8.withContiguousStorageIfAvailable { bytes -> Double? in
            var i = 0
            let negative = bytes.first == UInt8(ascii: "-")
            if negative { i = 1 }
            var mantissa: UInt64 = 0
            var digits = 0, wholeDigits = 0, decimals = 0
            var sawPoint = false
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: ".") {
                    guard !sawPoint, digits > 0 else { return nil }
                    sawPoint = true
                    wholeDigits = digits
                } else {
                    let digit = c &- UInt8(ascii: "0")
                    guard digit < 10, digits < 19 else { return nil }
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    digits += 1
                    if sawPoint { decimals += 1 }
                }
                i += 1
            }
            guard digits > 0, !sawPoint || digits > wholeDigits, mantissa <= 1 << 53, decimals < powersOfTen.count else { return nil }
            let value = Double(mantissa) / powersOfTen[decimals]
            return negative ? -value : value
        }
        return parsed ?? nil
    }

    /// 10^0 through 10^22: the powers of ten a double holds exactly.
    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { product, _ in product * 10 } }

    /// Whether `s` is written as a plain decimal number (digits, one sign, one point, an exponent).
    public static func looksNumeric(_ s: String) -> Bool {
        var sawDigit = false
        var previous: UInt8?
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                // A sign leads the number or its exponent.
                if let previous, previous != UInt8(ascii: "e"), previous != UInt8(ascii: "E") { return false }
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            default: return false
            }
            previous = c
        }
        return sawDigit
    }

    /// `yyyy-MM-dd`, `yyyy-MM-ddTHH:mm[:ss[.fff]]` with `Z` or `±hh:mm`. A time without a zone is
    /// ambiguous and refused: the `date` transform takes an explicit time zone.
    static func parseISO8601(_ s: String) -> Double? {
        let iso = ISO8601DateFormatter()
        if s.count == 10 {
            iso.formatOptions = [.withFullDate]
            return iso.date(from: s).map { $0.timeIntervalSinceReferenceDate }
        }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = iso.date(from: s) { return d.timeIntervalSinceReferenceDate }
        iso.formatOptions = [.withInternetDateTime]
        return iso.date(from: s).map { $0.timeIntervalSinceReferenceDate }
    }
}

/// Why a value could not be converted to an attribute's type.
public struct ConversionFailure: Error, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}
