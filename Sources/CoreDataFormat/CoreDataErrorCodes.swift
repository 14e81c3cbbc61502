import Diagnostics

/// The codes of reading a Core Data model and laying out its store. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// A model file or Swift source cannot be read.
    public static let modelCannotRead = Self("model.cannot-read")
    /// The model file is not well-formed XML.
    public static let modelMalformed = Self("model.malformed")
    /// The path is no .xcdatamodeld or .xcdatamodel folder.
    public static let modelNotAModel = Self("model.not-a-model")
    /// A versioned model does not say which version is current, or has none.
    public static let modelNoCurrentVersion = Self("model.no-current-version")
    /// The current version the model names has no contents file.
    public static let modelMissingVersion = Self("model.missing-version")
    /// An element of the model file lacks its name, destination or property.
    public static let modelMissingValue = Self("model.missing-value")
    /// An attribute has an attributeType pipectl does not know.
    public static let modelUnknownType = Self("model.unknown-type")
    /// An attribute's default value does not fit its type.
    public static let modelInvalidDefault = Self("model.invalid-default")
    /// A relationship's minCount or maxCount is not a count.
    public static let modelInvalidCount = Self("model.invalid-count")
    /// A relationship has a deletionRule pipectl does not know.
    public static let modelUnknownDeleteRule = Self("model.unknown-delete-rule")
    /// A fetch index uses an element type other than Binary.
    public static let modelUnsupportedIndex = Self("model.unsupported-index")
    /// An entity is declared twice.
    public static let modelDuplicateEntity = Self("model.duplicate-entity")
    /// A configuration is declared twice.
    public static let modelDuplicateConfiguration = Self("model.duplicate-configuration")
    /// A parent entity, a relationship's destination or a configuration's member is no entity of the model.
    public static let modelUnknownEntity = Self("model.unknown-entity")
    /// An entity of the model inherits from itself.
    public static let modelInheritanceCycle = Self("model.inheritance-cycle")
    /// A relationship's inverse is no relationship of its destination.
    public static let modelUnknownInverse = Self("model.unknown-inverse")
    /// A fetch index, uniqueness constraint or unique key names no stored attribute or to-one relationship.
    public static let modelUnknownProperty = Self("model.unknown-property")
    /// The model has a derived attribute, which a generated store cannot keep up to date.
    public static let modelDerivedAttribute = Self("model.derived-attribute")

    /// A metadata key is one Core Data writes itself.
    public static let pipelineReservedMetadataKey = Self("pipeline.reserved-metadata-key")
}
