import Foundation
import Diagnostics
import Pipeline
import CoreDataFormat
import SQLite

/// The Core Data layout: the store Core Data itself writes for the model, so that an app opens it
/// as its own, without migrating (see `CoreDataStoreFormat`).
///
/// The schema is `CoreDataSchema.statements()` as it stands, in Core Data's order (indexes and
/// bookkeeping tables after the rows where the model allows, see `schemaStatements`): one table
/// per root entity (`ZITEM`) holding the rows of its whole hierarchy, told apart by `Z_ENT`, with
/// `Z_PK` from one key space per hierarchy (the table's row ids) and `Z_OPT` 1. Attributes go to
/// their `Z<NAME>` columns (UUIDs as 16 bytes), to-one relationships to `Z<REL>` (the linked
/// row's `Z_PK`) and, into a hierarchy, `Z<n>_<REL>` (its `Z_ENT`). `complete` writes
/// Z_PRIMARYKEY and Z_METADATA.
///
/// Left empty, as the format has no confirmed value for them: the order keys `Z_FOK_<REL>` of a
/// to-one whose inverse is ordered, and the join tables of many-to-many relationships, which a
/// load cannot fill yet.
struct CoreDataTableLayout: TableLayout {
    let tables: [EntityTable?]
    let schema: CoreDataSchema
    /// `Z_UUID`, upper case: the settings' or one derived from the model and metadata, unless
    /// `complete` is given one.
    let storeUUID: String
    /// `Z_PLIST`.
    let metadata: Data
    /// Per to-one relationship, how to find the rows that link to no row of the destination (or to
    /// a row of another entity): the store has no FOREIGN KEY clauses for SQLite to check.
    let linkChecks: [LinkCheck]
    /// Whether every uniqueness constraint of the model is an entity's unique key in the pipeline,
    /// on its own table rows: the key index then turns a breaking record away before SQLite
    /// could, and the unique indexes can be built over the loaded rows like the others.
    let constraintsAreKeys: Bool
    /// Core Data's persistent-history tables go in too, empty (`store: { history: true }`).
    let history: Bool

    struct LinkCheck {
        /// `Item.unit`, as errors name it.
        var relationship: String
        var table: String
        /// The count of the rows whose link is missing, and the first one's Z_PK: a scan of the
        /// link's index.
        var missingRows: String
        /// For a link whose column alone names the row: the smallest link value from ?1 on, and
        /// whether row ?1 of the destination is one a link may name. A million items linking to
        /// a dozen units are checked with a few seeks of the link's index rather than a scan.
        var nextLink: String?
        var isLinkable: String?
    }

    init(model: StoreModel, settings: StoreSettings) throws {
        let schema = try CoreDataSchema(model)
        let tree = schema.entities

        var rootTables: [String: String] = [:]
        for table in schema.tables {
            // SQLite compares names without regard to case.
            if let other = rootTables.updateValue(table.entity, forKey: table.name.uppercased()) {
                throw PipelineError(.invalidPipeline, code: .modelNameClash, at: model[table.entity]?.location ?? settings.location, stage: "sqlite",
                                    "entities '\(other)' and '\(table.entity)' would both be the table '\(table.name)' "
                                        + "(SQLite table names ignore case); rename one of them")
            }
        }

        var tables: [EntityTable?] = []
        for entity in model.entities {
            guard !entity.isAbstract else {
                tables.append(nil)
                continue
            }
            guard let table = schema.table(of: entity.name), let number = tree.number(of: entity.name),
                  let root = tree.root(of: entity.name) else {
                throw PipelineError(.io, code: .storeInconsistent, at: entity.location ?? settings.location, stage: "sqlite",
                                    "entity '\(entity.name)' has no table in the Core Data schema")
            }
            let lineage = model.lineage(of: entity.name)
            func missing(_ what: String) -> PipelineError {
                PipelineError(.io, code: .storeInconsistent, at: entity.location ?? settings.location, stage: "sqlite",
                              "\(what) of entity '\(entity.name)' has no column in the Core Data schema")
            }

            var columns: [EntityTable.Column] = []
            for (slot, attribute) in model.allAttributes(of: entity.name).enumerated() where !attribute.isTransient {
                guard let column = schema.column(of: entity.name, property: attribute.name) else {
                    throw missing("attribute '\(attribute.name)'")
                }
                columns.append(.init(name: column, source: .attribute(slot),
                                     storage: attribute.type == .uuid ? .uuidBytes
                                         : attribute.type == .binary && attribute.allowsExternalBinaryDataStorage ? .externalBinary
                                         : attribute.type == .transformable ? .archivedArray(element: attribute.arrayElement) : .asIs))
            }

            var linkTargets: [[Int]] = []
            var joins: [EntityTable.Join?] = []
            var listings: [String?] = []
            for (slot, relationship) in model.allRelationships(of: entity.name).enumerated() {
                let owner = lineage.last(where: { $0.relationships.contains { $0.name == relationship.name } })
                joins.append(owner.flatMap { owner in
                    relationship.isToMany ? CoreDataTableLayout.join(of: relationship.name, declaredBy: owner.name, in: schema) : nil
                })
                let listing = CoreDataSchema.ColumnRole.listingKey(entity: owner?.name ?? "", relationship: relationship.name)
                listings.append(schema.table(of: relationship.destination)?.columns.first { $0.role == listing }?.name)
                guard !relationship.isToMany, !relationship.isTransient else {
                    linkTargets.append([])
                    continue
                }
                guard let column = schema.column(of: entity.name, property: relationship.name), let owner
                else { throw missing("relationship '\(relationship.name)'") }
                columns.append(.init(name: column, source: .link(slot)))
                let entityColumn = table.columns.first {
                    $0.role == .foreignEntity(entity: owner.name, relationship: relationship.name)
                }
                if let entityColumn { columns.append(.init(name: entityColumn.name, source: .linkEntity(slot))) }
                if let order = table.columns.first(where: { $0.role == .orderKey(entity: owner.name, relationship: relationship.name) }) {
                    columns.append(.init(name: order.name, source: .order(slot)))
                }
                // The destination and everything under it shares its table. Abstract ones stay in
                // the list, so that linking one says it is abstract rather than not allowed.
                linkTargets.append(model.entities.indices.filter { index in
                    model.lineage(of: model.entities[index].name).contains { $0.name == relationship.destination }
                })
            }

            var constraints: [EntityTable.UniqueConstraint] = []
            for member in tree.hierarchy(of: root.name) {
                for constraint in member.uniquenessConstraints where !constraint.isEmpty {
                    let names = constraint.compactMap { schema.column(of: member.name, property: $0) }
                    constraints.append(.init(columns: names, description: "\(member.name) (\(constraint.joined(separator: ", ")))"))
                }
            }

            tables.append(EntityTable(name: table.name, rowID: "Z_PK", columns: columns,
                                      constants: [("Z_ENT", String(number)), ("Z_OPT", "1")],
                                      linkTargets: linkTargets, entityNumber: Int64(number), entityColumn: "Z_ENT",
                                      joins: joins, listings: listings, orderKeys: (2048, 1024), uniqueConstraints: constraints))
        }

        var linkChecks: [LinkCheck] = []
        for table in schema.tables {
            for (index, column) in table.columns.enumerated() {
                guard case .foreignKey(let entity, let name) = column.role,
                      let relationship = model.allRelationships(of: entity).first(where: { $0.name == name }),
                      let destination = schema.table(of: relationship.destination) else { continue }
                let numbers = tree.entities.filter { member in
                    model.lineage(of: member.name).contains { $0.name == relationship.destination }
                }.compactMap { tree.number(of: $0.name) }.map(String.init)
                // NOT IN builds the destination's keys once, and the link's index (built before the
                // checks run) covers the scan: far cheaper than a lookup per row.
                var linked = "r.\(column.name)", keys = "d.Z_PK"
                let entities = "d.Z_ENT IN (\(numbers.joined(separator: ", ")))"
                var check = LinkCheck(relationship: "\(entity).\(name)", table: table.name, missingRows: "",
                                      nextLink: "SELECT min(r.\(column.name)) FROM \(table.name) AS r WHERE r.\(column.name) >= ?1",
                                      isLinkable: "SELECT 1 FROM \(destination.name) AS d WHERE d.Z_PK = ?1 AND \(entities)")
                if index + 1 < table.columns.count, case .foreignEntity = table.columns[index + 1].role {
                    // A missing entity number matches no row (entity numbers start at 1).
                    linked = "(\(linked), coalesce(r.\(table.columns[index + 1].name), 0))"
                    keys += ", d.Z_ENT"
                    (check.nextLink, check.isLinkable) = (nil, nil)
                }
                check.missingRows = "SELECT count(*), min(r.Z_PK) FROM \(table.name) AS r WHERE r.\(column.name) IS NOT NULL "
                    + "AND \(linked) NOT IN (SELECT \(keys) FROM \(destination.name) AS d WHERE \(entities))"
                linkChecks.append(check)
            }
        }

        var extra: [String: Value] = [:]
        for (key, value) in settings.metadata {
            guard extra.updateValue(value, forKey: key) == nil else {
                throw PipelineError(.invalidPipeline, code: .pipelineDuplicateKey, at: settings.location, stage: "sqlite",
                                    "metadata key '\(key)' is given twice")
            }
        }
        do {
            metadata = try CoreDataMetadata(model: model, extra: extra).binaryPropertyList()
        } catch {
            throw PipelineError.converting(error, at: settings.location)
        }
        if let given = settings.uuid {
            guard let uuid = UUID(uuidString: given) else {
                throw PipelineError(.invalidPipeline, code: .pipelineInvalidUUID, at: settings.location, stage: "sqlite",
                                    "the store UUID '\(given)' is not a UUID (such as 6FA1D3C2-0B5E-4C1A-9D3E-2F4B5A6C7D8E)")
            }
            storeUUID = uuid.uuidString.uppercased()
        } else {
            // The plist holds the model's version hashes and the metadata keys: the same model and
            // metadata give the same UUID.
            storeUUID = CoreDataMetadata.storeUUID(from: metadata)
        }
        self.tables = tables
        self.schema = schema
        self.linkChecks = linkChecks
        history = settings.history
        // A constraint over a column other entities' rows share (inherited, or with sub-entities)
        // spans records the entity's own key index never sees.
        constraintsAreKeys = model.entities.allSatisfy { entity in
            entity.uniquenessConstraints.allSatisfy { constraint in
                constraint.isEmpty || (!entity.isAbstract && !tree.hasSubentities(entity.name)
                    && constraint.allSatisfy { name in entity.attributes.contains { $0.name == name } }
                    && Set(model.uniqueKey(of: entity.name)) == Set(constraint))
            }
        }
    }

    func configure(_ connection: SQLiteConnection) throws {
        // As Core Data creates its stores; auto-vacuum only takes effect before the first table.
        try connection.execute("PRAGMA page_size = 4096")
        try connection.execute("PRAGMA auto_vacuum = 2")
        try connection.execute("PRAGMA encoding = 'UTF-8'")
    }

    /// The schema statements run before the rows, and those run after them by `complete`.
    ///
    /// Core Data's order is the tables, their indexes, then the bookkeeping tables, and
    /// sqlite_master keeps rows in creation order. The bookkeeping tables are only written at the
    /// end, so the indexes can be built there too, over the loaded rows (a sort, much faster than
    /// a million single-row index inserts), and the schema keeps Core Data's order, root page
    /// numbers included. A model with uniqueness constraints needs its unique indexes while rows
    /// are written, to turn a breaking record away: then all of it is created up front, unless
    /// the pipeline's unique keys are those constraints (`constraintsAreKeys`).
    var schemaStatements: (beforeRows: [String], afterRows: [String]) {
        let all = schema.statements() + (history ? CoreDataSchema.historyStatements : [])
        guard constraintsAreKeys || tables.allSatisfy({ $0?.uniqueConstraints.isEmpty ?? true }) else { return (all, []) }
        let indexes = Set(schema.indexStatements)
        let tableCount = all.prefix { !indexes.contains($0) }.count
        return (Array(all[..<tableCount]), Array(all[tableCount...]))
    }

    /// `CREATE ... IF NOT EXISTS`, so that `complete` can run again after a failed check. SQLite
    /// keeps the statement's text without the clause: sqlite_master is the same.
    static func rerunnable(_ statement: String) -> String {
        for prefix in ["CREATE TABLE ", "CREATE INDEX ", "CREATE UNIQUE INDEX "] where statement.hasPrefix(prefix) {
            return prefix + "IF NOT EXISTS " + statement.dropFirst(prefix.count)
        }
        return statement
    }

    func createSchema(in connection: SQLiteConnection) throws {
        for statement in schemaStatements.beforeRows { try connection.execute(statement) }
    }

    func complete(in connection: SQLiteConnection, storeUUID workedOut: () throws -> String?, checkingLinks: Bool) throws {
        for statement in schemaStatements.afterRows { try IndexBuild.create(Self.rerunnable(statement), in: connection) }
        for check in checkingLinks ? linkChecks : [] {
            if try fewLinksAllResolve(check, in: connection) { continue }
            let row = try connection.rows(check.missingRows).first ?? []
            guard row.count == 2, case .integer(let count) = row[0], count > 0 else { continue }
            throw PipelineError(.io, code: .storeCheckFailed, stage: "sqlite",
                                "the new store fails its link check: \(count) row(s) of '\(check.table)' link through "
                                    + "'\(check.relationship)' to missing rows, first Z_PK \(row[1].displayText)")
        }
        var maxPrimaryKeys: [String: Int64] = [:]
        for table in schema.tables {
            if case .integer(let max) = try connection.rows("SELECT max(Z_PK) FROM \(SQL.quote(table.name))").first?.first {
                maxPrimaryKeys[table.entity] = max
            }
        }
        let insert = try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?1, ?2, ?3, ?4)")
        for row in schema.primaryKeyRows(maxPrimaryKeys: maxPrimaryKeys) + (history ? CoreDataSchema.historyPrimaryKeyRows : []) {
            try insert.bind(.integer(Int64(row.entity)), at: 1)
            try insert.bind(.text(row.name), at: 2)
            try insert.bind(.integer(Int64(row.superEntity)), at: 3)
            try insert.bind(.integer(row.max), at: 4)
            try insert.run()
        }
        let metadataRow = try connection.prepare("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?1, ?2)")
        try metadataRow.bind(.text(try workedOut() ?? storeUUID), at: 1)
        try metadataRow.bind(.binary(Array(metadata)), at: 2)
        try metadataRow.run()
    }

    /// Whether the distinct values of a link are few and all name rows a link may name, found
    /// with one index seek each. False when the check cannot tell (too many values, or values
    /// that are not row numbers): the full query decides then, and counts what is missing.
    private func fewLinksAllResolve(_ check: LinkCheck, in connection: SQLiteConnection) throws -> Bool {
        guard let nextLinkSQL = check.nextLink, let isLinkableSQL = check.isLinkable else { return false }
        let nextLink = try connection.prepare(nextLinkSQL), isLinkable = try connection.prepare(isLinkableSQL)
        var next = Int64.min
        // Past this many, the scan of the full query costs less than the seeks.
        for _ in 0..<1024 {
            try nextLink.bind(.integer(next), at: 1)
            guard try nextLink.step() else { return false }
            let value = nextLink.value(at: 0)
            nextLink.reset()
            switch value {
            case .null: return true  // no link from `next` on: every value was checked
            case .integer(let row):
                try isLinkable.bind(.integer(row), at: 1)
                let found = try isLinkable.step()
                isLinkable.reset()
                guard found else { return false }
                guard row < Int64.max else { return true }
                next = row + 1
            default: return false
            }
        }
        return false
    }
}

extension CoreDataTableLayout {
    /// The join table of many-to-many `relationship` of `entity` (the entity declaring it), seen
    /// from that side. Z_FOK_ columns order an ordered side's destinations within each of its
    /// rows (confirmed: bookmarks-ddg's Z_FOK_1FAVORITES, 2048, 3072, ...).
    static func join(of relationship: String, declaredBy entity: String, in schema: CoreDataSchema) -> EntityTable.Join? {
        for join in schema.joinTables {
            // The table's own relationship: its source column holds this side's rows.
            let isOwner = join.entity == entity && join.relationship == relationship
            guard isOwner || (join.inverseEntity == entity && join.inverseRelationship == relationship) else { continue }
            let (own, other) = isOwner ? (join.sourceColumn, join.destinationColumn) : (join.destinationColumn, join.sourceColumn)
            let order = { (column: String) in join.orderColumns.first { $0 == "Z_FOK_" + column.dropFirst(2) } }
            return EntityTable.Join(table: join.name, ownColumn: own, otherColumn: other, ownOrder: order(other), otherOrder: order(own))
        }
        return nil
    }
}
