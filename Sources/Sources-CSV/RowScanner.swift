/// Finds where each row of the text starts and ends, and its line, ahead of libcsv: what a record
/// keeps so that `FieldScanner` can work out its fields' positions when a message needs them.
///
/// The same rules as `FieldScanner` (a quote toggles "inside quotes"; a row opens at its first
/// byte that is not a line end and ends at a line end outside quotes; CRLF is one line), but
/// looking only at quotes and line ends, eight bytes at a time: not at delimiters, nor columns.
struct RowScanner {
    /// One row: offsets in the chunk scanned; `start` is -1 for a row begun in an earlier chunk,
    /// `end` (its line end) -1 for a row still open at the end of the chunk.
    struct Span {
        var start: Int
        var end: Int
        var line: Int
    }

    /// The line of the next byte.
    private(set) var line = 1
    /// Whether a row is open at the end of the text scanned so far, and the line it starts on.
    private(set) var rowOpen = false
    private(set) var rowLine = 1
    private var inQuotes = false
    /// Whether the previous chunk ended with a CR, so that a LF starting this one completes a CRLF.
    private var endedWithCR = false
    /// Whether libcsv's own space test would read the chunk scanned last otherwise than pipectl's
    /// (which keeps every space) in more than the spaces and tabs at the ends of unquoted fields:
    /// one before an opening quote or after a closing one (libcsv drops it, pipectl refuses the
    /// field), a line of nothing but spaces and tabs (libcsv skips it, pipectl reads a field), or
    /// one at either end of the chunk, which meets the text of the chunk before or after it.
    private(set) var spacesMatter = false

    /// Scans one chunk, replacing `spans` with its rows (the open row carried in first).
    mutating func scan(_ bytes: UnsafeRawBufferPointer, into spans: inout [Span]) {
        spans.removeAll(keepingCapacity: true)
        if rowOpen { spans.append(Span(start: -1, end: -1, line: rowLine)) }
        let count = bytes.count
        let quote = FieldScanner.quote, cr = FieldScanner.cr, lf = FieldScanner.lf
        spacesMatter = count > 0 && (RowScanner.isSpace(bytes[0]) || RowScanner.isSpace(bytes[count - 1]))
        var i = 0
        while i < count {
            var byte = bytes[i]
            if !rowOpen {
                if byte == lf || byte == cr {
                    newline(at: i, in: bytes)
                    i += 1
                    continue
                }
                rowOpen = true
                rowLine = line
                spans.append(Span(start: i, end: -1, line: line))
                if RowScanner.isSpace(byte), !spacesMatter { spacesMatter = RowScanner.isBlankLine(bytes, from: i) }
            }
            if byte != quote, byte != lf, byte != cr {
                i += 1
                while i + 8 <= count, !RowScanner.findsQuoteOrNewline(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                    i += 8
                }
                while i < count {
                    byte = bytes[i]
                    if byte == quote || byte == lf || byte == cr { break }
                    i += 1
                }
                guard i < count else { break }
            }
            if byte == quote {
                inQuotes.toggle()
                // A doubled quote inside quotes toggles twice, each time beside the other quote.
                if inQuotes ? i > 0 && RowScanner.isSpace(bytes[i - 1]) : i + 1 < count && RowScanner.isSpace(bytes[i + 1]) {
                    spacesMatter = true
                }
            } else {
                newline(at: i, in: bytes)
                if !inQuotes {
                    rowOpen = false
                    spans[spans.count - 1].end = i
                }
            }
            i += 1
        }
        if count > 0 { endedWithCR = bytes[count - 1] == cr }
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Whether the line from `i` holds nothing but spaces and tabs up to its end in the chunk.
    private static func isBlankLine(_ bytes: UnsafeRawBufferPointer, from i: Int) -> Bool {
        var j = i
        while j < bytes.count, isSpace(bytes[j]) { j += 1 }
        return j == bytes.count || bytes[j] == FieldScanner.cr || bytes[j] == FieldScanner.lf
    }

    private mutating func newline(at i: Int, in bytes: UnsafeRawBufferPointer) {
        let completesCRLF = bytes[i] == FieldScanner.lf && (i > 0 ? bytes[i - 1] == FieldScanner.cr : endedWithCR)
        if !completesCRLF { line += 1 }
    }

    // Eight bytes at a time: whether a word holds a quote, CR or LF ("has zero byte" on word ^ pattern).
    private static let ones: UInt64 = 0x0101_0101_0101_0101

    @inline(__always)
    private static func findsQuoteOrNewline(_ word: UInt64) -> Bool {
        let q = word ^ (UInt64(FieldScanner.quote) &* ones)
        let r = word ^ (UInt64(FieldScanner.cr) &* ones)
        let n = word ^ (UInt64(FieldScanner.lf) &* ones)
        return ((q &- ones) & ~q | (r &- ones) & ~r | (n &- ones) & ~n) & (ones << 7) != 0
    }
}
