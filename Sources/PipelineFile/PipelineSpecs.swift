import Pipeline

/// The keys of the fixed sections of a pipeline file, declared once: `PipelineLoader` checks
/// files against them and `docs/pipeline-format.md` lists them.
public enum PipelineSpecs {
    /// The top level of a pipeline file.
    public static let pipeline = ComponentSpec(
        name: "pipeline",
        summary: "The top level of a pipeline file.",
        options: [
            OptionSpec("version", .integer, required: true, "The format version of the file; must be 1."),
            OptionSpec("name", .string, required: true, "The pipeline's name, shown in the report."),
            OptionSpec("store", .mapping, required: true, "Where the store is written and how it is laid out."),
            OptionSpec("entities", .mapping, "The entities the store holds, by name, in table order; at least one."),
            OptionSpec("sources", .any, required: true, "The inputs, a non-empty list of sources, run in order."),
            OptionSpec("report", .mapping, "Where the import report is written."),
            OptionSpec("checks", .mapping,
                       "Checks on the new store's data, by entity (count, not_empty, unique, values) and `placeholders: none`; a failing one fails the run (exit 69) and the old store stays."),
            OptionSpec("on_reject", .oneOf(RejectPolicy.allNames), default: "continue",
                       "What a rejected record does: 'continue' counts and reports it, 'fail' fails the run."),
            OptionSpec("allow_empty", .bool, default: "false",
                       "Let a run write the store although a source gave it none (every record rejected or skipped): "
                           + "by default such a run fails and the store stays, and a first run whose records were all rejected writes none."),
        ])

    /// `store:`, the output.
    public static let store = ComponentSpec(
        name: "store",
        summary: "The store the pipeline builds.",
        options: [
            OptionSpec("path", .path, required: true, "The store file, relative to the pipeline file's folder."),
            OptionSpec("layout", .oneOf(StoreLayout.allCases.map(\.rawValue)), default: "sqlite",
                       "'sqlite' for plain tables any SQL client reads, 'coredata' for a store Core Data opens."),
            OptionSpec("model", .pathOrList,
                       "The app's .xcdatamodeld (its current version) or .xcdatamodel, or a SwiftData app's @Model source (a folder, or .swift files), to take the entities from; an entity's one uniqueness constraint is its key, and `entities:` then only adds or chooses unique keys."),
            OptionSpec("schema", .string, default: "the current one",
                       "A SwiftData source's VersionedSchema to take the model from (SchemaV2), where not the one the migration plan lists last (else the highest version)."),
            OptionSpec("configuration", .string, default: "the whole model",
                       "A configuration of the model (.xcdatamodel) to write the store of, as Core Data does for addPersistentStore(configurationName:): the whole model's tables and hashes, rows only in the configuration's entities; loading any other entity is an error."),
            OptionSpec("metadata", .mapping,
                       "Names and scalar values written into the store's metadata (e.g. DefaultDataImported: true)."),
            OptionSpec("uuid", .string, default: "derived from the inputs",
                       "The store's UUID (coredata layout); by default a name-based UUID of the pipeline file, the model and the inputs, so the same inputs give the same bytes."),
            OptionSpec("history", .bool, default: "false",
                       "Core Data's persistent-history tables, empty, as SwiftData and apps with history tracking (CloudKit sync) keep them (coredata layout)."),
        ])

    /// One entry of `entities:`.
    public static let entity = ComponentSpec(
        name: "entity",
        summary: "An entity: a table in the sqlite layout, an entity of the model in the coredata layout.",
        options: [
            OptionSpec("unique", .stringOrList,
                       "The attributes and to-one relationships whose values identify a record (a join entity: [recipe, ingredient]); inherited by sub-entities."),
            OptionSpec("parent", .string, "The entity this one inherits attributes, relationships and key from."),
            OptionSpec("abstract", .bool, default: "false", "Records are only loaded into sub-entities."),
            OptionSpec("attributes", .mapping, "The attributes, by name: a type name or a mapping."),
            OptionSpec("relationships", .mapping, "The to-one relationships, by name: an entity name or a mapping."),
        ])

    /// An attribute written as a mapping (`quantity: { type: float, default: 1 }`).
    public static let attribute = ComponentSpec(
        name: "attribute",
        summary: "An attribute of an entity.",
        options: [
            OptionSpec("type", .string, required: true, "The attribute's type (see the list of types)."),
            OptionSpec("default", .any, "The value a new record gets when the load gives none; must fit the type."),
            OptionSpec("indexed", .bool, default: "false", "Whether the store keeps an index on the attribute."),
            OptionSpec("optional", .bool, default: "true",
                       "Whether the attribute may be empty; a required one without a default rejects empty values."),
        ])

    /// A relationship written as a mapping (`unit: { to: Unit, inverse: items }`).
    public static let relationship = ComponentSpec(
        name: "relationship",
        summary: "A to-one relationship of an entity.",
        options: [
            OptionSpec("to", .string, required: true, "The destination entity."),
            OptionSpec("inverse", .string, "The name of the inverse (to-many) relationship on the destination."),
            OptionSpec("optional", .bool, default: "true", "Whether a record may have no related record."),
        ])

    /// One entry of `sources:`.
    public static let source = ComponentSpec(
        name: "source",
        summary: "One input: how it is read, transformed and loaded.",
        options: [
            OptionSpec("name", .string, required: true, "The source's name, unique in the pipeline; shown in the report."),
            OptionSpec("read", .mapping, required: true, "The input file and its reader format and options."),
            OptionSpec("transform", .any, "A list of transform steps applied to each record in order."),
            OptionSpec("load", .mapping, required: true, "What each record loads, by entity."),
            OptionSpec("on_duplicate", .oneOf(DuplicatePolicy.allNames), default: "keep",
                       "What a record whose unique key is already stored does: 'keep' the stored one, 'update' it "
                           + "(the lists it gives replace the stored ones) or 'merge' (its lists are added)."),
        ])

    /// `report:`.
    public static let report = ComponentSpec(
        name: "report",
        summary: "The import report: what was read, inserted, found, updated, skipped and rejected.",
        options: [
            OptionSpec("xlsx", .path, "The spreadsheet report for people, relative to the pipeline file's folder."),
            OptionSpec("json", .path, "The JSON report for CI, relative to the pipeline file's folder."),
            OptionSpec("durations", .bool, default: "false",
                       "Also show each stage's wall-clock time in the workbook's Summary sheet (it then differs between runs)."),
            OptionSpec("stored_rows", .integer, default: "every row",
                       "The most stored rows the workbook shows per entity (0: no entity sheets); the counts, the JSON and the store are whole."),
        ])

    /// Every fixed section, in the order the reference lists them.
    public static let all: [ComponentSpec] = [pipeline, store, entity, attribute, relationship, source, report]
}

extension ComponentSpec {
    /// The same keys under another name, so that messages say `in 'read'` or `in 'Item'`.
    func named(_ name: String) -> ComponentSpec {
        var copy = self
        copy.name = name
        return copy
    }
}

extension RejectPolicy {
    static let allNames = ["continue", "fail"]
}

extension DuplicatePolicy {
    static let allNames = ["keep", "update", "merge"]
}
