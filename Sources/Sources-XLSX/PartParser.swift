import Foundation
import Diagnostics
import Pipeline
import SourcesXML
internal import CLibXML2

/// The elements of a small part (the workbook, its relationships, the styles), read by libxml2's
/// SAX parser within `XLSXBudget.maxPartElements`.
///
/// A DOCTYPE is refused on libxml2's own event for it (`internalSubset`), not on a scan of the
/// text: a scan stopped at a comment holding `<a` and could not read UTF-16, and Foundation's
/// parser behind it expanded the internal entities that got through.
final class PartParser {
    private let displayPath: String
    private let part: String
    private var context: xmlParserCtxtPtr?
    private(set) var elements: [XLSXPackage.Element] = []
    private var countsSheets = false
    private var sheets = 0
    private var failure: PipelineError?
    private var trap: XMLErrorTrap

    init(displayPath: String, part: String) {
        self.displayPath = displayPath
        self.part = part
        trap = XMLErrorTrap(displayPath: displayPath, path: part)
    }

    /// The part's elements in document order; names without their prefix, attributes under their
    /// qualified names (`r:id`).
    /// `sheets`: the workbook's `<sheet>` elements are counted as parsed, and the parse stops at
    /// the one past `XLSXBudget.maxSheets` (100,000 of them parsed whole took seconds).
    static func elements(of data: Data, part: String, displayPath: String, countingSheets sheets: Bool = false) throws -> [XLSXPackage.Element] {
        let parser = PartParser(displayPath: displayPath, part: part)
        parser.countsSheets = sheets
        try parser.parse(data)
        return parser.elements
    }

    private static func from(_ owner: UnsafeMutableRawPointer?) -> PartParser? {
        owner.map { Unmanaged<PartParser>.fromOpaque($0).takeUnretainedValue() }
    }

    private func parse(_ data: Data) throws {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { owner, name, _, _, _, _, count, _, attributes in
            PartParser.from(owner)?.startElement(name, attributes: attributes, count: Int(count))
        }
        // Either event is a DOCTYPE, whatever comes before it and whatever the encoding.
        handler.internalSubset = { owner, _, _, _ in PartParser.from(owner)?.refuseEntities() }
        handler.externalSubset = { owner, _, _, _ in PartParser.from(owner)?.refuseEntities() }
        handler.reference = { owner, _ in PartParser.from(owner)?.refuseEntities() }
        handler.serror = { owner, error in
            guard let error else { return }
            PartParser.from(owner)?.trap.capture(error.pointee)
        }
        // The first bytes go with the context, so that libxml2 reads a byte order mark or an
        // encoding from them before it parses (a UTF-16 part).
        let head = data.prefix(4)
        let created = head.withUnsafeBytes { buffer in
            xmlCreatePushParserCtxt(&handler, Unmanaged.passUnretained(self).toOpaque(),
                                    buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), part)
        }
        guard let created else {
            throw PipelineError(.io, code: .xmlCannotStartParser, at: Location(file: displayPath), stage: "xlsx",
                                "libxml2 cannot start reading the part '\(part)'")
        }
        context = created
        defer {
            xmlFreeDoc(created.pointee.myDoc)
            xmlFreeParserCtxt(created)
            context = nil
        }
        xmlCtxtUseOptions(created, Int32(XML_PARSE_NONET.rawValue))
        let status = data.dropFirst(head.count).withUnsafeBytes { buffer in
            xmlParseChunk(created, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), 1)
        }
        if let failure { throw failure }
        if let error = trap.error {
            if trap.isEntityError { throw entityError(at: nil) }
            let position = error.location?.line.map { "line \($0): " } ?? ""
            throw PipelineError(.invalidInput, code: .xlsxDamaged, at: Location(file: displayPath), stage: "xlsx",
                                "the part '\(part)' is not well-formed XML (\(position)\(error.message)): is the workbook damaged?")
        }
        if status != 0 {
            throw PipelineError(.invalidInput, code: .xlsxDamaged, at: Location(file: displayPath), stage: "xlsx",
                                "the part '\(part)' cannot be read (libxml2 error \(status)): is the workbook damaged?")
        }
    }

    /// Where the parser is, as "line L, column C of its XML": a part has no lines a user could open.
    private var position: String? {
        guard let context else { return nil }
        return "line \(xmlSAX2GetLineNumber(context)), column \(xmlSAX2GetColumnNumber(context)) of its XML"
    }

    private func entityError(at position: String?) -> PipelineError {
        PipelineError(.invalidInput, code: .xlsxEntitiesRefused, at: Location(file: displayPath), stage: "xlsx",
                      "the part '\(part)' declares entities\(position.map { " (\($0))" } ?? ""), which no spreadsheet program writes: "
                          + "refused (pipectl never expands entities); save the workbook again from Excel, Numbers or LibreOffice")
    }

    private func refuseEntities() {
        stop(entityError(at: position))
    }

    private func stop(_ error: PipelineError) {
        guard failure == nil else { return }
        failure = error
        xmlStopParser(context)
    }

    private func startElement(_ name: UnsafePointer<xmlChar>?, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) {
        guard failure == nil, let name else { return }
        guard elements.count < XLSXBudget.maxPartElements else {
            return stop(PipelineError(.invalidInput, code: .xlsxOverBudget, at: Location(file: displayPath), stage: "xlsx",
                                      "the part '\(part)' has more than \(XLSXBudget.maxPartElements.grouped) elements, "
                                          + "more than pipectl reads (\(position ?? "")): is the workbook damaged?"))
        }
        if countsSheets, xmlStrEqual(name, "sheet") != 0 {
            sheets += 1
            guard sheets <= XLSXBudget.maxSheets else {
                return stop(PipelineError(.invalidInput, code: .xlsxOverBudget, at: Location(file: displayPath), stage: "xlsx",
                                          "the workbook has more than the \(XLSXBudget.maxSheets.grouped) sheets pipectl reads"))
            }
        }
        var values: [String: String] = [:]
        // Five pointers an attribute: local name, prefix, URI, value, end of the value.
        for index in 0..<count {
            guard let attributes, let local = attributes[index * 5], let value = attributes[index * 5 + 3],
                  let end = attributes[index * 5 + 4] else { continue }
            let key = attributes[index * 5 + 1].map { String(cString: $0) + ":" + String(cString: local) } ?? String(cString: local)
            let text = String(decoding: UnsafeBufferPointer(start: value, count: end - value), as: UTF8.self)
            // Without entity substitution libxml2 hands `&amp;` on as `&#38;` (for a tree to keep).
            values[key] = text.contains("&") ? text.replacingOccurrences(of: "&#38;", with: "&") : text
        }
        elements.append(XLSXPackage.Element(name: String(cString: name), attributes: values))
    }
}
