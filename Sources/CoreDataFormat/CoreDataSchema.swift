import Diagnostics
import Pipeline

/// The tables, columns and indexes Core Data's SQLite store has for a model: the exact DDL that
/// Core Data itself writes, so that it opens a generated store without migrating it.
///
/// ```swift
/// let schema = try CoreDataSchema(model)
/// for sql in schema.statements() { try db.execute(sql) }
/// ```
/// Column order (Core Data reads by name; the order only matters for byte-identical output):
/// `Z_PK, Z_ENT, Z_OPT`, then the hierarchy's columns by class: INTEGER (per entity in `Z_ENT`
/// order: its integer and boolean attributes by name, then its to-one foreign keys by name, then
/// the keys of to-many relationships without inverse that list it), REAL (dates, floats,
/// doubles), DECIMAL, VARCHAR, UUID, other BLOBs, each per entity in `Z_ENT` order and by name;
/// a composite's elements together at the composite's name. A name that a sibling entity or
/// another element already uses gets a number (`ZNAME1`), as Core Data does.
public struct CoreDataSchema: Sendable {
    /// What a column holds.
    public enum ColumnRole: Sendable, Hashable {
        /// `Z_PK`, `Z_ENT`, `Z_OPT`.
        case bookkeeping
        /// An attribute's value.
        case attribute(entity: String, attribute: String)
        /// A to-one relationship: the destination row's `Z_PK`.
        case foreignKey(entity: String, relationship: String)
        /// A to-one relationship to a hierarchy: the destination row's `Z_ENT`.
        case foreignEntity(entity: String, relationship: String)
        /// A to-one whose inverse is an ordered to-many: the row's position in that order.
        case orderKey(entity: String, relationship: String)
        /// A to-many without an inverse: on the destination's table, the `Z_PK` of the row that
        /// lists this one (`Z<n><REL>`, n the listing entity's number).
        case listingKey(entity: String, relationship: String)
    }

    public struct Column: Sendable, Hashable {
        public var name: String
        /// `INTEGER`, `FLOAT`, `TIMESTAMP`, `DECIMAL`, `VARCHAR` or `BLOB`.
        public var type: String
        public var role: ColumnRole
    }

    /// One table per root entity: `Z` + upper-cased name, holding the whole hierarchy's rows.
    public struct Table: Sendable {
        public var name: String
        /// The root entity.
        public var entity: String
        public var columns: [Column]

        public var createStatement: String {
            let list = columns.map { col in
                col.name == "Z_PK" ? "Z_PK INTEGER PRIMARY KEY" : "\(col.name) \(col.type)"
            }
            return "CREATE TABLE \(name) ( \(list.joined(separator: ", ")) )"
        }
    }

    /// The join table of a many-to-many relationship pair.
    ///
    /// Named after the relationship of the entity whose name sorts first (A), `Z_<nA><RELA>`;
    /// columns `Z_<nA><RELB>` (A's `Z_PK`) and `Z_<nB><RELA>` (B's `Z_PK`), where n is each side's
    /// own entity number; an ordered side adds `Z_FOK_<column>`; index `<table>_<second>_INDEX
    /// (second, first)`. Confirmed by bookmarks-ddg (self-referencing, one side ordered) and
    /// swiftdata-metacocktails; which side names the table when the entity names and relationship
    /// names disagree is not settled by them.
    public struct JoinTable: Sendable {
        public var name: String
        /// The entity declaring the relationship the table is named after, and that relationship.
        public var entity: String
        public var relationship: String
        /// The inverse side.
        public var inverseEntity: String
        public var inverseRelationship: String
        /// Holds `entity` rows' `Z_PK`.
        public var sourceColumn: String
        /// Holds `inverseEntity` rows' `Z_PK`.
        public var destinationColumn: String
        /// Order keys for ordered sides, in column order.
        public var orderColumns: [String]

        public var createStatement: String {
            let list = [sourceColumn, destinationColumn].map { "\($0) INTEGER" } + orderColumns.map { "\($0) INTEGER" }
            return "CREATE TABLE \(name) ( \(list.joined(separator: ", ")), PRIMARY KEY (\(sourceColumn), \(destinationColumn)) )"
        }

        public var indexStatement: String {
            "CREATE INDEX \(name)_\(destinationColumn)_INDEX ON \(name) (\(destinationColumn), \(sourceColumn))"
        }
    }

    /// One row of Z_PRIMARYKEY.
    public struct PrimaryKeyRow: Sendable, Hashable, CustomStringConvertible {
        public var entity: Int
        public var name: String
        public var superEntity: Int
        public var max: Int64

        public init(entity: Int, name: String, superEntity: Int, max: Int64) {
            self.entity = entity
            self.name = name
            self.superEntity = superEntity
            self.max = max
        }

        public var description: String { "\(entity)\t\(name)\t\(superEntity)\t\(max)" }
    }

    /// The bookkeeping tables, identical in every store.
    public static let primaryKeyTable =
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)"
    public static let metadataTable =
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)"
    /// Newer frameworks keep the compiled model here; stores without it open fine.
    public static let modelCacheTable = "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"

    /// Core Data's persistent-history tables and their indexes, after the bookkeeping tables, as
    /// swiftdata-metacocktails' store has them (SwiftData turns history tracking on).
    public static let historyStatements = [
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]

    /// The history entities' Z_PRIMARYKEY rows, with nothing handed out yet.
    public static let historyPrimaryKeyRows = [
        PrimaryKeyRow(entity: 16001, name: "CHANGE", superEntity: 0, max: 0),
        PrimaryKeyRow(entity: 16002, name: "TRANSACTION", superEntity: 0, max: 0),
        PrimaryKeyRow(entity: 16003, name: "TRANSACTIONSTRING", superEntity: 0, max: 0),
    ]

    public let entities: CoreDataEntityTree
    /// Root tables in `Z_ENT` order.
    public let tables: [Table]
    public let joinTables: [JoinTable]
    /// Every CREATE INDEX, in the order Core Data creates them.
    public let indexStatements: [String]
    private let columnIndex: [ColumnKey: String]

    private struct ColumnKey: Hashable {
        var entity: String
        var property: String
    }

    /// Lays out the store for a model; refuses what a generated store cannot hold correctly.
    public init(_ model: StoreModel) throws {
        let tree = CoreDataEntityTree(model)
        var tables: [Table] = []
        var joinTables: [JoinTable] = []
        var columnIndex: [ColumnKey: String] = [:]
        var perTableIndexes: [[String]] = []
        var joinsByRoot: [[JoinTable]] = []

        // To-many relationships without an inverse, by destination: SwiftData keeps the link on
        // the listed row (confirmed: swiftdata-metacocktails' Cocktail.spec is ZINGREDIENT.Z1SPEC,
        // after the table's own foreign keys; where it goes among several is not confirmed).
        var listings: [String: [(entity: String, relationship: Relationship)]] = [:]
        for entity in tree.entities {
            for relationship in entity.relationships where relationship.isToMany && relationship.inverse == nil && !relationship.isTransient {
                listings[relationship.destination, default: []].append((entity.name, relationship))
            }
        }

        for root in tree.rootEntities {
            let tableName = "Z" + root.name.uppercased()
            let hierarchy = tree.hierarchy(of: root.name)
            var pending: [(rank: (Int, Int, Int, String, Int), columns: [Column], key: ColumnKey?)] = []
            for (position, entity) in hierarchy.enumerated() {
                for (source, relationship) in listings[entity.name] ?? [] {
                    guard let n = tree.number(of: source) else { continue }
                    let name = "Z\(n)" + relationship.name.uppercased()
                    pending.append(((0, position, 2, name, 0),
                                    [Column(name: name, type: "INTEGER", role: .listingKey(entity: source, relationship: relationship.name))],
                                    nil))
                }
                for (declared, attribute) in entity.attributes.enumerated() where !attribute.isTransient {
                    if attribute.isDerived {
                        throw Self.error(attribute.location, .modelDerivedAttribute,
                            "derived attribute '\(entity.name).\(attribute.name)' cannot be written into a generated store: Core Data keeps it up to date with SQL triggers that call its own functions; make it a plain attribute or drop it from the model")
                    }
                    let (type, bucket) = Self.sqlType(attribute.type)
                    // A composite's elements sit together at the property's name, in declaration
                    // order, each named by its element alone (author.person is ZPERSON, a nested
                    // composite's address.kind ZKIND).
                    let sortName = attribute.composite?.property ?? attribute.name
                    let columnName = attribute.composite?.element ?? attribute.name
                    pending.append(((bucket, position, 0, sortName, attribute.composite == nil ? 0 : declared),
                                    [Column(name: "Z" + columnName.uppercased(), type: type,
                                            role: .attribute(entity: entity.name, attribute: attribute.name))],
                                    ColumnKey(entity: entity.name, property: attribute.name)))
                }
                for relationship in entity.relationships where !relationship.isTransient {
                    guard let destination = model[relationship.destination] else {
                        throw Self.error(relationship.location, .modelUnknownEntity,
                            "relationship '\(entity.name).\(relationship.name)' leads to an unknown entity '\(relationship.destination)'")
                    }
                    let inverse = relationship.inverse.flatMap { name in
                        model.allRelationships(of: destination.name).first { $0.name == name }
                    }
                    if relationship.isToMany { continue }
                    let base = relationship.name.uppercased()
                    var columns = [Column(name: "Z" + base, type: "INTEGER",
                                          role: .foreignKey(entity: entity.name, relationship: relationship.name))]
                    // The destination's own number (Z22_CONTACT for ABCDContact=22 under ABCDRecord=17).
                    if tree.hasSubentities(destination.name), let n = tree.number(of: destination.name) {
                        columns.append(Column(name: "Z\(n)_" + base, type: "INTEGER",
                                              role: .foreignEntity(entity: entity.name, relationship: relationship.name)))
                    }
                    // Unconfirmed in the cases: the order key of an ordered to-many's to-one side.
                    if let inverse, inverse.isToMany, inverse.isOrdered {
                        columns.append(Column(name: "Z_FOK_" + base, type: "INTEGER",
                                              role: .orderKey(entity: entity.name, relationship: relationship.name)))
                    }
                    pending.append(((0, position, 1, relationship.name, 0), columns,
                                    ColumnKey(entity: entity.name, property: relationship.name)))
                }
            }
            pending.sort { $0.rank < $1.rank }

            var columns = [Column(name: "Z_PK", type: "INTEGER", role: .bookkeeping),
                           Column(name: "Z_ENT", type: "INTEGER", role: .bookkeeping),
                           Column(name: "Z_OPT", type: "INTEGER", role: .bookkeeping)]
            var used = Set(columns.map(\.name))
            for item in pending {
                // Siblings may declare the same property name: the later one gets ZNAME1, ZNAME2, ...
                var suffix = ""
                if used.contains(item.columns[0].name) {
                    var n = 1
                    while used.contains(item.columns[0].name + String(n)) { n += 1 }
                    suffix = String(n)
                }
                for var column in item.columns {
                    column.name += suffix
                    used.insert(column.name)
                    columns.append(column)
                }
                if let key = item.key { columnIndex[key] = item.columns[0].name + suffix }
            }
            tables.append(Table(name: tableName, entity: root.name, columns: columns))

            // Indexes of this table: indexed attributes, then foreign keys, then Z_ENT.
            var indexes: [String] = []
            for entity in hierarchy {
                for attribute in entity.attributes.sorted(by: { $0.name < $1.name })
                where attribute.isIndexed && !attribute.isTransient {
                    if let column = columnIndex[ColumnKey(entity: entity.name, property: attribute.name)] {
                        indexes.append("CREATE INDEX \(tableName)_\(column)_INDEX ON \(tableName) (\(column))")
                    }
                }
            }
            for column in columns {
                switch column.role {
                case .foreignKey, .listingKey:
                    indexes.append("CREATE INDEX \(tableName)_\(column.name)_INDEX ON \(tableName) (\(column.name))")
                default:
                    break
                }
            }
            if hierarchy.count > 1 {
                indexes.append("CREATE INDEX \(tableName)_Z_ENT_INDEX ON \(tableName) (Z_ENT)")
            }
            perTableIndexes.append(indexes)
            joinsByRoot.append([])
        }

        // Many-to-many pairs, each once, owned by the side whose entity name sorts first.
        let rootPosition = Dictionary(uniqueKeysWithValues: tables.enumerated().map { ($1.entity, $0) })
        // Join columns are unique across the store: a later clash is numbered (Z_19PARENTGROUPS1).
        var joinColumns = Set<String>()
        func joinColumn(_ base: String) -> String {
            var name = base
            var n = 0
            while joinColumns.contains(name) { n += 1; name = base + String(n) }
            joinColumns.insert(name)
            return name
        }
        for entity in tree.entities {
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name })
            where relationship.isToMany && !relationship.isTransient {
                guard let inverseName = relationship.inverse,
                      let inverse = model.allRelationships(of: relationship.destination).first(where: { $0.name == inverseName }),
                      inverse.isToMany,
                      let inverseOwner = Self.declaringEntity(of: inverseName, from: relationship.destination, in: model)
                else { continue }
                // Between two entities, the one whose name sorts first names the table (confirmed:
                // swiftdata-metacocktails' Z_1GARNISH); in a self-referencing pair, the relationship
                // whose name sorts last (confirmed: bookmarks-ddg's Z_1FAVORITES, not FAVORITEFOLDERS).
                let owns = entity.name < inverseOwner || (entity.name == inverseOwner && relationship.name >= inverse.name)
                guard owns, let nA = tree.number(of: entity.name), let nB = tree.number(of: relationship.destination),
                      let root = tree.root(of: entity.name), let position = rootPosition[root.name]
                else { continue }
                let name = "Z_\(nA)\(relationship.name.uppercased())"
                let source = joinColumn("Z_\(nA)\(inverse.name.uppercased())")
                let destination = joinColumn("Z_\(nB)\(relationship.name.uppercased())")
                var order: [String] = []
                // Unconfirmed: the order column of an ordered many-to-many side.
                if inverse.isOrdered { order.append("Z_FOK_" + source.dropFirst(2)) }
                if relationship.isOrdered { order.append("Z_FOK_" + destination.dropFirst(2)) }
                let join = JoinTable(name: name, entity: entity.name, relationship: relationship.name,
                                     inverseEntity: inverseOwner, inverseRelationship: inverse.name,
                                     sourceColumn: source, destinationColumn: destination, orderColumns: order)
                joinTables.append(join)
                joinsByRoot[position].append(join)
                perTableIndexes[position].append(join.indexStatement)
            }
        }

        // Fetch indexes and uniqueness constraints come after their table's own indexes
        // (confirmed by the 7 and 4 tables of swiftdata-cheftime and swiftdata-metacocktails).
        for entity in tree.entities {
            guard let root = tree.root(of: entity.name), let position = rootPosition[root.name] else { continue }
            let tableName = "Z" + root.name.uppercased()
            func column(_ property: String, _ location: Location?, _ what: String) throws -> String {
                for owner in model.lineage(of: entity.name).reversed() {
                    if let name = columnIndex[ColumnKey(entity: owner.name, property: property)] { return name }
                }
                throw Self.error(location ?? entity.location, .modelUnknownProperty,
                    "\(what) of entity '\(entity.name)' names '\(property)', which is not a stored attribute or to-one relationship of it")
            }
            for index in entity.fetchIndexes {
                let parts = try index.elements.map {
                    "\(try column($0.property, index.location, "fetch index '\(index.name)'")) COLLATE BINARY \($0.isAscending ? "ASC" : "DESC")"
                }
                perTableIndexes[position].append("CREATE INDEX Z_\(entity.name)_\(index.name) ON \(tableName) (\(parts.joined(separator: ", ")))")
            }
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                let parts = try constraint.map { "\(try column($0, entity.location, "a uniqueness constraint")) COLLATE BINARY ASC" }
                perTableIndexes[position].append("CREATE UNIQUE INDEX Z_\(entity.name)_UNIQUE_\(constraint.joined(separator: "_")) ON \(tableName) (\(parts.joined(separator: ", ")))")
            }
        }

        self.entities = tree
        self.tables = tables
        self.joinTables = joinTables
        self.indexStatements = perTableIndexes.flatMap { $0 }
        self.columnIndex = columnIndex
        self.joinsByRoot = joinsByRoot
    }

    private let joinsByRoot: [[JoinTable]]

    /// Every statement that creates the store's schema, in Core Data's order: root tables (each
    /// followed by the join tables its hierarchy owns), indexes, then the bookkeeping tables.
    /// `modelCache` adds the (empty) Z_MODELCACHE table of newer frameworks.
    public func statements(modelCache: Bool = false) -> [String] {
        var out: [String] = []
        for (table, joins) in zip(tables, joinsByRoot) {
            out.append(table.createStatement)
            out += joins.map(\.createStatement)
        }
        out += indexStatements
        out += [Self.primaryKeyTable, Self.metadataTable]
        if modelCache { out.append(Self.modelCacheTable) }
        return out
    }

    /// The table holding an entity's rows (its root's).
    public func table(of entity: String) -> Table? {
        entities.root(of: entity).flatMap { root in tables.first { $0.entity == root.name } }
    }

    /// The column of an attribute or to-one relationship of an entity, inherited ones included.
    public func column(of entity: String, property: String) -> String? {
        var current: String? = entity
        var steps = 0
        while let name = current, steps <= entities.entities.count {
            if let column = columnIndex[ColumnKey(entity: name, property: property)] { return column }
            current = entities.superNumber(of: name).flatMap { $0 > 0 ? entities.entities[$0 - 1].name : nil }
            steps += 1
        }
        return nil
    }

    /// Z_PRIMARYKEY's rows: every entity with its parent's number; `Z_MAX` (the highest `Z_PK`
    /// handed out) on each root, from `maxPrimaryKeys` by root name, 0 on sub-entities.
    public func primaryKeyRows(maxPrimaryKeys: [String: Int64] = [:]) -> [PrimaryKeyRow] {
        entities.entities.enumerated().map { index, entity in
            let parent = entities.superNumber(of: entity.name) ?? 0
            return PrimaryKeyRow(entity: index + 1, name: entity.name, superEntity: parent,
                                 max: parent == 0 ? maxPrimaryKeys[entity.name] ?? 0 : 0)
        }
    }

    /// Column type and class rank (INTEGER 0, REAL and TIMESTAMP 1, DECIMAL 2, VARCHAR 3, UUID 4,
    /// other BLOBs 5). Confirmed: DECIMAL after the dates whose names sort later and before
    /// VARCHAR (nobelnrj/myhome's ZEXPENSE: ZUPDATEDAT TIMESTAMP, ZAMOUNT DECIMAL); UUIDs before
    /// Binary columns whose names sort first (swiftdata-metacocktails' ZCOCKTAIL: ZID, ZID1,
    /// ZINSTRUCTIONS). DECIMAL beside FLOAT, and URI, are not confirmed in a real store.
    static func sqlType(_ type: AttributeType) -> (String, Int) {
        switch type {
        case .integer16, .integer32, .integer64, .bool: ("INTEGER", 0)
        case .float, .double: ("FLOAT", 1)
        case .date: ("TIMESTAMP", 1)
        case .decimal: ("DECIMAL", 2)
        case .string, .uri: ("VARCHAR", 3)
        case .uuid: ("BLOB", 4)
        case .binary, .transformable: ("BLOB", 5)
        }
    }

    /// The entity in `start`'s lineage that declares the relationship `name`.
    private static func declaringEntity(of name: String, from start: String, in model: StoreModel) -> String? {
        model.lineage(of: start).last { $0.relationships.contains { $0.name == name } }?.name
    }

    private static func error(_ location: Location?, _ code: PipelineError.Code, _ message: String) -> PipelineError {
        PipelineError(.invalidPipeline, code: code, at: location, stage: "model", message)
    }
}
