import Foundation
import Pipeline
import Testing
@testable import SourcesCSV

@Suite("CSV across chunk boundaries")
struct ChunkBoundaryTests {
    /// A file a little over one default chunk: `count` bytes of rows, then `tail`.
    func rows(filling count: Int) -> (text: String, rows: Int) {
        var text = "name,note\n"
        var rows = 0
        while text.utf8.count < count {
            text += "item \(rows),plain\n"
            rows += 1
        }
        return (text, rows)
    }

    @Test func multiByteCharacterSplitByTheChunkBoundary() throws {
        let chunk = CSVReader.defaultFirstChunkSize
        var (text, rows) = rows(filling: chunk - 40)
        // Pad the last row so that "é" (C3 A9) starts on the chunk's last byte.
        let prefix = "Crème brûl"
        text += String(repeating: "x", count: chunk - 1 - text.utf8.count - prefix.utf8.count - 1) + "," + prefix
        #expect(Array(text.utf8).count == chunk - 1)
        text += "ée\nlast,row\n"
        let result = try CSVTest.read(CSVTest.file("big.csv", text))
        #expect(result.encoding == .utf8)
        #expect(result.records.count == rows + 2)
        #expect(result.records[rows].values[1] == .text("Crème brûlée"))
        #expect(result.records[rows + 1].location.line == rows + 3)
        #expect(result.records[rows + 1].values == [.text("last"), .text("row")])
    }

    @Test func surrogatePairSplitByTheChunkBoundary() throws {
        let chunk = CSVReader.defaultFirstChunkSize
        var (text, rows) = rows(filling: chunk / 2 - 40)
        // In UTF-16 with its 2-byte mark, "🍓" (D83C DF53) starts 2 bytes before the chunk's end.
        text += String(repeating: "x", count: (chunk - 2 - 2) / 2 - text.utf16.count - 1) + ","
        #expect(2 + text.utf16.count * 2 == chunk - 2)
        text += "🍓 strawberries\ntail,end\n"
        let bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let result = try CSVTest.read(CSVTest.file("big16.txt", bytes))
        #expect(result.encoding == .utf16LittleEndian)
        #expect(result.records.count == rows + 2)
        #expect(result.records[rows].values[1] == .text("🍓 strawberries"))
        #expect(result.records[rows + 1].values == [.text("tail"), .text("end")])
    }

    /// The chunks after the first are smaller than it: a file of many of them, every row with
    /// characters of two to four bytes, reads as in one chunk, and its delimiter is still worked
    /// out from 20 lines that fill more than a later chunk.
    @Test func laterChunksSmallerThanTheFirst() throws {
        #expect(CSVReader.defaultChunkSize < CSVReader.defaultFirstChunkSize)
        // Lines 1-3 (the header too) have three commas and two semicolons each, the lines after
        // them two semicolons and a varying number of commas: on the first three lines alone, which
        // fill most of a later chunk, the comma would win.
        let padding = String(repeating: "ü", count: CSVReader.defaultChunkSize / 5)
        var text = "n,a,m,e;note;size\n"
        for k in 0..<2 { text += "a,b,c,\(padding);\(k);x\n" }
        for k in 0..<40 { text += "\(String(repeating: ",", count: k % 4))\(padding);\(k);y\n" }
        for k in 0..<20_000 { text += "Crème \(k) 🍓;€\(k % 97) naïve;\(k % 13)\n" }
        let input = try CSVTest.file("many-chunks.csv", text)
        #expect(text.utf8.count > 30 * CSVReader.defaultChunkSize)
        let whole = try CSVTest.read(input, chunkSize: text.utf8.count + 1)
        let chunked = try CSVTest.read(input)
        #expect(chunked.delimiter == .semicolon)
        #expect(whole.delimiter == .semicolon)
        #expect(chunked.records.count == 42 + 20_000)
        #expect(chunked.records.map(\.values) == whole.records.map(\.values))
        #expect(chunked.records.map(\.location) == whole.records.map(\.location))
        #expect(chunked.records.last?.values == [.text("Crème 19999 🍓"), .text("€\(19_999 % 97) naïve"), .text("\(19_999 % 13)")])
    }

    /// The first chunk's text is parsed a later chunk's size at a time, each part ending before
    /// a character: the parts of any size give back the text, every one of them whole characters.
    @Test func partsOfTheFirstChunkEndBetweenCharacters() throws {
        let text = Array("a,é;€\n🍓x,ü€🍓é\n".utf8)
        text.withUnsafeBytes { utf8 in
            for limit in 1...text.count {
                var rest = utf8, parts: [[UInt8]] = []
                while !rest.isEmpty {
                    let cut = CSVReader.partEnd(rest, limit: limit)
                    // Past the limit only where one character is longer than it.
                    #expect(cut >= 1 && cut <= max(limit, 4))
                    parts.append(Array(rest[..<cut]))
                    rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
                }
                #expect(parts.joined().elementsEqual(text), "limit \(limit)")
                #expect(parts.allSatisfy { String(validating: $0, as: UTF8.self) != nil }, "limit \(limit)")
            }
        }
    }

    /// Errors in the first chunk past its first part point where they do when it is read whole.
    @Test func errorsLateInTheFirstChunk() throws {
        var rows = "name;note\n"
        for k in 0..<3_000 { rows += "Crème \(k);ü\(k)\n" }  // about 50 KB
        #expect(rows.utf8.count > 2 * CSVReader.defaultChunkSize && rows.utf8.count < CSVReader.defaultFirstChunkSize / 2)
        let quote = try CSVTest.file("late-quote.csv", rows + "bad \"quote;x\nlast;y\n")
        let quoteError = CSVTest.failure(quote)
        #expect(quoteError?.location?.description == "data/late-quote.csv:3002:5")
        #expect(quoteError?.location == CSVTest.failure(quote, chunkSize: 1 << 20)?.location)
        let invalid = try CSVTest.file("late-invalid.csv", Array((rows + "ok;").utf8) + [0xFF] + Array(";x\n".utf8))
        let invalidError = CSVTest.failure(invalid, .init(encoding: .utf8))
        #expect(invalidError?.message.contains("invalid UTF-8") == true)
        #expect(invalidError?.location == CSVTest.failure(invalid, .init(encoding: .utf8), chunkSize: 1 << 20)?.location)
        #expect(invalidError?.location?.line == 3002)
    }

    /// Every fixture read in chunks of 1 to 9 bytes and more reads exactly as in one chunk: records,
    /// lines, field positions and rejections.
    @Test("tiny chunks", arguments: [1, 2, 3, 4, 5, 7, 9, 16, 61])
    func tinyChunks(_ chunkSize: Int) throws {
        let files: [(String, CSVReader.Options)] = [
            ("quoted.csv", .init(delimiter: .comma)),
            ("ragged-rows.csv", .init(delimiter: .comma)),
            ("grocery-utf8-bom-crlf.csv", .init(encoding: .utf8, delimiter: .comma)),
            ("grocery-utf16le-tab.txt", .init(encoding: .utf16, delimiter: .tab)),
            ("grocery-utf16be-tab.txt", .init(encoding: .utf16BigEndian, delimiter: .tab)),
            ("grocery-windows1252-semicolon.csv", .init(encoding: .windows1252, delimiter: .semicolon)),
            ("grocery-macroman-cr.csv", .init(encoding: .macRoman, delimiter: .comma)),
        ]
        for (file, options) in files {
            let whole = try CSVTest.read(CSVTest.fixture(file), options)
            let chunked = try CSVTest.read(CSVTest.fixture(file), options, chunkSize: chunkSize)
            #expect(chunked.fieldNames == whole.fieldNames, "\(file)")
            #expect(chunked.rows == whole.rows, "\(file)")
            #expect(chunked.records.map(\.location) == whole.records.map(\.location), "\(file)")
            #expect(chunked.records.map(\.fieldPositions) == whole.records.map(\.fieldPositions), "\(file)")
            #expect(chunked.rejections == whole.rejections, "\(file)")
        }
        // A surrogate pair and a CRLF at every possible offset.
        let units = Array("a,b\r\n🍓x,\"y\r\nz\"\r\nq,🍓\r\n".utf16)
        let bytes: [UInt8] = [0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let chunked = try CSVTest.read(CSVTest.file("pairs.txt", bytes), .init(delimiter: .comma), chunkSize: chunkSize)
        #expect(chunked.rows == [["🍓x", "y\r\nz"], ["q", "🍓"]])
        #expect(chunked.records.map(\.location.line) == [2, 4])
        #expect(chunked.records.map(\.fieldPositions) == [
            [TextPosition(line: 2, column: 1), TextPosition(line: 2, column: 4)],
            [TextPosition(line: 4, column: 1), TextPosition(line: 4, column: 3)],
        ])
    }

    /// A field's position is worked out from the text the record keeps, only when asked: the same at
    /// every chunk size, for a record over lines and chunks, and for a recycled record refilled.
    @Test("positions worked out from a record's text", arguments: [1, 2, 3, 5, 8, 13, 64, 4096])
    func positionsFromTheRecordsText(_ chunkSize: Int) throws {
        let text = "name;note;price\r\n\"Oat \"\"x\"\";\r\nmilk é\";\"a\rb\";1,5\r\n\r\nRye;🍓;2\n"
        let input = try CSVTest.file("late.csv", text)
        let reader = try CSVReader(input: input, options: .init(delimiter: .semicolon), chunkSize: chunkSize)
        let first = try #require(try reader.next())
        #expect(first.values == [.text("Oat \"x\";\r\nmilk é"), .text("a\rb"), .text("1,5")])
        #expect(first.location.description == "data/late.csv:2:1")
        #expect(first.location(ofField: 1).description == "data/late.csv:3:9")
        #expect(first.location(ofField: 2).description == "data/late.csv:4:4")
        reader.recycle(first)
        let second = try #require(try reader.next())
        #expect(second.fieldPositions == [
            TextPosition(line: 6, column: 1), TextPosition(line: 6, column: 5), TextPosition(line: 6, column: 7),
        ])
        #expect(try reader.next() == nil)
    }
}
