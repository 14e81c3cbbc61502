/// SQL text helpers shared by the layouts.
enum SQL {
    /// `name` as a quoted identifier, so that SQL keywords (`Order`, `group`) and any character work.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
