import Foundation
import Pipeline
import SinksSQLite
import CoreDataFormat
import SQLite

/// Whether Core Data would open a store with a model: the store's `NSStoreModelVersionHashes`
/// against the hashes computed from the model, and Z_PRIMARYKEY's entities against the model's.
///
/// ```swift
/// let comparison = StoreModelComparison(store: inspection, model: try CoreDataModelReader.read(modelURL))
/// comparison.matches          // false
/// comparison.hashes.first     // Entry(name: "Item", status: .differs, ...)
/// ```
public struct StoreModelComparison: Sendable {
    /// How one entity compares.
    public enum Status: String, Sendable {
        case match
        case differs
        case missingInStore = "missing in store"
        case missingInModel = "missing in model"
    }

    /// One entity's version hash in the store and in the model.
    public struct HashEntry: Sendable, Hashable {
        public var name: String
        public var status: Status
        public var store: Data?
        public var model: Data?
    }

    /// One entity's Z_PRIMARYKEY row (number and parent) against the numbering the model gives.
    public struct PrimaryKeyEntry: Sendable, Hashable {
        public var name: String
        public var status: Status
        public var storeNumber: Int64?
        public var modelNumber: Int64?
        public var storeParent: String?
        public var modelParent: String?
    }

    /// Every entity of the store's hashes or the model, by name.
    public let hashes: [HashEntry]
    /// Every entity of Z_PRIMARYKEY or the model, by name.
    public let primaryKeys: [PrimaryKeyEntry]

    /// `true` when Core Data would open the store with the model without migrating.
    public var hashesMatch: Bool { hashes.allSatisfy { $0.status == .match } }
    /// `true` when Z_PRIMARYKEY numbers the model's entities as Core Data would.
    public var primaryKeysMatch: Bool { primaryKeys.allSatisfy { $0.status == .match } }
    public var matches: Bool { hashesMatch && primaryKeysMatch }

    public init(store: StoreInspection, model: StoreModel) {
        let storeHashes = store.versionHashes ?? [:]
        let modelHashes = CoreDataVersionHashes.hashes(for: model)
        hashes = Set(storeHashes.keys).union(modelHashes.keys).sorted().map { name in
            let inStore = storeHashes[name], inModel = modelHashes[name]
            let status: Status = inStore == nil ? .missingInStore : inModel == nil ? .missingInModel
                : inStore == inModel ? .match : .differs
            return HashEntry(name: name, status: status, store: inStore, model: inModel)
        }

        let tree = CoreDataEntityTree(model)
        var storeEntities: [String: StoreInspection.EntityRows] = [:]
        // Core Data's own history entities are no model's: the match is judged on the model's.
        for entity in store.entities where entity.number != nil && !entity.isCoreDataHistory { storeEntities[entity.name] = entity }
        let modelNames = Set(tree.entities.map(\.name))
        primaryKeys = Set(storeEntities.keys).union(modelNames).sorted().map { name in
            let row = storeEntities[name]
            let modelNumber = tree.number(of: name).map(Int64.init)
            let modelParent = tree.superNumber(of: name).flatMap { $0 == 0 ? nil : tree.entities[$0 - 1].name }
            let status: Status = row == nil ? .missingInStore : modelNumber == nil ? .missingInModel
                : (row?.number == modelNumber && row?.parent == modelParent) ? .match : .differs
            return PrimaryKeyEntry(name: name, status: status, storeNumber: row?.number, modelNumber: modelNumber,
                                   storeParent: row?.parent, modelParent: modelParent)
        }
    }

    /// Why a hash mismatch matters, in the words of the error Core Data reports.
    public static let hashMismatchExplanation =
        "Core Data will refuse to open this store with this model: 'The model used to open the store is "
        + "incompatible with the one used to create the store'; regenerate the store or add a migration"

    /// Why a Z_PRIMARYKEY mismatch matters.
    public static let primaryKeyMismatchExplanation =
        "Core Data numbers entities (Z_ENT) from the model, so this store's rows would be read as the "
        + "wrong entities; regenerate the store"
}
