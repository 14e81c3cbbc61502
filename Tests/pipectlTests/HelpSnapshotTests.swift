import Foundation
import XCTest

/// `--help` of every command, as users read it, against `Snapshots/help-<command>.txt`: a change to
/// an option or its wording shows up in review. `RECORD_SNAPSHOTS=1 swift test --filter
/// HelpSnapshotTests` writes the files anew and fails on purpose, so that nothing passes unseen.
final class HelpSnapshotTests: XCTestCase {
    static let folder = Pipectl.repository.appendingPathComponent("Tests/pipectlTests/Snapshots")
    static let commands = ["", "init", "run", "validate", "inspect", "diff", "model", "check", "schema"]

    func testEveryCommandsHelp() throws {
        let recording = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
        // Help wraps at the terminal's width: in a pipe that is 80 columns, unless COLUMNS says otherwise.
        unsetenv("COLUMNS")
        for command in Self.commands {
            let arguments = command.isEmpty ? ["--help"] : [command, "--help"]
            let result = try Pipectl.run(arguments, in: Self.folder)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stderr, "")
            let name = "help-\(command.isEmpty ? "pipectl" : command).txt"
            let file = Self.folder.appendingPathComponent(name)
            if recording {
                try Data(result.stdout.utf8).write(to: file)
                XCTFail("recorded \(name): check it, then run again without RECORD_SNAPSHOTS")
                continue
            }
            let expected = try String(contentsOf: file, encoding: .utf8)
            XCTAssertEqual(result.stdout, expected, "pipectl \(arguments.joined(separator: " ")) differs from Snapshots/\(name) "
                           + "(RECORD_SNAPSHOTS=1 records it anew)")
        }
    }
}
