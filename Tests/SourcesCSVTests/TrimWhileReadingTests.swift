import Foundation
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
            #expect(record.values[0] == .text(TrimTransform.trimmed(raw) ?? raw), "row \(k)")
            #expect(record.values[1] == plain.records[k].values[1], "row \(k): not a trimmed field")
            #expect(record.fieldPositions == plain.records[k].fieldPositions)
        }
        #expect(records[1].values[0] == .text("Crème"))
        #expect(records[7].values[0] == .text("quoted \"a\""))
    }
}
