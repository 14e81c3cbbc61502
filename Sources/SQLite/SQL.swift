/// SQL text helpers: the one place names and strings are quoted for SQL.
public enum SQL {
    /// `name` as a quoted identifier, so that SQL keywords (`Order`, `group`) and any character work.
    public static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a SQL string literal.
    public static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
