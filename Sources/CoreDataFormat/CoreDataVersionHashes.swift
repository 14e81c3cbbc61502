import Checksums
import Foundation
import Pipeline

/// Core Data's entity version hashes (`NSStoreModelVersionHashes`): what Core Data compares to
/// decide whether a store fits the app's model without migration.
///
/// Every hash is SHA-256; integers little-endian, strings UTF-8 without terminator (see
/// `CoreDataStoreFormat`). Confirmed against real stores: inheritance, to-one and to-many
/// with inverses, explicit and absent minCount, uniqueness constraints, transient attributes, all
/// attribute types but ObjectID, external binary storage, preserve-after-deletion, derived
/// `count:`; many-to-many by Xcode's compiled model. **Unconfirmed** (the format's rule is
/// followed): ordered relationships (`uint16 1` appended) and version hash modifiers.
public enum CoreDataVersionHashes {
    /// The 32-byte hash of every entity, by entity name.
    public static func hashes(for model: StoreModel) -> [String: Data] {
        var memo: [String: Data] = [:]
        for entity in model.entities { _ = entityHash(entity.name, in: model, memo: &memo, visiting: []) }
        return memo
    }

    private static func entityHash(_ name: String, in model: StoreModel, memo: inout [String: Data],
                                   visiting: Set<String>) -> Data {
        if let known = memo[name] { return known }
        guard let entity = model[name] else { return Data() }
        var bytes = Data(name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.parent, model[parent] != nil, !visiting.contains(parent) {
            bytes.append(entityHash(parent, in: model, memo: &memo, visiting: visiting.union([name])))
        }
        var properties: [(String, Data)] = []
        var elements: [String: [(String, Data)]] = [:]
        for attribute in model.allAttributes(of: name) where !attribute.isTransient {
            if let part = attribute.composite {
                elements[part.composite, default: []].append((part.element, attributeHash(attribute, named: part.element)))
            } else {
                properties.append((attribute.name, attributeHash(attribute)))
            }
        }
        // A composite: SHA256 of its elements' hashes in element-name order; its own name,
        // optionality and type are not hashed (confirmed by swiftdata-metacocktails). A composite
        // inside another is one of its elements, hashed the same way first (unconfirmed).
        func compositeHash(_ hashes: [(String, Data)]) -> Data {
            sha256(hashes.sorted { $0.0 < $1.0 }.reduce(into: Data()) { $0.append($1.1) })
        }
        let deepest = elements.keys.map { $0.count { $0 == "." } }.max() ?? 0
        for level in stride(from: deepest, to: 0, by: -1) {
            for path in elements.keys.filter({ $0.count { $0 == "." } == level }) {
                let cut = path.lastIndex(of: ".")!
                let hash = compositeHash(elements.removeValue(forKey: path)!)
                elements[String(path[..<cut]), default: []].append((String(path[path.index(after: cut)...]), hash))
            }
        }
        for (composite, hashes) in elements {
            properties.append((composite, compositeHash(hashes)))
        }
        for relationship in model.allRelationships(of: name) where !relationship.isTransient {
            properties.append((relationship.name, relationshipHash(relationship)))
        }
        for (_, hash) in properties.sorted(by: { $0.0 < $1.0 }) { bytes.append(hash) }
        // Unconfirmed in a real store: the format's rule for entity version hash modifiers.
        if let modifier = entity.versionHashModifier { bytes.append(contentsOf: modifier.utf8) }
        let constraints = entity.uniquenessConstraints.map { $0.joined(separator: ".") }.filter { !$0.isEmpty }.sorted()
        for constraint in constraints { bytes.append(contentsOf: constraint.utf8) }
        let hash = sha256(bytes)
        memo[name] = hash
        return hash
    }

    /// `SHA256(B ‖ int32 typeCode ‖ [0x01 external storage] ‖ [0x01 preserve after deletion])`,
    /// or for a derived attribute only `SHA256(expression)`.
    public static func attributeHash(_ attribute: Attribute, named name: String? = nil) -> Data {
        if let expression = attribute.derivationExpression {
            return sha256(Data(hashedDerivation(expression).utf8))
        }
        var bytes = propertyBase(name: name ?? attribute.name, isOptional: attribute.isOptional,
                                 isTransient: attribute.isTransient, modifier: attribute.versionHashModifier)
        append(Int32(typeCode(attribute.type)), to: &bytes)
        if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
        return sha256(bytes)
    }

    /// `SHA256(B ‖ destination ‖ [inverse] ‖ uint32 maxCount ‖ uint32 minCount ‖ [uint16 1 if ordered])`.
    public static func relationshipHash(_ relationship: Relationship) -> Data {
        var bytes = propertyBase(name: relationship.name, isOptional: relationship.isOptional,
                                 isTransient: relationship.isTransient, modifier: relationship.versionHashModifier)
        bytes.append(contentsOf: relationship.destination.utf8)
        if let inverse = relationship.inverse { bytes.append(contentsOf: inverse.utf8) }
        append(UInt32(clamping: relationship.isToMany ? relationship.maxCount : 1), to: &bytes)
        append(UInt32(clamping: relationship.minCount), to: &bytes)
        // Unconfirmed in a real store: the format's rule for ordered relationships.
        if relationship.isOrdered && relationship.isToMany { append(UInt16(1), to: &bytes) }
        return sha256(bytes)
    }

    /// Core Data's numeric code for each attribute type, hashed as an int32.
    public static func typeCode(_ type: AttributeType) -> Int {
        switch type {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .bool: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        }
    }

    /// The expression text Core Data hashes: a key path ending in `.@count` becomes `count:(path)`.
    static func hashedDerivation(_ expression: String) -> String {
        let trimmed = expression.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix(".@count") {
            return "count:(\(trimmed.dropLast(".@count".count)))"
        }
        return trimmed
    }

    /// `B = SHA256(name ‖ uint16 flags ‖ [versionHashModifier])`: bit0 optional, bit1 transient,
    /// bit2 read-only (which the model file cannot express for stored properties).
    private static func propertyBase(name: String, isOptional: Bool, isTransient: Bool, modifier: String?) -> Data {
        var bytes = Data(name.utf8)
        append(UInt16((isOptional ? 1 : 0) | (isTransient ? 2 : 0)), to: &bytes)
        // Unconfirmed in a real store: the format's rule for property version hash modifiers.
        if let modifier { bytes.append(contentsOf: modifier.utf8) }
        return sha256(bytes)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func sha256(_ bytes: Data) -> Data {
        Data(Checksum.sha256(bytes))
    }
}
