import Diagnostics
import ArgumentParser
import Foundation
import PipelineRun
import Pipeline
import SinksSQLite
import CoreDataFormat
import StoreTools

extension ExitCodes {
    /// `pipectl inspect --model`: the store does not fit the model (version hashes or Z_PRIMARYKEY).
    /// Not 1, which swift-argument-parser uses for unexpected errors: CI must tell "the store is
    /// stale" from "inspect broke"; 68 follows the project's own 65-67 codes for bad data.
    static let modelMismatch: Int32 = 68
}

/// `pipectl inspect STORE [--model M] [--json]`: what a SQLite store holds, and whether Core Data
/// would open it with the app's model.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a SQLite store holds; check a Core Data store against a model.",
        discussion: """
            Reads any SQLite file, read-only, and prints in a stable order:
              store:     the path
              layout:    coredata (it has Z_METADATA and Z_PRIMARYKEY),
                         sqlite (pipectl plain layout: pipectl_metadata),
                         or sqlite (not written by pipectl)
              sqlite:    page size, journal mode, auto_vacuum, encoding
              entities:  coredata: each Z_PRIMARYKEY entity with its Z_ENT,
                         parent, table, own row count and Z_MAX
              tables:    other layouts: each table with its row count
              metadata:  coredata: Z_VERSION, Z_UUID and every Z_PLIST key
                         (version hashes as base64, by entity); sqlite: the
                         pipectl_metadata rows. Strings are quoted, data is
                         base64, dates are ISO 8601 in UTC.

            --model compares the store's NSStoreModelVersionHashes with the
            model's hashes, and Z_PRIMARYKEY with the model's entities, entity
            by entity: match, differs, missing in store, missing in model.
            Core Data refuses a store whose hashes differ from the model's.
            Where they match, every row is checked as the model's: storage
            class per attribute type, Booleans 0 or 1, required values,
            enum cases, to-ones and join rows pointing at existing rows of
            the right entity, distinct order keys, Z_MAX; the first
            offending rows of each rule are named (Z_PK).

            --configuration NAME checks the store an app adds with that
            configuration name: Core Data gives it the whole model's tables
            and hashes, and rows only in the configuration's entities; rows
            in any other entity are a mismatch. Without it, a store whose rows
            all lie in one configuration's entities is named as that
            configuration's store.

            --json prints the same facts as one JSON object with sorted keys:
            path, layout, sqlite, entities, metadata, and with --model a model
            object (path, match, entities).

            Exit codes: 0 ok (with --model: the store matches the model),
            65 invalid model file, 66 missing file, not a SQLite database, or
            --model on a store without Core Data metadata, 68 the store does
            not match the model or a row breaks it, 74 input/output error.
            """)

    @Argument(help: "The store: any SQLite file.", completion: .file())
    var store: String

    @Option(help: ArgumentHelp("A Core Data model (.xcdatamodeld or .xcdatamodel) or SwiftData @Model source (.swift file or folder) to check the store against.",
                               valueName: "model"),
            completion: .file(extensions: ["xcdatamodeld", "xcdatamodel", "swift"]))
    var model: String?

    @Option(help: ArgumentHelp("With a SwiftData --model: the VersionedSchema to check against instead of the current one.", valueName: "name"))
    var schema: String?

    @Option(help: ArgumentHelp("With a Core Data --model: check the store of this configuration of the model (only its entities), as the app adds it with addPersistentStore(configurationName:).",
                               valueName: "name"))
    var configuration: String?

    @Flag(help: "Print the facts as JSON (sorted keys), for CI.")
    var json = false

    func run() throws {
        if configuration != nil, model == nil {
            throw ValidationError("--configuration names a configuration of the model: give the model with --model")
        }
        var inspection: StoreInspection
        var checked: ModelCheck?
        do {
            inspection = try StoreInspection(at: URL(fileURLWithPath: store), name: store)
            if let model {
                let wholeModel = try ModelFiles.read(URL(fileURLWithPath: model), schema: schema)
                var storeModel = wholeModel
                if let configuration {
                    do {
                        storeModel = try wholeModel.configured(as: configuration)
                    } catch {
                        throw PipelineError(.invalidPipeline, code: error.code, at: Location(file: model), stage: "inspect", error.message)
                    }
                }
                guard inspection.layout == .coreData else {
                    throw PipelineError(.invalidInput, code: .inspectNoVersionHashes, at: Location(file: store), stage: "inspect",
                                        "--model checks Core Data version hashes, and this store has layout "
                                            + "'\(inspection.layout.displayName)', which keeps none")
                }
                let comparison = StoreModelComparison(store: inspection, model: storeModel)
                checked = ModelCheck(path: model, comparison: comparison, model: storeModel, inspection: inspection)
                if comparison.primaryKeysMatch {
                    inspection = try StoreInspection(at: URL(fileURLWithPath: store), name: store, checkingRowsAgainst: storeModel)
                }
            }
        } catch {
            throw fail(with: error)
        }

        if inspection.settings.journalMode == "wal" {
            let wal = inspection.walBytes.map { $0 > 0 ? "; the \($0)-byte -wal file beside it may hold transactions this file alone lacks" : "" } ?? ""
            Terminal.standardError.tell(
                "\(store): warning: inspect: journal mode WAL\(wal); a store that ships should be one file in journal mode "
                    + "DELETE: a copy without its -wal file loses every transaction not yet checkpointed\n")
        }
        if json {
            try Terminal.standardOutput.write(try InspectJSON(path: store, inspection: inspection, model: checked).text())
        } else {
            try Terminal.standardOutput.write(InspectText(path: store, inspection: inspection, model: checked).text)
        }
        if let checked, !checked.matches || inspection.rowFindings?.isEmpty == false {
            throw ExitCode(ExitCodes.modelMismatch)
        }
    }
}
