import Pipeline

/// Follows libcsv through the same UTF-8 text to tell where each field starts, which libcsv does
/// not report (it gives field contents only). Run over one row's text (`RowScanner` keeps each
/// row's), only when a message needs a position: scanning every field of the file costs more.
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

    /// A scanner at the start of a row on `line` (column 1), or of the file.
    init(delimiter: UInt8, line: Int = 1) {
        self.delimiter = delimiter
        self.line = line
        recordStartLine = line
        fieldStart = TextPosition(line: line, column: 1)
    }

    /// Where the byte after the last one scanned is.
    var position: TextPosition { TextPosition(line: line, column: cursorColumn) }

    /// Scans one chunk, appending the start of each field that starts in it to `starts`.
    mutating func scan(_ bytes: UnsafeRawBufferPointer, into starts: inout [TextPosition]) {
        let count = bytes.count
        let delimiter = self.delimiter, quote = FieldScanner.quote, cr = FieldScanner.cr, lf = FieldScanner.lf
        let delimiters = FieldScanner.everyByte(delimiter)
        cursor = 0
        fieldStartOffset = nil
        var i = 0
        while i < count {
            if inQuotes {
                while i + 8 <= count {
                    let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    if FieldScanner.findsQuoteOrNewline(word) { break }
                    i += 8
                }
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
                while i + 8 <= count {
                    let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    if FieldScanner.findsQuoteOrNewline(word) || FieldScanner.has(word, delimiters) { break }
                    i += 8
                }
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

    // Eight bytes at a time: whether a word holds a given byte ("has zero byte" on word ^ pattern).
    private static let ones: UInt64 = 0x0101_0101_0101_0101

    private static func everyByte(_ byte: UInt8) -> UInt64 { UInt64(byte) &* ones }

    @inline(__always)
    private static func has(_ word: UInt64, _ pattern: UInt64) -> Bool {
        let x = word ^ pattern
        return (x &- ones) & ~x & (ones << 7) != 0
    }

    @inline(__always)
    private static func findsQuoteOrNewline(_ word: UInt64) -> Bool {
        has(word, everyByte(quote)) || has(word, everyByte(cr)) || has(word, everyByte(lf))
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

    /// Moves `cursor` to `offset`, counting the scalars passed: every byte but UTF-8 continuation
    /// bytes (10xxxxxx), eight at a time.
    private mutating func advanceColumn(to offset: Int, in bytes: UnsafeRawBufferPointer) {
        var j = cursor
        var continuations = 0
        while j + 8 <= offset {
            let word = bytes.loadUnaligned(fromByteOffset: j, as: UInt64.self)
            continuations += ((word >> 7) & ~(word >> 6) & 0x0101_0101_0101_0101).nonzeroBitCount
            j += 8
        }
        while j < offset {
            if bytes[j] & 0xC0 == 0x80 { continuations += 1 }
            j += 1
        }
        cursorColumn += offset - cursor - continuations
        cursor = offset
    }
}
