import Diagnostics
/// An attribute of an entity.
public struct Attribute: Sendable, Codable {
    public var name: String
    public var type: AttributeType
    /// May be empty (NULL). Core Data's default is optional, and so is ours.
    public var isOptional: Bool
    /// Written into each new row that gives no value.
    public var defaultValue: Value?
    public var isIndexed: Bool
    /// Where it was declared, for errors about it.
    public var location: Location?
    /// Kept in memory only: no column, not part of the entity's version hash.
    public var isTransient: Bool
    /// Core Data may keep large values in files beside the store (a version-hash input).
    public var allowsExternalBinaryDataStorage: Bool
    /// Kept in the persistent history's tombstone when the object is deleted (a version-hash input).
    public var preservesValueInHistoryOnDeletion: Bool
    /// Changes the version hash without changing the schema, to force a migration.
    public var versionHashModifier: String?
    /// The key-path expression of a derived attribute (`pages.@count`), which Core Data computes.
    public var derivationExpression: String?
    /// Value and length limits from the model, kept for later enforcement.
    public var validation: AttributeValidation
    /// Set on an element of a composite attribute (a SwiftData Codable struct or enum property):
    /// each element is an attribute of its own here, with a column of its own in the store.
    public var composite: CompositePart?
    /// Set on a Transformable attribute holding a Swift array as SwiftData stores it (a list of
    /// values, archived): the elements' type; `.transformable` for structs, kept as they come.
    public var arrayElement: AttributeType?
    /// For an array of enums or structs (a SwiftData source's): what each element must be, and
    /// how the app's Codable writes it. Nil where the element is a plain value.
    public var elementShape: ElementShape?

    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: Value? = nil,
                isIndexed: Bool = false, location: Location? = nil, isTransient: Bool = false,
                allowsExternalBinaryDataStorage: Bool = false, preservesValueInHistoryOnDeletion: Bool = false,
                versionHashModifier: String? = nil, derivationExpression: String? = nil,
                validation: AttributeValidation = AttributeValidation(), composite: CompositePart? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.location = location
        self.isTransient = isTransient
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.versionHashModifier = versionHashModifier
        self.derivationExpression = derivationExpression
        self.validation = validation
        self.composite = composite
    }

    /// Derived attributes are computed by Core Data itself.
    public var isDerived: Bool { derivationExpression != nil }
}

/// A relationship from one entity to another.
public struct Relationship: Sendable, Codable {
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// The inverse relationship's name on the destination, if declared.
    public var inverse: String?
    public var isToMany: Bool
    public var isOrdered: Bool
    public var isOptional: Bool
    public var location: Location?
    /// The fewest related objects, exactly as the model states it (0 when it states none).
    public var minCount: Int
    /// The most related objects: 1 for a to-one, 0 for an unbounded to-many.
    public var maxCount: Int
    public var deleteRule: DeleteRule
    public var versionHashModifier: String?
    /// Kept in memory only: no column, not part of the entity's version hash.
    public var isTransient: Bool

    /// `maxCount` defaults to 1 for a to-one and 0 (unbounded) for a to-many.
    public init(name: String, destination: String, inverse: String? = nil, isToMany: Bool = false,
                isOrdered: Bool = false, isOptional: Bool = true, location: Location? = nil,
                minCount: Int = 0, maxCount: Int? = nil, deleteRule: DeleteRule = .nullify,
                versionHashModifier: String? = nil, isTransient: Bool = false) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.location = location
        self.minCount = minCount
        self.maxCount = maxCount ?? (isToMany ? 0 : 1)
        self.deleteRule = deleteRule
        self.versionHashModifier = versionHashModifier
        self.isTransient = isTransient
    }

    /// What happens to related objects when the source object is deleted.
    public enum DeleteRule: String, Sendable, CaseIterable, Codable {
        case noAction, nullify, cascade, deny
    }
}

/// An entity: a table in the plain layout, an entity of the Core Data model in the coredata one.
public struct Entity: Sendable, Codable {
    public var name: String
    /// The parent entity's name (inheritance), if any.
    public var parent: String?
    public var isAbstract: Bool
    /// Attributes declared on this entity (not inherited ones).
    public var attributes: [Attribute]
    /// Relationships declared on this entity (not inherited ones).
    public var relationships: [Relationship]
    /// Attribute names whose values together identify a record; empty when the entity has none.
    public var uniqueKey: [String]
    public var location: Location?
    /// Core Data uniqueness constraints (each a list of property names), declared on this entity.
    /// Separate from `uniqueKey`, which is pipectl's find-or-create key.
    public var uniquenessConstraints: [[String]]
    /// Core Data fetch indexes declared on this entity.
    public var fetchIndexes: [FetchIndex]
    public var versionHashModifier: String?
    /// The composite attributes whose elements are among `attributes`, in declaration order.
    public var composites: [CompositeAttribute] = []

    public init(name: String, parent: String? = nil, isAbstract: Bool = false, attributes: [Attribute] = [],
                relationships: [Relationship] = [], uniqueKey: [String] = [], location: Location? = nil,
                uniquenessConstraints: [[String]] = [], fetchIndexes: [FetchIndex] = [],
                versionHashModifier: String? = nil, composites: [CompositeAttribute] = []) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.uniqueKey = uniqueKey
        self.location = location
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.versionHashModifier = versionHashModifier
        self.composites = composites
    }
}

/// The entities a store holds, in declaration order (which fixes table and insertion order).
public struct StoreModel: Sendable {
    public private(set) var entities: [Entity]
    private var indexByName: [String: Int]
    /// The model's version identifiers (Core Data's `versionIdentifiers`), written to store metadata.
    public var versionIdentifiers: [String]
    /// `NSPersistenceFrameworkVersion` of the stores the model's app writes, where the kind of
    /// model tells it (a SwiftData app's); nil: Core Data's default.
    public var frameworkVersion: Int?
    /// Which part of the source the model is, and why, where a source could give several (a
    /// SwiftData app's VersionedSchemas): `pipectl model` says it.
    public var origin: String?
    /// The model's configurations (`<configuration>` in a model file), in file order.
    public var configurations: [ModelConfiguration] = []
    /// The configuration whose store this model describes (`configured(as:)`); nil: the whole model.
    public internal(set) var configuration: String?
    /// The entities the configuration leaves out, by name: still in the store's schema, never
    /// loaded; empty for the whole model.
    public internal(set) var entitiesOutsideConfiguration: [String] = []

    public init(entities: [Entity], versionIdentifiers: [String] = []) {
        self.entities = entities
        self.versionIdentifiers = versionIdentifiers
        self.indexByName = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public subscript(name: String) -> Entity? {
        indexByName[name].map { entities[$0] }
    }

    public func index(of name: String) -> Int? { indexByName[name] }

    /// Ancestors first, then the entity itself.
    public func lineage(of name: String) -> [Entity] {
        var chain: [Entity] = []
        var current = self[name]
        while let entity = current, !chain.contains(where: { $0.name == entity.name }) {
            chain.insert(entity, at: 0)
            current = entity.parent.flatMap { self[$0] }
        }
        return chain
    }

    /// Sets pipectl's find-or-create key of an entity (a model file has none).
    public mutating func setUniqueKey(_ key: [String], of name: String) {
        guard let index = indexByName[name] else { return }
        entities[index].uniqueKey = key
    }

    /// Inherited and own attributes, ancestors' first.
    public func allAttributes(of name: String) -> [Attribute] {
        lineage(of: name).flatMap(\.attributes)
    }

    /// Inherited and own composite attributes, ancestors' first.
    public func allComposites(of name: String) -> [CompositeAttribute] {
        lineage(of: name).flatMap(\.composites)
    }

    /// Inherited and own relationships, ancestors' first.
    public func allRelationships(of name: String) -> [Relationship] {
        lineage(of: name).flatMap(\.relationships)
    }

    /// The unique key in force for an entity: its own, else the nearest ancestor's.
    public func uniqueKey(of name: String) -> [String] {
        lineage(of: name).reversed().first { !$0.uniqueKey.isEmpty }?.uniqueKey ?? []
    }
}
