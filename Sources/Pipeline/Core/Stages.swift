import Foundation
import Diagnostics

/// A format that can be read: declares its options once and opens readers.
///
/// In a pipeline file: `read: { csv: data/items.csv, delimiter: ";" }`, where `csv` is `name`
/// and its value the input path; the other keys are checked against `spec`.
public protocol ReaderKind: Sendable {
    /// The key naming the format in `read:`; its value is the input path.
    var name: String { get }
    /// The other keys `read:` accepts for this format.
    var spec: ComponentSpec { get }
    /// Checks option values beyond their kinds (an unknown encoding, say) when the file is loaded.
    func validate(_ options: Options) throws
    /// Opens `input` for reading. `fields` are the field names the pipeline uses, for readers that
    /// pick fields out of a tree (XML, JSON) rather than reading a header.
    func makeReader(input: Input, options: Options, fields: [String]) throws -> any RecordReader
    /// Whether the reader picks the named fields out of a tree, so that a name no record has is
    /// found only by reading (CSV knows its header before).
    var picksFieldsByName: Bool { get }
    /// Names that appear in the input, for a suggestion when a field never came (`prepMinutes`
    /// for `prep_minutes`): read from its start, on that rare path only.
    func namesInInput(_ input: Input, options: Options) -> [String]
}

extension ReaderKind {
    public func validate(_ options: Options) throws {}
    public var picksFieldsByName: Bool { false }
    public func namesInInput(_ input: Input, options: Options) -> [String] { [] }
}

/// An input file of a source.
public struct Input: Sendable {
    public var url: URL
    /// The path as shown in messages: as written in the pipeline file, resolved against its folder.
    public var displayPath: String
    /// What its reader noticed that does not stop the run, for the run's summary.
    public let warnings = InputWarnings()
    /// What its reader found the file to be (a CSV's encoding, delimiter, line ends), for the
    /// summary and the reports.
    public let details = InputDetails()
    public init(url: URL, displayPath: String) {
        self.url = url
        self.displayPath = displayPath
    }
}

/// How a reader found its input to be, in order: `encoding: utf-8 (detected)`, ...
/// Shared by the copies of the `Input` it belongs to; set on the reading thread, read at the end.
public final class InputDetails: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [(name: String, value: String)] = []

    public init() {}

    public func set(_ name: String, _ value: String) {
        lock.lock()
        defer { lock.unlock() }
        if let i = list.firstIndex(where: { $0.name == name }) { list[i].value = value } else { list.append((name, value)) }
    }

    public var snapshot: [(name: String, value: String)] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// Streams the records of one input, one at a time.
public protocol RecordReader: AnyObject {
    /// The names of the fields of every record this reader returns, known once it is open.
    var fieldNames: [String] { get }
    /// The next record, or nil at the end.
    ///
    /// Throws `Rejection` for a record that is bad on its own (too many fields): the run counts it
    /// and calls `next()` again. Throws `PipelineError` when the input cannot be read on.
    func next() throws -> Record?
    /// Bytes of the input consumed so far, for progress.
    var bytesRead: Int64 { get }
    /// Where an input that holds no records is reported: its first line, unless the input has
    /// no lines to speak of (a workbook's sheet).
    var whereRecordsBegin: Location? { get }
    /// Whether reading a record takes longer than the rest of the reading thread's work on it
    /// (its transforms and its entity records): where there are two cores, the writing thread
    /// then does that rest, so that neither thread waits long for the other.
    var readsSlowly: Bool { get }
}

extension RecordReader {
    public var whereRecordsBegin: Location? { nil }
    public var readsSlowly: Bool { false }
}

/// A reader that can apply a leading `trim` step itself, as it makes each value's text: cheaper
/// than the step making each value a second time. The run hands it the step's fields and drops
/// the step when it accepts.
public protocol TrimmingReader: RecordReader {
    /// Trims fields `indexes` (of `fieldNames`) by the `Trimming` rule in every record it returns
    /// from now on; false when it cannot, and the step then runs as usual.
    func trimWhileReading(fields indexes: [Int]) -> Bool
}

/// A reader that loads some values it cannot vouch for as empty, with a warning (a workbook's
/// formula saved without its value): under `on_reject: fail` the run asks it to reject their
/// records instead, so that nothing uncertain is loaded without failing the run.
public protocol RejectingReader: RecordReader {
    /// From now on, rejects a record that holds such a value, where it would have warned.
    func rejectInsteadOfWarning()
}

/// A reader that reuses the storage of records the run is done with, so that it need not
/// allocate each record's arrays again.
public protocol RecyclingReader: RecordReader {
    /// Takes back a record the run is done with; its arrays may then hold a later record's values.
    func recycle(_ record: consuming Record)
}

/// A transform type (`trim`, `number`, ...): declares its options once and makes configured steps.
public protocol TransformKind: Sendable {
    var name: String { get }
    var spec: ComponentSpec { get }
    /// A configured step from the value of its key (`trim: all` or `number: { fields: [...] }`).
    func make(_ node: ConfigNode) throws -> any Transform
    func listFields(_ node: ConfigNode) -> [String]
    /// The step's options completed from what the source loads (the `uuid` step's `from`
    /// defaults to the key of the entity its field goes to); the node as it is by default.
    func completed(_ node: ConfigNode, loads: [LoadSpec], model: StoreModel) throws -> ConfigNode
    /// The fields the step reads, which a reader of a tree (JSON, XML) must pick out of each
    /// record; by default those its `fields` option (or shorthand: a name, a list) names.
    func fieldsRead(_ node: ConfigNode) -> [String]
    /// The fields the step makes (`template`'s field, `rename`'s new names), which no input need
    /// provide.
    func fieldsMade(_ node: ConfigNode) -> [String]
}

extension TransformKind {
    public func fieldsRead(_ node: ConfigNode) -> [String] {
        let fields = node.mapping?.first(where: { $0.key.scalar == "fields" })?.value ?? (node.mapping == nil ? node : nil)
        guard let fields else { return [] }
        if let name = fields.scalar { return name == "all" && !fields.isQuoted ? [] : [name] }
        return fields.sequence?.compactMap(\.scalar) ?? []
    }

    public func fieldsMade(_ node: ConfigNode) -> [String] { [] }

    public func completed(_ node: ConfigNode, loads: [LoadSpec], model: StoreModel) throws -> ConfigNode { node }

    /// The fields a step configured by `node` turns into lists (`split`), so that loading one into
    /// an attribute or a to-one link is an error in the pipeline file, before any record is read.
    public func listFields(_ node: ConfigNode) -> [String] { [] }
}

/// A step that loads bytes from elsewhere (`file`): the feed ends a batch once its steps have
/// loaded `RecordFeed.batchByteBudget`, so that the records in flight stay small.
public protocol ByteLoadingStep: Transform {
    /// Bytes loaded since the step was made.
    var bytesLoaded: Int { get }
    /// A digest of what it loaded, in order (empty when nothing): the store's UUID takes it in,
    /// so that a store whose only change is a loaded file's bytes gets another UUID.
    var loadedDigest: [UInt8] { get }
}

/// One configured transform step of a source.
public protocol Transform: AnyObject {
    /// Binds the step to the field names that reach it and returns the names it hands on.
    /// A field named in the step's options that does not reach it is an error at that option.
    func bind(fields: [String]) throws -> [String]
    /// Transforms one record in place; throws `Rejection` to turn the record away.
    func apply(_ record: inout Record) throws
}

/// A `trim` step, which a `TrimmingReader` may take over when it comes first.
public protocol TrimmingStep: Transform {
    /// The fields it trims (indexes into the names it was bound to).
    var fieldIndexes: [Int] { get }
}

/// One record for one entity, ready for a sink: typed values and the related records to link.
public struct EntityRecord: Sendable {
    /// Index into the model's entities.
    public var entity: Int
    /// One slot per attribute of `model.allAttributes(of:)`; nil where the load gives no value
    /// (the attribute's default applies). Any change drops `keyHash`, which then cannot go stale.
    public var values: [Value?] {
        didSet { keyHash = nil }
    }
    /// One slot per relationship of `model.allRelationships(of:)`; nil where the load links nothing.
    public var links: [EntityRecord?]
    /// The records each to-many relationship links, in the list's order: one slot per
    /// relationship like `links`, or none at all when the load links no to-many.
    public var lists: [[EntityRecord]]
    /// Where the source record came from.
    public var location: Location
    /// The hash of the record's unique key when that is one text value, made where the record is
    /// made (on the reading thread, by the load) so that the sink need not; nil for other keys,
    /// for none, and after any change to `values`. Only this module sets it: the load, and
    /// `hashKey(at:)` from the key's own value.
    public internal(set) var keyHash: TextKeyHash?
    /// `givenLists` in bits 0-60, `hasRejectingLinks` in bit 61, `missing` in bits 62-63: one plain
    /// word, so that a record is no larger (to copy and move) for knowing which lists it gives.
    private var flags: UInt64

    /// For a record linked from another: what the sink does when it is not in the store.
    public var missing: MissingLinkPolicy {
        get {
            switch flags >> 62 {
            case 1: .reject
            case 2: .skip
            default: .create
            }
        }
        set {
            let bits: UInt64 = switch newValue {
            case .create: 0
            case .reject: 1
            case .skip: 2
            }
            flags = flags & ~(3 << 62) | bits << 62
        }
    }
    /// Whether a link of this record, or of a record it links, says `missing: reject`: the sink
    /// then checks them all before it writes any (the load knows it once; the sink would have to
    /// look at every link of every record).
    public var hasRejectingLinks: Bool {
        get { flags & (1 << 61) != 0 }
        set { flags = newValue ? flags | (1 << 61) : flags & ~(1 << 61) }
    }
    /// The to-many slots the load gives, in `lists`, even where a list is empty (what a record
    /// given again under `on_duplicate: update` replaces: an empty list there says "none now"),
    /// as bits: a slot past 60 counts as given when its list holds records.
    public var givenLists: UInt64 {
        get { flags & EntityRecord.listBits }
        set { flags = flags & ~EntityRecord.listBits | newValue & EntityRecord.listBits }
    }
    private static let listBits: UInt64 = (1 << 61) - 1

    /// `listSlots`: the slots the load gives (nil: every slot of a non-empty `lists`).
    public init(entity: Int, values: [Value?], links: [EntityRecord?], lists: [[EntityRecord]] = [], listSlots: [Int]? = nil,
                location: Location, missing: MissingLinkPolicy = .create, hasRejectingLinks: Bool? = nil) {
        self.entity = entity
        self.values = values
        self.links = links
        self.lists = lists
        self.location = location
        flags = 0
        givenLists = EntityRecord.bits(listSlots ?? Array(lists.indices))
        self.missing = missing
        self.hasRejectingLinks = hasRejectingLinks
            ?? (links.compactMap { $0 } + lists.joined()).contains { $0.missing == .reject || $0.hasRejectingLinks }
    }

    /// The to-many slots the load gives, in slot order (see `givenLists`).
    public var listSlots: [Int] {
        lists.indices.filter { slot in slot < 61 ? givenLists & (1 << UInt64(slot)) != 0 : !lists[slot].isEmpty }
    }

    /// `slots` as the bits of `givenLists`.
    public static func bits(_ slots: [Int]) -> UInt64 {
        slots.reduce(0) { $1 < 61 ? $0 | (1 << UInt64($1)) : $0 }
    }

    /// Hashes the text in attribute slot `slot`, the record's unique key, for `keyHash`; nothing
    /// where the slot holds no text or empty text.
    public mutating func hashKey(at slot: Int) {
        var scratch: [UInt8] = []
        guard case .text(let key)? = values[slot], !key.isEmpty else { return keyHash = nil }
        keyHash = TextKeyHash(of: key, scratch: &scratch)
    }
}

/// Where records end up. A sink builds its output aside and publishes it only in `finish()`.
public protocol RecordSink: AnyObject {
    /// Writes one record (finding or creating the records it links to) and tells `log` what
    /// happened: inserted, already present, updated or skipped, per entity, and every duplicate.
    /// `onDuplicate` says what a record whose unique key exists does; records found through a
    /// link are never updated.
    ///
    /// `record` is `inout` only so that it is read where it lies, and the sink leaves it as it
    /// was: passed by value from the batch it sits in, a record is copied, which retains and
    /// releases every array and string in it.
    ///
    /// Returns whether the record is in the output (inserted, updated or already there); false
    /// when it was skipped (an empty key).
    @discardableResult
    func write(_ record: inout EntityRecord, onDuplicate: DuplicatePolicy, log: ImportLog) throws -> Bool
    /// Checks `records[index]`, one of the entity records one source record makes, before the
    /// first is written, for what would reject it (a link that says `missing: reject`, a
    /// required value left empty), knowing that the records before it will be written first: a
    /// rejected record must write nothing, not the entities before the one that rejected it.
    func check(_ records: inout [EntityRecord], at index: Int) throws
    /// Completes the output and checks it; with `publish`, puts it in place atomically, otherwise
    /// (a dry run) throws it away once checked.
    func finish(log: ImportLog, publish: Bool) throws
    /// Throws away everything written; the previous output stays as it was.
    func discard()
    /// Whether the output this sink would replace holds records: a run that lost a whole source
    /// must not replace it unnoticed (`PipelineDefinition.allowEmpty`).
    func previousOutputHasRecords() throws -> Bool
}

/// A sink with an index to warm up: told a few records ahead what it will write, it may start
/// loading what writing them reads, so that the wait overlaps the records before.
public protocol PrefetchingSink: RecordSink {
    /// A hint that `record` is among the next to be written.
    func prefetch(_ record: inout EntityRecord)
}

extension RecordSink {
    /// Writes one record given by value: see `write(_:onDuplicate:log:)`.
    @discardableResult
    public func write(_ record: EntityRecord, onDuplicate: DuplicatePolicy, log: ImportLog) throws -> Bool {
        var record = record
        return try write(&record, onDuplicate: onDuplicate, log: log)
    }

    /// A sink that rejects nothing of its own checks nothing ahead.
    public func check(_ records: inout [EntityRecord], at index: Int) throws {}

    /// A sink that cannot tell says no: nothing is then stopped.
    public func previousOutputHasRecords() throws -> Bool { false }

    /// Completes the output, checks it, and puts it in place atomically.
    public func finish(log: ImportLog) throws {
        try finish(log: log, publish: true)
    }
}
