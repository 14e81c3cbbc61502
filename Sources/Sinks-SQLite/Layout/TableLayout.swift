import Pipeline
import CoreDataFormat
import SQLite

/// What differs between store layouts: the schema, the names of tables and columns, and what is
/// written besides the records. The sink does everything else (unique keys, linking, statements,
/// the atomic finish) the same way for every layout.
///
/// The plain layout is `PlainTableLayout`; the Core Data layout plugs in here with its own names
/// (`ZITEM`, `Z_PK`), constant columns (`Z_ENT`, `Z_OPT`) and its metadata tables.
protocol TableLayout {
    /// One entry per model entity, in model order; nil for abstract entities, which have no rows.
    var tables: [EntityTable?] { get }
    /// Sets what must be set before the database file has its first page (page size, auto-vacuum,
    /// encoding); runs once, on the new empty file, before the build transaction begins.
    func configure(_ connection: SQLiteConnection) throws
    /// Creates the tables and writes what is known before any record; runs once, inside the build
    /// transaction.
    func createSchema(in connection: SQLiteConnection) throws
    /// Completes the schema (indexes, built faster over the loaded rows than row by row) and writes
    /// what depends on the records; runs once, just before the build transaction commits.
    /// `storeUUID`, asked for last: the Core Data store UUID worked out while this runs
    /// (`SQLiteSink.storeUUID`), or nil for the layout's own. `checkingLinks`: whether the
    /// layout checks that every link names a row of its destination (`SQLiteSink.linksCheckedInReview`).
    func complete(in connection: SQLiteConnection, storeUUID: () throws -> String?, checkingLinks: Bool) throws
}

extension TableLayout {
    func complete(in connection: SQLiteConnection) throws {
        try complete(in: connection, storeUUID: { nil }, checkingLinks: true)
    }

    /// SQLite's defaults suit a layout that needs nothing else.
    func configure(_ connection: SQLiteConnection) throws {}
}

/// Where the records of one concrete entity go, as a layout names it: the sink prepares its
/// statements from this once, and the store tools (inspect, diff, reports) read stores back by
/// it (`StoreTables`), so that no one else derives a table or column name.
public struct EntityTable: Sendable {
    /// What a column holds.
    public enum Source: Sendable {
        /// Attribute slot `Int` of `model.allAttributes(of:)`.
        case attribute(Int)
        /// The row id of the record linked through relationship slot `Int` of
        /// `model.allRelationships(of:)`.
        case link(Int)
        /// The `entityNumber` of the record linked through relationship slot `Int`: which entity
        /// of a hierarchy sharing one table the linked row is (Core Data's `Z<n>_<REL>`).
        case linkEntity(Int)
        /// The row's place in the ordered to-many that links it through relationship slot `Int`'s
        /// inverse (Core Data's `Z_FOK_<REL>`).
        case order(Int)
    }

    /// The join table of a many-to-many relationship, as seen from one side: each pair of linked
    /// rows is one row of it.
    public struct Join: Sendable {
        /// Unquoted, as the columns.
        public internal(set) var table: String
        /// Holds the row of the entity whose relationship this is, and the row it links.
        public internal(set) var ownColumn: String
        public internal(set) var otherColumn: String
        /// Where the relationship is ordered: the linked row's place among this row's links.
        public internal(set) var ownOrder: String?
        /// Where the inverse is ordered: this row's place among the linked row's links.
        public internal(set) var otherOrder: String?
    }

    /// How an attribute's value is stored, where the layout differs from the value as it is.
    public enum Storage: Sendable {
        case asIs
        /// A UUID as its 16 bytes (Core Data), not as text.
        case uuidBytes
        /// A Binary attribute that allows external storage (Core Data): Core Data's marker before
        /// the bytes (`CoreDataExternalData`); the sink moves large values out as it finishes.
        case externalBinary
        /// A Transformable attribute: a list of values archived as SwiftData archives a Swift
        /// array of `element` (nil: the model says of no such array, and a list is refused).
        case archivedArray(element: AttributeType?)
    }

    public struct Column: Sendable {
        /// Unquoted.
        public internal(set) var name: String
        public internal(set) var source: Source
        public internal(set) var storage = Storage.asIs
    }

    /// The table, unquoted.
    public internal(set) var name: String
    /// The integer primary key column, unquoted.
    public internal(set) var rowID: String
    /// Columns written from each record, in parameter order.
    public internal(set) var columns: [Column]
    /// Columns every new row gets as they are, with their values as SQL literals.
    var constants: [(column: String, literal: String)] = []
    /// Per relationship slot, the entities (model indexes) its linked records may be: the
    /// destination, and in a layout that keeps a hierarchy in one table its concrete
    /// sub-entities. Empty for a relationship this layout has no column for (to-many).
    public internal(set) var linkTargets: [[Int]]
    /// The number that tells this entity's rows apart in a table shared with other entities, and
    /// the column that holds it (Core Data's `Z_ENT`); nil when the table holds one entity only.
    public internal(set) var entityNumber: Int64? = nil
    public internal(set) var entityColumn: String? = nil
    /// Per relationship slot, the join table of a many-to-many; empty when the entity has none.
    public internal(set) var joins: [Join?] = []
    /// Per relationship slot, for a to-many without inverse: the column of the listed rows that
    /// holds this row's key (SwiftData's `Z<n><REL>`); empty when the entity has none.
    public internal(set) var listings: [String?] = []
    /// The order key of the first element of an ordered to-many, and the step to the next: Core
    /// Data's 2048, 3072, 4096, ... or the plain layout's 1, 2, 3, ...
    var orderKeys: (first: Int64, step: Int64) = (1, 1)
    /// Unique indexes over the table that rows can break while they are written (Core Data's
    /// uniqueness constraints), to name them when a row does.
    var uniqueConstraints: [UniqueConstraint] = []

    /// A unique index that is in place while rows are written.
    struct UniqueConstraint: Sendable {
        /// Its columns, in index order, unquoted.
        var columns: [String]
        /// As users know it: `Item (code, shop)`.
        var description: String
    }

    /// The order key of element `index` (0-based) of an ordered to-many.
    func orderKey(_ index: Int) -> Int64 { orderKeys.first + orderKeys.step * Int64(index) }

    /// The column of attribute `slot` (of `model.allAttributes(of:)`), if the table has one.
    public func column(ofAttribute slot: Int) -> String? {
        columns.first { if case .attribute(slot) = $0.source { true } else { false } }?.name
    }
}

extension EntityTable {
    /// `INSERT` of one row: the columns as parameters ?1...?n, the row id left to SQLite.
    var insertSQL: String {
        let names = constants.map(\.column) + columns.map(\.name)
        let values = constants.map(\.literal) + columns.indices.map { "?\($0 + 1)" }
        return "INSERT INTO \(SQL.quote(name)) (\(names.map(SQL.quote).joined(separator: ", "))) "
            + "VALUES (\(values.joined(separator: ", ")))"
    }

    /// The stored columns of the row with id ?1, then for each column whether it equals parameter
    /// ?2...?n+1. `IS` compares with the column's affinity, exactly as the value would be stored,
    /// and treats two NULLs as equal.
    var compareSQL: String {
        let stored = columns.map { SQL.quote($0.name) }
        let same = columns.indices.map { "\(SQL.quote(columns[$0].name)) IS ?\($0 + 2)" }
        return "SELECT \((stored + same).joined(separator: ", ")) FROM \(SQL.quote(name)) WHERE \(SQL.quote(rowID)) = ?1"
    }

    /// `UPDATE` of every column (?1...?n) of the row with id ?n+1.
    var updateSQL: String {
        let sets = columns.indices.map { "\(SQL.quote(columns[$0].name)) = ?\($0 + 1)" }
        return "UPDATE \(SQL.quote(name)) SET \(sets.joined(separator: ", ")) WHERE \(SQL.quote(rowID)) = ?\(columns.count + 1)"
    }

    /// The given columns of the row with id ?1.
    func selectSQL(_ columnNames: [String]) -> String {
        "SELECT \(columnNames.map(SQL.quote).joined(separator: ", ")) FROM \(SQL.quote(name)) WHERE \(SQL.quote(rowID)) = ?1"
    }
}
