import ReportsXLSX
import SourcesXML
import XCTest

/// libxml2 and libxlsxwriter are linked and answer at run time (their readers and report build on them).
final class LinkedLibrariesTests: XCTestCase {
    func testLibXML2Answers() {
        // libxml2 reports its version as digits, e.g. "20914" for 2.9.14; pipectl needs 2.9 or later.
        let version = LibXML2.version
        XCTAssertNotNil(Int(version), version)
        XCTAssertGreaterThanOrEqual(Int(version) ?? 0, 20900)
    }

    func testLibXLSXWriterAnswers() {
        let parts = LibXLSXWriter.version.split(separator: ".").compactMap { Int($0) }
        XCTAssertEqual(parts.count, 3, LibXLSXWriter.version)
        XCTAssertGreaterThanOrEqual(parts.first ?? 0, 1)
    }
}
