import Foundation
import Pipeline
import SinksSQLite
import CoreDataFormat
import PropertyLists
import StoreTools

/// `pipectl inspect`'s text output: one section per topic, values as the user would write them
/// (strings quoted, data as base64, dates in ISO 8601), everything in a stable order.
struct InspectText {
    let path: String
    let inspection: StoreInspection
    /// The model's path as given, and the comparison with it.
    let model: ModelCheck?

    /// Data longer than this is shown by its size: hashes (32 bytes) are shown in full.
    static let longestDataShown = 64

    var text: String {
        var out = ""
        let settings = inspection.settings
        out += "store:   \(path)\n"
        out += "layout:  \(inspection.layout.displayName)\n"
        out += "sqlite:  page size \(settings.pageSize), journal mode \(settings.journalMode), "
            + "auto_vacuum \(settings.autoVacuumName), encoding \(settings.encoding)\n"
        out += "\n" + entities()
        out += metadata()
        if let model { out += "\n" + InspectText.comparison(model, rows: inspection.rowFindings) }
        return out
    }

    private func entities() -> String {
        let entities = inspection.entities
        guard inspection.layout == .coreData else {
            var out = "tables: \(entities.count)\n"
            guard !entities.isEmpty else { return out }
            let rows = [["table", "rows"]] + entities.map { [$0.name, $0.rows.map(String.init) ?? "-"] }
            out += InspectText.table(rows, rightAligned: [1], indent: "  ")
            return out
        }
        let history = entities.filter(\.isCoreDataHistory)
        let own = entities.filter { !$0.isCoreDataHistory }
        var out = "entities: \(own.count) (Z_PRIMARYKEY)\n"
        func table(_ entities: [StoreInspection.EntityRows]) -> String {
            let rows = [["Z_ENT", "entity", "parent", "table", "rows", "Z_MAX"]] + entities.map { entity in
                [entity.number.map(String.init) ?? "", entity.name, entity.parent ?? "", entity.table ?? "(no table)",
                 entity.rows.map(String.init) ?? "-", entity.maxPrimaryKey.map(String.init) ?? ""]
            }
            return InspectText.table(rows, rightAligned: [0, 4, 5], indent: "  ")
        }
        if !own.isEmpty { out += table(own) }
        if !history.isEmpty {
            out += "\nCore Data's persistent history: \(history.count) entities (Core Data's own; no model declares them)\n"
            out += table(history)
        }
        guard !entities.isEmpty else { return out }
        let joins = inspection.joinTables
        guard !joins.isEmpty else { return out }
        out += "\njoin tables: \(joins.count) (many-to-many)\n"
        out += InspectText.table([["table", "between", "rows"]] + joins.map {
            [$0.table, $0.entities.joined(separator: ", "), $0.rows.map(String.init) ?? "-"]
        }, rightAligned: [2], indent: "  ")
        return out
    }

    private func metadata() -> String {
        switch inspection.metadata {
        case .none:
            return ""
        case .plain(let entries):
            var out = "\nmetadata: pipectl_metadata\n"
            for entry in entries { out += "  \(entry.key): \(InspectText.display(entry.value))\n" }
            return out
        case .coreData(let version, let uuid, let plist):
            var out = "\nmetadata: Z_METADATA\n"
            guard version != nil || uuid != nil || plist != nil else { return out + "  (no row: Core Data cannot open this store)\n" }
            out += "  Z_VERSION: \(version.map(String.init) ?? "NULL")\n"
            out += "  Z_UUID: \(uuid ?? "NULL")\n"
            guard let plist else { return out + "  Z_PLIST: NULL\n" }
            out += InspectText.lines(of: plist, indent: "  ")
            return out
        }
    }

    /// Dictionary entries as `key: value` lines, sorted by key; nested dictionaries indented,
    /// with their values aligned (the version hashes read as a column).
    static func lines(of dictionary: [String: BinaryPropertyList.Object], indent: String) -> String {
        let keys = dictionary.keys.sorted()
        let allScalars = dictionary.values.allSatisfy { if case .dictionary = $0 { false } else { true } }
        let width = keys.map(\.count).max() ?? 0
        var out = ""
        for key in keys {
            guard let value = dictionary[key] else { continue }
            if case .dictionary(let nested) = value {
                out += "\(indent)\(key):\(nested.isEmpty ? " {}" : "")\n" + lines(of: nested, indent: indent + "  ")
            } else {
                // Only the leaves of a nested dictionary are aligned: top-level keys vary too much.
                let pad = allScalars && indent.count > 2 ? String(repeating: " ", count: width - key.count) : ""
                out += "\(indent)\(key): \(pad)\(display(value))\n"
            }
        }
        return out
    }

    /// One property-list value on one line.
    static func display(_ object: BinaryPropertyList.Object) -> String {
        switch object {
        case .bool(let b): b ? "true" : "false"
        case .integer(let i): String(i)
        case .real(let d): Value.double(d).displayText
        case .date(let t): Value.date(t).displayText
        case .data(let bytes):
            bytes.count <= longestDataShown ? Data(bytes).base64EncodedString() : "(\(bytes.count) bytes of data)"
        case .string(let s): s.debugDescription
        case .array(let items): "[" + items.map(display).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            "{" + entries.keys.sorted().map { "\($0.debugDescription): \(display(entries[$0] ?? .string("")))" }
                .joined(separator: ", ") + "}"
        }
    }

    /// A SQLite value: text quoted so that `"1"` and `1` differ, blobs as base64.
    static func display(_ value: Value) -> String {
        switch value {
        case .null: "NULL"
        case .text(let s): s.debugDescription
        case .binary(let bytes): display(.data(bytes))
        default: value.displayText
        }
    }

    /// The model check: one line per entity (version hash, Z_PRIMARYKEY row), the details of what
    /// differs, then the verdict.
    static func comparison(_ check: ModelCheck, rows findings: [StoreRowChecks.Finding]?) -> String {
        let comparison = check.comparison
        var out = "model: \(check.path)\n"
        if let configuration = check.configuration {
            out += "configuration: \(configuration.name) (\(configuration.entities.joined(separator: ", ")))\n"
        }
        var hashes: [String: StoreModelComparison.HashEntry] = [:]
        for entry in comparison.hashes { hashes[entry.name] = entry }
        var keys: [String: StoreModelComparison.PrimaryKeyEntry] = [:]
        for entry in comparison.primaryKeys { keys[entry.name] = entry }
        let names = Set(hashes.keys).union(keys.keys).sorted()

        var rows = [["entity", "version hash", "Z_PRIMARYKEY"]]
        var details: [String] = []
        for name in names {
            let hash = hashes[name], key = keys[name]
            rows.append([name, hash?.status.rawValue ?? "-", key?.status.rawValue ?? "-"])
            if let hash, hash.status == .differs, let store = hash.store, let model = hash.model {
                details.append("\(name): version hash \(store.base64EncodedString()) in the store, "
                                   + "\(model.base64EncodedString()) in the model")
            }
            if let key, key.status == .differs {
                func describe(_ number: Int64?, _ parent: String?) -> String {
                    "Z_ENT \(number.map(String.init) ?? "?")" + (parent.map { ", parent \($0)" } ?? ", no parent")
                }
                details.append("\(name): \(describe(key.storeNumber, key.storeParent)) in the store, "
                                   + "\(describe(key.modelNumber, key.modelParent)) in the model")
            }
        }
        out += table(rows, rightAligned: [], indent: "  ")
        for detail in details { out += "  \(detail)\n" }
        if check.matches {
            out += "match: Core Data opens this store with this model without migrating\n"
            for name in check.holdingConfigurations {
                out += "configuration: every row is in configuration '\(name)': the store of that configuration "
                    + "(check it with --configuration \(name))\n"
            }
        } else {
            if !comparison.hashesMatch { out += "mismatch: \(StoreModelComparison.hashMismatchExplanation)\n" }
            if !comparison.primaryKeysMatch { out += "mismatch: \(StoreModelComparison.primaryKeyMismatchExplanation)\n" }
            if let configuration = check.configuration, !check.rowsOutside.isEmpty {
                let rows = check.rowsOutside.map { "\($0.entity) \($0.rows)" }.joined(separator: ", ")
                out += "mismatch: rows in entities outside configuration '\(configuration.name)' (\(rows)): "
                    + "the app reads those entities from another store and never sees these rows\n"
            }
        }
        if let findings {
            if findings.isEmpty {
                out += "rows: every row is as Core Data writes it for this model\n"
            } else {
                out += "rows: \(findings.count) rule\(findings.count == 1 ? "" : "s") broken; the app would read these rows wrong or not at all:\n"
                for finding in findings { out += "  \(finding)\n" }
            }
        } else {
            out += "rows: not checked: the store's tables and entity numbers are not the model's\n"
        }
        return out
    }

    /// Columns padded to their widest cell; trailing spaces trimmed.
    static func table(_ rows: [[String]], rightAligned: Set<Int>, indent: String) -> String {
        guard let first = rows.first else { return "" }
        let widths = first.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            var line = indent
            for (column, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                if column > 0 { line += "  " }
                line += rightAligned.contains(column) ? pad + cell : cell + pad
            }
            while line.last == " " { line.removeLast() }
            return line + "\n"
        }.joined()
    }
}
