import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesCSV

@Suite("CSV encodings")
struct EncodingTests {
    static let groceryFields = ["name", "quantity", "unit", "price"]
    static let groceryRows = [
        ["Crème fraîche", "1", "pot", "1,29 €"],
        ["Jalapeño", "3", "piece", "0,45 €"],
        ["Müsli", "500", "g", "3,99 €"],
    ]

    /// Every export of the grocery list, detected and given: each reads to the same records.
    static let exports: [(file: String, encoding: CSVReader.Encoding, delimiter: CSVReader.Delimiter)] = [
        ("grocery-utf8.csv", .utf8, .comma),
        ("grocery-utf8-bom-crlf.csv", .utf8, .comma),
        ("grocery-utf16le-tab.txt", .utf16LittleEndian, .tab),
        ("grocery-utf16be-tab.txt", .utf16BigEndian, .tab),
        ("grocery-windows1252-semicolon.csv", .windows1252, .semicolon),
        ("grocery-macroman-cr.csv", .macRoman, .comma),
    ]

    @Test("detected encoding and delimiter", arguments: exports)
    func detected(_ export: (file: String, encoding: CSVReader.Encoding, delimiter: CSVReader.Delimiter)) throws {
        let result = try CSVTest.read(CSVTest.fixture(export.file))
        #expect(result.encoding == export.encoding)
        #expect(result.delimiter == export.delimiter)
        #expect(result.fieldNames == Self.groceryFields)
        #expect(result.rows == Self.groceryRows)
        #expect(result.records.map(\.location.line) == [2, 3, 4])
        #expect(result.records.map(\.location.file) == Array(repeating: "data/\(export.file)", count: 3))
    }

    @Test("given encoding and delimiter", arguments: exports)
    func given(_ export: (file: String, encoding: CSVReader.Encoding, delimiter: CSVReader.Delimiter)) throws {
        let result = try CSVTest.read(CSVTest.fixture(export.file), .init(encoding: export.encoding, delimiter: export.delimiter))
        #expect(result.fieldNames == Self.groceryFields)
        #expect(result.rows == Self.groceryRows)
    }

    @Test func utf16WithByteOrderMarkGivenAsUTF16() throws {
        for file in ["grocery-utf16le-tab.txt", "grocery-utf16be-tab.txt"] {
            let result = try CSVTest.read(CSVTest.fixture(file), .init(encoding: .utf16))
            #expect(result.rows == Self.groceryRows)
        }
    }

    @Test func byteOrderMarkIsStrippedFromTheFirstHeaderName() throws {
        let result = try CSVTest.read(CSVTest.fixture("grocery-utf8-bom-crlf.csv"), .init(encoding: .utf8))
        #expect(result.fieldNames.first == "name")
        #expect(result.fieldNames.first?.unicodeScalars.first == "n")
        #expect(result.records.first?.fieldPositions.first == TextPosition(line: 2, column: 1))
    }

    @Test func utf16WithoutByteOrderMarkIsDetectedFromItsNULs() throws {
        let text = "name\tunit\r\nMüsli\tg\r\n"
        let little = try CSVTest.read(CSVTest.file("le.txt", Array(text.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        #expect(little.encoding == .utf16LittleEndian)
        #expect(little.rows == [["Müsli", "g"]])
        let big = try CSVTest.read(CSVTest.file("be.txt", Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        #expect(big.encoding == .utf16BigEndian)
        #expect(big.rows == [["Müsli", "g"]])
    }

    @Test func macRomanWithoutBytesUndefinedInWindows1252IsDetectedByItsLetters() throws {
        // ñ (0x96) and ü (0x9F) are letters in Mac Roman but "–" and "Ÿ" in Windows-1252.
        let bytes = Array("name,note\nJalape".utf8) + [0x96] + Array("o,M".utf8) + [0x9F] + Array("sli\n".utf8)
        let result = try CSVTest.read(CSVTest.file("mac.csv", bytes))
        #expect(result.encoding == .macRoman)
        #expect(result.rows == [["Jalapeño", "Müsli"]])
    }

    @Test func windows1252WithCurlyApostropheAndEuroIsDetected() throws {
        // ’ (0x92) between letters would be "í" in Mac Roman; € (0x80) would be "Ä".
        let bytes = Array("name,price\nDon".utf8) + [0x92] + Array("t panic,3 ".utf8) + [0x80] + Array("\nCr".utf8)
            + [0xE8] + Array("me,1 ".utf8) + [0x80] + Array("\n".utf8)
        let result = try CSVTest.read(CSVTest.file("win.csv", bytes))
        #expect(result.encoding == .windows1252)
        #expect(result.rows == [["Don’t panic", "3 €"], ["Crème", "1 €"]])
    }

    @Test func germanWindows1252IsDetected() throws {
        // ß (0xDF) would be the "ﬂ" ligature in Mac Roman, ö "ˆ", ü "¸".
        let bytes = Array("name\nGr".utf8) + [0xF6, 0xDF] + Array("e\nStra".utf8) + [0xDF] + Array("e\nM".utf8) + [0xFC]
            + Array("ller\n".utf8)
        let result = try CSVTest.read(CSVTest.file("de.csv", bytes))
        #expect(result.encoding == .windows1252)
        #expect(result.rows == [["Größe"], ["Straße"], ["Müller"]])
    }

    @Test func singleByteTablesMatchIconv() throws {
        // Every byte of both tables through the system's converter, but for two bytes where glibc
        // differs from Apple's own table (ROMAN.TXT): 0xC6 is U+2206 (not U+0394) and 0xF0, the
        // Apple logo, U+F8FF.
        for (table, name) in [(SingleByteEncoding.windows1252, "CP1252"), (SingleByteEncoding.macRoman, "MACINTOSH")] {
            let bytes = (UInt8(0x80)...0xFF).filter { table.scalar($0) != nil && (table == .windows1252 || ![0xC6, 0xF0].contains($0)) }
            let expected = bytes.compactMap { table.scalar($0) }
            #expect(Array(try iconv(from: name, bytes).unicodeScalars) == expected, "\(name)")
        }
        let undefined = (UInt8(0x80)...0xFF).filter { SingleByteEncoding.windows1252.scalar($0) == nil }
        #expect(undefined == [0x81, 0x8D, 0x8F, 0x90, 0x9D])
    }

    @Test func invalidUTF8IsFatalWithLineColumnAndBytes() {
        let error = CSVTest.failure(CSVTest.fixture("invalid-utf8.csv"), .init(encoding: .utf8))
        #expect(error?.code == .inputInvalidText)
        #expect(error?.location?.description == "data/invalid-utf8.csv:3:8")
        #expect(error?.message.hasPrefix("invalid UTF-8 bytes 0xC3 0x28 ") == true)
    }

    @Test func autoReadsAFileThatIsNotUTF8AsSingleByte() throws {
        // The same bytes under auto: not UTF-8, so Windows-1252 ("Ã" and "(").
        let result = try CSVTest.read(CSVTest.fixture("invalid-utf8.csv"))
        #expect(result.encoding == .windows1252)
        #expect(result.rows == [["Milk", "fresh"], ["Bread", "bÃ(d"]])
    }

    @Test func invalidUTF8AfterTheFirstChunkIsFatal() throws {
        // Auto decides on UTF-8 from the first chunk; the bad byte comes chunks later.
        var bytes = Array("name,note\n".utf8)
        for i in 0..<50 { bytes += Array("item \(i),ok\n".utf8) }
        bytes += Array("bad,x".utf8) + [0xFF] + Array("y\n".utf8)
        let input = try CSVTest.file("late.csv", bytes)
        let reader = try CSVReader(input: input, options: .init(), chunkSize: 64)
        var read = 0
        let error = #expect(throws: PipelineError.self) {
            while try reader.next() != nil { read += 1 }
        }
        #expect(read == 50)  // every good record before the bad one
        #expect(error?.code == .inputInvalidText)
        #expect(error?.location?.description == "data/late.csv:52:6")
    }

    @Test func truncatedUTF8AtTheEndOfTheFileIsFatal() throws {
        let error = CSVTest.failure(try CSVTest.file("cut.csv", Array("name\nCr".utf8) + [0xC3]), .init(encoding: .utf8))
        #expect(error?.code == .inputInvalidText)
        #expect(error?.location?.description == "data/cut.csv:2:3")
    }

    @Test func byteUndefinedInWindows1252IsFatalWhenGiven() throws {
        let input = try CSVTest.file("win.csv", Array("name\nCr".utf8) + [0x8F] + Array("me\n".utf8))
        let error = CSVTest.failure(input, .init(encoding: .windows1252))
        #expect(error?.code == .inputInvalidText)
        #expect(error?.description == """
            data/win.csv:2:3: error: csv: invalid Windows-1252 byte 0x8F (Windows-1252 has no character for it; \
            set encoding: macroman if the file came from a Mac)
            """)
    }

    @Test func unpairedSurrogateIsFatal() throws {
        // "name\nX" then a lone high surrogate followed by "y", in UTF-16LE with a byte order mark.
        let units: [UInt16] = Array("name\nX".utf16) + [0xD83D] + Array("y\n".utf16)
        let input = try CSVTest.file("bad16.txt", [0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let error = CSVTest.failure(input)
        #expect(error?.code == .inputInvalidText)
        #expect(error?.location?.description == "data/bad16.txt:2:2")
    }

    @Test func oddUTF16ByteAtTheEndIsFatal() throws {
        let input = try CSVTest.file("odd16.txt", [0xFF, 0xFE] + Array("n\0\n\0a\0".utf8) + [0x62])
        let error = CSVTest.failure(input)
        #expect(error?.code == .inputInvalidText)
        #expect(error?.description == """
            data/odd16.txt:2:2: error: csv: the file ends in the middle of a UTF-16 character (byte 0x62 is half a \
            character; the file is cut short or not UTF-16)
            """)
    }

    @Test func utf16GivenWithoutByteOrderMarkIsRefused() throws {
        let input = try CSVTest.file("nobom.txt", Array("n\0\n\0".utf8))
        let error = CSVTest.failure(input, .init(encoding: .utf16))
        #expect(error?.code == .csvByteOrderMarkMismatch)
        #expect(error?.description == """
            data/nobom.txt:1:1: error: csv: encoding: utf-16 needs a byte order mark at the start of the file, and this \
            file has none (set encoding: utf-16le or utf-16be, or auto)
            """)
    }

    @Test func byteOrderMarkContradictingTheGivenEncodingIsRefused() {
        let error = CSVTest.failure(CSVTest.fixture("grocery-utf8-bom-crlf.csv"), .init(encoding: .windows1252))
        #expect(error?.code == .csvByteOrderMarkMismatch)
        #expect(error?.description == """
            data/grocery-utf8-bom-crlf.csv:1:1: error: csv: the file starts with a UTF-8 byte order mark, but \
            encoding: windows-1252 was given (set encoding: auto)
            """)
    }
}

/// Converts `bytes` to a String with the system's iconv, to check the tables against.
private func iconv(from encoding: String, _ bytes: [UInt8]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["iconv", "-f", encoding, "-t", "UTF-8"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(bytes))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
