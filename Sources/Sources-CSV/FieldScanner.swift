import Pipeline

/// Follows libcsv through the same UTF-8 text to tell where each field starts, which libcsv does
/// not report (it gives field contents only).
///
/// In strict mode libcsv accepts a quote only where it opens a field, closes it, or doubles
/// another one inside it, so toggling "inside quotes" at every quote puts fields and rows exactly
/// where libcsv puts them; input where the two could differ is a libcsv parse error. Lines end at
/// CR, LF or CRLF (one line), inside quotes too; columns count Unicode scalars, 1-based.
struct FieldScanner {
    static let quote = UInt8(ascii: "\"")
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A

    let delimiter: UInt8
    /// The line of the next byte.
    private(set) var line = 1
    /// The column of the byte at `cursor` in the chunk being scanned; after a scan, of the next byte.
    private var cursorColumn = 1
    private var cursor = 0
    private var inQuotes = false
    private var rowOpen = false
    /// Whether the previous chunk ended with a CR, so that a LF starting this one completes a CRLF.
    private var endedWithCR = false
    /// Where the last field seen starts, for messages about it.
    private(set) var fieldStart = TextPosition(line: 1, column: 1)
    /// The offset of `fieldStart` in the last chunk scanned, if it is in that chunk.
    private(set) var fieldStartOffset: Int?
    /// The line the last record seen starts on.
    private(set) var recordStartLine = 1

    init(delimiter: UInt8) {
        self.delimiter = delimiter
    }

    /// Where the byte after the last one scanned is.
    var position: TextPosition { TextPosition(line: line, column: cursorColumn) }

    /// Scans one chunk, appending the start of each field that starts in it to `starts`.
    mutating func scan(_ bytes: UnsafeRawBufferPointer, into starts: inout [TextPosition]) {
        let count = bytes.count
        let delimiter = self.delimiter, quote = FieldScanner.quote, cr = FieldScanner.cr, lf = FieldScanner.lf
        cursor = 0
        fieldStartOffset = nil
        var i = 0
        while i < count {
            if inQuotes {
                while i < count {
                    let byte = bytes[i]
                    if byte == quote || byte == lf || byte == cr { break }
                    i += 1
                }
                guard i < count else { break }
                if bytes[i] == quote { inQuotes = false } else { newline(at: i, in: bytes) }
                i += 1
                continue
            }
            let byte = bytes[i]
            if byte == lf || byte == cr {
                newline(at: i, in: bytes)
                rowOpen = false
                i += 1
                continue
            }
            if !rowOpen {
                rowOpen = true
                recordStartLine = line
                startField(at: i, in: bytes, into: &starts)
            }
            if byte == delimiter {
                startField(at: i + 1, in: bytes, into: &starts)
            } else if byte == quote {
                inQuotes = true
            } else {
                // The rest of an unquoted field.
                i += 1
                while i < count {
                    let byte = bytes[i]
                    if byte == delimiter || byte == quote || byte == lf || byte == cr { break }
                    i += 1
                }
                continue
            }
            i += 1
        }
        advanceColumn(to: count, in: bytes)
        if count > 0 { endedWithCR = bytes[count - 1] == cr }
    }

    private mutating func newline(at i: Int, in bytes: UnsafeRawBufferPointer) {
        let completesCRLF = bytes[i] == FieldScanner.lf && (i > 0 ? bytes[i - 1] == FieldScanner.cr : endedWithCR)
        if !completesCRLF { line += 1 }
        cursor = i + 1
        cursorColumn = 1
    }

    private mutating func startField(at offset: Int, in bytes: UnsafeRawBufferPointer, into starts: inout [TextPosition]) {
        advanceColumn(to: offset, in: bytes)
        fieldStart = TextPosition(line: line, column: cursorColumn)
        fieldStartOffset = offset
        starts.append(fieldStart)
    }

    /// Moves `cursor` to `offset`, counting the scalars passed (every byte but UTF-8 continuations).
    private mutating func advanceColumn(to offset: Int, in bytes: UnsafeRawBufferPointer) {
        var scalars = 0
        for j in cursor..<offset where bytes[j] & 0xC0 != 0x80 { scalars += 1 }
        cursorColumn += scalars
        cursor = offset
    }
}
