import Pipeline

extension ComponentSpec {
    /// The spec's keys as a Markdown table (key, value, default, meaning), as the reference in
    /// `docs/pipeline-format.md` shows them; a test keeps the two in step.
    public var markdownTable: String {
        var out = "| Key | Value | Default | Meaning |\n| --- | --- | --- | --- |\n"
        for option in options {
            let value = option.kind == .any ? "see below" : option.kind.description
            let fallback = option.required ? "required" : option.defaultDescription.map { "`\($0)`" } ?? "none"
            out += "| `\(option.name)` | \(value) | \(fallback) | \(option.summary) |\n"
        }
        return out
    }
}
