import Diagnostics

/// Bounds how deeply a model's Swift source nests, checked on its text before SwiftParser reads it.
///
/// SwiftParser tries a nested `[` both as a type and as an expression, so its time doubles with
/// each level (`[[...[Int]...]]` 25 deep took 29 s), and it builds a chain of `Int???...` as
/// deep as the `?`s go, whose walk overflows the stack (50,000 of them, or 2,000 brackets: SIGSEGV).
/// App models nest a few levels: the limits are far above them and far below either cost.
enum SwiftSourceBudget {
    /// `[` inside `[`: an array of arrays of ... (dictionaries count, `[K: V]`).
    static let maxSquareDepth = 16
    /// `(`, `[` and `{` inside each other, together: closures in closures, calls in calls.
    static let maxDepth = 128
    /// `?` and `!` in a row: `Int??` is an optional optional.
    static let maxMarks = 16

    /// The first place in `text` that goes past a limit, as an error located there (exit 65);
    /// nil when none does. Comments and string literals are skipped (approximately: a raw
    /// string's backslash is read as an escape, which moves no bracket into or out of it).
    static func check(_ text: String, file: String) -> PipelineError? {
        var line = 1, column = 0
        var depth = 0, square: [Bool] = [], marks = 0
        var bytes = text.utf8.makeIterator()
        var pending: UInt8? = nil
        func next() -> UInt8? {
            let byte = pending ?? bytes.next()
            pending = nil
            guard let byte else { return nil }
            if byte == UInt8(ascii: "\n") { line += 1; column = 0 } else if byte & 0xC0 != 0x80 { column += 1 }
            return byte
        }
        func unread(_ byte: UInt8) {
            pending = byte
            if byte == UInt8(ascii: "\n") { line -= 1 } else if byte & 0xC0 != 0x80 { column -= 1 }
        }
        func fail(_ what: String) -> PipelineError {
            PipelineError(.invalidPipeline, code: .modelTooDeep, at: Location(file: file, line: line, column: column), stage: "model",
                          what + ", more than pipectl reads in a model's source")
        }
        var squareDepth = 0
        while let byte = next() {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "!") {
                marks += 1
                if marks > maxMarks { return fail("more than \(maxMarks) '?' or '!' in a row") }
                continue
            }
            marks = 0
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                let isSquare = byte == UInt8(ascii: "[")
                square.append(isSquare)
                if isSquare { squareDepth += 1 }
                if squareDepth > maxSquareDepth { return fail("'[' nested more than \(maxSquareDepth) levels deep") }
                if depth > maxDepth { return fail("brackets nested more than \(maxDepth) levels deep") }
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                if let last = square.popLast() {
                    depth -= 1
                    if last { squareDepth -= 1 }
                }
            case UInt8(ascii: "/"):
                guard let after = next() else { return nil }
                if after == UInt8(ascii: "/") {
                    while let c = next(), c != UInt8(ascii: "\n") {}
                } else if after == UInt8(ascii: "*") {
                    // Block comments nest in Swift.
                    var open = 1, previous: UInt8 = 0
                    while open > 0, let c = next() {
                        if previous == UInt8(ascii: "/"), c == UInt8(ascii: "*") { open += 1; previous = 0; continue }
                        if previous == UInt8(ascii: "*"), c == UInt8(ascii: "/") { open -= 1; previous = 0; continue }
                        previous = c
                    }
                } else {
                    unread(after)
                }
            case UInt8(ascii: "\""):
                guard let second = next() else { return nil }
                if second != UInt8(ascii: "\"") {
                    // A string on one line: to its closing quote.
                    var c: UInt8? = second
                    while let current = c, current != UInt8(ascii: "\""), current != UInt8(ascii: "\n") {
                        if current == UInt8(ascii: "\\") { _ = next() }
                        c = next()
                    }
                } else if let third = next() {
                    // `"""` opens a multi-line string; `""` is the empty one.
                    if third == UInt8(ascii: "\"") { skipMultiline(next) } else { unread(third) }
                }
            default:
                break
            }
        }
        return nil
    }

    /// Past the closing `"""` of a multi-line string.
    private static func skipMultiline(_ next: () -> UInt8?) {
        var quotes = 0
        while let c = next() {
            if c == UInt8(ascii: "\\") { _ = next(); quotes = 0; continue }
            quotes = c == UInt8(ascii: "\"") ? quotes + 1 : 0
            if quotes == 3 { return }
        }
    }
}
