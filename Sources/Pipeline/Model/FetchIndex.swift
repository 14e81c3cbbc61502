import Diagnostics
/// A Core Data fetch index: an SQL index over one or more properties of an entity.
public struct FetchIndex: Sendable, Hashable, Codable {
    /// One indexed property and its sort order.
    public struct Element: Sendable, Hashable, Codable {
        public var property: String
        public var isAscending: Bool

        public init(property: String, isAscending: Bool = true) {
            self.property = property
            self.isAscending = isAscending
        }
    }

    /// The index name as the model writes it (`byMakerAndNumberPlate`).
    public var name: String
    public var elements: [Element]
    public var location: Location?

    public init(name: String, elements: [Element], location: Location? = nil) {
        self.name = name
        self.elements = elements
        self.location = location
    }
}
