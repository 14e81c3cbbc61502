import Foundation
import Diagnostics
import Pipeline
internal import CCSV

/// Streams the records of a CSV file exported from Numbers or Excel, parsed by libcsv.
///
/// The file is read in chunks and transcoded to UTF-8 on the way (UTF-8 with or without a byte
/// order mark, UTF-16 with one, Windows-1252, Mac Roman); memory stays the same whatever the size
/// of the file. Rows end at CRLF, LF or CR; quoted fields may hold delimiters, doubled quotes and
/// newlines. Each record knows the line it starts on and keeps its text, from which the position of
/// each of its fields is worked out when a message needs it.
///
/// ```swift
/// let reader = try CSVReader(input: Input(url: url, displayPath: "data/grocery.csv"))
/// while let record = try reader.next() { ... }  // throws Rejection for a row of the wrong width
/// ```
public final class CSVReader: TrimmingReader, RecyclingReader {
    /// The file read, and how it is named in messages and record locations.
    public let input: Input
    /// The options as given (`auto` included); `encoding` and `delimiter` tell what `auto` found.
    public let options: Options
    /// The header row's names, or `options.columns`.
    public var fieldNames: [String] { assembler.pointee.fieldNames }
    /// Bytes read from the file so far.
    public private(set) var bytesRead: Int64 = 0
    /// The encoding in use: the one given, or the one `auto` found in the first chunk.
    public private(set) var encoding: Encoding
    /// The delimiter in use: the one given, or the one `auto` found in the first lines.
    public private(set) var delimiter: Delimiter

    /// The chunks after the first, and the most text parsed at once: the records of 16 KiB of rows
    /// (a few hundred) are still in the core's cache when the sink reads them; of 128 KiB (1,400
    /// rows of the distinct job) they were not (at 100k rows on one core, simulated 512 KB cache:
    /// 7.3M misses against 5.2M, and fewer instructions).
    static let defaultChunkSize = 16 * 1024
    /// The first chunk, from which the encoding, the delimiter and the line ends are worked out:
    /// as many lines as ever, whatever the chunks after it. Its text is parsed 16 KiB at a time too.
    static let defaultFirstChunkSize = 128 * 1024
    /// Excel holds at most 32,767 characters in a cell; a field this long is a quote never closed
    /// that swallows the rest of the file, and is refused before it fills the memory.
    static let maxFieldBytes = 8 * 1024 * 1024

    private let file: Int32
    private let chunkSize: Int
    private let firstChunkSize: Int
    /// Raw bytes of the chunk being read; the first `carry` bytes are the end of the previous
    /// chunk that did not make a whole character.
    private let raw: UnsafeMutableRawBufferPointer
    private var carry = 0
    private var decoder: TextDecoder?
    private let parser: Pinned<csv_parser>
    private var finished = false
    private var sawText = false
    /// The UTF-8 of the last chunk given to libcsv, for the source line in messages.
    private var lastChunk = UnsafeRawBufferPointer(start: nil, count: 0)

    /// What libcsv's callbacks fill while a chunk is parsed; their context.
    private let assembler: Pinned<RecordAssembler>
    private var pendingError: PipelineError? {
        get { assembler.pointee.pendingError }
        set { assembler.pointee.pendingError = newValue }
    }

    /// Opens `input` and reads up to the end of the header row (or the first chunk, without one).
    public convenience init(input: Input, options: Options = Options()) throws {
        try self.init(input: input, options: options, chunkSize: CSVReader.defaultChunkSize,
                      firstChunkSize: CSVReader.defaultFirstChunkSize)
    }

    /// `chunkSize` is settable for tests that cut characters and rows at chunk boundaries; the
    /// first chunk is as large unless `firstChunkSize` says otherwise.
    init(input: Input, options: Options, chunkSize: Int, firstChunkSize: Int? = nil) throws {
        let descriptor = open(input.url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PipelineError(.io, code: .inputCannotOpen, at: Location(file: input.displayPath), stage: "csv",
                                "cannot open the file: \(String(cString: strerror(errno)))")
        }
        self.input = input
        self.options = options
        self.encoding = options.encoding
        self.delimiter = options.delimiter
        self.file = descriptor
        self.chunkSize = max(chunkSize, 1)
        self.firstChunkSize = max(firstChunkSize ?? chunkSize, 1)
        // Room for the carried bytes (at most 3) and for a first read of at least a byte order mark.
        raw = .allocate(byteCount: max(self.chunkSize, self.firstChunkSize) + 8, alignment: 8)
        parser = Pinned(csv_parser())
        csv_init(parser.pointer, UInt8(CSV_STRICT | CSV_STRICT_FINI))
        // Keep spaces and tabs around unquoted fields: values are taken as they are (the `trim`
        // transform is there for that), and libcsv would otherwise drop them. Left out for a
        // part of the text where that changes nothing (see `parse`).
        csv_set_space_func(parser.pointer, CSVReader.noSpaces)
        csv_set_blk_size(parser.pointer, 16 * 1024)
        assembler = Pinned(RecordAssembler(file: input.displayPath, header: options.header, columns: options.columns ?? []))

        if !options.header, options.columns?.isEmpty ?? true {
            throw PipelineError(.invalidPipeline, code: .pipelineMissingKey, at: Location(file: input.displayPath), stage: "csv",
                                "header: false needs 'columns' to name the fields")
        }
        while assembler.pointee.headerPending, !finished, pendingError == nil { try advance() }
        if assembler.pointee.headerPending {
            throw pendingError ?? PipelineError(
                .invalidInput, code: .inputEmpty, at: Location(file: input.displayPath, line: 1, column: 1), stage: "csv",
                sawText ? "the file holds only blank lines: expected a header row" : "the file is empty: expected a header row")
        }
    }

    deinit {
        csv_free(parser.pointer)
        raw.deallocate()
        close(file)
    }

    /// Trims the fields as each is made (see `RecordReader`): always possible.
    public func trimWhileReading(fields indexes: [Int]) -> Bool {
        assembler.pointee.trim(fields: indexes)
        return true
    }

    /// Keeps the record's arrays for a later row (see `RecordReader`).
    public func recycle(_ record: consuming Record) {
        assembler.pointee.recycle(consume record)
    }

    /// The next record; throws `Rejection` for a row with too many or too few fields (call again
    /// for the row after it) and `PipelineError` when the file cannot be read on.
    public func next() throws -> Record? {
        while true {
            // Handed on as it is: `if let` would copy the record out of the optional, and
            // `record != nil` copied it to compare it.
            let record = try assembler.pointee.takeReady()
            if case .some = record { return record }
            if let pendingError { throw pendingError }
            if finished { return nil }
            try advance()
        }
    }

    // MARK: Chunks

    /// A chunk's text not parsed yet, and what follows once it is: a chunk is parsed at most
    /// `chunkSize` bytes at a time, so that the first, larger one does not turn into a thousand
    /// records at once (see `defaultChunkSize`).
    private var unparsed = UnsafeRawBufferPointer(start: nil, count: 0)
    private var chunkEnd: ChunkEnd?

    /// What is left to do of a chunk once its text is parsed.
    private struct ChunkEnd {
        /// Why the text stops short of the chunk's bytes, if it is not text in the encoding.
        var invalid: String?
        var atEOF: Bool
        /// The chunk's bytes read, and how many of them the text used (the rest is carried).
        var filled: Int
        var used: Int
    }

    /// Parses the next part of the chunk being parsed, reading the next chunk when there is none;
    /// at the end of the file, finishes the last row.
    private func advance() throws {
        if chunkEnd == nil { try readChunk() }
        guard let end = chunkEnd else { return }
        if !unparsed.isEmpty, pendingError == nil {
            let cut = CSVReader.partEnd(unparsed, limit: chunkSize)
            parse(UnsafeRawBufferPointer(rebasing: unparsed[..<cut]))
            unparsed = UnsafeRawBufferPointer(rebasing: unparsed[cut...])
            if !unparsed.isEmpty, pendingError == nil { return }
        }
        chunkEnd = nil
        unparsed = UnsafeRawBufferPointer(start: nil, count: 0)
        if pendingError == nil, let invalid = end.invalid {
            pendingError = PipelineError(.invalidInput, code: .inputInvalidText, at: location(assembler.pointee.position()), stage: "csv", invalid)
        }
        if pendingError != nil {
            finished = true
            return
        }
        if end.atEOF {
            finishParsing()
            finished = true
            return
        }
        // Carry the bytes of a character cut by the end of the chunk over to the next one.
        carry = end.filled - end.used
        if carry > 0 { raw.baseAddress!.copyMemory(from: raw.baseAddress! + end.used, byteCount: carry) }
    }

    /// Where a part of at most `limit` bytes of `utf8` ends: before a character's first byte, and
    /// after one character at least.
    static func partEnd(_ utf8: UnsafeRawBufferPointer, limit: Int) -> Int {
        guard utf8.count > limit else { return utf8.count }
        var cut = max(limit, 1)
        while cut > 1, utf8[cut] & 0xC0 == 0x80 { cut -= 1 }
        while cut < utf8.count, utf8[cut] & 0xC0 == 0x80 { cut += 1 }
        return cut
    }

    /// Reads and decodes one chunk into `unparsed`, and sets `chunkEnd`.
    private func readChunk() throws {
        let isFirst = decoder == nil
        // A whole chunk unless the file ends first; the first one at least holds a byte order mark.
        let wanted = isFirst ? max(firstChunkSize, 4) : carry + chunkSize
        var filled = carry
        var atEOF = false
        while filled < wanted {
            let count = read(file, raw.baseAddress! + filled, wanted - filled)
            if count > 0 {
                filled += count
                bytesRead += Int64(count)
            } else if count == 0 {
                atEOF = true
                break
            } else if errno != EINTR {
                throw PipelineError(.io, code: .inputCannotRead, at: Location(file: input.displayPath), stage: "csv",
                                    "cannot read the file: \(String(cString: strerror(errno)))")
            }
        }
        var bytes = UnsafeRawBufferPointer(rebasing: raw[0..<filled])
        if isFirst { try start(&bytes, atEOF: atEOF) }
        guard let decoder else { return }
        let decoded = decoder.decode(bytes, atEOF: atEOF)
        if isFirst {
            if options.delimiter == .auto {
                let byte = DelimiterSniffer.sniff(decoded.utf8, atEOF: atEOF)
                delimiter = Delimiter.characters.first { $0.byte == byte } ?? .comma
            }
            let byte = delimiter.byte ?? UInt8(ascii: ",")
            assembler.pointee.setDelimiter(byte)
            csv_set_delim(parser.pointer, byte)
            let shown = byte == 0x09 ? "tab" : "'\(Character(Unicode.Scalar(byte)))'"
            input.details.set("delimiter", shown + (options.delimiter == .auto ? " (detected)" : ""))
            input.details.set("line ends", CSVReader.lineEnds(decoded.utf8))
        }
        if decoded.utf8.count > 0 { sawText = true }
        unparsed = decoded.utf8
        chunkEnd = ChunkEnd(invalid: decoded.invalid, atEOF: atEOF, filled: filled,
                            used: (bytes.baseAddress.map { $0 - UnsafeRawPointer(raw.baseAddress!) } ?? 0) + decoded.consumed)
    }

    /// The line ends of the first chunk: `CRLF` (Excel, Numbers), `LF`, `CR` (old Mac), or mixed.
    static func lineEnds(_ utf8: UnsafeRawBufferPointer) -> String {
        var crlf = 0, lf = 0, cr = 0
        var i = 0, quoted = false
        while i < utf8.count {
            // A line break inside a quoted field is the cell's, not a line end.
            if utf8[i] == FieldScanner.quote { quoted.toggle() }
            if quoted {
                i += 1
                continue
            }
            if utf8[i] == 0x0D {
                if i + 1 < utf8.count, utf8[i + 1] == 0x0A { crlf += 1; i += 1 } else { cr += 1 }
            } else if utf8[i] == 0x0A {
                lf += 1
            }
            i += 1
        }
        let kinds = [("CRLF", crlf), ("LF", lf), ("CR", cr)].filter { $0.1 > 0 }
        if kinds.isEmpty { return "none (one line)" }
        return kinds.count == 1 ? kinds[0].0 : "mixed (" + kinds.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"
    }

    /// Settles the encoding from the byte order mark, the option or the first chunk, and drops the mark.
    private func start(_ bytes: inout UnsafeRawBufferPointer, atEOF: Bool) throws {
        let mark = EncodingDetector.byteOrderMark(bytes)
        let resolved: EncodingDetector.Resolved
        func refuse(_ message: String) -> PipelineError {
            PipelineError(.invalidInput, code: .csvByteOrderMarkMismatch, at: Location(file: input.displayPath, line: 1, column: 1),
                          stage: "csv", message)
        }
        switch options.encoding {
        case .auto:
            resolved = mark?.0 ?? EncodingDetector.detect(bytes, atEOF: atEOF)
        case .utf16:
            guard let mark, case .utf16 = mark.0 else {
                throw refuse("encoding: utf-16 needs a byte order mark at the start of the file, and this file has none "
                             + "(set encoding: utf-16le or utf-16be, or auto)")
            }
            resolved = mark.0
        case .utf8: resolved = .utf8
        case .utf16LittleEndian: resolved = .utf16(bigEndian: false)
        case .utf16BigEndian: resolved = .utf16(bigEndian: true)
        case .windows1252: resolved = .singleByte(.windows1252)
        case .macRoman: resolved = .singleByte(.macRoman)
        }
        if let (markEncoding, length) = mark {
            guard markEncoding == resolved else {
                throw refuse("the file starts with a \(markEncoding.name) byte order mark, but encoding: "
                             + "\(options.encoding.rawValue) was given (set encoding: auto)")
            }
            bytes = UnsafeRawBufferPointer(rebasing: bytes[length...])
        }
        encoding = resolved.option
        decoder = TextDecoder(encoding: resolved, capacity: max(chunkSize, firstChunkSize) + 8)
        input.details.set("encoding", resolved.option.rawValue + (options.encoding == .auto && mark == nil ? " (detected)" : ""))
        input.details.set("byte order mark", mark == nil ? "none" : "yes")
    }

    /// libcsv's space test that keeps every space and tab in the fields.
    private static let noSpaces: @convention(c) (UInt8) -> Int32 = { _ in 0 }
    /// Whether libcsv has `noSpaces` (rather than its own test) for the part being parsed.
    private var keepsSpaces = true
    /// How many parts libcsv parsed with its own space test (for tests).
    private(set) var partsWithoutSpaceTest = 0

    /// Finds the rows of one chunk of UTF-8, then has libcsv parse it.
    private func parse(_ utf8: UnsafeRawBufferPointer) {
        assembler.pointee.beginChunk(utf8)
        lastChunk = utf8
        // libcsv's own test, where it changes nothing: it saves a call for nearly every byte of
        // every unquoted field (about 2% of a one-core run).
        let needsSpaceTest = assembler.pointee.keepsEverySpace
        if needsSpaceTest != keepsSpaces {
            csv_set_space_func(parser.pointer, needsSpaceTest ? CSVReader.noSpaces : nil)
            keepsSpaces = needsSpaceTest
        }
        if !needsSpaceTest { partsWithoutSpaceTest += 1 }
        let context = assembler.context
        let parsed = csv_parse(parser.pointer, utf8.baseAddress, utf8.count, csvFieldCallback, csvRowCallback, context)
        // Positions only now, for a message: the row up to the offending byte scanned again.
        let probe = parsed < utf8.count && pendingError == nil ? assembler.pointee.scanner(through: parsed) : nil
        assembler.pointee.endChunk()
        guard pendingError == nil else { return }
        if let probe {
            if csv_error(parser.pointer) == CSV_EPARSE {
                let position = probe.position
                let isQuote = utf8[parsed] == FieldScanner.quote
                var message = isQuote
                    ? "a quote inside an unquoted field (a field with quotes in it must be quoted as a whole, "
                        + "with each quote inside doubled)"
                    : "unexpected text after the closing quote of a field (a quote inside a quoted field must be doubled)"
                if probe.recordStartLine != position.line { message += "; the record starts on line \(probe.recordStartLine)" }
                pendingError = PipelineError(.invalidInput, code: isQuote ? .csvQuoteInUnquotedField : .csvTextAfterClosingQuote,
                                             at: location(position), stage: "csv", message,
                                             sourceLine: sourceLine(at: parsed, column: position.column, in: utf8))
            } else {
                pendingError = PipelineError(.io, code: .inputOutOfMemory, at: location(probe.fieldStart), stage: "csv",
                                             "out of memory while reading the field that starts here")
            }
        } else if parser.pointee.entry_pos > CSVReader.maxFieldBytes {
            let field = assembler.pointee.openField()
            pendingError = PipelineError(
                .invalidInput, code: .csvFieldTooLong, at: location(field.start), stage: "csv",
                "a field longer than \(CSVReader.maxFieldBytes >> 20) MB starts here (the quote that opens it is "
                    + "probably never closed)",
                sourceLine: fieldSourceLine(field))
        }
    }

    /// Completes the last row at the end of the file; refuses a quoted field that is never closed.
    private func finishParsing() {
        let context = assembler.context
        // With CSV_STRICT_FINI, a quoted field still open is the only way this fails.
        if csv_fini(parser.pointer, csvFieldCallback, csvRowCallback, context) != 0 {
            let field = assembler.pointee.openField()
            var message = "unterminated quoted field (the quote opened here is never closed"
            if field.rowLine != field.start.line {
                message += "; the record starts on line \(field.rowLine)"
            }
            pendingError = PipelineError(.invalidInput, code: .csvUnterminatedQuote, at: location(field.start), stage: "csv", message + ")",
                                         sourceLine: fieldSourceLine(field))
        }
    }

    // MARK: Messages

    private func location(_ position: TextPosition) -> Location {
        Location(file: input.displayPath, line: position.line, column: position.column)
    }

    /// The line of a field's start, if it is in the last chunk.
    private func fieldSourceLine(_ field: (start: TextPosition, offset: Int?, rowLine: Int)) -> String? {
        field.offset.flatMap { sourceLine(at: $0, column: field.start.column, in: lastChunk) }
    }

    /// The text of the line holding `offset` of `chunk`, when the whole line up to there is in the
    /// chunk (so that the caret under `column` lines up) and not too long to show.
    private func sourceLine(at offset: Int, column: Int, in chunk: UnsafeRawBufferPointer) -> String? {
        guard offset <= chunk.count, column <= 200 else { return nil }
        var start = offset
        while start > 0, chunk[start - 1] != FieldScanner.lf, chunk[start - 1] != FieldScanner.cr { start -= 1 }
        var scalars = 0
        for j in start..<offset where chunk[j] & 0xC0 != 0x80 { scalars += 1 }
        guard scalars + 1 == column else { return nil }
        var end = offset
        while end < chunk.count, end - start < 400, chunk[end] != FieldScanner.lf, chunk[end] != FieldScanner.cr { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: chunk[start..<end]), as: UTF8.self)
    }
}

// libcsv calls these C function pointers with the reader's `RecordAssembler` as `context`.

private func csvFieldCallback(_ bytes: UnsafeMutableRawPointer?, _ count: Int, _ context: UnsafeMutableRawPointer?) {
    context?.assumingMemoryBound(to: RecordAssembler.self).pointee.addField(UnsafeRawBufferPointer(start: bytes, count: count))
}

private func csvRowCallback(_ terminator: Int32, _ context: UnsafeMutableRawPointer?) {
    context?.assumingMemoryBound(to: RecordAssembler.self).pointee.endRow()
}
