import Foundation
import Testing

/// Every pipectl command line of docs/ci.md, run as written on the grocery example: a recipe
/// cannot name a command that does not work.
@Suite struct CIRecipeTests {
    static let doc = Pipectl.repository.appendingPathComponent("docs/ci.md")

    /// The lines that run pipectl, as the recipes write them, without what the shell adds after.
    static func commandLines() throws -> [String] {
        try String(contentsOf: doc, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: ".build/release/pipectl ") else { return nil }
            var command = String(line[start.upperBound...])
            for end in [" > ", " || ", " --quiet"] { if let cut = command.range(of: end) { command = String(command[..<cut.lowerBound]) } }
            return command
        }
    }

    @Test("each pipectl command of the CI recipes runs on the grocery example")
    func recipesRun() throws {
        let commands = try Self.commandLines()
        #expect(commands.count >= 5, "\(commands)")
        let ws = try Workspace()
        // The shipped store a diff compares with: a regeneration made before.
        #expect(try ws.run("run", "-q", "pipelines/grocery.yaml").status == 0)
        try FileManager.default.createDirectory(at: ws.root.appendingPathComponent("shipped"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ws.root.appendingPathComponent("build/Grocery.sqlite"),
                                         to: ws.root.appendingPathComponent("shipped/Grocery.sqlite"))
        for command in commands {
            let arguments = command.split(separator: " ").map(String.init)
            let result = try Pipectl.run(arguments, in: ws.root)
            // `diff` says 0 (the same) or 1 (they differ); every other command succeeds.
            let expected: Set<Int32> = arguments.first == "diff" ? [0, 1] : [0]
            #expect(expected.contains(result.status), "\(command): \(result.status)\n\(result.stderr)")
        }
        #expect(ws.exists("build/import-report.xlsx"))
    }
}
