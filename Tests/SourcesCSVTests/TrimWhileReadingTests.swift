import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesCSV

@Suite("CSV: a leading trim done while reading")
struct TrimWhileReadingTests {
    /// Fields with what spreadsheets leave around values, over many chunks: the rows of the first
    /// chunk are parsed with the header, before the reader is told to trim.
    @Test func fieldsAreTrimmedAsTheTrimTransformTrimsThem() throws {
        let padded = ["  Milk\t", "\u{A0}Crème\u{2009}", "x", "", " ", "\u{FEFF}Bread", "in side  ", "\"quoted \"\"a\"\" \""]
        var text = " name ,note\r\n"
        for k in 0..<6_000 { text += "\(padded[k % padded.count]),\(padded[(k + 3) % padded.count])\r\n" }
        let input = try CSVTest.file("padded.csv", text)

        let reader = try CSVReader(input: input, options: .init(), chunkSize: 4096)
        #expect(reader.trimWhileReading(fields: [0]))
        var records: [Record] = []
        while let record = try reader.next() { records.append(record) }
        let plain = try CSVTest.read(input, chunkSize: 4096)

        #expect(reader.fieldNames == [" name ", "note"], "the header is not a record: trim leaves it")
        #expect(records.count == 6_000)
        for (k, record) in records.enumerated() {
            guard case .text(let raw) = plain.records[k].values[0] else { Issue.record("row \(k)"); continue }
            #expect(record.values[0] == .text(Trimming.trimmed(raw) ?? raw), "row \(k)")
            #expect(record.values[1] == plain.records[k].values[1], "row \(k): not a trimmed field")
            #expect(record.fieldPositions == plain.records[k].fieldPositions)
        }
        #expect(records[1].values[0] == .text("Crème"))
        #expect(records[7].values[0] == .text("quoted \"a\""))
    }

    /// The row still open where the text parsed with the header ends has fields made before the
    /// reader was told to trim: they are trimmed too, wherever the cut falls in the row (every
    /// first field here needs trimming).
    @Test func theRowOpenWhenTrimmingStartsIsTrimmed() throws {
        var text = "name,note\n"
        for k in 0..<2_000 { text += "  Milk \(k)\t,n \(k)\n" }
        let input = try CSVTest.file("open-row.csv", text)
        for chunkSize in [nil] + (200..<240).map(Optional.some) {
            let reader = try chunkSize.map { try CSVReader(input: input, options: .init(), chunkSize: $0) }
                ?? CSVReader(input: input, options: .init())
            #expect(reader.trimWhileReading(fields: [0]))
            var k = 0
            while let record = try reader.next() {
                #expect(record.values == [.text("Milk \(k)"), .text("n \(k)")], "chunk \(chunkSize ?? 0), row \(k)")
                k += 1
            }
            #expect(k == 2_000)
        }
    }
}

@Suite("CSV: records handed back and filled again")
struct RecycleTests {
    /// Every record recycled as soon as it is read: the later rows it holds have their own values
    /// and positions, and nothing of the rows before; rows of the wrong width are still rejected.
    @Test func recycledRecordsHoldOnlyTheirRow() throws {
        var text = "name,note,count\n"
        for k in 0..<9_000 {
            text += k % 1_000 == 999 ? "short \(k),row\n" : "item \(k),\(k % 3 == 0 ? "" : "note \(k)"),\(k)\n"
        }
        let input = try CSVTest.file("rows.csv", text)
        let plain = try CSVTest.read(input, chunkSize: 4096)

        let reader = try CSVReader(input: input, options: .init(), chunkSize: 4096)
        var values: [[Value]] = [], positions: [[TextPosition]] = [], locations: [Location] = [], rejected = 0
        while true {
            do {
                guard let record = try reader.next() else { break }
                // Copied element by element: the record's own arrays stay unshared, to be reused.
                values.append(record.values.map { $0 })
                positions.append(record.fieldPositions.map { $0 })
                locations.append(record.location)
                reader.recycle(record)
            } catch is Rejection {
                rejected += 1
            }
        }
        #expect(rejected == 9 && plain.rejections.count == 9)
        #expect(values == plain.records.map(\.values))
        #expect(positions == plain.records.map(\.fieldPositions))
        #expect(locations == plain.records.map(\.location))
    }
}
