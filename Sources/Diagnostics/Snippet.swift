/// Text from a file shown in a message (the offending line, a value), cut to a readable width.
///
/// A pipeline line or a field can be megabytes long; echoed whole, it buries the message (and
/// fills a terminal or a CI log). What is cut off is marked with "…".
public enum Snippet {
    /// Characters of a source line shown, around the caret.
    public static let lineWidth = 160
    /// Characters of a value shown, before its closing quote.
    public static let valueWidth = 80

    /// `line` cut to `lineWidth` characters (Unicode scalars, as columns count them) around
    /// `column`, and the caret's column in what is shown.
    public static func line(_ line: String, column: Int?) -> (text: String, column: Int?) {
        let (text, column) = cut(line, column: column)
        return escapingControls(text, column: column)
    }

    private static func cut(_ line: String, column: Int?) -> (text: String, column: Int?) {
        // Every scalar takes at least a byte: a short line needs no counting.
        guard line.utf8.count > lineWidth else { return (line, column) }
        let scalars = Array(line.unicodeScalars)
        guard scalars.count > lineWidth else { return (line, column) }
        // The caret stays in the first part when it can; otherwise the window is centred on it.
        var start = 0
        if let column, column > lineWidth - 10 {
            start = min(column - 1 - lineWidth / 2, scalars.count - lineWidth)
        }
        let end = min(start + lineWidth, scalars.count)
        var view = String.UnicodeScalarView()
        if start > 0 { view.append("…") }
        view.append(contentsOf: scalars[start..<end])
        if end < scalars.count { view.append("…") }
        return (String(view), column.map { $0 - start + (start > 0 ? 1 : 0) })
    }

    /// Words (runs without spaces) longer than this in a message are cut: a key or name copied
    /// from a file into a message.
    public static let wordWidth = 200
    /// Characters of a whole message shown: lists of names (every entity of 40,000) are cut here.
    public static let messageWidth = 2_000

    /// `message` with over-long words cut to `wordWidth` characters and the whole to
    /// `messageWidth`, each with "…": a 2 MB key in "unknown key '...'" is shown by its start.
    public static func message(_ message: String) -> String {
        let message = escapingControls(message, column: nil, keepingLines: true).text
        guard message.utf8.count > wordWidth else { return message }
        var out = String.UnicodeScalarView()
        var word = 0
        var total = 0
        // The last scalar of a word cut short, kept when it closes a quote or a clause.
        var skipped: Unicode.Scalar?
        func closeCut() {
            if let last = skipped, "'\")],;:.".unicodeScalars.contains(last) { out.append(last) }
            skipped = nil
        }
        for scalar in message.unicodeScalars {
            if scalar == " " || scalar == "\n" {
                word = 0
                closeCut()
            } else {
                word += 1
                if word > wordWidth {
                    if word == wordWidth + 1 { out.append("…") }
                    skipped = scalar
                    continue
                }
            }
            total += 1
            if total > messageWidth {
                out.append("…")
                return String(out)
            }
            out.append(scalar)
        }
        closeCut()
        return String(out)
    }

    /// `text` in double quotes, escaped as Swift escapes it (`"\t"`) but apostrophes left alone;
    /// past `valueWidth` characters, cut, with its length: `"aaaa…" (20,000,000 characters)`.
    public static func quoted(_ text: String) -> String {
        var shown = text
        var cut = false
        if text.utf8.count > valueWidth, text.unicodeScalars.count > valueWidth {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: text.unicodeScalars.prefix(valueWidth))
            shown = String(view)
            cut = true
        }
        // debugDescription escapes C0 controls and DEL, not C1 (U+009B is a terminal's CSI).
        let quoted = escapingControls(shown.debugDescription.replacingOccurrences(of: "\\'", with: "'"), column: nil).text
        guard cut else { return quoted }
        return quoted.dropLast() + "…\" (\(text.unicodeScalars.count.grouped) characters)"
    }
}

extension Snippet {
    /// A control character a terminal would act on rather than show: C0 (tab and, where asked,
    /// newline aside), DEL and C1.
    static func isControl(_ scalar: Unicode.Scalar, keepingLines: Bool) -> Bool {
        switch scalar.value {
        case 0x09: return false
        case 0x0A: return !keepingLines
        case 0..<0x20, 0x7F...0x9F: return true
        default: return false
        }
    }

    /// `text` with its control characters written as Swift writes them (`\u{1B}`), and the
    /// caret's column moved past what they added: echoed raw, an input's ESC sequences clear the
    /// user's screen, retitle the terminal or hide what follows.
    static func escapingControls(_ text: String, column: Int?, keepingLines: Bool = false) -> (text: String, column: Int?) {
        guard text.unicodeScalars.contains(where: { isControl($0, keepingLines: keepingLines) }) else { return (text, column) }
        var out = String.UnicodeScalarView()
        var shifted = column
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard isControl(scalar, keepingLines: keepingLines) else { out.append(scalar); continue }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let escaped = "\\u{\(hex.count < 2 ? "0" + hex : hex)}"
            out.append(contentsOf: escaped.unicodeScalars)
            if let column, index < column - 1 { shifted! += escaped.unicodeScalars.count - 1 }
        }
        return (String(out), shifted)
    }
}

extension Int {
    /// `10,000,000`: a number as the messages and docs write it.
    public var grouped: String {
        let digits = String(magnitude)
        var out = self < 0 ? "-" : ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }
}
