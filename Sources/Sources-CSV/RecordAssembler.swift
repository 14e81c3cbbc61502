import Diagnostics
import Pipeline

/// Builds records from libcsv's field and row callbacks, with the field starts the scanner found.
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
    /// The start of each field the scanner has found; the first `fieldStartsUsed` are done.
    var fieldStarts: [TextPosition] = []
    private var fieldStartsUsed = 0

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

    /// Drops the field starts of rows already ended, before a new chunk's are appended.
    mutating func compactFieldStarts() {
        guard fieldStartsUsed > 0 else { return }
        fieldStarts.removeSubrange(0..<fieldStartsUsed)
        fieldStartsUsed = 0
    }

    /// Per field, whether it is trimmed as it is read (`CSVReader.trimWhileReading`).
    private var trims: [Bool] = []

    /// Trims fields `indexes` of the records from now on, and of those parsed already.
    mutating func trim(fields indexes: [Int]) {
        trims = Array(repeating: false, count: fieldNames.count)
        for i in indexes where trims.indices.contains(i) { trims[i] = true }
        for r in readyHead..<ready.count {
            for i in indexes where ready[r].values.indices.contains(i) {
                guard case .text(let text) = ready[r].values[i], let trimmed = Trimming.trimmed(text) else { continue }
                ready[r].values[i] = .text(trimmed)
            }
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
        if i < trims.count, trims[i], !headerPending {
            values.append(.text(Trimming.text(bytes)))
        } else {
            values.append(.text(String(decoding: bytes, as: UTF8.self)))
        }
    }

    /// Stops the file at a row past `maxFields` or `maxRecordBytes`; the fields after it in the
    /// chunk are dropped.
    private mutating func refuseRow(fieldCount: Int) {
        guard pendingError == nil else { return }
        let row = min(fieldStartsUsed, fieldStarts.count)
        let message: String
        let code: PipelineError.Code
        let start: TextPosition?
        if fieldCount > RecordAssembler.maxFields {
            code = .csvTooManyFields
            // Where the first field too many starts (the scanner has seen the whole chunk).
            start = row + RecordAssembler.maxFields < fieldStarts.count ? fieldStarts[row + RecordAssembler.maxFields]
                : fieldStarts.indices.contains(row) ? fieldStarts[row] : nil
            message = "a row of more than \(RecordAssembler.maxFields.grouped) fields (Excel's maximum): field "
                + "\((RecordAssembler.maxFields + 1).grouped) starts here (is the delimiter right, or the file damaged?)"
        } else {
            code = .csvRowTooLong
            start = fieldStarts.indices.contains(row) ? fieldStarts[row] : nil
            message = "a row longer than \(RecordAssembler.maxRecordBytes >> 20) MB starts here (\(fieldCount.grouped) "
                + "fields so far; is a quote never closed, or the file damaged?)"
        }
        pendingError = PipelineError(.invalidInput, code: code, at: Location(file: file, line: start?.line, column: start?.column),
                                     stage: "csv", message)
    }

    /// Stops the file at a header name past `HeaderBudget.maxNameBytes`, at the name's start.
    private mutating func refuseHeaderName(column: Int, bytes: Int) {
        guard pendingError == nil else { return }
        let index = min(fieldStartsUsed, fieldStarts.count) + column
        let start = fieldStarts.indices.contains(index) ? fieldStarts[index] : nil
        pendingError = PipelineError(.invalidInput, code: .inputHeaderNameTooLong, at: Location(file: file, line: start?.line, column: start?.column),
                                     stage: "csv", HeaderBudget.nameTooLong(column: String(column + 1), bytes: bytes, delimited: true))
    }

    /// Ends the row: the header, a record, or a rejection for the wrong number of fields.
    mutating func endRow() {
        rowBytes = 0
        let count = values.count
        let first = fieldStartsUsed
        let end = min(first + count, fieldStarts.count)
        fieldStartsUsed = end
        guard pendingError == nil else {
            values.removeAll(keepingCapacity: true)
            return
        }
        let line = first < end ? fieldStarts[first].line : (fieldStarts.last?.line ?? 1)
        if headerPending {
            takeHeader(line: line, starts: fieldStarts[first..<end])
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
        if var spare = spares.popLast() {
            spare.fieldPositions.removeAll(keepingCapacity: true)
            spare.fieldPositions.append(contentsOf: fieldStarts[first..<end])
            swap(&spare.values, &values)
            spare.location = location
            ready.append(spare)
            values.removeAll(keepingCapacity: true)
        } else {
            ready.append(Record(values: values, location: location, fieldPositions: Array(fieldStarts[first..<end])))
            values = []
            values.reserveCapacity(expectedFields)
        }
    }

    /// Records handed back (`CSVReader.recycle`), whose arrays the next rows fill.
    private var spares: [Record] = []

    mutating func recycle(_ record: consuming Record) {
        // A chunk (128 KiB) parses into a few thousand rows at once: enough spares for all of
        // them, a few hundred bytes each for rows of a few fields.
        if spares.count < 4096 { spares.append(record) }
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
