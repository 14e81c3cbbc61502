import Diagnostics

/// The codes of reading a SwiftData app's `@Model` source. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// The Swift source has no `@Model` class.
    public static let modelNoModelClass = Self("model.no-model-class")
    /// A stored property has no written type.
    public static let modelUntypedProperty = Self("model.untyped-property")
    /// A property's type is one pipectl cannot translate (yet).
    public static let modelUntranslatableType = Self("model.untranslatable-type")
    /// A property's type is declared in no file of the model's source.
    public static let modelUndeclaredType = Self("model.undeclared-type")
    /// A property's initial value does not fit its type (`var n: Int16 = 70000`).
    public static let modelInitialValueMismatch = Self("model.initial-value-mismatch")
    /// Two `@Model` classes the model would hold have one name.
    public static let modelDuplicateClassName = Self("model.duplicate-class-name")
    /// The current `VersionedSchema`'s `versionIdentifier` is not one pipectl can read.
    public static let modelUnreadableSchemaVersion = Self("model.unreadable-schema-version")
    /// A `VersionedSchema`'s `models` is not a list pipectl can read.
    public static let modelUnreadableSchemaModels = Self("model.unreadable-schema-models")
    /// A `VersionedSchema`, `Schema([...])` or `ModelContainer(for:)` lists a class that is no `@Model` class of the source.
    public static let modelUnknownSchemaModel = Self("model.unknown-schema-model")
    /// The app's `Schema([...])` or `ModelContainer(for:)` lists name classes of two `VersionedSchema`s.
    public static let modelSchemasMixed = Self("model.schemas-mixed")
    /// The `@Model` reader failed with an error of no other code.
    public static let modelReaderFailed = Self("model.reader-failed")
    /// The Swift source nests brackets, or `?` and `!`, deeper than pipectl reads (`SwiftSourceBudget`).
    public static let modelTooDeep = Self("model.too-deep")
    /// `schema:` (or `--schema`) names no VersionedSchema of the source.
    public static let modelUnknownSchema = Self("model.unknown-schema")
}
