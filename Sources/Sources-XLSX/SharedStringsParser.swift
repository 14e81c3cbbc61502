import Foundation
import Diagnostics
import Pipeline
import SourcesXML
internal import CLibXML2

/// The workbook's shared strings, parsed by libxml2's SAX parser as the part is inflated: Excel
/// keeps every text cell's string there once, and a million-row sheet's can be 30 MB of XML,
/// more than Foundation's parser reads in one piece (it stops at libxml2's 10 MB lookup limit).
/// The strings are held in memory, as every cell may name any of them.
///
/// A class the callbacks reach through the one reference its owner holds (`Unmanaged`), as
/// `SheetParser` is: never a struct changed behind the back of a `mutating` method.
final class SharedStringsParser {
    private(set) var strings = SharedStrings()
    private let displayPath: String
    private var context: xmlParserCtxtPtr?
    private var current: [UInt8] = []
    private var inItem = false, inText = false
    private var inPhonetic = 0
    private var failure: PipelineError?
    private var trap: XMLErrorTrap
    private var names: (si: UnsafePointer<xmlChar>?, t: UnsafePointer<xmlChar>?, rPh: UnsafePointer<xmlChar>?) = (nil, nil, nil)
    /// The part's name, `xl/sharedStrings.xml` as Excel writes it.
    let part: String

    init(displayPath: String, part: String) {
        self.displayPath = displayPath
        self.part = part
        trap = XMLErrorTrap(displayPath: displayPath, path: part)
    }

    /// This parser, from the context the callbacks are handed; valid while its owner holds it.
    private static func from(_ owner: UnsafeMutableRawPointer?) -> SharedStringsParser? {
        owner.map { Unmanaged<SharedStringsParser>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Creates the parser, which hands the callbacks this object, unretained: its owner holds it
    /// until `release()`.
    func start() throws {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { owner, name, _, _, _, _, _, _, _ in
            SharedStringsParser.from(owner)?.startElement(name)
        }
        handler.endElementNs = { owner, name, _, _ in
            SharedStringsParser.from(owner)?.endElement(name)
        }
        handler.characters = { owner, bytes, count in
            SharedStringsParser.from(owner)?.characters(bytes, count: Int(count))
        }
        handler.cdataBlock = handler.characters
        handler.ignorableWhitespace = handler.characters
        handler.internalSubset = { owner, _, _, _ in
            SharedStringsParser.from(owner)?.refuseEntities()
        }
        handler.reference = { owner, _ in
            SharedStringsParser.from(owner)?.refuseEntities()
        }
        handler.serror = { owner, error in
            guard let error else { return }
            SharedStringsParser.from(owner)?.trap.capture(error.pointee)
        }
        guard let created = xmlCreatePushParserCtxt(&handler, Unmanaged.passUnretained(self).toOpaque(), nil, 0, part) else {
            throw PipelineError(.io, code: .xmlCannotStartParser, at: Location(file: displayPath), stage: "xlsx",
                                "libxml2 cannot start reading the shared strings")
        }
        context = created
        xmlCtxtUseOptions(created, Int32(XML_PARSE_NONET.rawValue))
        names = (xmlDictLookup(created.pointee.dict, "si", -1), xmlDictLookup(created.pointee.dict, "t", -1),
                 xmlDictLookup(created.pointee.dict, "rPh", -1))
    }

    /// Parses the next piece of the part; an empty one ends it.
    func feed(_ chunk: Data) throws {
        guard let context else { return }
        let status = chunk.withUnsafeBytes { buffer in
            xmlParseChunk(context, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), chunk.isEmpty ? 1 : 0)
        }
        if let failure { throw failure }
        if let error = trap.error {
            if trap.isEntityError { throw entityError() }
            let position = error.location?.line.map { " (line \($0))" } ?? ""
            throw PipelineError(.invalidInput, code: .xlsxDamaged, at: Location(file: displayPath), stage: "xlsx",
                                "the part '\(part)' is not well-formed XML\(position): \(error.message); is the workbook damaged?")
        }
        if status != 0 {
            throw PipelineError(.invalidInput, code: .xlsxDamaged, at: Location(file: displayPath), stage: "xlsx",
                                "the part '\(part)' cannot be read (libxml2 error \(status)); is the workbook damaged?")
        }
    }

    func release() {
        if let context {
            xmlFreeDoc(context.pointee.myDoc)
            xmlFreeParserCtxt(context)
        }
        context = nil
    }

    private func entityError() -> PipelineError {
        PipelineError(.invalidInput, code: .xlsxEntitiesRefused, at: Location(file: displayPath), stage: "xlsx",
                      "the part '\(part)' declares entities, which no spreadsheet program writes: refused "
                          + "(pipectl never expands entities); save the workbook again from Excel, Numbers or LibreOffice")
    }

    private func refuseEntities() {
        stop(entityError())
    }

    private func overBudget(_ what: String) -> PipelineError {
        PipelineError(.invalidInput, code: .xlsxOverBudget, at: Location(file: displayPath), stage: "xlsx",
                      "the part '\(part)' holds \(what), more than pipectl reads")
    }

    private func stop(_ error: PipelineError) {
        guard failure == nil else { return }
        failure = error
        xmlStopParser(context)
    }

    // A string is its `<t>` texts joined (rich text runs), less those of phonetic hints (`<rPh>`).
    private func startElement(_ name: UnsafePointer<xmlChar>?) {
        if name == names.si {
            inItem = true
            current.removeAll(keepingCapacity: true)
        } else if name == names.t {
            inText = inItem && inPhonetic == 0
        } else if name == names.rPh {
            inPhonetic += 1
        }
    }

    private func endElement(_ name: UnsafePointer<xmlChar>?) {
        if name == names.si {
            // Counted on what is parsed: the zip directory's sizes may lie.
            guard strings.count < XLSXBudget.maxSharedStrings else {
                return stop(overBudget("more than \(XLSXBudget.maxSharedStrings.grouped) strings"))
            }
            guard strings.byteCount + current.count <= XLSXBudget.maxSharedStringBytes else {
                return stop(overBudget("more than \((XLSXBudget.maxSharedStringBytes >> 20).grouped) MB of text"))
            }
            strings.append(ExcelText.unescaped(current) ?? current)
            inItem = false
        } else if name == names.t {
            inText = false
        } else if name == names.rPh {
            inPhonetic -= 1
        }
    }

    private func characters(_ bytes: UnsafePointer<xmlChar>?, count: Int) {
        guard inText, let bytes else { return }
        guard current.count + count <= XLSXBudget.maxCellBytes else {
            return stop(overBudget("a string longer than \((XLSXBudget.maxCellBytes >> 20).grouped) MB (string \((strings.count + 1).grouped))"))
        }
        current.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
    }
}

/// The workbook's shared strings as one buffer of UTF-8 and where each ends. A String apiece
/// costs some 70 bytes besides its text (950,000 strings held 70 MB); here a string costs its
/// text and 8. Each cell that names one gets a String of its own, as an inline string's cell does.
struct SharedStrings: Sendable {
    private var bytes: [UInt8] = []
    private var ends: [Int] = []

    var count: Int { ends.count }
    /// The strings' text, in bytes of UTF-8.
    var byteCount: Int { bytes.count }

    func contains(_ index: Int) -> Bool {
        index >= 0 && index < ends.count
    }

    subscript(index: Int) -> String {
        let start = index == 0 ? 0 : ends[index - 1], end = ends[index]
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }

    mutating func append(_ utf8: [UInt8]) {
        bytes.append(contentsOf: utf8)
        ends.append(bytes.count)
    }
}
