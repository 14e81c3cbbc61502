import Diagnostics

/// The codes of loading a pipeline file: reading it, its YAML, its variables and the checks only the loader makes. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// The pipeline file does not exist.
    public static let pipelineNotFound = Self("pipeline.not-found")
    /// The pipeline path names a folder.
    public static let pipelineIsAFolder = Self("pipeline.is-a-folder")
    /// The pipeline file cannot be read.
    public static let pipelineCannotRead = Self("pipeline.cannot-read")
    /// The pipeline file is not UTF-8 text.
    public static let pipelineNotUTF8 = Self("pipeline.not-utf8")
    /// The pipeline file holds nothing (blank lines and comments only).
    public static let pipelineEmptyFile = Self("pipeline.empty-file")
    /// The pipeline file is not valid YAML, or holds more than one document.
    public static let pipelineInvalidYAML = Self("pipeline.invalid-yaml")
    /// The pipeline file's YAML aliases expand past pipectl's budget.
    public static let pipelineTooManyAliases = Self("pipeline.too-many-aliases")
    /// A `${` opens no variable: nothing closes it, or it names none.
    public static let pipelineInvalidVariable = Self("pipeline.invalid-variable")
    /// A variable is neither given (`--var`), in the environment, nor defaulted.
    public static let pipelineUnsetVariable = Self("pipeline.unset-variable")
    /// The variables add more text to the pipeline file than pipectl reads.
    public static let pipelineVariablesTooLarge = Self("pipeline.variables-too-large")
    /// The pipeline's `version` is not one this pipectl reads.
    public static let pipelineUnsupportedVersion = Self("pipeline.unsupported-version")
    /// The pipeline declares no entities and names no model.
    public static let pipelineNoEntities = Self("pipeline.no-entities")
    /// An attribute type is not one pipectl knows.
    public static let pipelineUnknownType = Self("pipeline.unknown-type")
    /// The pipeline gives an attribute another type than the model file.
    public static let pipelineTypeMismatch = Self("pipeline.type-mismatch")
    /// The pipeline sets something of an entity that the model file decides.
    public static let pipelineOwnedByModel = Self("pipeline.owned-by-model")
    /// The pipeline names a model file and this pipectl has no model reader.
    public static let pipelineModelFilesUnsupported = Self("pipeline.model-files-unsupported")
    /// A list of models holds something other than Swift sources.
    public static let pipelineInvalidModelList = Self("pipeline.invalid-model-list")
    /// `history` is set on a store whose layout is not `coredata`.
    public static let pipelineHistoryNeedsCoredata = Self("pipeline.history-needs-coredata")
    /// `store: { schema: }` without a SwiftData source as the model.
    public static let pipelineSchemaNeedsSwiftData = Self("pipeline.schema-needs-swiftdata")
    /// A relationship declared in the pipeline is to-many.
    public static let pipelineUnsupportedToMany = Self("pipeline.unsupported-to-many")
    /// An entity declared in the pipeline inherits from itself.
    public static let pipelineInheritanceCycle = Self("pipeline.inheritance-cycle")
    /// A unique key names a to-many or transient relationship.
    public static let pipelineInvalidUniqueKey = Self("pipeline.invalid-unique-key")
    /// A load or link does not set every part of its entity's unique key.
    public static let pipelineUniqueKeyNotLoaded = Self("pipeline.unique-key-not-loaded")
    /// A link targets an entity that has no unique key to find the record by.
    public static let pipelineNoUniqueKey = Self("pipeline.no-unique-key")
    /// A load names an abstract entity.
    public static let pipelineAbstractEntity = Self("pipeline.abstract-entity")
    /// `each` is given on a link of a to-one relationship.
    public static let pipelineInvalidEach = Self("pipeline.invalid-each")
    /// `position:` on a to-one link, naming a non-integer attribute, or one the link also loads from a field.
    public static let pipelineInvalidPosition = Self("pipeline.invalid-position")
    /// A load sets an attribute from a field a `split` step made a list.
    public static let pipelineListIntoAttribute = Self("pipeline.list-into-attribute")
    /// `read` names more than one format.
    public static let pipelineSeveralFormats = Self("pipeline.several-formats")
    /// `read` names a format no reader reads.
    public static let pipelineUnknownFormat = Self("pipeline.unknown-format")
    /// A step names a transform pipectl does not have.
    public static let pipelineUnknownTransform = Self("pipeline.unknown-transform")
    /// A check under `checks` is not one pipectl has.
    public static let pipelineUnknownCheck = Self("pipeline.unknown-check")
}
