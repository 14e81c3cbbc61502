import Diagnostics
import Pipeline

/// Builds records from libcsv's field and row callbacks, each with its text as read (the rows
/// `RowScanner` found), from which `FieldScanner` works out its fields' positions for a message.
///
/// The reader keeps it behind a pointer that it hands libcsv as the callbacks' context: the
/// callbacks run once per field, and reaching a class's properties there would cost a retain and
/// an exclusivity check each time.
struct RecordAssembler {
    let file: String
    /// The file's location, copied for each row: making one from the name looks the name up.
    private let fileLocation: Location
    /// The header row's names, or the `columns` given.
    private(set) var fieldNames: [String]
    private(set) var headerPending: Bool
    private let hasHeader: Bool
    private var expectedFields: Int

    /// The fields of the row being read.
    private var values: [Value] = []

    /// The delimiter, and what each record is given to find its fields' positions with.
    private var delimiter = UInt8(ascii: ",")
    private var locator = CSVFieldLocator(delimiter: UInt8(ascii: ","))
    /// The rows of the chunk being parsed, ahead of libcsv; the first `spansUsed` are ended.
    private var rows = RowScanner()
    private var spans: [RowScanner.Span] = []
    private var spansUsed = 0
    /// The UTF-8 chunk being parsed, or the last one parsed (`afterChunk`).
    private var chunk = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The text of the row still open at the end of the last chunk, from its start: while a chunk
    /// is parsed, all from earlier chunks; after (`afterChunk`), the first `carriedEarlier` bytes
    /// from earlier chunks and the rest the last chunk's end.
    private var carried: [UInt8] = []
    private var carriedEarlier = 0
    private var afterChunk = false

    /// Records of the chunks parsed so far, handed out from `readyHead`.
    private var ready: [Record] = []
    private var readyHead = 0
    /// Rejected rows, each with the number of records in `ready` before it.
    private var rejections: [(position: Int, rejection: Rejection)] = []
    private var rejectionsHead = 0
    /// What a handed-out record leaves behind in `ready`: moving records out costs no retains.
    private static let placeholder = Location(file: "")
    /// A fatal error found after the records in `ready`: thrown once they are handed out. Rows
    /// after it are dropped.
    var pendingError: PipelineError?

    init(file: String, header: Bool, columns: [String]) {
        self.file = file
        self.fileLocation = Location(file: file)
        self.hasHeader = header
        self.headerPending = header
        self.fieldNames = header ? [] : columns
        self.expectedFields = header ? 0 : columns.count
    }

    /// The next record parsed, moved out of the queue, or nil when none is waiting; throws the
    /// `Rejection` of a row of the wrong width in its turn.
    mutating func takeReady() throws(Rejection) -> Record? {
        if rejectionsHead < rejections.count, rejections[rejectionsHead].position == readyHead {
            let rejection = rejections[rejectionsHead].rejection
            rejectionsHead += 1
            emptyIfDone()
            throw rejection
        }
        guard readyHead < ready.count else { return nil }
        var record = Record(values: [], location: RecordAssembler.placeholder)
        swap(&record, &ready[readyHead])
        readyHead += 1
        emptyIfDone()
        return record
    }

    private mutating func emptyIfDone() {
        guard readyHead == ready.count, rejectionsHead == rejections.count else { return }
        ready.removeAll(keepingCapacity: true)
        readyHead = 0
        rejections.removeAll(keepingCapacity: true)
        rejectionsHead = 0
    }

    mutating func setDelimiter(_ byte: UInt8) {
        delimiter = byte
        locator = CSVFieldLocator(delimiter: byte)
    }

    // MARK: Rows and positions

    /// Finds the rows of `utf8`, the chunk libcsv parses next.
    mutating func beginChunk(_ utf8: UnsafeRawBufferPointer) {
        rows.scan(utf8, into: &spans)
        spansUsed = 0
        chunk = utf8
        afterChunk = false
    }

    /// Keeps the text of the row left open by the chunk parsed, for the next chunk's.
    mutating func endChunk() {
        if rows.rowOpen, let open = spans.last {
            if open.start >= 0 { carried.removeAll(keepingCapacity: true) }
            carriedEarlier = carried.count
            carried.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[max(open.start, 0)...]).assumingMemoryBound(to: UInt8.self))
        } else {
            carried.removeAll(keepingCapacity: true)
            carriedEarlier = 0
        }
        afterChunk = true
    }

    /// The row libcsv is in: the next one of the chunk, or the one left open by the last chunk.
    private var currentRow: RowScanner.Span {
        if afterChunk || spansUsed >= spans.count { return RowScanner.Span(start: -1, end: -1, line: rows.rowLine) }
        return spans[spansUsed]
    }

    /// Row `span`'s text through `end`, an offset in the chunk (nil: through the row's end or the
    /// chunk's), in two parts: the bytes from earlier chunks, then those of the last chunk with
    /// the offset where they start in it.
    private func withText<R>(of span: RowScanner.Span, through end: Int? = nil,
                             _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Int) -> R) -> R {
        carried.withUnsafeBytes { carried in
            if afterChunk {
                return body(UnsafeRawBufferPointer(rebasing: carried[..<carriedEarlier]),
                            UnsafeRawBufferPointer(rebasing: carried[carriedEarlier...]), chunk.count - (carried.count - carriedEarlier))
            }
            let from = max(span.start, 0)
            let stop = end ?? (span.end >= 0 ? span.end : chunk.count)
            return body(span.start < 0 ? carried : UnsafeRawBufferPointer(start: nil, count: 0),
                        UnsafeRawBufferPointer(rebasing: chunk[from..<stop]), from)
        }
    }

    /// `FieldScanner` run over row `span` (see `withText`), collecting its field starts; and the
    /// offset in the last chunk that the scanner's `fieldStartOffset` counts from.
    private func rescan(_ span: RowScanner.Span, through end: Int? = nil, starts: inout [TextPosition]) -> (FieldScanner, Int) {
        withText(of: span, through: end) { earlier, here, offset in
            var scanner = FieldScanner(delimiter: delimiter, line: span.line)
            if earlier.count > 0 { scanner.scan(earlier, into: &starts) }
            scanner.scan(here, into: &starts)
            return (scanner, offset)
        }
    }

    /// The scanner after the row that holds `offset` of the chunk being parsed, up to there.
    func scanner(through offset: Int) -> FieldScanner {
        let span = spans.last { $0.start <= offset } ?? currentRow
        var starts: [TextPosition] = []
        return rescan(span, through: offset, starts: &starts).0
    }

    /// After a chunk: where the last field of the open row starts, with its offset in the chunk
    /// if it starts there, and the line the row starts on.
    func openField() -> (start: TextPosition, offset: Int?, rowLine: Int) {
        guard rows.rowOpen else { return (TextPosition(line: rows.line, column: 1), nil, rows.line) }
        var starts: [TextPosition] = []
        let (scanner, offset) = rescan(currentRow, starts: &starts)
        return (scanner.fieldStart, scanner.fieldStartOffset.map { $0 + offset }, scanner.recordStartLine)
    }

    /// After a chunk: where the next byte is.
    func position() -> TextPosition {
        guard rows.rowOpen else { return TextPosition(line: rows.line, column: 1) }
        var starts: [TextPosition] = []
        return rescan(currentRow, starts: &starts).0.position
    }

    /// Per field, whether it is trimmed as it is read (`CSVReader.trimWhileReading`).
    private var trims: [Bool] = []

    /// Whether libcsv must keep every space and tab of the chunk begun, through pipectl's space
    /// test: unless every field is trimmed (the spaces and tabs at a field's ends then go whether
    /// libcsv drops them or not) and the chunk has no space that libcsv's own test would read
    /// otherwise (`RowScanner.spacesMatter`). The header is never trimmed; a space or tab as the
    /// delimiter would be a space to libcsv wherever it is.
    var keepsEverySpace: Bool {
        headerPending || trims.isEmpty || trims.contains(false) || rows.spacesMatter
            || delimiter == UInt8(ascii: " ") || delimiter == UInt8(ascii: "\t")
    }

    /// Trims fields `indexes` of the records from now on, and of those parsed already, the row
    /// still open included.
    mutating func trim(fields indexes: [Int]) {
        trims = Array(repeating: false, count: fieldNames.count)
        for i in indexes where trims.indices.contains(i) { trims[i] = true }
        for r in readyHead..<ready.count {
            for i in indexes where ready[r].values.indices.contains(i) {
                guard case .text(let text) = ready[r].values[i], let trimmed = Trimming.trimmed(text) else { continue }
                ready[r].values[i] = .text(trimmed)
            }
        }
        // And the fields already made of the row still open where the text parsed so far ends.
        for i in indexes where values.indices.contains(i) {
            guard case .text(let text) = values[i], let trimmed = Trimming.trimmed(text) else { continue }
            values[i] = .text(trimmed)
        }
    }

    /// Excel's widest sheet has 16,384 columns; a row of more is a wrong delimiter or a damaged
    /// file, and its fields would fill the memory (a row of 100M commas: 6 GB).
    static let maxFields = 16_384
    /// A row's fields together: eight fields as long as a field may be (`CSVReader.maxFieldBytes`).
    static let maxRecordBytes = 64 * 1024 * 1024
    /// The bytes of the fields of the row being read.
    private var rowBytes = 0

    mutating func addField(_ bytes: UnsafeRawBufferPointer) {
        let i = values.count
        // Once per field, not per byte: the limits cost two comparisons a field.
        rowBytes &+= bytes.count
        guard i < RecordAssembler.maxFields, rowBytes <= RecordAssembler.maxRecordBytes else {
            return refuseRow(fieldCount: i + 1)
        }
        if headerPending, bytes.count > HeaderBudget.maxNameBytes { return refuseHeaderName(column: i, bytes: bytes.count) }
        // The chunk was checked as UTF-8 (or made UTF-8) before libcsv cut it at ASCII bytes, so
        // a field is whole scalars and its text is not checked again.
        if i < trims.count, trims[i], !headerPending {
            values.append(.text(RecordAssembler.text(UnsafeRawBufferPointer(rebasing: bytes[Trimming.range(of: bytes)]))))
        } else {
            values.append(.text(RecordAssembler.text(bytes)))
        }
    }

    /// Valid UTF-8 `bytes` as text, without checking them again.
    @inline(__always)
    static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        UTF8Text.fromValidUTF8(bytes)
    }

    /// Stops the file at a row past `maxFields` or `maxRecordBytes`; the fields after it in the
    /// chunk are dropped.
    private mutating func refuseRow(fieldCount: Int) {
        guard pendingError == nil else { return }
        var starts: [TextPosition] = []
        _ = rescan(currentRow, starts: &starts)
        let message: String
        let code: PipelineError.Code
        let start: TextPosition?
        if fieldCount > RecordAssembler.maxFields {
            code = .csvTooManyFields
            // Where the first field too many starts (the row scanned through the chunk's end).
            start = RecordAssembler.maxFields < starts.count ? starts[RecordAssembler.maxFields] : starts.first
            message = "a row of more than \(RecordAssembler.maxFields.grouped) fields (Excel's maximum): field "
                + "\((RecordAssembler.maxFields + 1).grouped) starts here (is the delimiter right, or the file damaged?)"
        } else {
            code = .csvRowTooLong
            start = starts.first
            message = "a row longer than \(RecordAssembler.maxRecordBytes >> 20) MB starts here (\(fieldCount.grouped) "
                + "fields so far; is a quote never closed, or the file damaged?)"
        }
        pendingError = PipelineError(.invalidInput, code: code, at: Location(file: file, line: start?.line, column: start?.column),
                                     stage: "csv", message)
    }

    /// Stops the file at a header name past `HeaderBudget.maxNameBytes`, at the name's start.
    private mutating func refuseHeaderName(column: Int, bytes: Int) {
        guard pendingError == nil else { return }
        var starts: [TextPosition] = []
        _ = rescan(currentRow, starts: &starts)
        let start = starts.indices.contains(column) ? starts[column] : starts.first
        pendingError = PipelineError(.invalidInput, code: .inputHeaderNameTooLong, at: Location(file: file, line: start?.line, column: start?.column),
                                     stage: "csv", HeaderBudget.nameTooLong(column: String(column + 1), bytes: bytes, delimited: true))
    }

    /// Ends the row: the header, a record, or a rejection for the wrong number of fields.
    mutating func endRow() {
        rowBytes = 0
        let count = values.count
        let span = currentRow
        if !afterChunk { spansUsed += 1 }
        // Matched in place: `pendingError == nil` copied the optional error to compare it.
        if case .some = pendingError {
            values.removeAll(keepingCapacity: true)
            return
        }
        let line = span.line
        if headerPending {
            var starts: [TextPosition] = []
            _ = rescan(span, starts: &starts)
            takeHeader(line: line, starts: starts[...])
            values.removeAll(keepingCapacity: true)
            return
        }
        var location = fileLocation
        location.line = line
        location.column = 1
        guard count == expectedFields else {
            let expected = hasHeader ? "the header has \(expectedFields)" : "'columns' names \(expectedFields)"
            let reason = "row has \(count) field\(count == 1 ? "" : "s"), \(expected)"
            rejections.append((ready.count, Rejection(at: location, stage: "csv", reason: reason)))
            values.removeAll(keepingCapacity: true)
            return
        }
        // Made in its place in `ready`, from a spare's arrays where there is one: a copy of a
        // record retains and releases its five counted references, one cache miss each at a
        // million rows. (Made in a local and appended, it was copied: the closure below
        // captured the local.)
        if !spares.isEmpty {
            ready.append(spares.removeLast())
            let r = ready.count - 1
            swap(&ready[r].values, &values)
            ready[r].location = location
            values.removeAll(keepingCapacity: true)
        } else {
            ready.append(Record(values: values, location: location))
            values = []
            values.reserveCapacity(expectedFields)
        }
        let r = ready.count - 1
        var text: [UInt8] = []
        swap(&text, &ready[r].sourceText)
        text.removeAll(keepingCapacity: true)
        withText(of: span) { earlier, here, _ in
            text.append(contentsOf: earlier.assumingMemoryBound(to: UInt8.self))
            text.append(contentsOf: here.assumingMemoryBound(to: UInt8.self))
        }
        swap(&text, &ready[r].sourceText)
        ready[r].sourceLine = line
        // A spare has it already: set again, it would cost a retain and a release.
        if ready[r].locator !== locator { ready[r].locator = locator }
    }

    /// Records handed back (`CSVReader.recycle`), whose arrays the next rows fill.
    private var spares: [Record] = []

    mutating func recycle(_ record: consuming Record) {
        // A chunk (128 KiB) parses into a few thousand rows at once: enough spares for all of
        // them, a few hundred bytes each for rows of a few fields.
        if spares.count < 4096 { spares.append(consume record) }
    }

    /// Takes the first row as the field names: each must be there, and once.
    private mutating func takeHeader(line: Int, starts: ArraySlice<TextPosition>) {
        var names: [String] = []
        names.reserveCapacity(values.count)
        var columns: [String: Int] = [:]
        for (k, value) in values.enumerated() {
            let name = value.displayText
            let start = k < starts.count ? starts[starts.startIndex + k] : TextPosition(line: line, column: 1)
            let location = Location(file: file, line: start.line, column: start.column)
            if name.isEmpty {
                pendingError = PipelineError(
                    .invalidInput, code: .csvEmptyHeaderName, at: location, stage: "csv",
                    "column \(k + 1) of the header row has no name (every column needs one: name it, or delete the "
                        + "empty column in the spreadsheet)")
                return
            }
            if let earlier = columns[name] {
                pendingError = PipelineError(
                    .invalidInput, code: .inputDuplicateHeaderName, at: location, stage: "csv",
                    "column \(k + 1) of the header row is named '\(name)' like column \(earlier + 1) (header names must be unique)")
                return
            }
            columns[name] = k
            names.append(name)
        }
        fieldNames = names
        expectedFields = names.count
        headerPending = false
        values.reserveCapacity(expectedFields)
    }
}

/// Works out a CSV record's field positions from its text (see `Record.locator`).
final class CSVFieldLocator: FieldLocator {
    let delimiter: UInt8

    init(delimiter: UInt8) {
        self.delimiter = delimiter
    }

    func fieldPositions(in text: [UInt8], line: Int) -> [TextPosition] {
        var scanner = FieldScanner(delimiter: delimiter, line: line)
        var starts: [TextPosition] = []
        text.withUnsafeBytes { scanner.scan($0, into: &starts) }
        return starts
    }
}
