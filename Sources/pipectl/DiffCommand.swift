import ArgumentParser
import Foundation
import PipelineRun
import Pipeline
import ReportsXLSX
import PipelineFile
import SinksSQLite
import CoreDataFormat
import StoreTools

/// `pipectl diff OLD NEW [--pipeline FILE]`: what changed between two stores, record by record; a
/// CI gate that fails when a regenerated store differs from the one that shipped.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two stores record by record; exit 1 when they differ.",
        discussion: """
            With --pipeline, records are matched by the unique keys the pipeline gives its \
            entities and relationships are compared by the related record's key: the comparison \
            of the report's Changes sheet. Without it, any two SQLite files are compared table by \
            table, rows matched by the table's first unique index, else as whole rows (pipectl's \
            plain layout has unique indexes; a Core Data store needs --pipeline).

            Prints one line per entity (added, removed, changed, unchanged), then one line per \
            change: '+' added, '-' removed, '~' changed with old -> new values.

            Exit codes: 0 the stores hold the same records, 1 they differ, 65 invalid pipeline \
            file, 66 a store is missing or not a SQLite database, 74 input/output error.
            """)

    @Argument(help: "The store before: the one that shipped.", completion: .file())
    var old: String

    @Argument(help: "The store after: the regenerated one.", completion: .file())
    var new: String

    @Option(help: ArgumentHelp("The pipeline both stores were written by: its entities' unique keys match the records.",
                               valueName: "file"),
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Flag(help: "Print the comparison as JSON, for CI.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing; the exit code says whether the stores differ.")
    var quiet = false

    func run() throws {
        let changes: StoreChanges
        do {
            let comparison = try pipeline.map { file in
                let definition = try PipelineLoader.load(contentsOf: URL(fileURLWithPath: file), registry: Components.registry)
                return try StoreComparison(pipeline: definition)
            } ?? StoreComparison()
            changes = try comparison.compare(old: URL(fileURLWithPath: old), new: URL(fileURLWithPath: new),
                                             oldName: old, newName: new)
            if !quiet {
                try Terminal.standardOutput.write(json ? try ChangesText.json(changes) : ChangesText.text(changes))
            }
        } catch {
            throw fail(with: error)
        }
        // 1 says "they differ" and nothing else: every failure above has a code of its own.
        if !changes.isEmpty { throw ExitCode(1) }
    }
}

/// How a comparison is printed, by `pipectl diff` and after a run.
enum ChangesText {
    static func text(_ changes: StoreChanges, limit: Int = .max) -> String {
        var out = ""
        for entity in changes.entities {
            out += "\(entity.name) (by \(entity.matchedBy)): "
            out += entity.isUnchanged
                ? "no changes, \(entity.unchanged) record(s)\n"
                : "\(entity.added) added, \(entity.removed) removed, \(entity.changed) changed, \(entity.unchanged) unchanged\n"
        }
        for note in changes.notes { out += "note: \(note)\n" }
        for change in changes.changes.prefix(limit) { out += change.description + "\n" }
        if changes.changes.count > limit { out += "... and \(changes.changes.count - limit) more changes\n" }
        return out
    }

    /// One line after a run: what it changed in the store it replaced.
    static func summary(_ changes: StoreChanges) -> String {
        let total = changes.entities.reduce(into: (0, 0, 0)) { $0.0 += $1.added; $0.1 += $1.removed; $0.2 += $1.changed }
        guard !changes.isEmpty else { return "changes: none, the previous store held the same records\n" }
        return "changes: \(total.0) record(s) added, \(total.1) removed, \(total.2) changed since the previous store "
            + "(the report's Changes sheet lists them)\n"
    }

    static func json(_ changes: StoreChanges) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(changes), as: UTF8.self) + "\n"
    }
}
