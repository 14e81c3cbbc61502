/// An attribute of an entity.
public struct Attribute: Sendable {
    public var name: String
    public var type: AttributeType
    /// May be empty (NULL). Core Data's default is optional, and so is ours.
    public var isOptional: Bool
    /// Written into each new row that gives no value.
    public var defaultValue: Value?
    public var isIndexed: Bool
    /// Where it was declared, for errors about it.
    public var location: Location?

    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: Value? = nil,
                isIndexed: Bool = false, location: Location? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.location = location
    }
}

/// A relationship from one entity to another.
public struct Relationship: Sendable {
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// The inverse relationship's name on the destination, if declared.
    public var inverse: String?
    public var isToMany: Bool
    public var isOrdered: Bool
    public var isOptional: Bool
    public var location: Location?

    public init(name: String, destination: String, inverse: String? = nil, isToMany: Bool = false,
                isOrdered: Bool = false, isOptional: Bool = true, location: Location? = nil) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.location = location
    }
}

/// An entity: a table in the plain layout, an entity of the Core Data model in the coredata one.
public struct Entity: Sendable {
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

    public init(name: String, parent: String? = nil, isAbstract: Bool = false, attributes: [Attribute] = [],
                relationships: [Relationship] = [], uniqueKey: [String] = [], location: Location? = nil) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.uniqueKey = uniqueKey
        self.location = location
    }
}

/// The entities a store holds, in declaration order (which fixes table and insertion order).
public struct StoreModel: Sendable {
    public private(set) var entities: [Entity]
    private var indexByName: [String: Int]

    public init(entities: [Entity]) {
        self.entities = entities
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

    /// Inherited and own attributes, ancestors' first.
    public func allAttributes(of name: String) -> [Attribute] {
        lineage(of: name).flatMap(\.attributes)
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
