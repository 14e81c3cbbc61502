/// The type of an entity attribute: the Core Data attribute types, which also cover plain SQLite.
public enum AttributeType: String, Sendable, CaseIterable, Codable {
    case string
    case integer16
    case integer32
    case integer64
    case decimal
    case double
    case float
    case bool
    /// Seconds since 2001-01-01T00:00:00Z.
    case date
    case binary
    case uuid
    case uri
    /// Bytes passed through as they are (Core Data's Transformable).
    case transformable

    /// The names a pipeline file may use for each type; the first is the canonical one.
    public static let spellings: [(String, AttributeType)] = [
        ("string", .string), ("text", .string),
        ("int", .integer64), ("integer", .integer64),
        ("int16", .integer16), ("integer16", .integer16),
        ("int32", .integer32), ("integer32", .integer32),
        ("int64", .integer64), ("integer64", .integer64),
        ("decimal", .decimal),
        ("double", .double), ("float", .float),
        ("bool", .bool), ("boolean", .bool),
        ("date", .date),
        ("binary", .binary), ("data", .binary),
        ("uuid", .uuid), ("uri", .uri), ("transformable", .transformable),
    ]

    public init?(spelling: String) {
        guard let match = AttributeType.spellings.first(where: { $0.0 == spelling.lowercased() }) else { return nil }
        self = match.1
    }

    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }
}
