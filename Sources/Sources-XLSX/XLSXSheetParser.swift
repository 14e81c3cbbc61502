import Foundation
import Diagnostics
import Pipeline
import SourcesXML
internal import CLibXML2

/// A sheet's rows, parsed by libxml2's SAX2 push parser a chunk at a time, as rows are asked
/// for, while the next chunks are inflated (`InflatingStream`): memory holds a few chunks and the
/// rows they complete, never the sheet.
///
/// SAX, not the streaming reader the XML input uses: a sheet is millions of small elements, and
/// the streaming reader builds and frees a node for each of them and their attributes; the
/// callbacks see names and bytes where they lie in libxml2's buffer (twice as fast).
/// Element and attribute names are compared by pointer with the parser's interned ones.
///
/// A class, which the callbacks reach through the one reference the reader holds (`Unmanaged`):
/// as a struct behind a pointer, `nextRow()` held it `inout` across `xmlParseChunk` while the
/// callbacks changed it through a second pointer, so the optimiser could keep what they set
/// unseen, and the release build reported libxml2's stop (error 111) instead of the reason.
final class SheetParser {
    private let stream: InflatingStream
    /// The sheet's packed size over its inflated size: progress counts the workbook's bytes.
    private let packedFraction: Double
    private let workbook: XLSXWorkbook
    private let displayPath: String
    private let sheet: String
    private var context: xmlParserCtxtPtr?
    private var bytesParsed: Int64 = 0
    private var atEnd = false

    /// Rows the last chunk completed, and the next to hand out.
    private var rows: [XLSXReader.Row] = []
    private var nextIndex = 0
    /// The row being read, and its last cell's column (for cells without a reference).
    private var row: XLSXReader.Row?
    private var implicitColumn = 0
    private var lastRowNumber = 0
    /// The text of the row's cells so far, in bytes.
    private var rowBytes = 0
    /// The cell being read: its column, type (the first byte of `t`: s, i(nlineStr), b, e, (s)tr), style.
    private var cell: (column: Int, type: UInt8, style: Int, isString: Bool)?
    /// Inside `<v>`, or a `<t>` of an inline string (outside phonetic hints): text that is the cell's.
    private var inText = false
    /// Inside the cell's `<f>`, and whether it has one: a formula whose value is not saved (a
    /// workbook written by a program that computes none, such as openpyxl) is told apart from an
    /// empty cell. The formula's text is kept for the message only where no value follows it.
    private var inFormula = false
    private var hasFormula = false
    private var formula: [UInt8] = []
    private var inInline = false
    private var inPhonetic = 0
    private var text: [UInt8] = []
    /// What stopped the parse: thrown once `xmlParseChunk` returns.
    private var failure: (any Error)?
    private var trap: XMLErrorTrap
    private var names = Names()

    /// The name libxml2 gives the sheet in its errors.
    static let documentName = "sheet.xml"

    /// The parser's interned names of the elements and attributes read.
    struct Names {
        var row, c, v, f, `is`, t, rPh, r, s: UnsafePointer<xmlChar>?
    }

    /// The workbook's bytes the rows handed out so far come from, about.
    var bytesFed: Int64 { Int64(Double(bytesParsed) * packedFraction) }

    init(stream: InflatingStream, packedFraction: Double, workbook: XLSXWorkbook, displayPath: String, sheet: String) {
        self.stream = stream
        self.packedFraction = packedFraction
        self.workbook = workbook
        self.displayPath = displayPath
        self.sheet = sheet
        trap = XMLErrorTrap(displayPath: displayPath, path: Self.documentName)
    }

    /// Frees the parser and closes the sheet: once, when its reader goes.
    func release() {
        if let context {
            xmlFreeDoc(context.pointee.myDoc)
            xmlFreeParserCtxt(context)
        }
        context = nil
        stream.cancel()
    }

    /// Calls `body` with this parser, from the context the callbacks are handed; valid while its
    /// reader holds it, so borrowed without a retain and release per callback (several per cell).
    private static func with(_ owner: UnsafeMutableRawPointer?, _ body: (SheetParser) -> Void) {
        guard let owner else { return }
        Unmanaged<SheetParser>.fromOpaque(owner)._withUnsafeGuaranteedRef(body)
    }

    /// Creates the parser, which hands the callbacks this object, unretained: the reader holds it
    /// for as long as the parser lives (`release()`).
    func start() throws {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { owner, name, _, _, _, _, count, _, attributes in
            SheetParser.with(owner) { $0.startElement(name, attributes: attributes, count: Int(count)) }
        }
        handler.endElementNs = { owner, name, _, _ in
            SheetParser.with(owner) { $0.endElement(name) }
        }
        handler.characters = { owner, bytes, count in
            SheetParser.with(owner) { $0.characters(bytes, count: Int(count)) }
        }
        handler.cdataBlock = handler.characters
        handler.ignorableWhitespace = handler.characters
        // No spreadsheet program writes a DOCTYPE, nor an entity reference: either stops the parse.
        handler.internalSubset = { owner, _, _, _ in
            SheetParser.with(owner) { $0.refuseEntities() }
        }
        handler.reference = { owner, _ in
            SheetParser.with(owner) { $0.refuseEntities() }
        }
        handler.serror = { owner, error in
            guard let error else { return }
            SheetParser.with(owner) { $0.trap.capture(error.pointee) }
        }
        guard let created = xmlCreatePushParserCtxt(&handler, Unmanaged.passUnretained(self).toOpaque(), nil, 0, Self.documentName) else {
            throw PipelineError(.io, code: .xmlCannotStartParser, at: Location(file: displayPath), stage: "xlsx",
                                "libxml2 cannot start reading the sheet")
        }
        context = created
        xmlCtxtUseOptions(created, Int32(XML_PARSE_NONET.rawValue))
        func intern(_ name: String) -> UnsafePointer<xmlChar>? { xmlDictLookup(created.pointee.dict, name, -1) }
        names = Names(row: intern("row"), c: intern("c"), v: intern("v"), f: intern("f"), is: intern("is"), t: intern("t"), rPh: intern("rPh"),
                      r: intern("r"), s: intern("s"))
    }

    /// The inflated chunk being parsed, and how much of it libxml2 has had.
    private var chunk = Data()
    private var chunkOffset = 0
    /// Bytes of a chunk handed to libxml2 at once: the rows held at once (`rows`) are those one
    /// slice completes, at most 2,731 (`<row/>` is 6 bytes), not a 256 KB chunk's 43,690.
    static let sliceBytes = 16 << 10

    /// The next `<row>` and its cells; nil at the end of the sheet.
    func nextRow() throws -> XLSXReader.Row? {
        while nextIndex == rows.count {
            // What stopped the parse comes after the rows it completed before.
            if let failure { throw failure }
            guard let context else { return nil }
            if chunkOffset == chunk.count {
                guard !atEnd else { return nil }
                chunk = try stream.next() ?? Data()
                chunkOffset = 0
                atEnd = chunk.isEmpty
            }
            rows.removeAll(keepingCapacity: true)
            nextIndex = 0
            let offset = chunkOffset, count = min(Self.sliceBytes, chunk.count - chunkOffset)
            chunkOffset += count
            bytesParsed += Int64(count)
            let status = chunk.withUnsafeBytes { buffer in
                xmlParseChunk(context, buffer.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }, Int32(count), atEnd ? 1 : 0)
            }
            if failure == nil, let error = trap.error {
                let position = error.location?.line.map { " (line \($0)\(error.location?.column.map { ", column \($0)" } ?? "") of its XML)" } ?? ""
                failure = trap.isEntityError ? entityError() : damaged(error.message + position)
            }
            if failure == nil, status != 0 { failure = damaged("libxml2 stopped reading it (error \(status))") }
        }
        defer { nextIndex += 1 }
        return rows[nextIndex]
    }

    private func damaged(_ detail: String) -> PipelineError {
        // At the row read last: the sheet's XML has no lines a user could open.
        let last = row ?? rows.last
        let at = last.map { Location(file: displayPath, path: "\(sheet)!A\($0.number)") } ?? Location(file: displayPath, path: "sheet '\(sheet)'")
        return PipelineError(.invalidInput, code: .xlsxDamaged, at: at, stage: "xlsx",
                             "the sheet's XML is damaged: \(detail); is the workbook complete?")
    }

    /// An error at the cell being read (or the row), for a limit of `XLSXBudget`.
    private func overBudget(_ what: String) -> PipelineError {
        let at = row.map { row in
            Location(file: displayPath, path: "\(sheet)!\(XLSXReader.columnName(cell?.column ?? max(implicitColumn, 1)))\(row.number)")
        } ?? Location(file: displayPath, path: "sheet '\(sheet)'")
        return PipelineError(.invalidInput, code: .xlsxOverBudget, at: at, stage: "xlsx", what)
    }

    private func cellTooLong() -> PipelineError {
        overBudget("the cell's text is longer than \((XLSXBudget.maxCellBytes >> 20).grouped) MB, more than pipectl reads")
    }

    private func entityError() -> PipelineError {
        PipelineError(.invalidInput, code: .xlsxEntitiesRefused, at: Location(file: displayPath, path: "sheet '\(sheet)'"), stage: "xlsx",
                      "the sheet's XML declares or uses entities, which no spreadsheet program writes: refused "
                          + "(pipectl never expands entities); save the workbook again from Excel, Numbers or LibreOffice")
    }

    private func refuseEntities() {
        stop(entityError())
    }

    private func stop(_ error: any Error) {
        guard failure == nil else { return }
        failure = error
        xmlStopParser(context)
    }

    private func startElement(_ name: UnsafePointer<xmlChar>?, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
                                       count: Int) {
        if name == names.c {
            var column = implicitColumn + 1, type = UInt8(ascii: "n"), style = 0, isString = false
            // Five pointers an attribute: local name, prefix, URI, value, end of the value.
            for index in 0..<count {
                guard let attributes, let value = attributes[index * 5 + 3], let end = attributes[index * 5 + 4] else { continue }
                let attribute = attributes[index * 5], length = end - value
                if attribute == names.r {
                    column = Self.column(value, length) ?? column
                    guard column <= XLSXReader.lastColumn else {
                        return stop(damaged("the cell '\(String(decoding: UnsafeBufferPointer(start: value, count: min(length, 40)), as: UTF8.self))' "
                                                + "lies past Excel's last column, XFD"))
                    }
                } else if attribute == names.t, length > 0 {
                    type = value[0]
                    isString = length == 3 && value[0] == UInt8(ascii: "s") && value[1] == UInt8(ascii: "t")  // "str": a formula's text
                } else if attribute == names.s {
                    style = Self.integer(value, length)
                }
            }
            guard column <= XLSXReader.lastColumn else { return stop(damaged("a row has cells past Excel's last column, XFD")) }
            implicitColumn = column
            cell = (column, type, style, isString)
            text.removeAll(keepingCapacity: true)
            hasFormula = false
        } else if name == names.v {
            inText = cell != nil
        } else if name == names.f {
            inFormula = cell != nil
            if inFormula, !hasFormula {
                hasFormula = true
                formula.removeAll(keepingCapacity: true)
            }
        } else if name == names.t {
            inText = cell != nil && inInline && inPhonetic == 0
        } else if name == names.is {
            inInline = true
        } else if name == names.rPh {
            inPhonetic += 1
        } else if name == names.row {
            var number = lastRowNumber + 1  // a row without `r` follows the one before
            for index in 0..<count {
                guard let attributes, attributes[index * 5] == names.r, let value = attributes[index * 5 + 3],
                      let end = attributes[index * 5 + 4] else { continue }
                number = Self.integer(value, end - value)
            }
            guard number <= XLSXReader.lastRow else { return stop(damaged("a row numbered past Excel's last row, 1,048,576")) }
            row = XLSXReader.Row(number: number)
            implicitColumn = 0
            rowBytes = 0
        }
    }

    private func endElement(_ name: UnsafePointer<xmlChar>?) {
        if name == names.c {
            defer { cell = nil }
            guard let current = cell, row != nil else { return }
            do {
                // No value saved (`<v/>`, or none): the formula was never computed. A text result
                // (`t="str"`) may be empty: Excel saves ="" so.
                let made: XLSXReader.Cell
                if hasFormula, text.isEmpty, !current.isString {
                    made = XLSXReader.Cell(text: String(decoding: formula, as: UTF8.self), value: .null, kind: .unsavedFormula)
                } else {
                    made = try XLSXReader.value(type: current.type, isString: current.isString, style: current.style, column: current.column,
                                                rowNumber: row!.number, text: text, workbook: workbook, displayPath: displayPath, sheet: sheet)
                }
                rowBytes += hasFormula ? max(text.count, formula.count) : text.count
                guard rowBytes <= XLSXBudget.maxRowBytes else {
                    return stop(overBudget("the row's cells hold more than \((XLSXBudget.maxRowBytes >> 20).grouped) MB of text together, "
                                           + "more than pipectl reads"))
                }
                row!.set(made, at: current.column)
            } catch {
                stop(error)
            }
        } else if name == names.v || name == names.t {
            inText = false
        } else if name == names.f {
            inFormula = false
        } else if name == names.is {
            inInline = false
        } else if name == names.rPh {
            inPhonetic -= 1
        } else if name == names.row, let finished = row {
            rows.append(finished)
            lastRowNumber = finished.number
            row = nil
        }
    }

    private func characters(_ bytes: UnsafePointer<xmlChar>?, count: Int) {
        guard let bytes else { return }
        if inText {
            guard text.count + count <= XLSXBudget.maxCellBytes else { return stop(cellTooLong()) }
            text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        } else if inFormula {
            guard formula.count + count <= XLSXBudget.maxCellBytes else { return stop(cellTooLong()) }
            formula.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        }
    }

    /// A decimal number's digits as an Int (a row's or a style's number), at most a billion:
    /// past it no row or style is.
    static func integer(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Int {
        var n = 0, i = 0
        while i < length, bytes[i] >= 48 && bytes[i] <= 57 { n = min(n * 10 + Int(bytes[i] - 48), 1_000_000_000); i += 1 }
        return n
    }

    /// The column of a cell reference (`C12` is 3), from its letters; past XFD, XFD + 1.
    static func column(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Int? {
        var n = 0, i = 0
        while i < length, bytes[i] >= 65 && bytes[i] <= 90 { n = min(n * 26 + Int(bytes[i] - 64), XLSXReader.lastColumn + 1); i += 1 }
        return n > 0 ? n : nil
    }
}
