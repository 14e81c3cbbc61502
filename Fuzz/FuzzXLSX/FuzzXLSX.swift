import Foundation
import FuzzSupport
import Pipeline
import SourcesXLSX
import ZIPFoundation

/// libFuzzer's entry point: the xlsx reader. An input that starts as a zip archive does (`PK`) is
/// the workbook itself; any other input is the XML of its first sheet, packed into a workbook with
/// shared strings, a date style and a second sheet, so that mutations reach the sheet's parser
/// instead of stopping at the archive's checksums.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
    let workbook = bytes.starts(with: [0x50, 0x4B]) ? bytes : SheetWorkbook.pack(sheet: bytes)
    return workbook.withUnsafeBytes { buffer in
        Fuzz.withInput(buffer.bindMemory(to: UInt8.self).baseAddress, buffer.count, suffix: "xlsx") { input in
            try Fuzz.drain(XLSXReader(input: input, options: .init(sheet: nil, header: true, columns: nil, range: nil)))
        }
    }
}

enum SheetWorkbook {
    static let main = #"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main""#
    static let parts: [(String, String)] = [
        ("[Content_Types].xml", #"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#),
        ("xl/workbook.xml", "<?xml version=\"1.0\"?><workbook \(main) xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">"
            + #"<workbookPr/><sheets><sheet name="Items" sheetId="1" r:id="rId1"/><sheet name="Units" sheetId="2" r:id="rId2"/></sheets></workbook>"#),
        ("xl/_rels/workbook.xml.rels", #"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
            + #"<Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/>"#
            + #"<Relationship Id="rId2" Type="worksheet" Target="/xl/worksheets/sheet2.xml"/></Relationships>"#),
        ("xl/styles.xml", "<?xml version=\"1.0\"?><styleSheet \(main)><numFmts count=\"1\"><numFmt numFmtId=\"164\" formatCode=\"dd/mm/yyyy hh:mm\"/></numFmts>"
            + #"<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/></cellXfs></styleSheet>"#),
        ("xl/sharedStrings.xml", "<?xml version=\"1.0\"?><sst \(main)><si><t>name</t></si><si><t>unit</t></si>"
            + "<si><r><t>Fresh </t></r><r><t>parsley</t></r><rPh><t>x</t></rPh></si></sst>"),
        ("xl/worksheets/sheet2.xml", "<?xml version=\"1.0\"?><worksheet \(main)><sheetData/></worksheet>"),
    ]

    /// A workbook whose first sheet is `sheet`, stored uncompressed.
    static func pack(sheet: Data) -> Data {
        guard let archive = try? Archive(data: Data(), accessMode: .create, pathEncoding: nil) else { return sheet }
        for (path, data) in parts.map({ ($0.0, Data($0.1.utf8)) }) + [("xl/worksheets/sheet1.xml", sheet)] {
            try? archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return archive.data ?? sheet
    }
}

/// libFuzzer's driver under scripts/fuzz; a replayer of the files it is given in a plain build.
@main enum Main {
    static func main() { Fuzz.main(fuzzTestOneInput) }
}
