/// Where something came from: a file and, where known, a line and column or an element path.
///
/// Printed as `file:line:col`, `file:line`, or `file: at path` so that editors and CI logs link to it.
public struct Location: Sendable, Hashable, CustomStringConvertible {
    /// The file as shown to the user (relative to the working directory where possible).
    public var file: String
    /// 1-based line, if the format has lines.
    public var line: Int?
    /// 1-based column in characters, if known.
    public var column: Int?
    /// Element path (`items/item[3]`) or key path (`data.items[3]`) for tree formats.
    public var path: String?

    public init(file: String, line: Int? = nil, column: Int? = nil, path: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
    }

    public var description: String {
        var out = file
        if let line {
            out += ":\(line)"
            if let column { out += ":\(column)" }
        }
        if let path { out += line == nil ? ": at \(path)" : " (\(path))" }
        return out
    }
}
