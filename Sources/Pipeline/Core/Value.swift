import Foundation

/// One field's value as it travels from a reader through transforms into a sink.
///
/// Readers produce `.text` (or typed values where the format has types: JSON numbers, plist dates);
/// transforms and the attribute conversion turn text into the typed cases.
public enum Value: Sendable, Hashable, Codable {
    case null
    case text(String)
    case integer(Int64)
    case double(Double)
    /// An exact decimal, kept apart from `.double` so that prices and quantities stay exact.
    case decimal(Decimal)
    case bool(Bool)
    /// Seconds since 2001-01-01T00:00:00Z, Core Data's reference date.
    case date(Double)
    case binary([UInt8])
    /// Several values in one field: a JSON or plist array, repeated XML elements, a cell that
    /// `split` cut. A to-many link makes one linked record per element.
    case list([Value])
    /// A list element with fields of its own: a JSON object, a plist dictionary, an XML element
    /// with attributes or children. Names in an `each:` link read these first.
    case object(Fields)

    /// `true` for `.null` and for text that is empty: both mean "no value" for a unique key.
    public var isEmpty: Bool {
        switch self {
        case .null: return true
        case .text(let s): return s.isEmpty
        default: return false
        }
    }

    /// The value as the user would write it, for messages and reports.
    public var displayText: String {
        switch self {
        case .null: return ""
        case .text(let s): return s
        case .integer(let i): return String(i)
        case .double(let d): return Value.format(d)
        case .decimal(let d): return d.description
        case .bool(let b): return b ? "true" : "false"
        case .date(let t): return Value.iso8601(t)
        case .binary(let bytes): return "<\(bytes.count) bytes>"
        case .list(let values): return "[" + values.map(\.displayText).joined(separator: ", ") + "]"
        case .object(let fields):
            return "{" + zip(fields.names, fields.values).map { "\($0): \($1.displayText)" }.joined(separator: ", ") + "}"
        }
    }

    /// Name of the case for messages ("text", "integer", ...).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .text: return "text"
        case .integer: return "integer"
        case .double: return "double"
        case .decimal: return "decimal"
        case .bool: return "bool"
        case .date: return "date"
        case .binary: return "binary"
        case .list: return "list"
        case .object: return "object"
        }
    }

    /// The value as the elements of a list: a list's own, none for an empty value, else itself.
    public var elements: [Value] {
        switch self {
        case .list(let values): values
        case .null: []
        case .text(let text) where text.isEmpty: []
        default: [self]
        }
    }

    static func format(_ d: Double) -> String {
        if d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    /// ISO 8601 in UTC, computed without a formatter so that it is deterministic and cheap.
    static func iso8601(_ secondsSince2001: Double) -> String {
        let unix = secondsSince2001 + 978_307_200
        let days = Int((unix / 86_400).rounded(.down))
        var secs = unix - Double(days) * 86_400
        let (y, m, d) = civilFromDays(days)
        let hh = Int(secs / 3600); secs -= Double(hh * 3600)
        let mm = Int(secs / 60); secs -= Double(mm * 60)
        let ss = Int(secs)
        let frac = secs - Double(ss)
        var out = "\(padded(y, 4))-\(padded(m, 2))-\(padded(d, 2))T\(padded(hh, 2)):\(padded(mm, 2)):\(padded(ss, 2))"
        if frac > 0.0005 { out += ".\(padded(Int((frac * 1000).rounded()), 3))" }
        return out + "Z"
    }

    /// `number` zero-padded to `width` digits, as `%0<width>d` gives it: `String(format:)` costs
    /// microseconds, and every duplicate of a record with a date shows the date.
    private static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number.magnitude)
        let zeros = String(repeating: "0", count: max(0, width - digits.count - (number < 0 ? 1 : 0)))
        return (number < 0 ? "-" : "") + zeros + digits
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

/// The fields of one list element (`Value.object`), in the order the input gives them.
public struct Fields: Sendable, Hashable, Codable {
    public var names: [String]
    public var values: [Value]

    public init(names: [String], values: [Value]) {
        self.names = names
        self.values = values
    }

    /// Keys one element may have, from any reader: far above what an element of a record holds,
    /// and what keeps a field's lookup by name (a walk over the names) cheap.
    public static let maxNames = 10_000
    /// Values a record's lists may hold in all, from any reader or `split` (JSON's limit).
    public static let maxListValues = 1_000_000

    /// Where field `name` is; `index` (kept by the caller with the fields) finds names by hash
    /// once there are more than a few, so that building an element is linear in its keys (a walk
    /// over the names before each made one of 100,000 keys take 25 s).
    public func position(of name: String, index: inout [String: Int]) -> Int? {
        guard names.count > 16 else { return names.firstIndex(of: name) }
        if index.count < names.count {
            for (position, known) in names.enumerated() where index[known] == nil { index[known] = position }
        }
        return index[name]
    }

    /// Sets field `name`; a name given again keeps the last value. False when the element has
    /// `maxNames` keys already and `name` is a new one.
    public mutating func set(_ name: String, _ value: Value, index: inout [String: Int]) -> Bool {
        if let found = position(of: name, index: &index) {
            values[found] = value
            return true
        }
        guard names.count < Self.maxNames else { return false }
        if names.count > 16 { index[name] = names.count }
        names.append(name)
        values.append(value)
        return true
    }

    /// The value of field `name`; a dotted name (`unit.name`) looks inside an object field.
    /// Nil when there is no such field.
    public subscript(name: String) -> Value? {
        if let index = names.firstIndex(of: name) { return values[index] }
        guard let dot = name.firstIndex(of: ".") else { return nil }
        guard let index = names.firstIndex(of: String(name[..<dot])), case .object(let inner) = values[index] else { return nil }
        return inner[String(name[name.index(after: dot)...])]
    }
}
