import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import SourcesCSV

/// Fields per row: a damaged file stops at a message, not at the end of the memory.
@Suite("CSV limits")
struct LimitsTests {
    /// As many fields as Excel has columns are read; one more stops the file, header or record,
    /// wherever the chunks end.
    @Test(arguments: [1000, 128 * 1024])
    func fieldsPerRow(chunkSize: Int) throws {
        let widest = Array(repeating: "x", count: RecordAssembler.maxFields).joined(separator: ",")
        let read = try CSVTest.read(try CSVTest.file("wide.csv", "\(widest)\n\(widest)\n"), .init(header: false,
            columns: (0..<RecordAssembler.maxFields).map { "c\($0)" }), chunkSize: chunkSize)
        #expect(read.records.count == 2 && read.rejections.isEmpty)

        let row = "Milk" + String(repeating: ",", count: RecordAssembler.maxFields)
        // Field 16,385 starts after the 16,384th comma: column 4 + 16,384 + 1.
        let record = CSVTest.failure(try CSVTest.file("wide.csv", "name,unit\n\(row)\n"), chunkSize: chunkSize)
        #expect(record?.code == .csvTooManyFields)
        #expect(record?.location?.description == "data/wide.csv:2:16389")
        let header = CSVTest.failure(try CSVTest.file("wide.csv", "\(row)\nMilk,l\n"), chunkSize: chunkSize)
        #expect(header?.code == .csvTooManyFields)
        #expect(header?.location?.description == "data/wide.csv:1:16389")
    }
    // The row limit (64 MB) is the corpus case csv-long-row: a 72 MB file is too slow to build here.
}
