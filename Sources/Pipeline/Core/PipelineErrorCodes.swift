import Diagnostics

/// The codes shared by the loader, the readers, transforms and sinks: pipeline-file mistakes any component reports, input files, the run. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// A value is of the wrong kind: a list or a mapping where one value goes, a word where a number goes.
    public static let pipelineWrongType = Self("pipeline.wrong-type")
    /// A name (a key, an entity, attribute, relationship or field name) is not a plain name.
    public static let pipelineInvalidName = Self("pipeline.invalid-name")
    /// A key the component does not have (with a suggestion when one is close).
    public static let pipelineUnknownKey = Self("pipeline.unknown-key")
    /// A key the component needs, or another key needs, is not given.
    public static let pipelineMissingKey = Self("pipeline.missing-key")
    /// A key appears twice in one mapping, or a metadata key twice.
    public static let pipelineDuplicateKey = Self("pipeline.duplicate-key")
    /// A value is not one of those the option allows.
    public static let pipelineValueNotAllowed = Self("pipeline.value-not-allowed")
    /// A number is outside what the option allows (a negative count, a low bound above the high one).
    public static let pipelineValueOutOfRange = Self("pipeline.value-out-of-range")
    /// A value, list or mapping that must hold something is empty.
    public static let pipelineEmptyValue = Self("pipeline.empty-value")
    /// A name is given twice where names must be unique (sources, fields, key attributes, renamed fields).
    public static let pipelineDuplicateName = Self("pipeline.duplicate-name")
    /// Two options contradict each other, or one is given where it has no use.
    public static let pipelineConflictingOptions = Self("pipeline.conflicting-options")
    /// The pipeline names an entity the model does not have.
    public static let pipelineUnknownEntity = Self("pipeline.unknown-entity")
    /// The pipeline names an attribute (or unique key part) the entity does not have.
    public static let pipelineUnknownAttribute = Self("pipeline.unknown-attribute")
    /// The pipeline names a relationship the entity does not have.
    public static let pipelineUnknownRelationship = Self("pipeline.unknown-relationship")
    /// A load or step reads a field the source does not give at that point.
    public static let pipelineUnknownField = Self("pipeline.unknown-field")
    /// A load writes a transient attribute or relationship, which has nothing in the store.
    public static let pipelineTransientProperty = Self("pipeline.transient-property")
    /// A constant, default or check value cannot be converted to its attribute's type.
    public static let pipelineValueDoesNotFit = Self("pipeline.value-does-not-fit")
    /// A link goes to an entity that is not the relationship's destination or one of its sub-entities.
    public static let pipelineWrongDestination = Self("pipeline.wrong-destination")
    /// `store: { configuration: }` names no configuration of the model.
    public static let pipelineUnknownConfiguration = Self("pipeline.unknown-configuration")
    /// A load or link names an entity the store's configuration leaves out (the app never reads it from that store).
    public static let pipelineOutsideConfiguration = Self("pipeline.outside-configuration")
    /// A time zone name is not an IANA name pipectl knows.
    public static let pipelineUnknownTimeZone = Self("pipeline.unknown-time-zone")
    /// A UUID option (the store's, a namespace) is not a UUID.
    public static let pipelineInvalidUUID = Self("pipeline.invalid-uuid")
    /// A report path (in the pipeline or `--report`) names the store, an input, the pipeline file or the other report.
    public static let pipelineReportPathConflict = Self("pipeline.report-path-conflict")

    /// No model file or Swift source at the path given.
    public static let modelNotFound = Self("model.not-found")
    /// An attribute's validation rules in the model cannot be applied.
    public static let modelInvalidValidation = Self("model.invalid-validation")

    /// An input file cannot be opened.
    public static let inputCannotOpen = Self("input.cannot-open")
    /// A file (an input, a store to inspect) cannot be read.
    public static let inputCannotRead = Self("input.cannot-read")
    /// An input file the pipeline names does not exist.
    public static let inputNotFound = Self("input.not-found")
    /// An input path the pipeline names is a folder.
    public static let inputIsAFolder = Self("input.is-a-folder")
    /// An input is a folder, a device, a FIFO or a socket; pipectl reads regular files only.
    public static let inputNotARegularFile = Self("input.not-a-regular-file")
    /// An input file is empty (or holds only blank lines or a byte order mark).
    public static let inputEmpty = Self("input.empty")
    /// An input holds no records (a header-only export, an empty array).
    public static let inputNoRecords = Self("input.no-records")
    /// An input's bytes are not text in its encoding (invalid UTF-8, half a UTF-16 surrogate pair, a byte the encoding lacks).
    public static let inputInvalidText = Self("input.invalid-text")
    /// Two columns of the header row have the same name.
    public static let inputDuplicateHeaderName = Self("input.duplicate-header-name")
    /// A column's name in the header row, a JSON key or an XML element's or attribute's name is
    /// longer than `HeaderBudget.maxNameBytes`.
    public static let inputHeaderNameTooLong = Self("input.header-name-too-long")
    /// A record's lists hold more values than `Fields.maxListValues`, from any reader or `split`.
    public static let inputTooManyListValues = Self("input.too-many-list-values")
    /// A list element (an object of `each:`) has more keys than `Fields.maxNames`.
    public static let inputTooManyKeys = Self("input.too-many-keys")
    /// A reader ran out of memory.
    public static let inputOutOfMemory = Self("input.out-of-memory")

    /// Records were rejected and the pipeline says `on_reject: fail`.
    public static let runRejected = Self("run.rejected")
    /// A field the pipeline reads never came from its input, and the pipeline says `on_reject: fail`.
    public static let runMissingField = Self("run.missing-field")
    /// A source gave the store no record while the store it would replace holds some (`allow_empty: true` allows it).
    public static let runSourceGaveNoRecords = Self("run.source-gave-no-records")
}
