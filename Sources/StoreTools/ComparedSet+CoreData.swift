import Pipeline
import SQLite

extension ComparedSet {
    /// The sets of two Core Data stores compared without their model, entity by entity: the rows
    /// of each entity of Z_PRIMARYKEY (its `Z_ENT` in its root's table, which its parent and
    /// siblings share), named after it. What the model would say is read from the stores:
    ///
    /// - the key: the entity's uniqueness constraint (or an ancestor's), which Core Data keeps as
    ///   the unique index `Z_<Entity>_UNIQUE_<properties>`; without one, the whole row;
    /// - the values: the columns that hold a value in a row of the entity in either store (a
    ///   column of a sibling is empty in all of them), each named after its property, lower-cased
    ///   where the index names do not give its case;
    /// - a to-one: an indexed INTEGER column named after an entity (`ZRECIPE`, Recipe), or whose
    ///   `Z<n>_` column names the entity, compares as the related record's key; another link
    ///   compares as the row id it holds, as the model's comparison does for a record without a key;
    /// - an ordered to-many (`Z_FOK_<REL>` beside the to-one `Z<REL>`): on the related record, as
    ///   its records in order (named `Step.recipe`, the to-one that holds it: the to-many's own
    ///   name is only in the model); where the related entity is not known, each record's place
    ///   among its siblings.
    ///
    /// Nil where either store has no Z_PRIMARYKEY, or the two number their entities differently.
    static func coreDataSets(old: SQLiteConnection, new: SQLiteConnection) throws -> (sets: [ComparedSet], tables: Set<String>)? {
        guard let newList = try? CoreDataEntityList(rows: new.rows(CoreDataEntityList.query)),
              let oldList = try? CoreDataEntityList(rows: old.rows(CoreDataEntityList.query)),
              !newList.numbers.isEmpty else { return nil }
        for number in newList.numbers where oldList.entries[number].map({ $0.name != newList.entries[number]?.name }) ?? false {
            return nil
        }
        let stores = [try StoreSchema(old), try StoreSchema(new)]
        let connections = [old, new]
        let entries = oldList.entries.merging(newList.entries) { $1 }
        let numbers = entries.keys.sorted()
        let entities = CoreDataEntityList(numbers: numbers, entries: entries)

        func tableOf(_ number: Int64) -> String? {
            guard let root = entries[entities.root(of: number)] else { return nil }
            let name = "Z" + root.name.uppercased()
            return stores.contains { $0.columns[name]?.contains("Z_ENT") == true } ? name : nil
        }
        func lineage(of number: Int64) -> [Int64] {
            var chain = [number], seen: Set<Int64> = [number]
            while let parent = entries[chain.last!]?.parent, parent != 0, entries[parent] != nil, seen.insert(parent).inserted { chain.append(parent) }
            return chain
        }
        /// The entity's uniqueness constraint as its table's unique index has it, or an ancestor's.
        func constraint(of number: Int64) -> (columns: [String], names: [String])? {
            guard let table = tableOf(number) else { return nil }
            for ancestor in lineage(of: number) {
                guard let entity = entries[ancestor]?.name else { continue }
                if let index = stores.lazy.compactMap({ $0.uniqueIndexes[table]?.first { $0.name.hasPrefix("Z_\(entity)_UNIQUE_") } }).first {
                    return (index.columns, String(index.name.dropFirst("Z_\(entity)_UNIQUE_".count)).split(separator: "_").map(String.init))
                }
            }
            return nil
        }
        // Property names the constraints spell out (`ZCOCKTAILNAME` is cocktailName); others lower-cased.
        var spelled: [String: String] = [:]
        for number in numbers {
            guard let constraint = constraint(of: number), constraint.columns.count == constraint.names.count else { continue }
            for (column, name) in zip(constraint.columns, constraint.names) where column == "Z" + name.uppercased() { spelled[column] = name }
        }
        func propertyName(_ column: String) -> String { spelled[column] ?? column.dropFirst().lowercased() }

        // What each table's columns are.
        var links: [String: [String: Int64]] = [:]  // table -> link column -> the entity it points to
        var tables: [String: Set<String>] = [:]
        for store in stores { tables.merge(store.columns) { $0.union($1) } }
        for (name, columns) in tables where columns.contains("Z_ENT") {
            for column in columns where column.hasPrefix("Z") && !column.hasPrefix("Z_") {
                if let number = CoreDataEntityList.entityNumber(inName: "Z_" + column.dropFirst()), column.dropFirst().first?.isNumber == true,
                   column.dropFirst().drop(while: \.isNumber).first != "_", entries[number] != nil {
                    // SwiftData's Z<n><REL>: entity n's to-many without inverse, named as such (`Cocktail.spec`).
                    links[name, default: [:]][column] = number
                    if let owner = entries[number]?.name {
                        spelled[column] = owner + "." + column.dropFirst().drop(while: \.isNumber).lowercased()
                    }
                    continue
                }
                guard stores.contains(where: { $0.isIndexedInteger(column, of: name) }) else { continue }
                let rel = column.dropFirst()
                // Named after an entity, else the destination's root that Core Data's Z<n>_<REL> names.
                if let number = numbers.first(where: { entries[$0]?.name.uppercased() == String(rel) }) {
                    links[name, default: [:]][column] = number
                } else if let marked = columns.first(where: { $0.hasSuffix("_" + rel) && $0.dropFirst().dropLast(rel.count + 1).allSatisfy(\.isNumber)
                                                            && $0.count > rel.count + 2 }),
                          let number = Int64(marked.dropFirst().dropLast(rel.count + 1)), entries[number] != nil {
                    links[name, default: [:]][column] = number
                }
            }
        }
        /// A link column as the related record's key (its constraint's first column), else as it is.
        func toOne(_ column: String, in table: String) -> Field {
            let name = propertyName(column)
            guard let target = links[table]?[column], let targetTable = tableOf(target),
                  let keyColumn = constraint(of: target)?.columns.first else { return Field(name: name, source: .column(column)) }
            return Field(name: name, source: .linkedKey(link: column, table: targetTable, rowID: "Z_PK", keyColumn: keyColumn))
        }
        func isBookkeeping(_ column: String) -> Bool {
            ["Z_PK", "Z_ENT", "Z_OPT"].contains(column) || column.hasPrefix("Z_FOK_")
                || (column.hasPrefix("Z") && column.dropFirst().first?.isNumber == true && column.contains("_"))  // Z<n>_<REL>
        }

        // Per entity, the columns that hold a value in one of its rows, in either store.
        var used: [Int64: Set<String>] = [:]
        for number in numbers {
            guard let table = tableOf(number) else { continue }
            var found: Set<String> = []
            for (store, connection) in zip(stores, connections) {
                guard let columns = store.columns[table]?.sorted() else { continue }
                let counts = try connection.rows("SELECT count(*)\(columns.map { ", count(\(SQL.quote($0)))" }.joined()) FROM \(SQL.quote(table)) WHERE Z_ENT = \(number)")
                guard let row = counts.first, case .integer(let rows) = row[0], rows > 0 else { continue }
                found.insert("")  // the entity has rows
                for (offset, column) in columns.enumerated() { if case .integer(let n) = row[offset + 1], n > 0 { found.insert(column) } }
            }
            if !found.isEmpty { used[number] = found }
        }

        var sets: [ComparedSet] = []
        var setOf: [Int64: Int] = [:]
        for number in numbers {
            guard let table = tableOf(number), let columns = used[number], let entity = entries[number] else { continue }
            let keyColumns = constraint(of: number)?.columns ?? []
            var key: [Field] = [], fields: [Field] = []
            for column in columns.sorted() where !column.isEmpty && !isBookkeeping(column) {
                // A TIMESTAMP column holds Core Data's dates: shown as dates.
                let isDate = stores.contains { $0.types[table]?[column] == "TIMESTAMP" }
                let field = links[table]?[column] != nil ? toOne(column, in: table)
                    : Field(name: propertyName(column), source: .column(column), type: isDate ? .date : nil)
                if keyColumns.contains(column) { key.append(field) } else { fields.append(field) }
            }
            key.sort { (keyColumns.firstIndex(of: column($0)) ?? 0) < (keyColumns.firstIndex(of: column($1)) ?? 0) }
            setOf[number] = sets.count
            sets.append(ComparedSet(name: entity.name, table: table, filter: ("Z_ENT", number), key: key, fields: fields))
        }

        // Ordered to-manys: on the related record where it is known, else each record's place.
        for (table, columns) in tables.sorted(by: { $0.key < $1.key }) where columns.contains("Z_ENT") {
            for order in columns.sorted() where order.hasPrefix("Z_FOK_") {
                let link = "Z" + order.dropFirst("Z_FOK_".count)
                guard columns.contains(link) else { continue }
                let children = numbers.filter { tableOf($0) == table && used[$0]?.contains(order) == true }
                guard let first = children.first, let childName = entries[first]?.name else { continue }
                let name = (children.count == 1 ? childName : entries[entities.root(of: first)]?.name ?? childName) + "." + propertyName(link)
                if let parent = links[table]?[link] {
                    let owners = numbers.filter { setOf[$0] != nil && lineage(of: $0).contains(parent) }
                    // A child is its key, else its values (links and places left out).
                    let childKey = constraint(of: first)?.columns.first
                    let element: String
                    var needed = [link, order, "Z_ENT"]
                    if let childKey, children.allSatisfy({ constraint(of: $0)?.columns.first == childKey }) {
                        let k = "d.\(SQL.quote(childKey))"
                        element = "CASE typeof(\(k)) WHEN 'blob' THEN quote(\(k)) WHEN 'null' THEN '(no key)' ELSE \(k) END"
                        needed.append(childKey)
                    } else {
                        let values = Set(children.flatMap { used[$0] ?? [] }).filter { !$0.isEmpty && !isBookkeeping($0) && links[table]?[$0] == nil }.sorted()
                        needed += values
                        let named = values.map { column in
                            "CASE WHEN d.\(SQL.quote(column)) IS NULL THEN '' ELSE \(SQL.literal(propertyName(column) + "=")) || quote(d.\(SQL.quote(column))) || ', ' END"
                        }
                        element = values.isEmpty ? "'record'" : "'(' || rtrim(\(named.joined(separator: " || ")), ', ') || ')'"
                    }
                    let from = "\(SQL.quote(table)) AS d WHERE d.\(SQL.quote(link)) = t.\"Z_PK\" AND d.\"Z_ENT\" IN (\(children.map(String.init).joined(separator: ", ")))"
                    let sql = "(SELECT coalesce(group_concat(char(30) || k, ''), '') FROM (SELECT \(element) AS k FROM \(from) "
                        + "ORDER BY d.\(SQL.quote(order)), k))"
                    for owner in owners {
                        sets[setOf[owner]!].fields.append(Field(name: name, source: .linkedKeys(sql: sql, needs: [(table, needed)]), list: .ordered))
                    }
                } else {
                    // Its place among the records of the same related row: the order, not the order keys.
                    let (o, l, q) = (SQL.quote(order), SQL.quote(link), SQL.quote(table))
                    let sql = "(CASE WHEN t.\(o) IS NULL THEN NULL ELSE (SELECT count(*) FROM \(q) AS x WHERE x.\(l) = t.\(l) AND x.\(o) < t.\(o)) END)"
                    for child in children {
                        sets[setOf[child]!].fields.append(Field(name: "place in \(propertyName(link))", source: .linkedKeys(sql: sql, needs: [(table, [link, order])])))
                    }
                }
            }
        }
        return (sets, Set(numbers.compactMap(tableOf)))
    }

    private static func column(_ field: Field) -> String {
        switch field.source {
        case .column(let column): column
        case .linkedKey(let link, _, _, _): link
        case .linkedKeys: ""
        }
    }
}

/// What `coreDataSets` reads of one store's schema.
private struct StoreSchema {
    var columns: [String: Set<String>] = [:]
    var types: [String: [String: String]] = [:]
    /// Per table, the unique indexes (not a primary key's) with their columns, by name.
    var uniqueIndexes: [String: [(name: String, columns: [String])]] = [:]
    /// Per table, the columns an index begins with.
    var indexed: [String: Set<String>] = [:]

    init(_ store: SQLiteConnection) throws {
        for row in try store.rows("SELECT m.name, p.name, p.type FROM sqlite_master AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table'") {
            guard case .text(let table) = row[0], case .text(let column) = row[1] else { continue }
            columns[table, default: []].insert(column)
            if case .text(let type) = row[2] { types[table, default: [:]][column] = type.uppercased() }
        }
        for row in try store.rows("SELECT m.tbl_name, i.name, i.\"unique\", i.origin FROM sqlite_master AS m, pragma_index_list(m.tbl_name) AS i "
                                  + "WHERE m.type = 'table' ORDER BY m.tbl_name, i.name") {
            guard case .text(let table) = row[0], case .text(let name) = row[1] else { continue }
            let indexColumns = try store.rows("SELECT name FROM pragma_index_info(\(SQL.literal(name))) ORDER BY seqno")
                .compactMap { row -> String? in if case .text(let column) = row.first { column } else { nil } }
            if let first = indexColumns.first { indexed[table, default: []].insert(first) }
            if case .integer(1) = row[2], case .text(let origin) = row[3], origin != "pk", !indexColumns.isEmpty {
                uniqueIndexes[table, default: []].append((name, indexColumns))
            }
        }
    }

    /// Core Data's to-one column: INTEGER, with an index of its own.
    func isIndexedInteger(_ column: String, of table: String) -> Bool {
        types[table]?[column] == "INTEGER" && indexed[table]?.contains(column) == true
    }
}
