import Pipeline
import SinksSQLite
import CoreDataFormat
import SQLite

/// One entity's records as both stores are queried for them: the key to match records by, the
/// fields to compare, and how each is read from a store's tables.
struct ComparedSet {
    /// One compared value: a column of the entity's table, or the key of a related record.
    struct Field {
        enum Source {
            /// A column of the entity's own table.
            case column(String)
            /// The key column `keyColumn` of the row a link column points to in `table`.
            case linkedKey(link: String, table: String, rowID: String, keyColumn: String)
            /// The keys of the records a to-many relationship links, one text: a subquery on the
            /// row (`t`), read where every table and column it names is in the store.
            case linkedKeys(sql: String, needs: [(table: String, columns: [String])])
        }

        /// As users know it: the attribute or relationship name.
        var name: String
        var source: Source
        /// How stored values are shown (dates as dates, booleans as booleans); nil shows them as stored.
        var type: AttributeType?
    }

    /// The entity (or table) name shown to users.
    var name: String
    var table: String
    /// Rows of this entity in a table shared with others (Core Data's `Z_ENT` value).
    var filter: (column: String, value: Int64)?
    /// Matched first, in order; when empty the whole row is the key.
    var key: [Field]
    var fields: [Field]

    var matchedBy: String { key.isEmpty ? "whole row" : key.map(\.name).joined(separator: ", ") }

    /// The query for the key then the fields, ordered by them, against a store whose tables have the
    /// columns `columns(table)` (nil when the table is missing). A column the store lacks reads as NULL.
    func query(columns: (String) -> Set<String>?) -> String? {
        guard let own = columns(table) else { return nil }
        var joins: [String] = []
        func expression(_ field: Field) -> String {
            switch field.source {
            case .column(let column):
                return own.contains(column) ? "t.\(SQL.quote(column))" : "NULL"
            case .linkedKey(let link, let target, let rowID, let keyColumn):
                guard own.contains(link), let theirs = columns(target), theirs.contains(keyColumn) else { return "NULL" }
                let alias = "l\(joins.count)"
                joins.append("LEFT JOIN \(SQL.quote(target)) AS \(alias) ON \(alias).\(SQL.quote(rowID)) = t.\(SQL.quote(link))")
                return "\(alias).\(SQL.quote(keyColumn))"
            case .linkedKeys(let sql, let needs):
                let present = needs.allSatisfy { need in (need.table == table ? own : columns(need.table)).map { Set(need.columns).isSubset(of: $0) } ?? false }
                return present ? sql : "NULL"
            }
        }
        let selected = (key + fields).map(expression)
        var sql = "SELECT \(selected.joined(separator: ", ")) FROM \(SQL.quote(table)) AS t"
        if !joins.isEmpty { sql += " " + joins.joined(separator: " ") }
        if let filter { sql += " WHERE t.\(SQL.quote(filter.column)) = \(filter.value)" }
        let order = key.isEmpty ? selected.indices : key.indices
        return sql + " ORDER BY " + order.map { "\($0 + 1)" }.joined(separator: ", ")
    }
}

extension ComparedSet {
    /// The sets of a store written for `model` in the layout of `layout`: every concrete entity, matched by its
    /// unique key, its relationships compared by the related record's key.
    static func sets(of layout: StoreTables, model: StoreModel) -> [ComparedSet] {
        layout.tables.enumerated().compactMap { entity, table -> ComparedSet? in
            guard let table else { return nil }
            let name = model.entities[entity].name
            let attributes = model.allAttributes(of: name)
            let relationships = model.allRelationships(of: name)
            var key: [Field] = [], fields: [Field] = []
            let uniqueKey = model.uniqueKey(of: name)
            for column in table.columns {
                switch column.source {
                case .attribute(let slot):
                    let field = Field(name: attributes[slot].name, source: .column(column.name), type: attributes[slot].type)
                    if uniqueKey.contains(attributes[slot].name) { key.append(field) } else { fields.append(field) }
                case .link(let slot):
                    let field = linkField(relationships[slot].name, column: column.name,
                                          targets: table.linkTargets[slot], layout: layout, model: model)
                    // A key over relationships (`unique: [recipe, ingredient]`) matches by the linked keys.
                    if uniqueKey.contains(relationships[slot].name) { key.append(field) } else { fields.append(field) }
                case .linkEntity, .order:
                    continue  // which sub-entity a link points to shows in the related key already
                }
            }
            for slot in listSlots(of: name, table: table, model: model) {
                if let field = listField(slot, of: name, table: table, layout: layout, model: model) { fields.append(field) }
            }
            // Key columns in the key's own order, as users wrote it.
            key.sort { a, b in (uniqueKey.firstIndex(of: a.name) ?? 0) < (uniqueKey.firstIndex(of: b.name) ?? 0) }
            return ComparedSet(name: name, table: table.name,
                               filter: table.entityColumn.flatMap { column in table.entityNumber.map { (column, $0) } },
                               key: key, fields: fields)
        }
    }

    /// A relationship compared by the related record's key: its first key attribute when every
    /// entity it may point to keys on the same column, else the related row id.
    private static func linkField(_ name: String, column: String, targets: [Int], layout: StoreTables,
                                  model: StoreModel) -> Field {
        let tables = targets.compactMap { layout.tables[$0] }
        guard let table = tables.first else { return Field(name: name, source: .column(column)) }
        let keyColumns = targets.map { target -> String? in
            let entity = model.entities[target].name
            guard let attribute = model.uniqueKey(of: entity).first,
                  let slot = model.allAttributes(of: entity).firstIndex(where: { $0.name == attribute }) else { return nil }
            return layout.tables[target]?.column(ofAttribute: slot)
        }
        guard let keyColumn = keyColumns.first ?? nil, keyColumns.allSatisfy({ $0 == keyColumn }),
              tables.allSatisfy({ $0.name == table.name }) else {
            return Field(name: name, source: .column(column))
        }
        let entity = model.entities[targets[0]].name
        let attribute = model.uniqueKey(of: entity).first.flatMap { key in model.allAttributes(of: entity).first { $0.name == key } }
        return Field(name: name, source: .linkedKey(link: column, table: table.name, rowID: table.rowID, keyColumn: keyColumn),
                     type: attribute?.type)
    }

    /// The to-many relationships shown as lists: a many-to-many, and an ordered to-many (its
    /// order); a one-to-many shows on its to-one side.
    static func listSlots(of entity: String, table: EntityTable, model: StoreModel) -> [Int] {
        model.allRelationships(of: entity).enumerated().compactMap { slot, relationship in
            relationship.isToMany && !relationship.isTransient
                && (relationship.isOrdered || (slot < table.joins.count && table.joins[slot] != nil)) ? slot : nil
        }
    }

    /// A to-many relationship compared as the keys of the records it links, `[a, b]`: in order
    /// where it is ordered, sorted where it is a set. Records without a key are counted
    /// (`3 records`). Nil where the destination's rows cannot be told by one key column.
    static func listField(_ slot: Int, of entity: String, table: EntityTable, layout: StoreTables,
                          model: StoreModel) -> Field? {
        let relationship = model.allRelationships(of: entity)[slot]
        let targets = model.entities.indices.filter { index in
            !model.entities[index].isAbstract && model.lineage(of: model.entities[index].name).contains { $0.name == relationship.destination }
        }
        guard let first = targets.first, let destination = layout.tables[first],
              targets.allSatisfy({ layout.tables[$0]?.name == destination.name }) else { return nil }
        let targetEntity = model.entities[first].name
        let keyColumn = model.uniqueKey(of: targetEntity).first.flatMap { key in
            model.allAttributes(of: targetEntity).firstIndex { $0.name == key }.flatMap(destination.column(ofAttribute:))
        }
        let d = SQL.quote(destination.name), row = "t.\(SQL.quote(table.rowID))"
        let shown = keyColumn.map { "d.\(SQL.quote($0))" }
        var needs: [(table: String, columns: [String])] = [(destination.name, [destination.rowID] + (keyColumn.map { [$0] } ?? []))]
        var from: String, order: String?
        if slot < table.joins.count, let join = table.joins[slot] {
            let j = SQL.quote(join.table)
            from = "\(j) AS j JOIN \(d) AS d ON d.\(SQL.quote(destination.rowID)) = j.\(SQL.quote(join.otherColumn)) "
                + "WHERE j.\(SQL.quote(join.ownColumn)) = \(row)"
            order = join.ownOrder.map { "j.\(SQL.quote($0))" }
            needs.append((join.table, [join.ownColumn, join.otherColumn] + (join.ownOrder.map { [$0] } ?? [])))
        } else {
            guard let inverse = relationship.inverse,
                  let inverseSlot = model.allRelationships(of: targetEntity).firstIndex(where: { $0.name == inverse }),
                  let link = destination.columns.first(where: { if case .link(inverseSlot) = $0.source { true } else { false } })
            else { return nil }
            from = "\(d) AS d WHERE d.\(SQL.quote(link.name)) = \(row)"
            needs.append((destination.name, [link.name]))
            let numbers = targets.compactMap { layout.tables[$0]?.entityNumber }
            if let column = destination.entityColumn, !numbers.isEmpty {
                from += " AND d.\(SQL.quote(column)) IN (\(numbers.map(String.init).joined(separator: ", ")))"
            }
            order = destination.columns.first { if case .order(inverseSlot) = $0.source { true } else { false } }.map { "d.\(SQL.quote($0.name))" }
        }
        let sql: String
        if let shown {
            // Ordered lists in their order, sets by key: the text then compares as the set.
            sql = "(SELECT '[' || coalesce(group_concat(k, ', '), '') || ']' FROM (SELECT \(shown) AS k FROM \(from) "
                + "ORDER BY \(order.map { "\($0), " } ?? "")k))"
        } else {
            sql = "(SELECT count(*) || ' records' FROM \(from))"
        }
        return Field(name: relationship.name, source: .linkedKeys(sql: sql, needs: needs))
    }

    /// The sets of any SQLite store, compared without its model: every table but SQLite's and the
    /// layouts' bookkeeping, matched by its first unique index, else by the whole row. A foreign key
    /// to a table with a unique index compares as the related row's key (`unit_id` as `unit`).
    static func sets(of store: SQLiteConnection) throws -> [ComparedSet] {
        let bookkeeping: Set<String> = ["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE", "pipectl_metadata"]
        let tables = try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .compactMap { row -> String? in if case .text(let name) = row.first { name } else { nil } }
            .filter { !bookkeeping.contains($0) }
        // Read once: a join table's columns name entities by number.
        let entities = (try? store.rows(CoreDataEntityList.query)).map(CoreDataEntityList.init(rows:))
        return try tables.map { table in
            let columns = try store.rows("SELECT name, pk FROM pragma_table_info(\(SQL.literal(table)))")
            // Row ids differ between stores of the same records: never compared.
            let rowIDs = Set(columns.compactMap { row -> String? in
                guard case .text(let name) = row[0], case .integer(let pk) = row[1], pk > 0 else { return nil }
                return name
            }).union(["Z_PK", "Z_OPT"])
            let names = columns.compactMap { row -> String? in if case .text(let name) = row[0] { name } else { nil } }
            let unique = try firstUniqueIndex(of: table, in: store)
            let key = unique.map { Field(name: $0, source: .column($0)) }
            var links: [String: Field] = [:]
            for row in try store.rows("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(\(SQL.literal(table)))") {
                guard case .text(let column) = row[0], case .text(let target) = row[1],
                      let targetKey = try firstUniqueIndex(of: target, in: store).first else { continue }
                let rowID: String = if case .text(let to) = row[2] { to } else { "rowid" }
                let name = column.hasSuffix("_id") ? String(column.dropLast(3)) : column
                links[column] = Field(name: name, source: .linkedKey(link: column, table: target, rowID: rowID, keyColumn: targetKey))
            }
            var fields = names.filter { !rowIDs.contains($0) && !unique.contains($0) }.map { links[$0] ?? Field(name: $0, source: .column($0)) }
            // A join table (a many-to-many relationship's) is all primary key: its rows are pairs
            // of related records, compared whole, each side by its record's key.
            if fields.isEmpty, key.isEmpty, !names.isEmpty {
                fields = try names.map { column in
                    try links[column] ?? coreDataJoinField(column, entities: entities, in: store) ?? Field(name: column, source: .column(column))
                }
            }
            return ComparedSet(name: table, table: table, filter: nil, key: key, fields: fields)
        }
    }

    /// A column of a Core Data join table, `Z_<entity number><RELATIONSHIP>`, holding a `Z_PK` of
    /// that entity: compared as the related record's key (its table's first unique index) when it
    /// has one, named after the entity. Nil for a store without Core Data's entity list.
    private static func coreDataJoinField(_ column: String, entities: CoreDataEntityList?, in store: SQLiteConnection) throws -> Field? {
        guard let entities, let number = CoreDataEntityList.entityNumber(inName: column), let entity = entities.entries[number],
              let root = entities.entries[entities.root(of: number)] else { return nil }
        let table = "Z" + root.name.uppercased()
        guard let keyColumn = try firstUniqueIndex(of: table, in: store).first else {
            return Field(name: entity.name, source: .column(column))
        }
        return Field(name: entity.name, source: .linkedKey(link: column, table: table, rowID: "Z_PK", keyColumn: keyColumn))
    }

    private static func firstUniqueIndex(of table: String, in store: SQLiteConnection) throws -> [String] {
        for index in try store.rows("SELECT name FROM pragma_index_list(\(SQL.literal(table))) WHERE \"unique\" = 1 AND origin != 'pk' ORDER BY name") {
            guard case .text(let name) = index.first else { continue }
            let columns = try store.rows("SELECT name FROM pragma_index_info(\(SQL.literal(name))) ORDER BY seqno")
                .compactMap { row -> String? in if case .text(let column) = row.first { column } else { nil } }
            if !columns.isEmpty { return columns }
        }
        return []
    }
}
