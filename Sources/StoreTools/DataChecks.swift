import Foundation
import Diagnostics
import Pipeline
import SinksSQLite
import SQLite

/// Runs a pipeline's `checks:` on a store: the new one before it replaces the old (`pipectl
/// run`), or any store of the pipeline (`pipectl check`). Each check reads the table and columns
/// the store's layout names, over the entity's rows and its sub-entities'.
public enum DataChecks {
    /// The most offending records a result names.
    public static let shown = 10

    /// `placeholders`: what the run's links created and no source completed; nil where no run
    /// tells (a stored store), which leaves that check unanswered, as a failure that says so.
    /// `name`: how messages call the store, for `pipectl check`, which reads a store it did not
    /// build as `StoreReading` opens it; nil for the store a run just built.
    public static func run(_ pipeline: PipelineDefinition, storeAt url: URL, name: String? = nil,
                           placeholders: [ImportLog.Placeholder]?) throws -> [CheckResult] {
        guard !pipeline.checks.isEmpty else { return [] }
        do {
            let reading = try name.map { try StoreReading(url, name: $0, stage: "check") }
            defer { withExtendedLifetime(reading) {} }
            let store = try reading.map { SQLiteStore(url: url, connection: $0.connection) } ?? SQLiteStore(readingAt: url)
            let tables = try StoreTables(model: pipeline.model, settings: pipeline.store).tables
            return try pipeline.checks.map { check in
                var result = try evaluate(check, model: pipeline.model, tables: tables, store: store, placeholders: placeholders)
                result.location = check.location
                return result
            }
        } catch {
            throw PipelineError.converting(error, at: name.map { Location(file: $0) })
        }
    }

    /// What a run or `pipectl check` stops with when checks failed: how many, and the first one,
    /// with its offending records when `naming` (a run, whose summary may be quiet); nil when all passed.
    public static func failure(of results: [CheckResult], naming offending: Bool, then ending: String = "") -> PipelineError? {
        guard let failed = results.first(where: { !$0.passed }) else { return nil }
        let count = results.filter { !$0.passed }.count
        return PipelineError(.checksFailed, code: .checksFailed, at: failed.location, stage: "checks",
                             "\(count) check\(count == 1 ? "" : "s") failed, first: \(failed.name): \(failed.detail)"
                                 + (offending && !failed.offending.isEmpty ? " (\(failed.offending.joined(separator: "; ")))" : "")
                                 + ending)
    }

    /// The tables holding an entity's rows (its own and its sub-entities'), each with the filter
    /// that picks them where a table holds other entities too.
    private static func parts(of entity: String, model: StoreModel, tables: [EntityTable?]) -> [(table: EntityTable, filter: String)] {
        var byTable: [String: (table: EntityTable, numbers: [Int64], shared: Bool)] = [:]
        var order: [String] = []
        for (index, member) in model.entities.enumerated() where model.lineage(of: member.name).contains(where: { $0.name == entity }) {
            guard let table = tables[index] else { continue }
            if byTable[table.name] == nil { order.append(table.name); byTable[table.name] = (table, [], false) }
            if let number = table.entityNumber { byTable[table.name]?.numbers.append(number) }
        }
        return order.compactMap { name in
            guard let (table, numbers, _) = byTable[name] else { return nil }
            guard let column = table.entityColumn, !numbers.isEmpty else { return (table, "1") }
            return (table, "t.\(SQL.quote(column)) IN (\(numbers.map(String.init).joined(separator: ", ")))")
        }
    }

    /// `name=Milk`: the row's key as users read it, or its row id where the entity has none.
    private static func keyText(of entity: String, table: EntityTable, model: StoreModel) -> String {
        let attributes = model.allAttributes(of: entity)
        let key = model.uniqueKey(of: entity).compactMap { name in
            attributes.firstIndex { $0.name == name }.flatMap(table.column(ofAttribute:)).map { (name, $0) }
        }
        guard !key.isEmpty else { return "\(SQL.literal("row ")) || t.\(SQL.quote(table.rowID))" }
        return key.map { name, column in "\(SQL.literal("\(name)=")) || coalesce(t.\(SQL.quote(column)), '')" }
            .joined(separator: " || ', ' || ")
    }

    private static func column(_ property: String, of entity: String, in table: EntityTable, model: StoreModel) -> String? {
        if let slot = model.allAttributes(of: entity).firstIndex(where: { $0.name == property }), let column = table.column(ofAttribute: slot) {
            return column
        }
        guard let slot = model.allRelationships(of: entity).firstIndex(where: { $0.name == property }) else { return nil }
        return table.columns.first { if case .link(slot) = $0.source { true } else { false } }?.name
    }

    private static func integer(_ rows: [[Value]]) -> Int {
        if case .integer(let n)? = rows.first?.first { return Int(n) }
        return 0
    }

    private static func texts(_ rows: [[Value]]) -> [String] {
        rows.compactMap { $0.first?.displayText }
    }

    private static func evaluate(_ check: DataCheck, model: StoreModel, tables: [EntityTable?], store: SQLiteStore,
                                 placeholders: [ImportLog.Placeholder]?) throws -> CheckResult {
        let name = check.name
        guard let entity = check.entity else {
            guard let placeholders else {
                return CheckResult(name: name, passed: false, detail: "only a run can tell which records links alone created")
            }
            return CheckResult(name: name, passed: placeholders.isEmpty,
                               detail: placeholders.isEmpty ? "none" : "\(placeholders.count) record\(placeholders.count == 1 ? "" : "s") only links created",
                               offending: placeholders.prefix(shown).map { "\($0.entity) \($0.key) (\($0.first))" })
        }
        let parts = parts(of: entity, model: model, tables: tables)
        func each(_ sql: (EntityTable, String) throws -> String) throws -> [[Value]] {
            try parts.flatMap { part in try store.rows(sql(part.table, part.filter)) }
        }
        switch check.kind {
        case .count(let low, let high):
            let count = try each { table, filter in "SELECT count(*) FROM \(SQL.quote(table.name)) AS t WHERE \(filter)" }
                .reduce(0) { $0 + integer([$1]) }
            let passed = count >= (low ?? 0) && count <= (high ?? .max)
            return CheckResult(name: name, passed: passed, detail: "\(count) record\(count == 1 ? "" : "s")")
        case .notEmpty(let property):
            let isText = model.allAttributes(of: entity).first { $0.name == property }.map { [.string, .uri].contains($0.type) } ?? false
            let condition = { (column: String) in "t.\(SQL.quote(column)) IS NULL" + (isText ? " OR t.\(SQL.quote(column)) = ''" : "") }
            let count = try each { table, filter in
                guard let column = column(property, of: entity, in: table, model: model) else { return "SELECT 0" }
                return "SELECT count(*) FROM \(SQL.quote(table.name)) AS t WHERE \(filter) AND (\(condition(column)))"
            }.reduce(0) { $0 + integer([$1]) }
            let offending = count == 0 ? [] : texts(try each { table, filter in
                guard let column = column(property, of: entity, in: table, model: model) else { return "SELECT NULL WHERE 0" }
                return "SELECT \(keyText(of: entity, table: table, model: model)) FROM \(SQL.quote(table.name)) AS t "
                    + "WHERE \(filter) AND (\(condition(column))) ORDER BY t.\(SQL.quote(table.rowID)) LIMIT \(shown)"
            })
            return CheckResult(name: name, passed: count == 0,
                               detail: count == 0 ? "every record has one" : "\(count) record\(count == 1 ? " has" : "s have") no \(property)",
                               offending: Array(offending.prefix(shown)))
        case .unique(let attributes):
            var repeated: [String] = []
            var groups = 0
            for (table, filter) in parts {
                let columns = attributes.compactMap { column($0, of: entity, in: table, model: model) }
                guard columns.count == attributes.count else { continue }
                let selected = zip(attributes, columns).map { "\(SQL.literal("\($0)=")) || coalesce(t.\(SQL.quote($1)), '')" }
                    .joined(separator: " || ', ' || ")
                let grouped = "FROM \(SQL.quote(table.name)) AS t WHERE \(filter) AND "
                    + columns.map { "t.\(SQL.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
                    + " GROUP BY " + columns.map { "t.\(SQL.quote($0))" }.joined(separator: ", ") + " HAVING count(*) > 1"
                groups += integer(try store.rows("SELECT count(*) FROM (SELECT 1 \(grouped))"))
                repeated += try store.rows("SELECT \(selected) || ' (' || count(*) || ' records)' \(grouped) LIMIT \(shown)")
                    .compactMap { $0.first?.displayText }
            }
            return CheckResult(name: name, passed: groups == 0,
                               detail: groups == 0 ? "no value repeats" : "\(groups) value\(groups == 1 ? " is" : "s are") held by several records",
                               offending: Array(repeated.prefix(shown)))
        case .values(let attributeName, let allowed):
            guard let attribute = model.allAttributes(of: entity).first(where: { $0.name == attributeName }) else {
                return CheckResult(name: name, passed: false, detail: "'\(attributeName)' is no attribute of \(entity)")
            }
            let literals = try allowed.map { text -> String in
                switch attribute.type.convert(.text(text)) {
                case .success(let value): return sqlLiteral(value)
                case .failure(let failure):
                    throw PipelineError(.invalidPipeline, code: .pipelineValueDoesNotFit, at: check.location, stage: "checks",
                                        "\(entity).\(attributeName) (\(attribute.type.rawValue)) cannot hold \(Snippet.quoted(text)): \(failure.reason)")
                }
            }
            var count = 0
            var offending: [String] = []
            for (table, filter) in parts {
                guard let column = column(attributeName, of: entity, in: table, model: model) else { continue }
                let outside = "FROM \(SQL.quote(table.name)) AS t WHERE \(filter) AND t.\(SQL.quote(column)) IS NOT NULL "
                    + "AND t.\(SQL.quote(column)) NOT IN (\(literals.joined(separator: ", ")))"
                count += integer(try store.rows("SELECT count(*) \(outside)"))
                offending += try store.rows("SELECT \(keyText(of: entity, table: table, model: model)) || ': ' || t.\(SQL.quote(column)) "
                                                + "\(outside) ORDER BY t.\(SQL.quote(table.rowID)) LIMIT \(shown)")
                    .compactMap { $0.first?.displayText }
            }
            return CheckResult(name: name, passed: count == 0,
                               detail: count == 0 ? "every value is one of them" : "\(count) record\(count == 1 ? " holds" : "s hold") another value",
                               offending: Array(offending.prefix(shown)))
        case .noPlaceholders:
            return CheckResult(name: name, passed: true, detail: "")
        }
    }

    /// A value as the store keeps it, as a SQL literal.
    private static func sqlLiteral(_ value: Value) -> String {
        switch value {
        case .integer(let n): String(n)
        case .double(let d), .date(let d): String(d)
        case .bool(let b): b ? "1" : "0"
        case .decimal(let d): SQL.literal(d.description)
        case .null: "NULL"
        default: SQL.literal(value.displayText)
        }
    }
}
