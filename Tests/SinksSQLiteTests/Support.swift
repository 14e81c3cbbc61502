import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
@testable import CoreDataFormat
@testable import StoreTools
import SQLite
import Testing

/// The grocery model of the design document, built in code.
enum Grocery {
    static let unit = 0, location = 1, home = 2, shop = 3, item = 4

    static let model = StoreModel(entities: [
        Entity(name: "Unit",
               attributes: [Attribute(name: "name", type: .string, isOptional: false)],
               relationships: [Relationship(name: "items", destination: "Item", inverse: "unit", isToMany: true)],
               uniqueKey: ["name"]),
        Entity(name: "Location", isAbstract: true, attributes: [Attribute(name: "summary", type: .string)]),
        Entity(name: "LocationAtHome", parent: "Location",
               attributes: [Attribute(name: "storedIn", type: .string)], uniqueKey: ["storedIn"]),
        Entity(name: "LocationAtShop", parent: "Location",
               attributes: [Attribute(name: "aisle", type: .string)], uniqueKey: ["aisle"]),
        Entity(name: "Item",
               attributes: [
                   Attribute(name: "name", type: .string, isOptional: false, isIndexed: true),
                   Attribute(name: "quantity", type: .float, defaultValue: .double(1)),
                   Attribute(name: "listed", type: .bool, defaultValue: .bool(true)),
                   Attribute(name: "collected", type: .bool, defaultValue: .bool(false)),
                   Attribute(name: "added", type: .date),
               ],
               relationships: [
                   Relationship(name: "unit", destination: "Unit", inverse: "items"),
                   Relationship(name: "locationAtHome", destination: "LocationAtHome", inverse: "items"),
                   Relationship(name: "locationAtShop", destination: "LocationAtShop", inverse: "items"),
               ],
               uniqueKey: ["name"]),
    ])

    static func at(_ line: Int) -> Location { Location(file: "items.csv", line: line) }

    /// An Item record as a load makes it: nil arguments are slots the load leaves out.
    static func item(_ name: String?, quantity: Double? = nil, added: Double? = nil, unit: String? = nil,
                     home: String? = nil, shop: String? = nil, line: Int) -> EntityRecord {
        EntityRecord(
            entity: item,
            values: [name.map(Value.text), quantity.map(Value.double), nil, nil, added.map(Value.date)],
            links: [
                unit.map { EntityRecord(entity: Grocery.unit, values: [.text($0)], links: [nil], location: at(line)) },
                home.map { EntityRecord(entity: Grocery.home, values: [nil, .text($0)], links: [], location: at(line)) },
                shop.map { EntityRecord(entity: Grocery.shop, values: [nil, .text($0)], links: [], location: at(line)) },
            ],
            location: at(line))
    }

    static func log(_ model: StoreModel = model) -> ImportLog {
        ImportLog(sourceNames: ["items"], entityNames: model.entities.map(\.name))
    }
}

/// A fresh folder under the temporary directory, removed after `body`.
func withScratchFolder<R>(_ body: (URL) throws -> R) throws -> R {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("pipectl-sink-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer {
        // Give back permissions a test took away, so that the folder can go.
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        if let items = try? FileManager.default.subpathsOfDirectory(atPath: folder.path) {
            for item in items {
                _ = try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.appendingPathComponent(item).path)
            }
        }
        try? FileManager.default.removeItem(at: folder)
    }
    return try body(folder)
}

/// Builds a store at `target` from `records` (each with its duplicate policy) and returns the log.
@discardableResult
func buildStore(at target: URL, model: StoreModel = Grocery.model, metadata: [(key: String, value: Value)] = [],
                _ records: [EntityRecord], onDuplicate: DuplicatePolicy = .keep) throws -> ImportLog {
    let sink = try SQLiteSink(settings: StoreSettings(path: target, metadata: metadata), model: model)
    let log = Grocery.log(model)
    for record in records { try sink.write(record, onDuplicate: onDuplicate, log: log) }
    try sink.finish(log: log)
    return log
}

/// Runs `body` and returns the `PipelineError` it throws, or nil.
func pipelineError(_ body: () throws -> Void) -> PipelineError? {
    do {
        try body()
        return nil
    } catch let error as PipelineError {
        return error
    } catch {
        Issue.record("unexpected \(type(of: error)): \(error)")
        return nil
    }
}

/// Checks a thrown `PipelineError` by what code decides on: its code and where it points
/// (`nil` for an error that points nowhere). The wording is the bad-input corpus's to check.
func expectError(_ error: PipelineError?, _ code: PipelineError.Code, at location: String?,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error != nil, "no error thrown", sourceLocation: sourceLocation)
    #expect(error?.code == code, sourceLocation: sourceLocation)
    #expect(error?.location?.description == location, sourceLocation: sourceLocation)
}

/// A location in a pipeline file, for errors about the store as a whole.
let storeEntry = Location(file: "grocery.yaml", line: 4, column: 3)

/// Rows as the text users would read, for comparing SQL text and names.
func texts(_ rows: [[Value]]) -> [[String]] {
    rows.map { $0.map(\.displayText) }
}
