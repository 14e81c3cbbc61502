import Foundation
import XCTest

/// The progress line: drawn on a terminal during a run, never in logs or pipes, never with --quiet.
final class ProgressTests: XCTestCase {
    /// 40,000 records: enough for the runner to report progress (every 16,384 records).
    private func workspace() throws -> Workspace {
        try Workspace.bigExport(rows: 40_000) { "Item \($0)" }
    }

    func testNoProgressLineWhenOutputIsNotATerminal() throws {
        let ws = try workspace()
        let result = try ws.run("run", "big.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
    }

    #if os(Linux)
    /// util-linux's `script` runs pipectl on a pseudo-terminal (its options differ on macOS).
    private func runOnATerminal(_ command: String, in ws: Workspace) throws -> String {
        let binary = Pipectl.productsDirectory.appendingPathComponent("pipectl").path
        let result = try Pipectl.runTool("script", ["-qec", "\(binary) \(command)", "/dev/null"], in: ws.root)
        XCTAssertEqual(result.status, 0, result.stdout)
        return result.stdout
    }

    func testProgressLineOnATerminal() throws {
        let ws = try workspace()
        let output = try runOnATerminal("run big.yaml", in: ws)
        // Redrawn in place (carriage return, erase line), then erased before the summary.
        XCTAssertTrue(output.hasPrefix("\r\u{1B}[Kitems: 16,384 records, "), output.debugDescription)
        XCTAssertTrue(output.contains("\r\u{1B}[Kbig: wrote build/big.sqlite in "), output.debugDescription)
        XCTAssertNotNil(output.range(of: #"records, [0-9,]+/s, [0-9]+% of input"#, options: .regularExpression), output)
        // Then the finish, which takes about as long again on a large store.
        XCTAssertTrue(output.contains("\r\u{1B}[Kfinishing build/big.sqlite: indexes and checks\r\u{1B}[K"), output.debugDescription)

        // A report: the line says which file is being written, and is gone once it is.
        let reported = try runOnATerminal("run big.yaml --report build/big.xlsx", in: ws)
        XCTAssertTrue(reported.contains("\r\u{1B}[Kwriting build/big.xlsx\r\u{1B}[K"), reported.debugDescription)

        let quiet = try runOnATerminal("run -q big.yaml --report build/big.xlsx", in: ws)
        XCTAssertEqual(quiet, "")
    }
    #endif
}
