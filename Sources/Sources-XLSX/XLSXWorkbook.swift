import Foundation
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
public struct XLSXWorkbook {
    let package: XLSXPackage
    var displayPath: String { package.displayPath }
    let sheets: [(name: String, path: String)]
    let sharedStrings: SharedStrings
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

    /// The sheets' names in their order, as `sheet:` names them.
    public var sheetNames: [String] { sheets.map(\.name) }

    public init(url: URL, displayPath: String) throws {
        func fail(_ code: PipelineError.Code, _ message: String) -> PipelineError {
            PipelineError(.invalidInput, code: code, at: Location(file: displayPath), stage: "xlsx", message)
        }
        let head = (try? FileHandle(forReadingFrom: url).read(upToCount: 8)) ?? nil
        if let head, head.starts(with: [0xD0, 0xCF, 0x11, 0xE0]) {
            // A compound file: an old .xls, or an .xlsx Excel encrypted with a password, whose
            // directory then names the stream "EncryptedPackage".
            if Self.isEncryptedPackage(url) {
                throw fail(.xlsxEncrypted, "this workbook is encrypted with a password: open it in Excel, remove the password "
                           + "(File > Info > Protect Workbook > Encrypt with Password) and save it again")
            }
            throw fail(.xlsxOldFormat, "this is an old Excel workbook (.xls), not .xlsx: open it in Excel or LibreOffice and save it as .xlsx")
        }
        guard let head, head.starts(with: [0x50, 0x4B]) else {
            throw fail(.xlsxNotAWorkbook, "not an .xlsx workbook (an .xlsx file is a zip archive)")
        }
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw fail(.xlsxDamaged, "the workbook's zip archive cannot be read: is the file complete, and an .xlsx?")
        }
        let package = XLSXPackage(archive: archive, url: url, displayPath: displayPath)
        self.package = package
        if package.contains("Index/Document.iwa") || package.contains("Index.zip") {
            throw fail(.xlsxNumbersDocument, "this is a Numbers document: export it as .xlsx (File > Export To > Excel)")
        }
        // The workbook is where the package's relationships say, which is xl/workbook.xml when Excel writes it.
        let workbookPath = try package.relationships(of: "").first { $0.type.hasSuffix(XLSXPackage.officeDocument) }?.path
            ?? "xl/workbook.xml"
        guard package.contains(workbookPath) else { throw fail(.xlsxNotAWorkbook, "the archive has no \(workbookPath): it is not an .xlsx workbook") }

        // Sheets are counted as the part is parsed, which stops past the budget.
        let workbook = try package.parse(workbookPath, countingSheets: true)
        let relations = try package.relationships(of: workbookPath)
        let targets = Dictionary(relations.map { ($0.id, $0.path) }, uniquingKeysWith: { first, _ in first })
        sheets = workbook.filter { $0.name == "sheet" }.compactMap { element in
            guard let name = element.attributes["name"],
                  let id = element.attributes.first(where: { $0.key == "r:id" || $0.key.hasSuffix(":id") })?.value,
                  let path = targets[id] else { return nil }
            return (name, path)
        }
        date1904 = workbook.contains { $0.name == "workbookPr" && ["1", "true"].contains($0.attributes["date1904"] ?? "") }
        let folder = workbookPath.split(separator: "/").dropLast().joined(separator: "/")
        func related(_ type: String, else name: String) throws -> String? {
            let path = try relations.first { $0.type.hasSuffix(type) }?.path ?? package.resolve(name, in: folder)
            return package.contains(path) ? path : nil
        }

        if let path = try related(XLSXPackage.sharedStrings, else: "sharedStrings.xml") {
            let parser = SharedStringsParser(displayPath: displayPath, part: path)
            defer { parser.release() }
            try parser.start()
            try package.part(path).unpack(from: url, displayPath: displayPath) { try parser.feed($0) }
            try parser.feed(Data())
            sharedStrings = parser.strings
        } else {
            sharedStrings = SharedStrings()
        }

        var dates = Set<Int>()
        if let path = try related(XLSXPackage.styles, else: "styles.xml") {
            let styles = try package.parse(path)
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

    /// Whether a compound file's directory names an "EncryptedPackage" stream (in UTF-16, as
    /// the directory spells names), looked for in its first 16 MB: an encrypted workbook is
    /// about as large as the workbook, and its directory sector comes early.
    static func isEncryptedPackage(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 16 << 20) else { return false }
        let name = Data("EncryptedPackage".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        return data.range(of: name) != nil
    }

    static func failure(_ displayPath: String, _ code: PipelineError.Code, _ message: String) -> PipelineError {
        PipelineError(.invalidInput, code: code, at: Location(file: displayPath), stage: "xlsx", message)
    }

    /// A sheet's part, ready to be unpacked on any thread.
    func part(_ path: String) throws -> ZipPart {
        try package.part(path)
    }
}
