import Diagnostics
import Pipeline
import CoreDataFormat
import SQLite

/// The plain layout: ordinary tables that any SQL client reads.
///
/// One table per concrete entity, named as the entity: `id INTEGER PRIMARY KEY`, the attributes
/// (inherited ones first), then `<relationship>_id` per to-one relationship referencing the
/// destination's table. A unique index on the unique key, an index per indexed attribute and per
/// foreign key. Store metadata goes into `pipectl_metadata (key, value)`.
struct PlainTableLayout: TableLayout {
    static let metadataTable = "pipectl_metadata"
    static let rowID = "id"

    let tables: [EntityTable?]
    /// `CREATE TABLE` statements, in model order, then the metadata table's.
    let tableDefinitions: [String]
    /// `CREATE INDEX` statements, run once the rows are in.
    let indexDefinitions: [String]
    let metadata: [(key: String, value: Value)]

    init(model: StoreModel, settings: StoreSettings) throws {
        var tables: [EntityTable?] = []
        var tableDefinitions: [String] = []
        var indexDefinitions: [String] = []
        var tableNames: [String: String] = [:]
        let joinTables = PlainTableLayout.joinTables(of: model)

        for entity in model.entities {
            let at = entity.location ?? settings.location
            guard entity.name.lowercased() != PlainTableLayout.metadataTable else {
                throw PipelineError(.invalidPipeline, code: .modelReservedName, at: at, stage: "sqlite",
                                    "the entity name '\(entity.name)' is reserved for the store's metadata table; rename the entity")
            }
            guard !entity.name.lowercased().hasPrefix("sqlite_") else {
                throw PipelineError(.invalidPipeline, code: .modelReservedName, at: at, stage: "sqlite",
                                    "the entity name '\(entity.name)' would be a table name SQLite reserves for itself "
                                        + "(names starting with 'sqlite_'); rename the entity")
            }
            guard !entity.isAbstract else {
                tables.append(nil)
                continue
            }
            // SQLite compares names without regard to case.
            if let other = tableNames.updateValue("entity '\(entity.name)'", forKey: entity.name.lowercased()) {
                throw PipelineError(.invalidPipeline, code: .modelNameClash, at: at, stage: "sqlite",
                                    "entity '\(entity.name)' would have the same table as \(other) "
                                        + "(SQLite table names ignore case); rename the entity")
            }
            let attributes = model.allAttributes(of: entity.name)
            let relationships = model.allRelationships(of: entity.name)

            var columnOwners: [String: String] = [:]
            func claim(_ column: String, for owner: String) throws {
                if column.lowercased() == PlainTableLayout.rowID {
                    throw PipelineError(.invalidPipeline, code: .modelReservedName, at: at, stage: "sqlite",
                                        "entity '\(entity.name)': \(owner) would be the column '\(column)', which the plain "
                                            + "SQLite layout keeps for the row id (SQLite column names ignore case); rename it")
                }
                if let other = columnOwners.updateValue(owner, forKey: column.lowercased()) {
                    throw PipelineError(.invalidPipeline, code: .modelNameClash, at: at, stage: "sqlite",
                                        "entity '\(entity.name)': \(other) and \(owner) would both be the column '\(column)' "
                                            + "(SQLite column names ignore case); rename one of them")
                }
            }

            var columns: [EntityTable.Column] = []
            var definitions = ["\(SQL.quote(PlainTableLayout.rowID)) INTEGER PRIMARY KEY"]
            for (slot, attribute) in attributes.enumerated() {
                try claim(attribute.name, for: "attribute '\(attribute.name)'")
                // A list is refused: plain SQLite has no archive an app would read.
                columns.append(.init(name: attribute.name, source: .attribute(slot),
                                     storage: attribute.type == .transformable ? .archivedArray(element: nil) : .asIs))
                definitions.append("\(SQL.quote(attribute.name)) \(PlainTableLayout.columnType(attribute.type))"
                                       + (attribute.isOptional ? "" : " NOT NULL"))
            }

            var destinations: [[Int]] = []
            var foreignKeys: [String] = []
            var joins: [EntityTable.Join?] = []
            var orderColumns: [(EntityTable.Column, String)] = []
            for (slot, relationship) in relationships.enumerated() {
                let owner = model.lineage(of: entity.name).last { $0.relationships.contains { $0.name == relationship.name } }?.name
                joins.append(owner.flatMap { joinTables.sides["\($0).\(relationship.name)"] })
                // A to-many relationship is the other side's foreign key or a join table; it has no column here.
                guard !relationship.isToMany else {
                    destinations.append([])
                    continue
                }
                let relAt = relationship.location ?? at
                guard let destination = model.index(of: relationship.destination) else {
                    throw PipelineError(.invalidPipeline, code: .modelUnknownEntity, at: relAt, stage: "sqlite",
                                        "relationship '\(entity.name).\(relationship.name)' leads to the unknown entity '\(relationship.destination)'")
                }
                guard !model.entities[destination].isAbstract else {
                    let concrete = model.entities.filter { candidate in
                        !candidate.isAbstract && model.lineage(of: candidate.name).contains { $0.name == relationship.destination }
                    }.map { "'\($0.name)'" }
                    let instead = concrete.isEmpty ? "" : " link a concrete entity (\(concrete.joined(separator: ", "))) or"
                    throw PipelineError(.invalidPipeline, code: .modelAbstractDestination, at: relAt, stage: "sqlite",
                                        "relationship '\(entity.name).\(relationship.name)' leads to the abstract entity "
                                            + "'\(relationship.destination)', which the plain SQLite layout cannot express "
                                            + "(each concrete entity has a table of its own);\(instead) use layout: coredata")
                }
                let column = "\(relationship.name)_\(PlainTableLayout.rowID)"
                try claim(column, for: "relationship '\(relationship.name)'")
                columns.append(.init(name: column, source: .link(slot)))
                destinations.append([destination])
                foreignKeys.append(column)
                definitions.append("\(SQL.quote(column)) INTEGER REFERENCES \(SQL.quote(relationship.destination))"
                                       + "(\(SQL.quote(PlainTableLayout.rowID)))")
                // The row's place in the ordered to-many that lists it: 1, 2, 3, ...
                let inverse = relationship.inverse.flatMap { name in model.allRelationships(of: relationship.destination).first { $0.name == name } }
                if let inverse, inverse.isToMany, inverse.isOrdered {
                    let position = "\(relationship.name)_position"
                    try claim(position, for: "the order of '\(relationship.destination).\(inverse.name)'")
                    orderColumns.append((.init(name: position, source: .order(slot)), "\(SQL.quote(position)) INTEGER"))
                }
            }
            columns += orderColumns.map(\.0)
            definitions += orderColumns.map(\.1)
            tableDefinitions.append("CREATE TABLE \(SQL.quote(entity.name)) (\(definitions.joined(separator: ", ")))")

            // A to-one relationship in the key is its foreign key column.
            let key = try model.uniqueKey(of: entity.name).map { name in
                if attributes.contains(where: { $0.name == name }) { return name }
                guard model.allRelationships(of: entity.name).contains(where: { $0.name == name && !$0.isToMany }) else {
                    throw PipelineError(.invalidPipeline, code: .modelUnknownProperty, at: at, stage: "sqlite",
                                        "the unique key of '\(entity.name)' names '\(name)', which is not one of its attributes or to-one relationships")
                }
                return "\(name)_\(PlainTableLayout.rowID)"
            }
            if !key.isEmpty {
                indexDefinitions.append(PlainTableLayout.index(on: entity.name, key, suffix: "unique", unique: true))
            }
            // A single-attribute unique key is indexed already.
            for attribute in attributes where attribute.isIndexed && key != [attribute.name] {
                indexDefinitions.append(PlainTableLayout.index(on: entity.name, [attribute.name], suffix: "index", unique: false))
            }
            for column in foreignKeys {
                indexDefinitions.append(PlainTableLayout.index(on: entity.name, [column], suffix: "index", unique: false))
            }

            tables.append(EntityTable(name: entity.name, rowID: PlainTableLayout.rowID, columns: columns,
                                      linkTargets: destinations, joins: joins))
        }
        for (name, definition, indexes) in joinTables.definitions {
            if let other = tableNames.updateValue("the join table '\(name)'", forKey: name.lowercased()) {
                throw PipelineError(.invalidPipeline, code: .modelNameClash, at: settings.location, stage: "sqlite",
                                    "the join table '\(name)' of a many-to-many relationship would have the same name as \(other) "
                                        + "(SQLite table names ignore case); rename the entity or the relationship")
            }
            tableDefinitions.append(definition)
            indexDefinitions += indexes
        }

        var seenKeys: Set<String> = []
        for (key, _) in settings.metadata where !seenKeys.insert(key).inserted {
            throw PipelineError(.invalidPipeline, code: .pipelineDuplicateKey, at: settings.location, stage: "sqlite",
                                "metadata key '\(key)' is given twice")
        }
        tableDefinitions.append("CREATE TABLE \(SQL.quote(PlainTableLayout.metadataTable)) (\"key\" TEXT PRIMARY KEY, \"value\")")

        self.tables = tables
        self.tableDefinitions = tableDefinitions
        self.indexDefinitions = indexDefinitions
        self.metadata = settings.metadata
    }

    func createSchema(in connection: SQLiteConnection) throws {
        for definition in tableDefinitions { try connection.execute(definition) }
        let insert = try connection.prepare("INSERT INTO \(SQL.quote(PlainTableLayout.metadataTable)) (\"key\", \"value\") VALUES (?1, ?2)")
        for (key, value) in metadata {
            try insert.bind(.text(key), at: 1)
            try insert.bind(value, at: 2)
            try insert.run()
        }
    }

    func complete(in connection: SQLiteConnection, storeUUID _: () throws -> String?, checkingLinks _: Bool) throws {
        for definition in indexDefinitions { try IndexBuild.create(definition, in: connection) }
    }

    /// The join table of each many-to-many pair, `<Entity>_<relationship>` after the side whose
    /// entity name sorts first (Core Data's rule): a column per side named after the relationship
    /// that points at its rows (`recipes_id`, `tags_id`), a `_position` column per ordered side,
    /// the pair as primary key and an index from the other side. `sides` by "Entity.relationship"
    /// of the declaring entity, for both relationships of a pair.
    static func joinTables(of model: StoreModel) -> (sides: [String: EntityTable.Join], definitions: [(String, String, [String])]) {
        var sides: [String: EntityTable.Join] = [:]
        var definitions: [(String, String, [String])] = []
        for entity in model.entities {
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) where relationship.isToMany && !relationship.isTransient {
                guard let inverseName = relationship.inverse,
                      let inverse = model.allRelationships(of: relationship.destination).first(where: { $0.name == inverseName }),
                      inverse.isToMany,
                      let inverseOwner = model.lineage(of: relationship.destination).last(where: { $0.relationships.contains { $0.name == inverseName } })?.name,
                      entity.name < inverseOwner || (entity.name == inverseOwner && relationship.name >= inverse.name)
                else { continue }
                let table = "\(entity.name)_\(relationship.name)"
                let own = "\(inverse.name)_\(rowID)", other = "\(relationship.name)_\(rowID)"
                let ownOrder = relationship.isOrdered ? "\(relationship.name)_position" : nil
                let otherOrder = inverse.isOrdered ? "\(inverse.name)_position" : nil
                sides["\(entity.name).\(relationship.name)"] = EntityTable.Join(table: table, ownColumn: own, otherColumn: other,
                                                                                ownOrder: ownOrder, otherOrder: otherOrder)
                sides["\(inverseOwner).\(inverse.name)"] = EntityTable.Join(table: table, ownColumn: other, otherColumn: own,
                                                                            ownOrder: otherOrder, otherOrder: ownOrder)
                let columns = ["\(SQL.quote(own)) INTEGER NOT NULL REFERENCES \(SQL.quote(entity.name))(\(SQL.quote(rowID)))",
                               "\(SQL.quote(other)) INTEGER NOT NULL REFERENCES \(SQL.quote(relationship.destination))(\(SQL.quote(rowID)))"]
                    + [otherOrder, ownOrder].compactMap { $0.map { "\(SQL.quote($0)) INTEGER" } }
                definitions.append((table, "CREATE TABLE \(SQL.quote(table)) (\(columns.joined(separator: ", ")), "
                                        + "PRIMARY KEY (\(SQL.quote(own)), \(SQL.quote(other))))",
                                    [index(on: table, [other, own], suffix: "index", unique: false)]))
            }
        }
        return (sides, definitions)
    }

    /// The declared type, which gives the column its affinity.
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .uuid, .uri: "TEXT"
        case .integer16, .integer32, .integer64, .bool: "INTEGER"
        case .double, .float: "REAL"
        case .decimal: "NUMERIC"
        // Seconds since 2001-01-01, as the value holds them.
        case .date: "REAL"
        case .binary, .transformable: "BLOB"
        }
    }

    /// `CREATE [UNIQUE] INDEX "<Entity>_<col>[_<col>...]_<suffix>"`: deterministic names.
    static func index(on table: String, _ columns: [String], suffix: String, unique: Bool) -> String {
        let name = ([table] + columns + [suffix]).joined(separator: "_")
        return "CREATE \(unique ? "UNIQUE " : "")INDEX \(SQL.quote(name)) ON \(SQL.quote(table)) "
            + "(\(columns.map(SQL.quote).joined(separator: ", ")))"
    }
}
