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

        /// What a `.linkedKeys` field's text holds: its records, each after `ComparedSet.elementMark`.
        enum List {
            /// Sorted: only which records are linked counts.
            case set
            /// In the relationship's order (Core Data's `Z_FOK_`, a `position:` attribute): the order counts too.
            case ordered
        }

        /// As users know it: the attribute or relationship name.
        var name: String
        var source: Source
        /// How stored values are shown (dates as dates, booleans as booleans); nil shows them as stored.
        var type: AttributeType?
        /// Set for a to-many compared as the records it links.
        var list: List? = nil
        /// A Binary attribute Core Data may keep in a file: its column holds a marker first.
        var external = false
    }

    /// Put before each record of a list field's text: a character no key or text a store holds
    /// for people has, so that the text reads back as the records it lists.
    static let elementMark: Character = "\u{1E}"

    /// The records of a list field's text, as `listField(elements: true)` wrote them.
    static func elements(of value: Value) -> [String] {
        guard case .text(let text) = value else { return [] }
        return text.split(separator: elementMark, omittingEmptySubsequences: false).dropFirst().map(String.init)
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

    /// A column of a query that reads a link as stored (a row id), for the related record's key
    /// to be looked up apart (`RawRows.Lookup`) rather than joined.
    struct LookedUpLink: Equatable {
        var column: Int
        var table: String
        var rowID: String
        var keyColumn: String
    }

    /// The query for the key then the fields against a store whose tables have the columns
    /// `columns(table)` (nil when the table is missing), `ordered` by the key (else in the table's
    /// order). A column the store lacks reads as NULL. In table order, links to the tables (and
    /// row id columns) `lookingUp` names are read as stored and listed in `links`; the others are
    /// joined. Sorted, every link is joined: SQLite sorts by what is compared, not by row ids.
    func query(columns: (String) -> Set<String>?, ordered: Bool = true,
               lookingUp: (LinkTarget) -> Bool = { _ in false }) -> (sql: String, links: [LookedUpLink])? {
        guard let own = columns(table) else { return nil }
        var joins: [String] = [], links: [LookedUpLink] = []
        func expression(_ field: Field, column: Int) -> String {
            switch reading(field, own: own, columns: columns) {
            case .null:
                return "NULL"
            case .column(let column):
                return "t.\(SQL.quote(column))"
            case .link(let link, let target, let rowID, let keyColumn):
                if !ordered && lookingUp(LinkTarget(table: target, rowID: rowID)) {
                    links.append(LookedUpLink(column: column, table: target, rowID: rowID, keyColumn: keyColumn))
                    return "t.\(SQL.quote(link))"
                }
                let alias = "l\(joins.count)"
                joins.append("LEFT JOIN \(SQL.quote(target)) AS \(alias) ON \(alias).\(SQL.quote(rowID)) = t.\(SQL.quote(link))")
                return "\(alias).\(SQL.quote(keyColumn))"
            case .list(let sql):
                return sql
            }
        }
        let selected = (key + fields).enumerated().map { expression($1, column: $0) }
        // NOT INDEXED: the rows read in the table's order (and sorted), rather than walked in key
        // order through the key's index and each looked up in the table, a page read apiece once
        // the table outgrows the cache (the distinct job's 950,000 items at 1M: 3.3 s a store).
        var sql = "SELECT \(selected.joined(separator: ", ")) FROM \(SQL.quote(table)) AS t NOT INDEXED"
        if !joins.isEmpty { sql += " " + joins.joined(separator: " ") }
        if let filter { sql += " WHERE t.\(SQL.quote(filter.column)) = \(filter.value)" }
        guard ordered else { return (sql, links) }
        let order = key.isEmpty ? selected.indices : key.indices
        return (sql + " ORDER BY " + order.map { "\($0 + 1)" }.joined(separator: ", "), links)
    }

    /// The fields of `query(columns:ordered: false, lookingUp:)` as `TableRecords` reads them
    /// from the table's file: nil where the query needs SQL (a join, a list's subquery), and
    /// where the store lacks the table.
    func recordFields(columns: (String) -> Set<String>?,
                      lookingUp: (LinkTarget) -> Bool) -> (fields: [TableRecords.Field], links: [LookedUpLink])? {
        guard let own = columns(table) else { return nil }
        var fields: [TableRecords.Field] = [], links: [LookedUpLink] = []
        for (index, field) in (key + self.fields).enumerated() {
            switch reading(field, own: own, columns: columns) {
            case .null:
                fields.append(.null)
            case .column(let column):
                fields.append(.column(column))
            case .link(let link, let target, let rowID, let keyColumn):
                guard lookingUp(LinkTarget(table: target, rowID: rowID)) else { return nil }
                links.append(LookedUpLink(column: index, table: target, rowID: rowID, keyColumn: keyColumn))
                fields.append(.column(link))
            case .list:
                return nil
            }
        }
        return (fields, links)
    }

    /// How a field reads in a store whose tables have the columns `columns(table)` (`own` this
    /// set's table's): NULL where the store lacks what it needs.
    private enum Reading {
        case null
        case column(String)
        case link(link: String, target: String, rowID: String, keyColumn: String)
        case list(sql: String)
    }

    private func reading(_ field: Field, own: Set<String>, columns: (String) -> Set<String>?) -> Reading {
        switch field.source {
        case .column(let column):
            return own.contains(column) ? .column(column) : .null
        case .linkedKey(let link, let target, let rowID, let keyColumn):
            guard own.contains(link), columns(target)?.contains(keyColumn) == true else { return .null }
            return .link(link: link, target: target, rowID: rowID, keyColumn: keyColumn)
        case .linkedKeys(let sql, let needs):
            let present = needs.allSatisfy { need in (need.table == table ? own : columns(need.table)).map { Set(need.columns).isSubset(of: $0) } ?? false }
            return present ? .list(sql: sql) : .null
        }
    }

    /// A table links name rows of, by the column they hold.
    struct LinkTarget: Hashable {
        var table: String
        var rowID: String
    }

    /// What this set's links name: the tables (and columns) `LookedUpLink`s may read.
    var linkTargets: Set<LinkTarget> {
        Set((key + fields).compactMap { field in
            if case .linkedKey(_, let table, let rowID, _) = field.source { LinkTarget(table: table, rowID: rowID) } else { nil }
        })
    }
}

extension ComparedSet {
    /// The sets of a store written for `model` in the layout of `layout`: every concrete entity, matched by its
    /// unique key, its relationships compared by the related record's key. `positions` names, per
    /// entity and to-many relationship, the attribute of the linked records that holds their place
    /// (`position: order`): that list then compares in that order, and the attribute is not
    /// compared on its own (its values are the order, said once, of the list).
    static func sets(of layout: StoreTables, model: StoreModel, positions: [String: [String: String]] = [:]) -> [ComparedSet] {
        // Which attribute of which entity holds a place in a list.
        var placeAttributes: [String: Set<String>] = [:]
        for (owner, lists) in positions {
            for (relationshipName, attribute) in lists {
                guard let relationship = model.allRelationships(of: owner).first(where: { $0.name == relationshipName }) else { continue }
                for entity in model.entities where model.lineage(of: entity.name).contains(where: { $0.name == relationship.destination }) {
                    placeAttributes[entity.name, default: []].insert(attribute)
                }
            }
        }
        return layout.tables.enumerated().compactMap { entity, table -> ComparedSet? in
            guard let table else { return nil }
            let name = model.entities[entity].name
            let attributes = model.allAttributes(of: name)
            let relationships = model.allRelationships(of: name)
            var key: [Field] = [], fields: [Field] = []
            let uniqueKey = model.uniqueKey(of: name)
            let ownPositions = position(of: name, in: positions, model: model)
            for column in table.columns {
                switch column.source {
                case .attribute(let slot) where placeAttributes[name]?.contains(attributes[slot].name) == true
                                                && !uniqueKey.contains(attributes[slot].name):
                    continue
                case .attribute(let slot):
                    var field = Field(name: attributes[slot].name, source: .column(column.name), type: attributes[slot].type)
                    if case .externalBinary = column.storage { field.external = true }
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
            for slot in listSlots(of: name, table: table, model: model, positions: ownPositions) {
                if let field = listField(slot, of: name, table: table, layout: layout, model: model,
                                         position: ownPositions[relationships[slot].name], elements: true) {
                    fields.append(field)
                }
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

    /// The place attributes of `entity`'s to-many relationships, by relationship name: those given
    /// for it or for an entity it inherits from.
    private static func position(of entity: String, in positions: [String: [String: String]], model: StoreModel) -> [String: String] {
        model.lineage(of: entity).reduce(into: [:]) { found, ancestor in found.merge(positions[ancestor.name] ?? [:]) { $1 } }
    }

    /// The to-many relationships shown as lists: a many-to-many, an ordered to-many (its order),
    /// and a to-many whose records keep their place in an attribute (`positions`, by relationship
    /// name); another one-to-many shows on its to-one side.
    static func listSlots(of entity: String, table: EntityTable, model: StoreModel, positions: [String: String] = [:]) -> [Int] {
        model.allRelationships(of: entity).enumerated().compactMap { slot, relationship in
            relationship.isToMany && !relationship.isTransient
                && (relationship.isOrdered || positions[relationship.name] != nil
                    || (slot < table.joins.count && table.joins[slot] != nil)) ? slot : nil
        }
    }

    /// A to-many relationship compared as the keys of the records it links, `[a, b]`: in order
    /// where it is ordered (or its records keep their place in the attribute `position`), sorted
    /// where it is a set. Nil where the destination's rows are not in one table.
    ///
    /// For people (`elements` false, the report's sheets), records without a key are counted
    /// (`3 records`). For a comparison (`elements` true), each record follows `elementMark`, and a
    /// record without a key is its values (`'Chop the onion.'`, or `('a', 2)` for several): a
    /// child the list owns is the same child where its values are.
    static func listField(_ slot: Int, of entity: String, table: EntityTable, layout: StoreTables,
                          model: StoreModel, position: String? = nil, elements: Bool = false) -> Field? {
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
        let placeColumn = position.flatMap { name in
            model.allAttributes(of: targetEntity).firstIndex { $0.name == name }.flatMap(destination.column(ofAttribute:))
        }
        if slot < table.joins.count, let join = table.joins[slot] {
            let j = SQL.quote(join.table)
            from = "\(j) AS j JOIN \(d) AS d ON d.\(SQL.quote(destination.rowID)) = j.\(SQL.quote(join.otherColumn)) "
                + "WHERE j.\(SQL.quote(join.ownColumn)) = \(row)"
            order = join.ownOrder.map { "j.\(SQL.quote($0))" }
            needs.append((join.table, [join.ownColumn, join.otherColumn] + (join.ownOrder.map { [$0] } ?? [])))
        } else {
            let inverseSlot = relationship.inverse.flatMap { inverse in
                model.allRelationships(of: targetEntity).firstIndex { $0.name == inverse }
            }
            let link = inverseSlot.flatMap { inverseSlot in
                destination.columns.first { if case .link(inverseSlot) = $0.source { true } else { false } }?.name
            } ?? (slot < table.listings.count ? table.listings[slot] : nil)  // a to-many without inverse (SwiftData)
            guard let link else { return nil }
            from = "\(d) AS d WHERE d.\(SQL.quote(link)) = \(row)"
            needs.append((destination.name, [link]))
            let numbers = targets.compactMap { layout.tables[$0]?.entityNumber }
            if let column = destination.entityColumn, !numbers.isEmpty {
                from += " AND d.\(SQL.quote(column)) IN (\(numbers.map(String.init).joined(separator: ", ")))"
            }
            order = inverseSlot.flatMap { inverseSlot in
                destination.columns.first { if case .order(inverseSlot) = $0.source { true } else { false } }.map { "d.\(SQL.quote($0.name))" }
            }
        }
        if let placeColumn {
            order = "d.\(SQL.quote(placeColumn))"
            needs.append((destination.name, [placeColumn]))
        }
        let sql: String
        if elements {
            let element: String
            if let shown {
                // A key is text or a number as it is; a blob (a UUID) as its hex, NULL said.
                element = "CASE typeof(\(shown)) WHEN 'blob' THEN quote(\(shown)) WHEN 'null' THEN '(no key)' ELSE \(shown) END"
            } else {
                // A child without a key is its values: the attributes of every entity it may be, its
                // place left out; `'Chop.'` for one, else `(text='Chop.', time=5)` with the empty ones left out.
                var columns: [(name: String, attribute: String)] = []
                for target in targets {
                    let attributes = model.allAttributes(of: model.entities[target].name)
                    for column in layout.tables[target]?.columns ?? [] {
                        if case .attribute(let slot) = column.source, column.name != placeColumn, !columns.contains(where: { $0.name == column.name }) {
                            columns.append((column.name, attributes[slot].name))
                        }
                    }
                }
                needs.append((destination.name, columns.map(\.name)))
                if columns.count <= 1 {
                    element = columns.first.map { "quote(d.\(SQL.quote($0.name)))" } ?? "'record'"
                } else {
                    // rtrim() takes the last ', ' off: every value ends in a quote, a digit or a letter.
                    let named = columns.map { column in
                        let value = "d.\(SQL.quote(column.name))"
                        return "CASE WHEN \(value) IS NULL THEN '' ELSE \(SQL.literal(column.attribute + "=")) || quote(\(value)) || ', ' END"
                    }
                    element = "'(' || rtrim(\(named.joined(separator: " || ")), ', ') || ')'"
                }
            }
            sql = "(SELECT coalesce(group_concat(char(30) || k, ''), '') FROM (SELECT \(element) AS k FROM \(from) "
                + "ORDER BY \(order.map { "\($0), " } ?? "")k))"
            return Field(name: relationship.name, source: .linkedKeys(sql: sql, needs: needs), list: order == nil ? .set : .ordered)
        } else if let shown {
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
            // A join table (a many-to-many relationship's) is all primary key, but for Core Data's
            // order keys of an ordered side: its rows are pairs of related records, compared whole,
            // each side by its record's key, and the order as each pair's place.
            let orderKeys = names.filter { $0.hasPrefix("Z_FOK_") }
            if key.isEmpty, !names.isEmpty, fields.allSatisfy({ orderKeys.contains($0.name) }) {
                fields = try names.filter { !orderKeys.contains($0) }.map { column in
                    try links[column] ?? coreDataJoinField(column, entities: entities, in: store) ?? Field(name: column, source: .column(column))
                }
                for orderKey in orderKeys {
                    // Z_FOK_<column> orders the records of <column> among those the other column's record lists.
                    let listed = "Z_" + orderKey.dropFirst("Z_FOK_".count)
                    guard names.contains(listed), let owner = names.first(where: { $0 != listed && !orderKeys.contains($0) }) else {
                        fields.append(Field(name: orderKey, source: .column(orderKey)))
                        continue
                    }
                    let (o, l, q) = (SQL.quote(orderKey), SQL.quote(owner), SQL.quote(table))
                    fields.append(Field(name: "place", source: .linkedKeys(
                        sql: "(CASE WHEN t.\(o) IS NULL THEN NULL ELSE (SELECT count(*) FROM \(q) AS x WHERE x.\(l) = t.\(l) AND x.\(o) < t.\(o)) END)",
                        needs: [(table, [owner, orderKey])])))
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
