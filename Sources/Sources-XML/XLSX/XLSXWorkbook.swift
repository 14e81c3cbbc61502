import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Diagnostics
import Pipeline
import ZIPFoundation

/// The parts of an .xlsx workbook a reader needs: its sheets' names and paths, the shared strings,
/// which cell styles are dates, and the date system.
///
/// The archive is read with ZIPFoundation (a listed package: pure Swift over zlib, which Foundation
/// already links), not libzip: one C library fewer to install on every machine, and its inflater
/// hands out a part as a stream of chunks, so a sheet is never held whole. Where a part's bytes
/// lie, and where they end, pipectl reads itself (`ZipPart`). A sheet's chunks go to libxml2's SAX
/// parser as they are inflated (`XLSXReader`), and so do the shared strings
/// (`SharedStringsParser`); the small parts (workbook, relationships, styles) are parsed whole.
struct XLSXWorkbook {
    let archive: Archive
    let url: URL
    /// Where each part's local header starts (`ZipPart`).
    let headers: [String: UInt64]
    let displayPath: String
    let sheets: [(name: String, path: String)]
    let sharedStrings: [String]
    /// Indexes into the styles' `cellXfs` whose number format shows a date or time.
    let dateStyles: Set<Int>
    /// The 1904 date system (old Mac Excel): serial 0 is 1904-01-01, not 1899-12-31.
    let date1904: Bool
    /// The zone of the wall-clock times its dates are (`timezone:`).
    var timeZone = TimeZone(identifier: "UTC")!

    /// Seconds since 2001 of a wall-clock time (seconds since 2001-01-01 00:00 on the clock) in
    /// `timeZone`: of a time the clocks skip, the later reading; of one they repeat, the first.
    func instant(local: Double) -> Double {
        guard timeZone.identifier != "UTC" else { return local }
        var offset = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: local)))
        for _ in 0..<2 {
            offset = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: local - offset)))
        }
        return local - offset
    }

    init(url: URL, displayPath: String) throws {
        self.displayPath = displayPath
        func fail(_ message: String) -> PipelineError {
            PipelineError(.invalidInput, at: Location(file: displayPath), stage: "xlsx", message)
        }
        let head = (try? FileHandle(forReadingFrom: url).read(upToCount: 8)) ?? nil
        if let head, head.starts(with: [0xD0, 0xCF, 0x11, 0xE0]) {
            throw fail("this is an old Excel workbook (.xls), not .xlsx: open it in Excel or LibreOffice and save it as .xlsx")
        }
        guard let head, head.starts(with: [0x50, 0x4B]) else { throw fail("not an .xlsx workbook (an .xlsx file is a zip archive)") }
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw fail("the workbook's zip archive cannot be read: is the file complete, and an .xlsx?")
        }
        self.archive = archive
        self.url = url
        let headers = (try? ZipPart.localHeaders(of: url)) ?? [:]
        self.headers = headers
        if archive["Index/Document.iwa"] != nil || archive["Index.zip"] != nil {
            throw fail("this is a Numbers document: export it as .xlsx (File > Export To > Excel)")
        }
        guard archive["xl/workbook.xml"] != nil else { throw fail("the archive has no xl/workbook.xml: it is not an .xlsx workbook") }

        let workbook = try Self.parse("xl/workbook.xml", in: archive, headers: headers, url: url, displayPath: displayPath)
        let relations = try archive["xl/_rels/workbook.xml.rels"].map { _ in
            try Self.parse("xl/_rels/workbook.xml.rels", in: archive, headers: headers, url: url, displayPath: displayPath)
        } ?? []
        var targets: [String: String] = [:]
        for element in relations where element.name == "Relationship" {
            guard let id = element.attributes["Id"], let target = element.attributes["Target"] else { continue }
            // Targets are relative to xl/, or absolute from the archive's root.
            targets[id] = target.hasPrefix("/") ? String(target.dropFirst()) : "xl/" + target
        }
        sheets = workbook.filter { $0.name == "sheet" }.compactMap { element in
            guard let name = element.attributes["name"],
                  let id = element.attributes.first(where: { $0.key == "r:id" || $0.key.hasSuffix(":id") })?.value,
                  let path = targets[id] else { return nil }
            return (name, path)
        }
        date1904 = workbook.contains { $0.name == "workbookPr" && ["1", "true"].contains($0.attributes["date1904"] ?? "") }

        if archive[SharedStringsParser.part] != nil {
            let parser = Pinned(SharedStringsParser(displayPath: displayPath))
            defer { parser.pointee.release() }
            try parser.pointee.start(context: parser.context)
            try Self.part(SharedStringsParser.part, in: archive, headers: headers, url: url, displayPath: displayPath)
                .unpack(from: url, displayPath: displayPath) { try parser.pointee.feed($0) }
            try parser.pointee.feed(Data())
            sharedStrings = parser.pointee.strings
        } else {
            sharedStrings = []
        }

        var dates = Set<Int>()
        if archive["xl/styles.xml"] != nil {
            let styles = try Self.parse("xl/styles.xml", in: archive, headers: headers, url: url, displayPath: displayPath)
            var custom: [Int: String] = [:]
            for element in styles where element.name == "numFmt" {
                if let id = element.attributes["numFmtId"].flatMap(Int.init), let code = element.attributes["formatCode"] { custom[id] = code }
            }
            var index = 0
            var inCellXfs = false
            for element in styles {
                if element.name == "cellXfs" { inCellXfs = true; continue }
                if element.name == "cellStyleXfs" || element.name == "dxfs" { inCellXfs = false }
                guard inCellXfs, element.name == "xf" else { continue }
                let format = element.attributes["numFmtId"].flatMap(Int.init) ?? 0
                if Self.isDateFormat(format, code: custom[format]) { dates.insert(index) }
                index += 1
            }
        }
        dateStyles = dates
    }

    /// Excel's built-in date and time formats (14-22, 45-47), and a custom format with a day,
    /// month, year, hour or second in it outside quotes, brackets and escapes.
    static func isDateFormat(_ id: Int, code: String?) -> Bool {
        if (14...22).contains(id) || (45...47).contains(id) { return true }
        guard let code else { return false }
        var quoted = false, bracket = false, escaped = false
        for character in code.lowercased() {
            if escaped { escaped = false; continue }
            switch character {
            case "\\": escaped = true
            case "\"": quoted.toggle()
            case "[": bracket = true
            case "]": bracket = false
            default:
                if !quoted, !bracket, "dmyhs".contains(character) { return true }
            }
        }
        return false
    }

    static func failure(_ displayPath: String, _ message: String) -> PipelineError {
        PipelineError(.invalidInput, at: Location(file: displayPath), stage: "xlsx", message)
    }

    /// A part, ready to be unpacked on any thread; it must lie inside the archive.
    static func part(_ path: String, in archive: Archive, headers: [String: UInt64], url: URL, displayPath: String) throws -> ZipPart {
        guard !path.split(separator: "/").contains(".."), !path.hasPrefix("/") else {
            throw failure(displayPath, "the part '\(path)' points outside the archive")
        }
        guard let entry = archive[path] else { throw failure(displayPath, "the workbook has no part '\(path)'") }
        guard let header = headers[path] else {
            throw failure(displayPath, "the part '\(path)' is missing from the archive's directory: is the workbook damaged?")
        }
        return try ZipPart(entry: entry, headerOffset: header, in: url, displayPath: displayPath)
    }

    func part(_ path: String) throws -> ZipPart {
        try Self.part(path, in: archive, headers: headers, url: url, displayPath: displayPath)
    }

    /// A small part's bytes, within the limits.
    static func read(_ path: String, in archive: Archive, headers: [String: UInt64], url: URL, displayPath: String) throws -> Data {
        var data = Data()
        try part(path, in: archive, headers: headers, url: url, displayPath: displayPath).unpack(from: url, displayPath: displayPath) {
            data.append($0)
        }
        return data
    }

    struct Element {
        var name: String
        var attributes: [String: String]
    }

    /// The elements of a small part (the workbook, its relationships, the styles), in document
    /// order, with their attributes.
    static func parse(_ part: String, in archive: Archive, headers: [String: UInt64], url: URL, displayPath: String) throws -> [Element] {
        let data = try read(part, in: archive, headers: headers, url: url, displayPath: displayPath)
        // No spreadsheet program declares entities; Foundation's parser would expand internal
        // ones (a billion laughs) and silently drop external ones.
        if declaresEntities(data) {
            throw PipelineError(.invalidInput, at: Location(file: displayPath), stage: "xlsx",
                                "the part '\(part)' declares entities, which no spreadsheet program writes: refused "
                                    + "(pipectl never expands entities); save the workbook again from Excel, Numbers or LibreOffice")
        }
        let collector = ElementCollector()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = collector
        guard parser.parse() else {
            let detail = parser.parserError.map { " (line \(parser.lineNumber): \($0.localizedDescription))" } ?? ""
            throw PipelineError(.invalidInput, at: Location(file: displayPath), stage: "xlsx",
                                "the part '\(part)' is not well-formed XML\(detail): is the workbook damaged?")
        }
        return collector.elements
    }

    /// Whether a DOCTYPE comes before the root element (the only place XML declares entities).
    static func declaresEntities(_ data: Data) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            let doctype = Array("<!DOCTYPE".utf8)
            var i = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count {
                    let next = bytes[i + 1]
                    if (next | 0x20) >= UInt8(ascii: "a") && (next | 0x20) <= UInt8(ascii: "z") { return false }  // the root element
                    if bytes.count - i >= doctype.count, zip(bytes[i...], doctype).allSatisfy({ $0 == $1 }) { return true }
                }
                i += 1
            }
            return false
        }
    }

    private final class ElementCollector: NSObject, XMLParserDelegate {
        var elements: [Element] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements.append(Element(name: name.split(separator: ":").last.map(String.init) ?? name, attributes: attributes))
        }
    }
}
