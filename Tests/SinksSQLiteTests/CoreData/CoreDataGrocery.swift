import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
@testable import CoreDataFormat
@testable import StoreTools
import SQLite

/// A grocery model as a Core Data app has it (after Grocery Dude's): Item with defaults, Unit, and
/// the abstract Location whose two sub-entities share one table. `Item.usualPlace` leads into the
/// Location hierarchy, so its rows also record which kind of location they link to.
///
/// Model order (record entity numbers) differs from Core Data's numbering on purpose:
/// Item=1, Location=2, LocationAtHome=3, LocationAtShop=4, Unit=5.
enum CoreDataGrocery {
    static let unit = 0, location = 1, home = 2, shop = 3, item = 4

    static let model = StoreModel(entities: [
        Entity(name: "Unit",
               attributes: [Attribute(name: "name", type: .string)],
               relationships: [Relationship(name: "items", destination: "Item", inverse: "unit", isToMany: true)],
               uniqueKey: ["name"]),
        Entity(name: "Location", isAbstract: true,
               attributes: [Attribute(name: "summary", type: .string)],
               relationships: [Relationship(name: "usualItems", destination: "Item", inverse: "usualPlace", isToMany: true)]),
        Entity(name: "LocationAtHome", parent: "Location",
               attributes: [Attribute(name: "storedIn", type: .string)],
               relationships: [Relationship(name: "items", destination: "Item", inverse: "locationAtHome", isToMany: true)],
               uniqueKey: ["storedIn"]),
        Entity(name: "LocationAtShop", parent: "Location",
               attributes: [Attribute(name: "aisle", type: .string)],
               relationships: [Relationship(name: "items", destination: "Item", inverse: "locationAtShop", isToMany: true)],
               uniqueKey: ["aisle"]),
        Entity(name: "Item",
               attributes: [
                   Attribute(name: "name", type: .string, isIndexed: true),
                   Attribute(name: "quantity", type: .float, defaultValue: .double(1)),
                   Attribute(name: "listed", type: .bool, defaultValue: .bool(true)),
                   Attribute(name: "collected", type: .bool, defaultValue: .bool(false)),
                   Attribute(name: "added", type: .date),
               ],
               relationships: [
                   Relationship(name: "unit", destination: "Unit", inverse: "items"),
                   Relationship(name: "locationAtHome", destination: "LocationAtHome", inverse: "items"),
                   Relationship(name: "locationAtShop", destination: "LocationAtShop", inverse: "items"),
                   Relationship(name: "usualPlace", destination: "Location", inverse: "usualItems"),
               ],
               uniqueKey: ["name"]),
    ], versionIdentifiers: [""])

    static func at(_ line: Int) -> Location { Location(file: "items.csv", line: line) }

    /// A place an item is usually found: at home or in a shop, by its key.
    enum Place {
        case home(String)
        case shop(String)
    }

    static func home(_ storedIn: String, line: Int) -> EntityRecord {
        EntityRecord(entity: home, values: [nil, .text(storedIn)], links: [nil, nil], location: at(line))
    }

    static func shop(_ aisle: String, line: Int) -> EntityRecord {
        EntityRecord(entity: shop, values: [nil, .text(aisle)], links: [nil, nil], location: at(line))
    }

    /// An Item record as a load makes it: nil arguments are slots the load leaves out.
    static func item(_ name: String?, quantity: Double? = nil, collected: Bool? = nil, added: Double? = nil,
                     unit: String? = nil, home: String? = nil, shop: String? = nil, usual: Place? = nil,
                     line: Int) -> EntityRecord {
        let usualRecord: EntityRecord? = switch usual {
        case .home(let key): Self.home(key, line: line)
        case .shop(let key): Self.shop(key, line: line)
        case nil: nil
        }
        return EntityRecord(
            entity: item,
            values: [name.map(Value.text), quantity.map(Value.double), nil, collected.map(Value.bool), added.map(Value.date)],
            links: [
                unit.map { EntityRecord(entity: Self.unit, values: [.text($0)], links: [nil], location: at(line)) },
                home.map { Self.home($0, line: line) },
                shop.map { Self.shop($0, line: line) },
                usualRecord,
            ],
            location: at(line))
    }

    static func settings(_ target: URL, uuid: String? = "6FA1D3C2-0B5E-4C1A-9D3E-2F4B5A6C7D8E",
                         metadata: [(key: String, value: Value)] = [("DefaultDataImported", .bool(true))]) -> StoreSettings {
        StoreSettings(path: target, layout: .coredata, metadata: metadata, uuid: uuid, location: storeEntry)
    }

    /// Builds a coredata store at `target` and returns the log.
    @discardableResult
    static func build(at target: URL, model: StoreModel = model, settings: StoreSettings? = nil,
                      _ records: [EntityRecord], onDuplicate: DuplicatePolicy = .keep) throws -> ImportLog {
        let sink = try SQLiteSink(settings: settings ?? Self.settings(target), model: model)
        let log = ImportLog(sourceNames: ["items"], entityNames: model.entities.map(\.name))
        for record in records { try sink.write(record, onDuplicate: onDuplicate, log: log) }
        try sink.finish(log: log)
        return log
    }

    /// Milk at home in the fridge, bought in aisle 3, usually in the fridge; flour in the pantry
    /// and usually in aisle 7; bread with only a name.
    static let records = [
        item("Milk", quantity: 2, added: 700_000_000.5, unit: "l", home: "Fridge", shop: "3", usual: .home("Fridge"), line: 2),
        item("Flour", collected: true, unit: "kg", home: "Pantry", usual: .shop("7"), line: 3),
        item("Bread", line: 4),
    ]
}
