import Foundation
import Diagnostics
import Pipeline
import SQLite
import CoreDataFormat

/// Every row of a Core Data store read against its model: what Core Data or SwiftData would have
/// written for the same objects. `pipectl inspect --model` runs these on any store (exit 68 on an
/// offence), `pipectl run` on the store it built before it replaces the old one (an offence there
/// is a bug of pipectl: exit 70, the old store kept).
///
/// Each table is read once: its record headers first (SQLite's file format gives each value's
/// storage class there), and where every value is one no rule can fault, nothing more; else one
/// query counts every rule's offences, and only a rule that found some reads its first rows.
/// What is checked:
/// - storage classes: INTEGER for Booleans and integers, REAL for Double and Float, REAL or
///   INTEGER for dates and decimals (their columns' NUMERIC affinity stores a whole number as
///   INTEGER), TEXT for strings and URIs, BLOB for UUIDs (16 bytes), Binary and Transformable;
/// - Booleans are 0 or 1, Integer 16 and 32 within their range;
/// - required values are present; an enum's value is one of its cases;
/// - Z_ENT is an entity of the table's hierarchy that is not abstract;
/// - every to-one (and a to-many's `Z<n><REL>` without inverse) points at an existing row of the
///   destination or one of its sub-entities, and its `Z<n>_` column holds that row's Z_ENT;
/// - join rows point at existing rows; order keys (`Z_FOK_`) are distinct within their parent;
/// - no Z_PK is above Z_PRIMARYKEY's Z_MAX for its root.
///
/// ```swift
/// let findings = try StoreRowChecks.run(storeAt: url, model: model)
/// findings.first?.description  // "Item.done: 2 rows not stored as INTEGER, as a Boolean is (Z_PK 1: TEXT 'false', ...)"
/// ```
public enum StoreRowChecks {
    /// The most rows a finding names.
    public static let shown = 5

    /// One rule broken by one or more rows.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        /// The entity (or, for a join table, `Entity.relationship`) whose rows break the rule.
        public var entity: String
        /// The attribute or relationship, or the bookkeeping column (`Z_ENT`, `Z_PK`).
        public var property: String
        /// What the rows hold that the model does not allow.
        public var problem: String
        public var count: Int
        /// The first offending rows: `Z_PK 7: 'true'`.
        public var rows: [String]
        /// A required value or to-one left empty: in a store pipectl built, what the data gave
        /// (an empty or unmatched link), not a row pipectl wrote wrong.
        public var isMissingRequired = false

        public var description: String {
            "\(entity).\(property): \(count) row\(count == 1 ? "" : "s") \(problem)"
                + (rows.isEmpty ? "" : " (\(rows.joined(separator: ", "))\(count > rows.count ? ", ..." : ""))")
        }
    }

    /// What a run stops with when the store it built breaks a rule: pipectl wrote a row the app
    /// would read wrong, which no input should be able to cause; or the data left a value the
    /// model requires empty (a link whose key was empty or not found), which Core Data would
    /// refuse to save.
    public static func failure(_ findings: [Finding], store: String) -> PipelineError? {
        guard !findings.isEmpty else { return nil }
        if findings.allSatisfy(\.isMissingRequired) {
            return PipelineError(.rejected, code: .storeRequiredValueMissing, at: Location(file: store), stage: "row checks",
                                 "the new store would leave values the model requires empty, which Core Data refuses to save, so it "
                                     + "was not put in place and the store was left as it was: "
                                     + findings.map(\.description).joined(separator: "; ")
                                     + ". Give every record a value there (a link whose key is empty or not found leaves it empty), "
                                     + "or make it optional in the model")
        }
        return PipelineError(.storeCheckFailed, code: .storeRowCheckFailed, at: Location(file: store), stage: "row checks",
                             "the new store is not what Core Data would write for the model, so it was not put in place "
                                 + "and the store was left as it was; this is a bug of pipectl, please report it with the pipeline: "
                                 + findings.map(\.description).joined(separator: "; "))
    }

    /// Reads the store at `url` (read-only) against `model`.
    public static func run(storeAt url: URL, model: StoreModel) throws -> [Finding] {
        try run(on: SQLiteStore(readingAt: url), model: model)
    }

    public static func run(on store: SQLiteStore, model: StoreModel) throws -> [Finding] {
        let schema = try CoreDataSchema(model)
        return try run(on: store, schema: schema, model: model)
    }

    /// The checks where the store has every table and column of the model's schema (a version
    /// hash may differ for reasons that leave the rows readable); nil where it lacks one.
    public static func runIfReadable(on store: SQLiteStore, model: StoreModel) throws -> [Finding]? {
        let schema = try CoreDataSchema(model)
        for table in schema.tables {
            let columns = Set(try store.rows("SELECT name FROM pragma_table_info(\(SQL.literal(table.name)))").map { $0[0].displayText })
            guard table.columns.allSatisfy({ columns.contains($0.name) }) else { return nil }
        }
        for join in schema.joinTables {
            let columns = Set(try store.rows("SELECT name FROM pragma_table_info(\(SQL.literal(join.name)))").map { $0[0].displayText })
            guard ([join.sourceColumn, join.destinationColumn] + join.orderColumns).allSatisfy(columns.contains) else { return nil }
        }
        return try run(on: store, schema: schema, model: model)
    }

    private static func run(on store: SQLiteStore, schema: CoreDataSchema, model: StoreModel) throws -> [Finding] {
        let tree = schema.entities
        var findings: [Finding] = []
        for table in schema.tables {
            findings += try check(table, schema: schema, model: model, tree: tree, store: store)
        }
        for join in schema.joinTables {
            findings += try check(join, schema: schema, model: model, tree: tree, store: store)
        }
        return findings
    }

    /// A rule: which rows of a table break it, what to call them, and what to show of a row.
    private struct Rule {
        var entity: String
        var property: String
        var problem: String
        /// A condition on the table's row `t`, true for an offending row.
        var offends: String
        /// What a named offending row shows.
        var shows: String
        /// A query counting offences more cheaply than a pass over every row (through an index,
        /// over distinct keys): 0 means none, else `offends` counts and names them. Nil: the
        /// rule is one of the table's single pass.
        var quick: String?
        /// A required value left empty (`Finding.isMissingRequired`).
        var isMissingRequired = false
        /// Its condition in the single pass where another than `offends` (cheaper, or covering
        /// another rule's too); "" leaves it to another rule's.
        var pass: String?
        /// Values of one column that pass its single-pass condition: where every value of the
        /// table is such a value, the pass has nothing to find (`certainlyClean`).
        var clean: Clean?
    }

    /// Values of `column` a rule never faults: in every row, or only in the rows of `entities`
    /// (by `Z_ENT`), whatever the others hold.
    private struct Clean {
        var column: String
        var values: TableRecords.StoredValues
        var entities: [Int]?

        init(_ column: String, _ values: TableRecords.StoredValues, entities: [Int]? = nil) {
            self.column = column
            self.values = values
            self.entities = entities
        }
    }

    private static func check(_ table: CoreDataSchema.Table, schema: CoreDataSchema, model: StoreModel, tree: CoreDataEntityTree,
                              store: SQLiteStore) throws -> [Finding] {
        let hierarchy = tree.hierarchy(of: table.entity)
        let shared = hierarchy.count > 1
        // Declared types: a TEXT column cannot hold a number (SQLite turns it into text), so none is looked for.
        let declared = Dictionary(try store.rows("SELECT name, upper(type) FROM pragma_table_info(\(SQL.literal(table.name)))")
                                    .map { ($0[0].displayText, $0[1].displayText) }, uniquingKeysWith: { a, _ in a })
        // The rows of an entity and its sub-entities; every row where the table holds one entity.
        func rowsOf(_ entity: String) -> String {
            guard shared else { return "1" }
            return "t.Z_ENT IN (\(subtree(of: entity, tree: tree, model: model).map(String.init).joined(separator: ", ")))"
        }
        func column(_ name: String) -> String { "t." + SQL.quote(name) }

        var rules: [Rule] = []
        let concrete = hierarchy.filter { !$0.isAbstract }.compactMap { tree.number(of: $0.name) }
        let zEnt = concrete.count == 1 ? "t.Z_ENT IS NOT \(concrete[0])" : "t.Z_ENT NOT IN (\(concrete.map(String.init).joined(separator: ", ")))"
        rules.append(Rule(entity: table.entity, property: "Z_ENT",
                          problem: "of an entity that is not \(table.entity) or one of its concrete sub-entities",
                          offends: zEnt, shows: "t.Z_ENT",
                          // A hierarchy's table has an index on Z_ENT: its distinct values are read from it.
                          quick: shared ? "SELECT count(*) FROM (SELECT DISTINCT Z_ENT FROM \(SQL.quote(table.name)) t) t WHERE \(zEnt)" : nil,
                          clean: concrete.count == 1 ? Clean("Z_ENT", .init(integers: Int64(concrete[0])...Int64(concrete[0]))) : nil))

        if let number = tree.number(of: table.entity) {
            // Z_MAX is the highest Z_PK handed out, kept on the root: below it, Core Data hands out a Z_PK already taken.
            let recorded = "coalesce((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(number)), -1)"
            rules.append(Rule(entity: table.entity, property: "Z_PK",
                              problem: "above Z_PRIMARYKEY's Z_MAX, where Core Data would hand out a Z_PK already taken",
                              offends: "t.Z_PK > \(recorded)", shows: "'Z_MAX ' || \(recorded)",
                              quick: "SELECT (SELECT max(Z_PK) FROM \(SQL.quote(table.name))) > \(recorded)"))
        }

        var foreignKeys: [String: String] = [:]  // "entity.relationship" -> column
        for item in table.columns {
            if case .foreignKey(let entity, let relationship) = item.role { foreignKeys[entity + "." + relationship] = item.name }
        }
        var caseColumns: [String: [(column: String, caseName: String)]] = [:]  // "entity.composite"

        for item in table.columns {
            let c = column(item.name)
            switch item.role {
            case .bookkeeping:
                continue
            case .attribute(let entityName, let attributeName):
                guard let entity = model[entityName], let attribute = entity.attributes.first(where: { $0.name == attributeName }) else { continue }
                let filter = rowsOf(entityName)
                let (classes, typeName) = storage(of: attribute.type)
                let shown = "substr(quote(\(c)), 1, 40)"
                let textAffinity = declared[item.name].map { ["CHAR", "CLOB", "TEXT"].contains(where: $0.contains) } ?? false
                rules.append(Rule(entity: entityName, property: attributeName,
                                  problem: "not stored as \(classes.map { $0.uppercased() }.joined(separator: " or ")), as \(typeName) is",
                                  offends: "\(filter) AND (\(wrongClass(c, allowed: classes, textAffinity: textAffinity)))",
                                  shows: "upper(typeof(\(c))) || ' ' || \(shown)",
                                  // A Boolean's value rule below covers text and blobs too.
                                  pass: attribute.type == .bool ? "" : nil,
                                  clean: Clean(item.name, rightClass(allowed: classes, textAffinity: textAffinity))))
                switch attribute.type {
                case .bool:
                    rules.append(Rule(entity: entityName, property: attributeName, problem: "with a Boolean other than 0 or 1",
                                      offends: "\(filter) AND \(c) <> 0 AND \(c) <> 1 AND \(c) < ''", shows: shown,
                                      pass: "\(filter) AND \(c) <> 0 AND \(c) <> 1", clean: Clean(item.name, .init(null: true, integers: 0...1))))
                case .integer16, .integer32:
                    let bits: Int64 = attribute.type == .integer16 ? 15 : 31
                    rules.append(Rule(entity: entityName, property: attributeName, problem: "with a number outside \(typeName)'s range",
                                      offends: "\(filter) AND (\(c) < \(-(Int64(1) << bits)) OR (\(c) > \((Int64(1) << bits) - 1) AND \(c) < ''))",
                                      shows: shown, clean: Clean(item.name, .init(null: true, integers: -(Int64(1) << bits)...((Int64(1) << bits) - 1)))))
                case .uuid:
                    rules.append(Rule(entity: entityName, property: attributeName, problem: "with a UUID that is not 16 bytes",
                                      offends: "\(filter) AND \(c) >= x'' AND length(\(c)) <> 16", shows: "length(\(c)) || ' bytes'",
                                      clean: Clean(item.name, .init(null: true, blobs: true, blobLength: 16))))
                default:
                    break
                }
                if let part = attribute.composite, let composite = entity.composites.first(where: { $0.name == part.composite }) {
                    switch composite.kind {
                    // A model file keeps no cases (only a SwiftData source does): nothing to check them against.
                    case .rawValue(let cases) where !cases.isEmpty:
                        let allowed = cases.map { attribute.type.isInteger ? $0.rawValue : SQL.literal($0.rawValue) }
                        rules.append(Rule(entity: entityName, property: composite.name,
                                          problem: "with a value that is none of \(composite.typeName)'s cases (\(cases.map(\.rawValue).joined(separator: ", ")))",
                                          offends: "\(filter) AND \(c) IS NOT NULL AND \(c) NOT IN (\(allowed.joined(separator: ", ")))", shows: shown))
                        if !composite.isOptional {
                            rules.append(Rule(entity: entityName, property: composite.name, problem: "without a value, which the model requires",
                                              offends: "\(filter) AND \(c) IS NULL", shows: "'empty'", isMissingRequired: true))
                        }
                    case .caseName:
                        caseColumns[entityName + "." + composite.name, default: []].append((item.name, part.element))
                        rules.append(Rule(entity: entityName, property: attributeName,
                                          problem: "with another value than the case name '\(part.element)' in its case's column",
                                          offends: "\(filter) AND \(c) IS NOT NULL AND \(c) IS NOT \(SQL.literal(part.element))", shows: shown))
                    case .rawValue, .structure:
                        break
                    }
                } else if !attribute.isOptional {
                    var present = TableRecords.StoredValues.any
                    present.null = false
                    // A row of another entity of the table leaves the column NULL.
                    rules.append(Rule(entity: entityName, property: attributeName, problem: "without a value, which the model requires",
                                      offends: "\(filter) AND \(c) IS NULL", shows: "'empty'", isMissingRequired: true,
                                      clean: Clean(item.name, present, entities: shared ? subtree(of: entityName, tree: tree, model: model) : nil)))
                }
            case .foreignKey(let entityName, let relationshipName):
                guard let relationship = model.allRelationships(of: entityName).first(where: { $0.name == relationshipName }),
                      let target = targetTable(of: relationship.destination, schema: schema) else { continue }
                let filter = rowsOf(entityName)
                let destination = entityFilter(relationship.destination, alias: "d", target: target, tree: tree, model: model)
                rules.append(Rule(entity: entityName, property: relationshipName,
                                  problem: "pointing at no \(relationship.destination) row",
                                  offends: "\(filter) AND \(c) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQL.quote(target.name)) d WHERE d.Z_PK = \(c)\(destination))",
                                  shows: "'Z_PK ' || \(c)",
                                  quick: try missingKeys(c, table: table.name, filter: filter, target: target.name, destination: destination, store: store)))
                if !relationship.isOptional {
                    rules.append(Rule(entity: entityName, property: relationshipName, problem: "without a \(relationship.destination), which the model requires",
                                      offends: "\(filter) AND \(c) IS NULL", shows: "'empty'", isMissingRequired: true))
                }
            case .foreignEntity(let entityName, let relationshipName):
                guard let key = foreignKeys[entityName + "." + relationshipName],
                      let relationship = model.allRelationships(of: entityName).first(where: { $0.name == relationshipName }),
                      let target = targetTable(of: relationship.destination, schema: schema) else { continue }
                let fk = column(key)
                rules.append(Rule(entity: entityName, property: relationshipName,
                                  problem: "naming another entity in \(item.name) than the row \(key) points at",
                                  offends: "\(rowsOf(entityName)) AND \(fk) IS NOT NULL AND \(c) IS NOT (SELECT d.Z_ENT FROM \(SQL.quote(target.name)) d WHERE d.Z_PK = \(fk))",
                                  shows: "'Z_ENT ' || quote(\(c))",
                                  quick: "SELECT count(*) FROM (SELECT DISTINCT \(fk) AS k, \(c) AS e FROM \(SQL.quote(table.name)) t WHERE \(rowsOf(entityName)) AND \(fk) IS NOT NULL) t "
                                      + "WHERE t.e IS NOT (SELECT d.Z_ENT FROM \(SQL.quote(target.name)) d WHERE d.Z_PK = t.k)"))
            case .orderKey:
                continue  // checked per parent below
            case .listingKey(let listing, let relationshipName):
                guard let target = targetTable(of: listing, schema: schema) else { continue }
                let destination = entityFilter(listing, alias: "d", target: target, tree: tree, model: model)
                rules.append(Rule(entity: table.entity, property: listing + "." + relationshipName,
                                  problem: "listed by no \(listing) row (\(item.name))",
                                  offends: "\(c) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQL.quote(target.name)) d WHERE d.Z_PK = \(c)\(destination))",
                                  shows: "'Z_PK ' || \(c)",
                                  quick: try missingKeys(c, table: table.name, filter: "1", target: target.name, destination: destination, store: store)))
            }
        }
        // An enum without raw values holds its case in exactly one case column (none when optional and nil).
        for (key, columns) in caseColumns.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            guard let entity = model[parts[0]], let composite = entity.composites.first(where: { $0.name == parts[1] }) else { continue }
            let set = columns.map { "(\(column($0.column)) IS NOT NULL)" }.joined(separator: " + ")
            let allowed = composite.isOptional ? "<= 1" : "= 1"
            rules.append(Rule(entity: parts[0], property: parts[1],
                              problem: composite.isOptional ? "with more than one case of \(composite.typeName)" : "with no case, or several, of \(composite.typeName), which the model requires",
                              offends: "\(rowsOf(parts[0])) AND NOT ((\(set)) \(allowed))", shows: "(\(set)) || ' cases'"))
        }

        var findings = try evaluate(rules, table: table.name, row: "'Z_PK ' || t.Z_PK", store: store)
        // Order keys of an ordered to-many, kept on the to-one side: distinct within each parent.
        for item in table.columns {
            guard case .orderKey(let entityName, let relationshipName) = item.role, let key = foreignKeys[entityName + "." + relationshipName] else { continue }
            findings += try duplicateOrder(table: table.name, parent: key, order: item.name, filter: rowsOf(entityName),
                                           entity: entityName, property: relationshipName, store: store)
        }
        return findings
    }

    private static func check(_ join: CoreDataSchema.JoinTable, schema: CoreDataSchema, model: StoreModel, tree: CoreDataEntityTree,
                              store: SQLiteStore) throws -> [Finding] {
        var rules: [Rule] = []
        let name = join.entity + "." + join.relationship
        let destination = model.allRelationships(of: join.entity).first { $0.name == join.relationship }?.destination ?? join.inverseEntity
        for (column, entity) in [(join.sourceColumn, join.entity), (join.destinationColumn, destination)] {
            guard let target = targetTable(of: entity, schema: schema) else { continue }
            let c = "t." + SQL.quote(column)
            let destination = entityFilter(entity, alias: "d", target: target, tree: tree, model: model)
            rules.append(Rule(entity: name, property: column, problem: "of \(join.name) pointing at no \(entity) row",
                              offends: "\(c) IS NULL OR NOT EXISTS (SELECT 1 FROM \(SQL.quote(target.name)) d WHERE d.Z_PK = \(c)\(destination))",
                              shows: "'Z_PK ' || coalesce(\(c), 'empty')",
                              quick: "SELECT (SELECT count(*) FROM \(SQL.quote(join.name)) t WHERE \(c) IS NULL) + ("
                                  + (try missingKeys(c, table: join.name, filter: "1", target: target.name, destination: destination, store: store)) + ")"))
        }
        let pair = "t.\(SQL.quote(join.sourceColumn)) || ', ' || t.\(SQL.quote(join.destinationColumn))"
        var findings = try evaluate(rules, table: join.name, row: "'(\(join.sourceColumn), \(join.destinationColumn)) (' || \(pair) || ')'", store: store)
        for order in join.orderColumns {
            // Z_FOK_<n><REL> orders the rows listed by the column it is named after.
            let parent = "Z_" + order.dropFirst("Z_FOK_".count)
            findings += try duplicateOrder(table: join.name, parent: String(parent), order: order, filter: "1",
                                           entity: name, property: order, store: store)
        }
        return findings
    }

    /// Counts every rule's offences in one pass over the table, then names the first rows of each broken one.
    private static func evaluate(_ rules: [Rule], table: String, row: String, store: SQLiteStore) throws -> [Finding] {
        // The cheap way first: the pass rules' conditions together in one pass over the table
        // (nothing found, nothing more to read: the usual case), each quick rule through its own query.
        var suspects: [Rule] = []
        let pass = rules.filter { $0.quick == nil }
        let conditions = pass.compactMap { rule in (rule.pass ?? rule.offends).isEmpty ? nil : "(\(rule.pass ?? rule.offends))" }
        // NOT INDEXED: an OR of terms on indexed columns (`t.Z_ENT IN (3) AND ...` of a table
        // several entities share) otherwise leads SQLite to read the table once per term through
        // the index and look each row up (ZENTRY of the nested recipes at 1M: 0.126 s, scanned: 0.050 s).
        if !conditions.isEmpty, !certainlyClean(pass.filter { ($0.pass ?? $0.offends) != "" }, table: table, store: store),
           try count("SELECT count(*) FROM \(SQL.quote(table)) t NOT INDEXED WHERE " + conditions.joined(separator: " OR "), store) > 0 {
            suspects += pass
        }
        for rule in rules {
            if let quick = rule.quick, try count(quick, store) > 0 { suspects.append(rule) }
        }
        guard !suspects.isEmpty else { return [] }
        let counts = try store.rows("SELECT " + suspects.map { "count(*) FILTER (WHERE (\($0.offends)))" }.joined(separator: ", ")
                                             + " FROM \(SQL.quote(table)) t NOT INDEXED").first ?? []
        var findings: [Finding] = []
        for (rule, count) in zip(suspects, counts) {
            guard case .integer(let n) = count, n > 0 else { continue }
            let rows = try store.rows("SELECT \(row), \(rule.shows) FROM \(SQL.quote(table)) t WHERE (\(rule.offends)) ORDER BY t.rowid LIMIT \(shown)")
            findings.append(Finding(entity: rule.entity, property: rule.property, problem: rule.problem, count: Int(n),
                                    rows: rows.map { "\($0[0].displayText): \($0[1].displayText)" }, isMissingRequired: rule.isMissingRequired))
        }
        return findings
    }

    /// Whether the table's records hold, in each column a rule of the single pass reads, only
    /// values that pass every such rule of the column (`Rule.clean`), read from the file: then
    /// the pass would find nothing. About a third of the pass's time on a million rows, where
    /// SQLite decodes every value a condition reads. False where a rule has no such values, a
    /// record holds another (the pass then finds it, or finds it passes), or the file is not one
    /// `TableRecords` reads.
    private static func certainlyClean(_ rules: [Rule], table: String, store: SQLiteStore) -> Bool {
        var allowed: [String: TableRecords.StoredValues] = [:]
        var byEntity: [Int64: [String: TableRecords.StoredValues]] = [:]
        for rule in rules {
            guard let clean = rule.clean else { return false }
            if let entities = clean.entities {
                for entity in entities {
                    byEntity[Int64(entity), default: [:]][clean.column] = byEntity[Int64(entity)]?[clean.column]
                        .map { $0.intersection(clean.values) } ?? clean.values
                }
                allowed[clean.column] = allowed[clean.column] ?? .any
            } else {
                allowed[clean.column] = allowed[clean.column].map { $0.intersection(clean.values) } ?? clean.values
            }
        }
        if !byEntity.isEmpty { allowed["Z_ENT"] = allowed["Z_ENT"] ?? .any }
        let columns = allowed.keys.sorted()
        // A row of one of the entities: held to the rules of every row and to its entity's.
        let sets = byEntity.mapValues { own in columns.map { column in own[column].map { allowed[column]!.intersection($0) } ?? allowed[column]! } }
        let cases = columns.firstIndex(of: "Z_ENT").flatMap { sets.isEmpty ? nil : (field: $0, sets: sets) }
        guard !columns.isEmpty, let records = try? store.records(of: table, fields: columns.map(TableRecords.Field.column)),
              (try? records.everyRecord(holds: columns.map { allowed[$0]! }, cases: cases)) == true else { return false }
        readFromHeaders?(table)
        return true
    }

    /// Told each table `certainlyClean` found clean: for tests.
    @TaskLocal static var readFromHeaders: (@Sendable (String) -> Void)?

    private static func duplicateOrder(table: String, parent: String, order: String, filter: String, entity: String, property: String,
                                       store: SQLiteStore) throws -> [Finding] {
        let p = "t." + SQL.quote(parent), o = "t." + SQL.quote(order)
        let groups = "SELECT \(p) AS parent, \(o) AS position, count(*) AS n FROM \(SQL.quote(table)) t WHERE \(filter) AND \(p) IS NOT NULL GROUP BY \(p), \(o) HAVING count(*) > 1"
        guard case .integer(let count)? = try store.rows("SELECT count(*) FROM (\(groups))").first?.first, count > 0 else { return [] }
        let first = try store.rows(groups + " ORDER BY 1, 2 LIMIT \(shown)")
        return [Finding(entity: entity, property: property, problem: "sharing an order key (\(order)) with another row of the same parent",
                        count: Int(count), rows: first.map { "parent \($0[0].displayText): \(order) \($0[1].displayText) \($0[2].displayText) times" })]
    }

    private static func count(_ sql: String, _ store: SQLiteStore) throws -> Int64 {
        if case .integer(let n)? = try store.rows(sql).first?.first { return n }
        return 0
    }

    /// A condition true where `c` holds a storage class other than `allowed` (or NULL). Comparisons,
    /// not typeof(), which costs a function call per row: SQLite orders NULL < numbers < text < blobs,
    /// and a number compared with a number constant needs no conversion.
    static func wrongClass(_ c: String, allowed: [String], textAffinity: Bool) -> String {
        switch Set(allowed) {
        // A REAL in an INTEGER column is left to the value rules (a Boolean of 0.5); text and blobs are wrong.
        case ["integer"], ["real"], ["real", "integer"]: "\(c) > 9e999"
        case ["integer", "real", "text"]: "\(c) >= x''"
        case ["text"]: textAffinity ? "\(c) >= x''" : "\(c) < '' OR \(c) >= x''"
        default: "\(c) < x''"  // BLOB: numbers and text
        }
    }

    /// The values `wrongClass` finds no fault with, as records store them: the two say the same.
    static func rightClass(allowed: [String], textAffinity: Bool) -> TableRecords.StoredValues {
        let numbers = TableRecords.StoredValues(null: true, integers: Int64.min...Int64.max, reals: true)
        var numbersAndText = numbers
        numbersAndText.text = true
        switch Set(allowed) {
        case ["integer"], ["real"], ["real", "integer"]: return numbers
        case ["integer", "real", "text"]: return numbersAndText
        case ["text"]: return textAffinity ? numbersAndText : TableRecords.StoredValues(null: true, text: true)
        default: return TableRecords.StoredValues(null: true, blobs: true)
        }
    }

    /// A query counting the distinct keys in `c` that have no row in `target`, read through the
    /// column's index (Core Data has one on every foreign key and join column). Where the target
    /// has far fewer rows than the table (items pointing at a few units), the keys are found by
    /// skipping from one to the next through the index (a lookup per key, not a read of every row).
    private static func missingKeys(_ c: String, table: String, filter: String, target: String, destination: String,
                                    store: SQLiteStore) throws -> String {
        let missing = "NOT EXISTS (SELECT 1 FROM \(SQL.quote(target)) d WHERE d.Z_PK = t.k\(destination))"
        let rows = try count("SELECT coalesce(max(rowid), 0) FROM \(SQL.quote(table))", store)
        let targets = try count("SELECT coalesce(max(Z_PK), 0) FROM \(SQL.quote(target))", store)
        guard filter == "1", targets * 16 < rows else {
            return "SELECT count(*) FROM (SELECT DISTINCT \(c) AS k FROM \(SQL.quote(table)) t WHERE \(filter) AND \(c) IS NOT NULL) t WHERE \(missing)"
        }
        let next = "SELECT min(\(c)) FROM \(SQL.quote(table)) t"
        return "WITH RECURSIVE keys(k) AS (SELECT (\(next)) UNION ALL SELECT (\(next) WHERE \(c) > keys.k) FROM keys WHERE keys.k IS NOT NULL) "
            + "SELECT count(*) FROM keys t WHERE t.k IS NOT NULL AND \(missing)"
    }

    /// The SQLite storage classes Core Data writes for a type, and the type's name for messages.
    static func storage(of type: AttributeType) -> (classes: [String], name: String) {
        switch type {
        case .bool: (["integer"], "a Boolean")
        case .integer16: (["integer"], "Integer 16")
        case .integer32: (["integer"], "Integer 32")
        case .integer64: (["integer"], "Integer 64")
        case .double: (["real"], "a Double")
        case .float: (["real"], "a Float")
        // TIMESTAMP and DECIMAL columns have NUMERIC affinity: SQLite keeps a whole number as INTEGER.
        case .date: (["real", "integer"], "a Date")
        // Unconfirmed by a real store: pipectl writes a decimal's digits, which SQLite keeps as a
        // number unless it has more digits than a REAL holds.
        case .decimal: (["integer", "real", "text"], "a Decimal")
        case .string: (["text"], "a String")
        case .uri: (["text"], "a URI")
        case .uuid: (["blob"], "a UUID")
        case .binary: (["blob"], "Binary data")
        case .transformable: (["blob"], "a Transformable")
        }
    }

    private static func subtree(of name: String, tree: CoreDataEntityTree, model: StoreModel) -> [Int] {
        tree.entities.filter { entity in model.lineage(of: entity.name).contains { $0.name == name } }.compactMap { tree.number(of: $0.name) }
    }

    private static func targetTable(of entity: String, schema: CoreDataSchema) -> CoreDataSchema.Table? {
        guard let root = schema.entities.root(of: entity) else { return nil }
        return schema.tables.first { $0.entity == root.name }
    }

    /// ` AND d.Z_ENT IN (...)` where the destination's table holds other entities too.
    private static func entityFilter(_ entity: String, alias: String, target: CoreDataSchema.Table, tree: CoreDataEntityTree,
                                     model: StoreModel) -> String {
        guard tree.hierarchy(of: target.entity).count > 1 else { return "" }
        return " AND \(alias).Z_ENT IN (\(subtree(of: entity, tree: tree, model: model).map(String.init).joined(separator: ", ")))"
    }
}
