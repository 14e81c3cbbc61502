import Diagnostics

/// A named subset of a Core Data model's entities (`<configuration name="Content">` in the model
/// file): the entities one persistent store holds when the app adds it with that configuration name.
public struct ModelConfiguration: Sendable, Codable, Equatable {
    public var name: String
    /// The member entities, as the model file lists them.
    public var entities: [String]
    /// Where the model file declares it, for errors about it.
    public var location: Location?

    public init(name: String, entities: [String], location: Location? = nil) {
        self.name = name
        self.entities = entities
        self.location = location
    }

    /// Equal when they say the same: where each was read is no part of it.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.entities == rhs.entities
    }
}
