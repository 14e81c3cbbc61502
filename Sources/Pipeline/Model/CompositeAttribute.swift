import Diagnostics

/// A composite attribute: how SwiftData stores a property of a Codable struct or enum type. Its
/// elements are attributes of the entity of their own (`Attribute.composite` says which), each
/// with a column; the composite itself has no column, and the version hash hashes it from its
/// elements (confirmed by swiftdata-metacocktails and swiftdata-cheftime).
///
/// A struct's property of a struct or enum type is a composite inside the struct's composite,
/// named by its path (`address.kind`); its elements are the entity's attributes as the outer
/// ones are. Core Data documents nested composites; no real store shows one yet.
public struct CompositeAttribute: Sendable, Hashable, Codable {
    public enum Kind: Sendable, Hashable, Codable {
        /// A struct: one element per stored property, loaded by dotted name (`author.person`).
        case structure
        /// An enum with raw values: one element named as the property, holding the raw value;
        /// either a case's name or its raw value may be loaded.
        case rawValue(cases: [EnumCase])
        /// An enum without raw values: one text element per case; the current case's holds the
        /// case name, the others are empty.
        case caseName(cases: [String])
    }

    public struct EnumCase: Sendable, Hashable, Codable {
        public var name: String
        public var rawValue: String

        public init(_ name: String, rawValue: String) {
            self.name = name
            self.rawValue = rawValue
        }
    }

    public var name: String
    public var kind: Kind
    /// Nil leaves every element empty.
    public var isOptional: Bool
    /// The Swift type as written, for messages and the model's XML.
    public var typeName: String
    /// The default value Core Data records (`{}` for a struct with an initial value), not hashed.
    public var defaultValue: String?
    public var location: Location?

    public init(name: String, kind: Kind, isOptional: Bool, typeName: String, defaultValue: String? = nil,
                location: Location? = nil) {
        self.name = name
        self.kind = kind
        self.isOptional = isOptional
        self.typeName = typeName
        self.defaultValue = defaultValue
        self.location = location
    }

    public var isEnum: Bool {
        if case .structure = kind { return false }
        return true
    }

    /// The composite this one is an element of (`address` for `address.kind`).
    public var parent: String? {
        name.lastIndex(of: ".").map { String(name[..<$0]) }
    }

    /// Its name as an element of its parent (`kind` for `address.kind`), or as a property.
    public var elementName: String {
        name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? name
    }
}

/// Which composite an attribute is an element of (by its path: `address.kind`), and the element's
/// own name (its column is `Z` + that name: `author.person` is ZPERSON).
public struct CompositePart: Sendable, Hashable, Codable {
    public var composite: String
    public var element: String

    public init(composite: String, element: String) {
        self.composite = composite
        self.element = element
    }

    /// The entity's property the element belongs to, the outermost composite.
    public var property: String {
        composite.firstIndex(of: ".").map { String(composite[..<$0]) } ?? composite
    }
}
