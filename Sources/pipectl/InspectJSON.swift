import Foundation
import Pipeline
import SinksSQLite
import CoreDataFormat
import PropertyLists
import StoreTools

/// `pipectl inspect --json`: the facts of the text output as one JSON object with sorted keys,
/// so that CI can read and diff it. Missing facts are `null`; data is base64, dates ISO 8601.
struct InspectJSON {
    /// A JSON value; objects are written with sorted keys.
    enum Value: Encodable, Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case double(Double)
        case string(String)
        case array([Value])
        case object([String: Value])

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let b): try container.encode(b)
            case .integer(let i): try container.encode(i)
            // JSON has no NaN or infinity: those are written as their names.
            case .double(let d): d.isFinite ? try container.encode(d) : try container.encode(String(d))
            case .string(let s): try container.encode(s)
            case .array(let items): try container.encode(items)
            case .object(let entries): try container.encode(entries)
            }
        }

        static func optional<T>(_ value: T?, _ wrap: (T) -> Value) -> Value {
            value.map(wrap) ?? .null
        }
    }

    let path: String
    let inspection: StoreInspection
    let model: ModelCheck?

    var value: Value {
        let settings = inspection.settings
        var root: [String: Value] = [
            "path": .string(path),
            "layout": .string(inspection.layout.rawValue),
            "sqlite": .object([
                "pageSize": .integer(settings.pageSize),
                "journalMode": .string(settings.journalMode),
                "autoVacuum": .integer(settings.autoVacuum),
                "encoding": .string(settings.encoding),
            ]),
            "entities": .array(inspection.entities.map { entity in
                .object([
                    "name": .string(entity.name),
                    "number": .optional(entity.number, Value.integer),
                    "parent": .optional(entity.parent, Value.string),
                    "table": .optional(entity.table, Value.string),
                    "rows": .optional(entity.rows, Value.integer),
                    "maxPrimaryKey": .optional(entity.maxPrimaryKey, Value.integer),
                    "coreDataHistory": .bool(entity.isCoreDataHistory),
                ])
            }),
            "joinTables": .array(inspection.joinTables.map { join in
                .object([
                    "table": .string(join.table),
                    "entities": .array(join.entities.map(Value.string)),
                    "rows": .optional(join.rows, Value.integer),
                ])
            }),
            "metadata": metadata,
        ]
        if let model {
            let comparison = model.comparison
            var entries: [String: [String: Value]] = [:]
            for hash in comparison.hashes {
                entries[hash.name, default: [:]].merge([
                    "hash": .string(hash.status.rawValue),
                    "storeHash": .optional(hash.store) { .string($0.base64EncodedString()) },
                    "modelHash": .optional(hash.model) { .string($0.base64EncodedString()) },
                ]) { $1 }
            }
            for key in comparison.primaryKeys {
                entries[key.name, default: [:]].merge([
                    "primaryKey": .string(key.status.rawValue),
                    "storeNumber": .optional(key.storeNumber, Value.integer),
                    "modelNumber": .optional(key.modelNumber, Value.integer),
                    "storeParent": .optional(key.storeParent, Value.string),
                    "modelParent": .optional(key.modelParent, Value.string),
                ]) { $1 }
            }
            var checked: [String: Value] = [
                "path": .string(model.path),
                "match": .bool(model.matches && inspection.rowFindings?.isEmpty != false),
                // null: not checked (the schema is not the model's); []: every row fits.
                "rows": .optional(inspection.rowFindings) { findings in
                    .array(findings.map { finding in
                        .object(["entity": .string(finding.entity), "property": .string(finding.property), "problem": .string(finding.problem),
                                 "count": .integer(Int64(finding.count)), "rows": .array(finding.rows.map(Value.string))])
                    })
                },
                "entities": .array(entries.keys.sorted().map { name in
                    var entry = entries[name] ?? [:]
                    entry["name"] = .string(name)
                    for key in ["hash", "primaryKey"] where entry[key] == nil { entry[key] = .string("-") }
                    return .object(entry)
                }),
            ]
            // Only where a configuration is in play, so that other checks print as before.
            if let configuration = model.configuration {
                checked["configuration"] = .object([
                    "name": .string(configuration.name),
                    "entities": .array(configuration.entities.map(Value.string)),
                    "rowsOutside": .object(Dictionary(uniqueKeysWithValues: model.rowsOutside.map { ($0.entity, Value.integer($0.rows)) })),
                ])
            }
            if !model.holdingConfigurations.isEmpty {
                checked["holdingConfigurations"] = .array(model.holdingConfigurations.map(Value.string))
            }
            root["model"] = .object(checked)
        }
        return .object(root)
    }

    private var metadata: Value {
        switch inspection.metadata {
        case .none:
            return .null
        case .plain(let entries):
            var object: [String: Value] = [:]
            for entry in entries { object[entry.key] = InspectJSON.value(entry.value) }
            return .object(object)
        case .coreData(let version, let uuid, let plist):
            return .object([
                "Z_VERSION": .optional(version, Value.integer),
                "Z_UUID": .optional(uuid, Value.string),
                "Z_PLIST": .optional(plist) { .object($0.mapValues(InspectJSON.value)) },
            ])
        }
    }

    static func value(_ object: BinaryPropertyList.Object) -> Value {
        switch object {
        case .bool(let b): .bool(b)
        case .integer(let i): .integer(i)
        case .real(let d): .double(d)
        case .date(let t): .string(Pipeline.Value.date(t).displayText)
        case .data(let bytes): .string(Data(bytes).base64EncodedString())
        case .string(let s): .string(s)
        case .array(let items): .array(items.map(value))
        case .dictionary(let entries): .object(entries.mapValues(value))
        }
    }

    static func value(_ value: Pipeline.Value) -> Value {
        switch value {
        case .null: .null
        case .text(let s): .string(s)
        case .integer(let i): .integer(i)
        case .double(let d): .double(d)
        case .decimal(let d): .string(d.description)
        case .bool(let b): .bool(b)
        case .date: .string(value.displayText)
        case .binary(let bytes): .string(Data(bytes).base64EncodedString())
        case .list(let values): .array(values.map(Self.value))
        case .object(let fields): .object(Dictionary(zip(fields.names, fields.values.map(Self.value)), uniquingKeysWith: { _, last in last }))
        }
    }

    /// The JSON text: pretty-printed, keys sorted, a final newline.
    func text() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}
