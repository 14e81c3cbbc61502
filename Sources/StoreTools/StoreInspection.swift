import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
import CoreDataFormat
import PropertyLists
import SQLite

/// What a SQLite file holds, as `pipectl inspect` reports it: its layout, SQLite settings,
/// entities with row counts, and its metadata decoded.
///
/// ```swift
/// let inspection = try StoreInspection(at: URL(fileURLWithPath: "DefaultData.sqlite"))
/// inspection.layout                 // .coreData
/// inspection.versionHashes?["Item"] // 32 bytes, from Z_METADATA's plist
/// ```
///
/// Reads stores that Core Data itself wrote as well as pipectl's own; the file is opened
/// read-only and never changed.
public struct StoreInspection: Sendable {
    /// How the tables are laid out.
    public enum Layout: String, Sendable {
        /// Core Data's SQLite store: Z_METADATA and Z_PRIMARYKEY.
        case coreData = "coredata"
        /// pipectl's plain layout: a `pipectl_metadata` table.
        case plain = "sqlite"
        /// Any other SQLite database.
        case unknown = "unknown"

        /// The layout as `pipectl inspect` names it.
        public var displayName: String {
            switch self {
            case .coreData: "coredata"
            case .plain: "sqlite (pipectl plain layout)"
            case .unknown: "sqlite (not written by pipectl)"
            }
        }
    }

    /// Database-wide settings, from SQLite's pragmas.
    public struct Settings: Sendable, Hashable {
        public var pageSize: Int64
        /// `delete`, `wal`, `truncate`, ...: lower case, as SQLite reports it.
        public var journalMode: String
        /// 0 none, 1 full, 2 incremental (Core Data's).
        public var autoVacuum: Int64
        /// `UTF-8`, `UTF-16le` or `UTF-16be`.
        public var encoding: String

        public init(pageSize: Int64, journalMode: String, autoVacuum: Int64, encoding: String) {
            self.pageSize = pageSize
            self.journalMode = journalMode
            self.autoVacuum = autoVacuum
            self.encoding = encoding
        }

        /// `none`, `full` or `incremental`.
        public var autoVacuumName: String {
            switch autoVacuum {
            case 0: "none"
            case 1: "full"
            case 2: "incremental"
            default: "unknown"
            }
        }
    }

    /// One entity (coredata: a Z_PRIMARYKEY row) or table (other layouts), with its row count.
    public struct EntityRows: Sendable, Hashable {
        public var name: String
        /// Core Data's entity number (`Z_ENT`); nil outside the coredata layout.
        public var number: Int64?
        /// The parent entity's name (from `Z_SUPER`); nil for a root and outside coredata.
        public var parent: String?
        /// The table holding the rows, nil when the store has no such table.
        public var table: String?
        /// Rows of this entity itself: a sub-entity's rows count under its own name.
        public var rows: Int64?
        /// `Z_MAX`: the highest `Z_PK` Core Data handed out in this hierarchy (kept on the root).
        public var maxPrimaryKey: Int64?

        /// One of Core Data's own entities (persistent history: CHANGE, TRANSACTION, ...), which
        /// no model declares.
        public var isCoreDataHistory: Bool {
            number.map(CoreDataStoreFormat.historyEntityNumbers.contains) ?? false
        }
    }

    /// The metadata row(s) the layout keeps.
    public enum Metadata: Sendable, Hashable {
        /// Z_METADATA: `Z_VERSION`, `Z_UUID` and the decoded `Z_PLIST` (nil when the store has
        /// no metadata row or no plist).
        case coreData(version: Int64?, uuid: String?, plist: [String: BinaryPropertyList.Object]?)
        /// `pipectl_metadata`, by key.
        case plain([Entry])
        case none

        public struct Entry: Sendable, Hashable {
            public var key: String
            public var value: Value

            public init(key: String, value: Value) {
                self.key = key
                self.value = value
            }
        }
    }

    /// A many-to-many relationship's join table (Core Data's `Z_<n><RELATIONSHIP>`).
    public struct JoinTable: Sendable, Hashable {
        public var table: String
        /// The entities its columns hold rows of, in column order (`Z_<n>...` names entity n).
        public var entities: [String]
        public var rows: Int64?
    }

    /// The file inspected.
    public let url: URL
    public let layout: Layout
    public let settings: Settings
    /// coredata: in `Z_ENT` order; other layouts: tables by name.
    public let entities: [EntityRows]
    /// coredata: the join tables, by name; empty for other layouts.
    public let joinTables: [JoinTable]
    public let metadata: Metadata
    /// Size of the `-wal` file beside a store in journal mode WAL; nil when there is none.
    public let walBytes: Int64?
    /// What the row checks found against the model given to `init` (empty: every row fits); nil
    /// without a model, or where the store's rows cannot be read as the model's (another
    /// numbering of entities in Z_PRIMARYKEY, or a table or column missing).
    public private(set) var rowFindings: [StoreRowChecks.Finding]?

    /// The store's `NSStoreModelVersionHashes` (entity name to hash); nil when it has none.
    public var versionHashes: [String: Data]? {
        guard case .coreData(_, _, let plist?) = metadata,
              case .dictionary(let hashes)? = plist["NSStoreModelVersionHashes"] else { return nil }
        return hashes.compactMapValues { if case .data(let bytes) = $0 { Data(bytes) } else { nil } }
    }

    /// Inspects the SQLite file at `url`; `name` is how messages call it (default: its path).
    ///
    /// Throws `PipelineError` (stage `inspect`, located at `name`): `.invalidInput` when the file is
    /// missing or not a SQLite database, `.io` when it cannot be read.
    /// With `model`, every row of a Core Data store is also checked against it (`rowFindings`).
    public init(at url: URL, name: String? = nil, checkingRowsAgainst model: StoreModel? = nil) throws {
        let name = name ?? url.path
        // Read in place where nothing beside the store holds changes (no -shm is created), else a copy.
        let reading = try StoreReading(url, name: name, stage: "inspect")
        try self.init(reading: SQLiteStore(url: url, connection: reading.connection), as: url, name: name, walBytes: reading.walBytes, isWAL: reading.isWAL, model: model)
    }

    /// Reads `store`, reporting it as `url`.
    private init(reading store: SQLiteStore, as url: URL, name: String, walBytes: Int64?, isWAL: Bool, model: StoreModel?) throws {
        do {
            self.url = url
            self.walBytes = walBytes
            var settings = try StoreInspection.settings(of: store)
            if isWAL { settings.journalMode = "wal" }
            self.settings = settings
            let tables = try StoreInspection.tableNames(in: store)
            let lowercased = Set(tables.map { $0.lowercased() })
            if lowercased.contains("z_metadata"), lowercased.contains("z_primarykey") {
                layout = .coreData
                entities = try StoreInspection.coreDataEntities(in: store, tables: tables)
                joinTables = try StoreInspection.coreDataJoinTables(in: store, tables: tables, entities: entities)
                metadata = try StoreInspection.coreDataMetadata(in: store, name: name)
            } else if lowercased.contains("pipectl_metadata") {
                layout = .plain
                joinTables = []
                entities = try StoreInspection.tableRows(in: store, tables: tables.filter { $0.lowercased() != "pipectl_metadata" })
                metadata = .plain(try store.rows("SELECT \"key\", \"value\" FROM pipectl_metadata ORDER BY \"key\"").map {
                    Metadata.Entry(key: $0[0].displayText, value: $0[1])
                })
            } else {
                layout = .unknown
                joinTables = []
                entities = try StoreInspection.tableRows(in: store, tables: tables)
                metadata = .none
            }
            // Rows are read as the model's where Z_ENT numbers the same entities and every column is there.
            if let model, layout == .coreData, StoreModelComparison(store: self, model: model).primaryKeysMatch {
                rowFindings = try StoreRowChecks.runIfReadable(on: store, model: model)
            }
        } catch var error as PipelineError {
            if error.location == nil { error.location = Location(file: name) }
            throw error
        }
    }
}
