import Diagnostics

/// The codes of building a store. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// An entity or column name is one the layout or SQLite keeps for itself.
    public static let modelReservedName = Self("model.reserved-name")
    /// Two entities, join tables or columns would have the same name (SQLite names ignore case).
    public static let modelNameClash = Self("model.name-clash")
    /// A relationship leads to an abstract entity, which the plain SQLite layout cannot express.
    public static let modelAbstractDestination = Self("model.abstract-destination")
    /// A to-many relationship to load has neither an inverse nor a join table.
    public static let modelNoInverse = Self("model.no-inverse")

    /// A record names an entity number the model does not have.
    public static let recordUnknownEntity = Self("record.unknown-entity")
    /// A record is of an abstract entity, which has no rows of its own.
    public static let recordAbstractEntity = Self("record.abstract-entity")
    /// A record has another number of values or links than its entity has attributes or relationships.
    public static let recordShapeMismatch = Self("record.shape-mismatch")
    /// A record links one record through a to-many relationship.
    public static let recordToManyAsLink = Self("record.to-many-as-link")

    /// An entity has more records than a store can number.
    public static let storeTooManyRecords = Self("store.too-many-records")
    /// The store being built is not as the sink left it: a table, column or row is missing.
    public static let storeInconsistent = Self("store.inconsistent")
    /// The new store fails its foreign key, link or integrity check.
    public static let storeCheckFailed = Self("store.check-failed")
    /// The new store cannot be switched to journal mode DELETE.
    public static let storeJournalMode = Self("store.journal-mode")
    /// The sink is asked to write after it finished or discarded the store.
    public static let storeNotBuilding = Self("store.not-building")
}
