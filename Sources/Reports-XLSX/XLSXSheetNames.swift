/// Hands out valid, distinct sheet names: Excel allows 31 characters, none of `[]:*?/\`, no
/// leading or trailing apostrophe, and compares names without regard to case.
struct XLSXSheetNames {
    private var taken: Set<String> = []

    /// `wanted` made valid, with ` (2)`, ` (3)`... appended while it is taken.
    mutating func claim(_ wanted: String) -> String {
        var base = String(wanted.map { "[]:*?/\\".contains($0) ? "_" : $0 })
        while base.hasPrefix("'") { base.removeFirst() }
        while base.hasSuffix("'") { base.removeLast() }
        if base.isEmpty { base = "Sheet" }
        var candidate = String(base.prefix(31))
        var number = 2
        while taken.contains(candidate.lowercased()) {
            let suffix = " (\(number))"
            candidate = String(base.prefix(31 - suffix.count)) + suffix
            number += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }
}
