/// What changed from one store to another, per entity, by unique key: the review a release needs
/// before a regenerated store replaces the one that shipped.
///
/// ```swift
/// let changes = try StoreComparison(model: pipeline.model, settings: pipeline.store)
///     .compare(old: shipped, new: regenerated)
/// changes.isEmpty                 // false
/// changes.entities[0]             // Item: 2 added, 1 removed, 3 changed
/// changes.changes[0].description  // "~ Item name=Milk: quantity 1 -> 2"
/// ```
public struct StoreChanges: Sendable, Codable, Equatable {
    /// Counts for one entity (or, for a store compared without its model, one table).
    public struct Entity: Sendable, Codable, Equatable {
        public var name: String
        /// How its records are matched: `name`, or `whole row` for an entity without a unique key
        /// (whose records can only be added or removed, never changed).
        public var matchedBy: String
        public var added = 0
        public var removed = 0
        public var changed = 0
        public var unchanged = 0

        public var isUnchanged: Bool { added == 0 && removed == 0 && changed == 0 }

        public init(name: String, matchedBy: String) {
            self.name = name
            self.matchedBy = matchedBy
        }
    }

    /// One record added, removed or changed.
    public struct Change: Sendable, Codable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable, Codable { case added, removed, changed }

        /// A field whose value differs; related records show as their keys.
        public struct Field: Sendable, Codable, Equatable {
            public var name: String
            public var old: String
            public var new: String
            /// An ordered list holding the same records in another order (`steps reordered`);
            /// nil otherwise, and left out of the JSON.
            public var reordered: Bool?

            public init(name: String, old: String, new: String, reordered: Bool? = nil) {
                self.name = name
                self.old = old
                self.new = new
                self.reordered = reordered
            }
        }

        public var kind: Kind
        public var entity: String
        /// The record's key as users read it: `name=Milk`.
        public var key: String
        /// The differing fields of a changed record; empty for added and removed ones.
        public var fields: [Field]

        public init(kind: Kind, entity: String, key: String, fields: [Field]) {
            self.kind = kind
            self.entity = entity
            self.key = key
            self.fields = fields
        }

        /// `+ Item name=Bread`, `- Item name=Lard`, `~ Item name=Milk: quantity 1 -> 2, unit l -> ml`,
        /// `~ Recipe name=Brownies: steps reordered`.
        public var description: String {
            switch kind {
            case .added: "+ \(entity) \(key)"
            case .removed: "- \(entity) \(key)"
            case .changed:
                "~ \(entity) \(key): " + fields.map { field in
                    field.reordered == true ? "\(field.name) reordered" : "\(field.name) \(shown(field.old)) -> \(shown(field.new))"
                }.joined(separator: ", ")
            }
        }

        private func shown(_ text: String) -> String { text.isEmpty ? "(empty)" : text }
    }

    /// Every entity compared, in model order (tables by name for a store compared without its model).
    public var entities: [Entity]
    /// Every change, entity by entity, ordered by key within an entity.
    public var changes: [Change]
    /// Differences in the stores' schema that are not records: a table only one store has, a
    /// column that is new.
    public var notes: [String]

    public init(entities: [Entity], changes: [Change], notes: [String]) {
        self.entities = entities
        self.changes = changes
        self.notes = notes
    }

    public var isEmpty: Bool { changes.isEmpty && notes.isEmpty }
}
