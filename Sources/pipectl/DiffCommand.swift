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
            of the report's Changes sheet. With --model, two Core Data stores are compared the \
            same way, keys from the model's uniqueness constraints. Without either, a Core Data \
            store is compared entity by entity (Z_ENT), keys from the uniqueness constraints its \
            unique indexes keep, and any other SQLite file table by table, rows matched by the \
            table's first unique index, else as whole rows.

            The order of an ordered relationship (and of a position: attribute, with \
            --pipeline) is compared too: the same records in another order print 'reordered'.

            Prints one line per entity (added, removed, changed, unchanged), then one line per \
            change: '+' added, '-' removed, '~' changed with old -> new values.

            Exit codes: 0 the stores hold the same records, 1 they differ, 64 --pipeline with \
            --model, 65 invalid pipeline or model file, 66 a store is missing or not a SQLite \
            database, 74 input/output error.
            """)

    @Argument(help: "The store before: the one that shipped.", completion: .file())
    var old: String

    @Argument(help: "The store after: the regenerated one.", completion: .file())
    var new: String

    @Option(help: ArgumentHelp("The pipeline both stores were written by: its entities' unique keys match the records.",
                               valueName: "file"),
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(help: ArgumentHelp("The app's Core Data model (.xcdatamodeld or .xcdatamodel) or SwiftData @Model source (.swift file or folder): its uniqueness constraints match the records.",
                               valueName: "model"),
            completion: .file(extensions: ["xcdatamodeld", "xcdatamodel", "swift"]))
    var model: String?

    @Option(help: ArgumentHelp("With a SwiftData --model: the VersionedSchema to read instead of the current one.", valueName: "name"))
    var schema: String?

    @Flag(help: "Print the comparison as JSON, for CI.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing; the exit code says whether the stores differ.")
    var quiet = false

    func validate() throws {
        if pipeline != nil, model != nil {
            throw ValidationError("--pipeline and --model both say how records match: give one (the pipeline's model is its store: { model: })")
        }
        if schema != nil, model == nil { throw ValidationError("--schema picks a VersionedSchema of a SwiftData --model: give --model too") }
    }

    func run() throws {
        let changes: StoreChanges
        do {
            let comparison: StoreComparison
            if let pipeline {
                let definition = try PipelineLoader.load(contentsOf: URL(fileURLWithPath: pipeline), registry: Components.registry)
                comparison = try StoreComparison(pipeline: definition)
            } else if let model {
                comparison = try StoreComparison(coreDataModel: ModelFiles.read(URL(fileURLWithPath: model), schema: schema))
            } else {
                comparison = StoreComparison()
            }
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
