import Foundation
import Diagnostics

/// A pipeline file, loaded and checked: everything a run needs, with the locations of what the
/// user wrote so that later errors can point back at it.
public struct PipelineDefinition: Sendable {
    /// The pipeline file itself.
    public var file: URL
    public var name: String
    public var store: StoreSettings
    public var model: StoreModel
    public var sources: [SourceDefinition]
    public var report: ReportSettings
    /// What a rejected record does to the run.
    public var onReject: RejectPolicy
    /// Whether a run may replace a store that holds records with one to which a source gave
    /// nothing (every record rejected or skipped): by default that fails the run.
    public var allowEmpty: Bool
    /// Checks on the new store's data, run before it replaces the old one.
    public var checks: [DataCheck]

    public init(file: URL, name: String, store: StoreSettings, model: StoreModel, sources: [SourceDefinition],
                report: ReportSettings = ReportSettings(), onReject: RejectPolicy = .continue, allowEmpty: Bool = false,
                checks: [DataCheck] = []) {
        self.file = file
        self.name = name
        self.store = store
        self.model = model
        self.sources = sources
        self.report = report
        self.onReject = onReject
        self.allowEmpty = allowEmpty
        self.checks = checks
    }
}

public enum StoreLayout: String, Sendable, CaseIterable {
    /// Ordinary tables, foreign keys and unique indexes, for any SQL client.
    case sqlite
    /// The tables and metadata Core Data writes, so an app opens the store as its own.
    case coredata
}

public struct StoreSettings: Sendable {
    /// Where the finished store goes (resolved against the pipeline file's folder).
    public var path: URL
    public var layout: StoreLayout
    /// The app's `.xcdatamodeld` or `.xcdatamodel`, or its SwiftData source (a folder, or
    /// `.swift` files), if the entities come from it; empty otherwise.
    public var modelPaths: [URL]
    /// The VersionedSchema of a SwiftData source to take the model from (`store: { schema: SchemaV2 }`),
    /// where not the current one.
    public var schema: String?
    /// The model's configuration the store holds (`store: { configuration: Content }`); nil: the whole model.
    public var configuration: String?
    /// Keys written into the store's metadata, in file order.
    public var metadata: [(key: String, value: Value)]
    /// The store's UUID (Core Data's Z_UUID), upper-case. Set by the pipeline, or derived from
    /// the inputs by whoever runs it, so that the same inputs give the same bytes.
    public var uuid: String?
    /// Whether the store gets Core Data's persistent-history tables, empty (`CoreDataSchema.historyStatements`).
    public var history: Bool
    public var location: Location?

    public init(path: URL, layout: StoreLayout = .sqlite, modelPaths: [URL] = [],
                metadata: [(key: String, value: Value)] = [], uuid: String? = nil, history: Bool = false,
                location: Location? = nil) {
        self.path = path
        self.layout = layout
        self.modelPaths = modelPaths
        self.metadata = metadata
        self.uuid = uuid
        self.history = history
        self.location = location
    }
}

public struct ReportSettings: Sendable {
    public var xlsx: URL?
    public var json: URL?
    /// Durations in the workbook too (the JSON always has them, under one key CI can drop).
    public var durations: Bool
    /// The most stored rows the workbook shows per entity; nil for every row.
    public var storedRows: Int?
    /// Where the pipeline file names each report, for errors.
    public var xlsxLocation: Location?
    public var jsonLocation: Location?
    public init(xlsx: URL? = nil, json: URL? = nil, durations: Bool = false, storedRows: Int? = nil,
                xlsxLocation: Location? = nil, jsonLocation: Location? = nil) {
        self.xlsx = xlsx
        self.json = json
        self.durations = durations
        self.storedRows = storedRows
        self.xlsxLocation = xlsxLocation
        self.jsonLocation = jsonLocation
    }
}

extension PipelineDefinition {
    /// What else of the run `output` names, if anything: the store, an input, the pipeline file,
    /// the model, or one of `others` (the other outputs). A report written there would destroy
    /// it. Paths are compared as written, with symbolic links resolved, and by the file they
    /// lead to (hard links).
    public func conflict(ofOutput output: URL, others: [URL] = []) -> String? {
        var taken: [(URL, String)] = [(store.path, "the store"), (file, "the pipeline file")]
        for suffix in ["-journal", "-wal", "-shm"] {
            taken.append((URL(fileURLWithPath: store.path.path + suffix), "a file SQLite keeps beside the store"))
        }
        taken += store.modelPaths.map { ($0, "the model") }
        taken += sources.map { ($0.reader.input.url, "the input of source '\($0.name)'") }
        taken += others.map { ($0, "another report") }
        return taken.first { PipelineDefinition.sameFile($0.0, output) }?.1
    }

    private static func sameFile(_ a: URL, _ b: URL) -> Bool {
        if a.standardizedFileURL.path == b.standardizedFileURL.path { return true }
        if a.resolvingSymlinksInPath().path == b.resolvingSymlinksInPath().path { return true }
        guard let x = try? FileManager.default.attributesOfItem(atPath: a.path),
              let y = try? FileManager.default.attributesOfItem(atPath: b.path),
              let xFile = x[.systemFileNumber] as? UInt64, let yFile = y[.systemFileNumber] as? UInt64,
              let xDevice = x[.systemNumber] as? UInt64, let yDevice = y[.systemNumber] as? UInt64 else { return false }
        return xFile == yFile && xDevice == yDevice
    }
}

public enum RejectPolicy: String, Sendable {
    /// Rejected records are counted and reported; the store is written without them.
    case `continue`
    /// Any rejected record fails the run; the previous store stays.
    case fail
}

/// What a link does when the record it names is not in the store (`missing:`).
public enum MissingLinkPolicy: String, Sendable, CaseIterable {
    /// The related record is created with the link's values (find or create).
    case create
    /// The record that links is rejected, with the key it named and the closest one there is.
    case reject
    /// The link stays empty, and the record that links is loaded and reported as such.
    case skip
}

public enum DuplicatePolicy: String, Sendable {
    /// A record whose key exists is counted as already present; the first one's values stay.
    case keep
    /// A record whose key exists replaces what it gives: its values, and the to-many lists it
    /// gives, whose records it owns are written anew (`SQLiteSink`, docs/pipeline-format.md).
    case update
    /// As `update` for the values, but the to-many lists it gives are added to the stored ones.
    case merge
}

/// One `sources:` entry: where records come from, how they are transformed, what they load.
public struct SourceDefinition: Sendable {
    public var name: String
    public var reader: ReaderConfig
    public var transforms: [TransformConfig]
    public var loads: [LoadSpec]
    public var onDuplicate: DuplicatePolicy
    public var location: Location?

    public init(name: String, reader: ReaderConfig, transforms: [TransformConfig], loads: [LoadSpec],
                onDuplicate: DuplicatePolicy = .keep, location: Location? = nil) {
        self.name = name
        self.reader = reader
        self.transforms = transforms
        self.loads = loads
        self.onDuplicate = onDuplicate
        self.location = location
    }
}

/// A source's `read:` block: the format, the input and the checked options.
public struct ReaderConfig: Sendable {
    public var kind: any ReaderKind
    public var input: Input
    public var options: Options
    public var location: Location?

    public init(kind: any ReaderKind, input: Input, options: Options, location: Location? = nil) {
        self.kind = kind
        self.input = input
        self.options = options
        self.location = location
    }
}

/// One entry of a source's `transform:` list, made into a step when the source runs (steps hold
/// per-run state such as bound field indexes).
public struct TransformConfig: Sendable {
    public var kind: any TransformKind
    public var node: ConfigNode

    public init(kind: any TransformKind, node: ConfigNode) {
        self.kind = kind
        self.node = node
    }

    public func make() throws -> any Transform { try kind.make(node) }
}

/// What one record loads into an entity: attributes from fields, and related records found or
/// created by their unique key.
///
/// `load: { Item: { name: name, unit: { Unit: { name: unit } } } }`
public struct LoadSpec: Sendable {
    public struct Assignment: Sendable {
        public var attribute: String
        /// The record field whose value the attribute takes; empty for a constant.
        public var field: String
        /// `listed: { value: false }`: the text every record's attribute takes, converted by its type.
        public var constant: String?
        /// `types: { each: types, typeName: name }`: for an array of structs, the struct property
        /// each element key gives (`name` → `typeName`); keys not named keep their own names.
        public var elementFields: [String: String]
        public var location: Location?
        public var sourceLine: String?
        public init(attribute: String, field: String, constant: String? = nil, elementFields: [String: String] = [:],
                    location: Location? = nil, sourceLine: String? = nil) {
            self.attribute = attribute
            self.field = field
            self.constant = constant
            self.elementFields = elementFields
            self.location = location
            self.sourceLine = sourceLine
        }
    }

    public struct Link: Sendable {
        public var relationship: String
        /// The related record, found by (or created with) its unique key.
        public var target: LoadSpec
        /// What a related record that is not in the store does.
        public var missing: MissingLinkPolicy
        /// For a to-many relationship, the field whose list gives one linked record per element
        /// (`each: ingredients`); inside the target, names read the element's fields first.
        /// Without it, the list is the one field the target reads that holds a list.
        public var each: String?
        /// Whether the relationship is a to-many: the link makes one record per element of a list.
        public var isToMany: Bool
        public var location: Location?
        /// `position: order`: the attribute of the linked record that takes its place in the list,
        /// counted from 0; the target's assignments read it from `positionField`.
        public var position: String?
        /// The element field that holds an element's place in its list: a name no input gives.
        public static let positionField = "\u{1}position"

        public init(relationship: String, target: LoadSpec, missing: MissingLinkPolicy = .create, each: String? = nil,
                    isToMany: Bool = false, location: Location? = nil, position: String? = nil) {
            self.relationship = relationship
            self.target = target
            self.missing = missing
            self.each = each
            self.isToMany = isToMany
            self.location = location
            self.position = position
        }
    }

    public var entity: String
    public var assignments: [Assignment]
    public var links: [Link]
    public var location: Location?

    public init(entity: String, assignments: [Assignment], links: [Link] = [], location: Location? = nil) {
        self.entity = entity
        self.assignments = assignments
        self.links = links
        self.location = location
    }
}
