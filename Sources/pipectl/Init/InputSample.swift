import Foundation
import Diagnostics
import Pipeline
import PropertyLists
import SourcesCSV
import SourcesJSON
import SourcesXLSX
import SourcesXML

/// The first records of an input, as `pipectl init` reads them to draft a pipeline: the format
/// from the extension, field names, and sample values as text (a property-list date stays a date).
/// Every format is read by pipectl's own reader, so what `run` would refuse (an entity, nesting too
/// deep, a property list that would decode without bound) `init` refuses too, in the same words.
struct InputSample {
    enum Format: String {
        case csv, xml, json, jsonl, plist, xlsx
    }

    var url: URL
    /// As the pipeline file names it, relative to the pipeline's folder.
    var path: String
    var format: Format
    /// `records:` (JSON), `record:` (XML): where the records are.
    var recordPath: String?
    var fields: [String]
    /// Per field, the values of the sampled records that are not empty.
    var values: [String: [Value]]
    /// How many records were sampled (a record the reader rejected is not one).
    var records = 0
    /// What `auto` chose for a CSV, to tell in a comment.
    var detected: [(name: String, value: String)] = []
    /// A workbook's sheet, and how many sheets the workbook has.
    var sheet: String?
    /// Where the table starts when not at A1 (a title above it): `range:` for the draft.
    var range: String?
    var sheetCount = 1
    /// Why a sheet of a workbook could not be sampled (the draft says so and reads the others).
    var unreadable: String?

    static let sampled = 500
    /// Sheets of a workbook `init` samples, each a source of the draft.
    static let maxSheets = 256
    static let largest = 64 << 20

    static func format(of url: URL) throws -> Format {
        switch url.pathExtension.lowercased() {
        case "csv", "tsv", "txt": return .csv
        case "xml": return .xml
        case "json": return .json
        case "jsonl", "ndjson": return .jsonl
        case "plist": return .plist
        case "xlsx": return .xlsx
        default:
            throw PipelineError(.invalidInput, code: .initUnknownFormat, at: Location(file: url.path), stage: "init",
                                "pipectl cannot tell the format from the extension '.\(url.pathExtension)' (csv, tsv, xml, json, jsonl, plist, xlsx)")
        }
    }

    /// An input's sample; a workbook gives one per sheet.
    static func read(_ url: URL, path: String) throws -> [InputSample] {
        let format = try format(of: url)
        var sample = InputSample(url: url, path: path, format: format, fields: [], values: [:])
        switch format {
        case .csv: try sample.readCSV()
        case .xml: try sample.readXML()
        case .json, .jsonl, .plist: try sample.readTree()
        case .xlsx: return try readWorkbook(url, path: path)
        }
        return [sample]
    }

    /// `numbersAsText`: numbers as the text a JSON reader gives them, so that a property list's are
    /// guessed alike (a date attribute fed numbers is told to need a format).
    private mutating func add(records reader: any RecordReader, numbersAsText: Bool = false) throws {
        for name in reader.fieldNames where values[name] == nil { fields.append(name); values[name] = [] }
        var count = 0
        while count < Self.sampled {
            do {
                guard let record = try reader.next() else { break }
                for (name, value) in zip(reader.fieldNames, record.values) {
                    switch value {
                    case .integer where numbersAsText, .double where numbersAsText: add(name, .text(value.displayText))
                    default: add(name, value)
                    }
                }
                count += 1
                records += 1
            } catch is Rejection {
                continue
            }
        }
    }

    private mutating func add(_ name: String, _ value: Value) {
        if values[name] == nil { fields.append(name); values[name] = [] }
        if !value.isEmpty, values[name]!.count < Self.sampled { values[name]!.append(value) }
    }

    /// Through pipectl's own CSV reader: the encoding, byte order mark and delimiter it detects.
    private mutating func readCSV() throws {
        let kind = CSVReaderKind()
        let here = Location(file: path)
        let node = ConfigNode(.mapping([
            (ConfigNode(.scalar("encoding"), at: here), ConfigNode(.scalar("auto"), at: here)),
            (ConfigNode(.scalar("delimiter"), at: here), ConfigNode(.scalar("auto"), at: here)),
        ]), at: here)
        let input = Input(url: url, displayPath: path)
        let reader = try kind.makeReader(input: input, options: try Options(node, spec: kind.spec, stage: "csv"), fields: [])
        try add(records: reader)
        detected = input.details.snapshot
    }

    /// Each sheet through pipectl's own xlsx reader, so dates, numbers and booleans arrive as the
    /// cells hold them. A sheet that cannot be read (no header row, say) is told, not fatal, unless
    /// it is the only one.
    private static func readWorkbook(_ url: URL, path: String) throws -> [InputSample] {
        let input = Input(url: url, displayPath: path)
        // Opened once: each opening parses the shared strings, which a large workbook has many of.
        let workbook = try XLSXWorkbook(url: url, displayPath: path)
        let names = workbook.sheetNames
        guard !names.isEmpty else {
            throw PipelineError(.invalidInput, code: .xlsxNoSheets, at: Location(file: path), stage: "init", "the workbook has no sheets")
        }
        // Each sheet is opened twice and becomes a source of the draft and its trial run: 10,000
        // sheets (within what `run` reads) took `init` past 60 s.
        guard names.count <= maxSheets else {
            throw PipelineError(.invalidInput, code: .initTooManySheets, at: Location(file: path), stage: "init",
                                "the workbook has \(names.count.grouped) sheets, more than the \(maxSheets.grouped) init drafts a "
                                    + "pipeline from: copy the sheets to load into a workbook of their own, and draft from that")
        }
        var samples: [InputSample] = []
        for name in names {
            var sample = InputSample(url: url, path: path, format: .xlsx, fields: [], values: [:])
            sample.sheet = name
            sample.sheetCount = names.count
            do {
                var options = XLSXReader.Options(sheet: name)
                if let corner = try headerCell(input, sheet: name, workbook: workbook) {
                    options.range = (corner.column, corner.row, XLSXReader.lastColumn, XLSXReader.lastRow)
                    sample.range = XLSXReader.columnName(corner.column) + String(corner.row)
                }
                try sample.add(records: try XLSXReader(input: input, options: options, workbook: workbook))
            } catch let error as PipelineError where names.count > 1 {
                sample.unreadable = error.message
            }
            samples.append(sample)
        }
        return samples
    }

    /// Where a sheet's table starts when a title or notes stand above it: the first of its first
    /// 20 rows with two cells or more, all of them text (the header), its first such cell; nil
    /// when that is A1, or no row looks so.
    private static func headerCell(_ input: Input, sheet: String, workbook: XLSXWorkbook) throws -> (column: Int, row: Int)? {
        let width = 64
        let options = XLSXReader.Options(sheet: sheet, header: false, columns: (1...width).map { "c\($0)" })
        let reader = try XLSXReader(input: input, options: options, workbook: workbook)
        var seen = 0
        while seen < 20 {
            let record: Record
            do {
                guard let next = try reader.next() else { return nil }
                record = next
            } catch is Rejection {
                continue
            }
            seen += 1
            let filled = record.values.enumerated().filter { !$0.element.isEmpty }
            guard filled.count >= 2, filled.allSatisfy({ if case .text = $0.element { true } else { false } }),
                  let row = record.location.cellRow, let first = filled.first else { continue }
            return row == 1 && first.offset == 0 ? nil : (first.offset + 1, row)
        }
        return nil
    }

    /// The repeated element under the root is the record; its attributes and child elements the fields.
    private mutating func readXML() throws {
        try Self.checkSize(url)
        let input = Input(url: url, displayPath: path)
        guard let layout = try XMLLayout.find(in: input, limit: Self.sampled) else {
            throw PipelineError(.invalidInput, code: .initNoRecords, at: Location(file: path), stage: "init",
                                "no repeated element under the root to take as the record")
        }
        recordPath = layout.record
        try add(records: XMLReader(input: input, options: XMLReader.Options(record: layout.record, fields: layout.fields)))
    }

    /// JSON, JSON Lines, property lists: an array of objects, or (JSON) an object with one array of them.
    /// Nested objects give dotted names (`location.home`), as the readers read them.
    private mutating func readTree() throws {
        try Self.checkSize(url)
        let input = Input(url: url, displayPath: path)
        switch format {
        case .plist:
            guard let names = try PropertyListReader.fields(of: input, limit: Self.sampled) else {
                throw PipelineError(.invalidInput, code: .initNoRecords, at: Location(file: path), stage: "init",
                                    "no records found to take fields from: init reads a property list whose root is an array "
                                        + "of dictionaries (a dictionary of dictionaries needs key_field:, which init does not guess)")
            }
            try add(records: PropertyListReader(input: input, fields: names), numbersAsText: true)
        default:
            let layout = format == .jsonl ? try JSONLayout.jsonLines(input, limit: Self.sampled)
                : try JSONLayout.json(input, limit: Self.sampled)
            guard let layout else { break }
            recordPath = layout.records
            // Every key is told (a key no field name spells among those matching nothing); the
            // reader reads those it can.
            for name in layout.fields where values[name] == nil { fields.append(name); values[name] = [] }
            let reader: any RecordReader = format == .jsonl ? try JSONLinesReader(input: input, fields: layout.readableFields)
                : try JSONReader(input: input, fields: layout.readableFields, records: layout.records)
            try add(records: reader)
        }
        guard !fields.isEmpty else {
            throw PipelineError(.invalidInput, code: .initNoRecords, at: Location(file: path), stage: "init",
                                "no records (objects) found to take fields from")
        }
    }

    /// Refuses an input larger than `init` samples: a draft needs only an export's start.
    static func checkSize(_ url: URL) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard size <= largest else {
            throw PipelineError(.invalidInput, code: .initInputTooLarge, at: Location(file: url.path), stage: "init",
                                "the file is larger than \(largest >> 20) MB: draft the pipeline from a smaller export of it")
        }
    }
}
