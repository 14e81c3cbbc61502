import Foundation
import Diagnostics
import Pipeline
import ReportsXLSX
import SinksSQLite
import SQLite

/// The stored rows of each concrete entity, read back from the finished store for the workbook:
/// from the table and columns its layout names (`StoreTables`), filtered by the entity column
/// where a table holds a hierarchy, with columns named as the attributes and relationships: a
/// to-one as the linked record's key (`Unit name=kg`), a many-to-many or ordered to-many as the
/// keys it links (`[quick, vegan]`).
public enum StoredRowsQuery {
    /// Rows are read in pages of this many, by row id, so that memory stays flat for any store size.
    static let pageSize = 4096

    /// `limit`: the most rows of each entity (the pipeline's `report: { stored_rows: }`), nil for all.
    /// `storeAt`: the store to read, if not the pipeline's own (a new one not yet in place).
    public static func rows(of pipeline: PipelineDefinition, limit: Int? = nil, storeAt url: URL? = nil) throws -> [StoredRows] {
        guard limit != 0 else { return [] }
        do {
            return try rows(of: pipeline, limit: limit, store: SQLiteStore(readingAt: url ?? pipeline.store.path))
        } catch {
            throw PipelineError.converting(error)
        }
    }

    private static func rows(of pipeline: PipelineDefinition, limit: Int?, store: SQLiteStore) throws -> [StoredRows] {
        let model = pipeline.model
        let tables = try StoreTables(model: model, settings: pipeline.store).tables
        var out: [StoredRows] = []
        for (index, entity) in model.entities.enumerated() {
            guard let table = tables[index] else { continue }
            var columns = [StoredRows.Column(name: "id", type: .integer64)]
            var selected = ["t.\(SQL.quote(table.rowID))"]
            let attributes = model.allAttributes(of: entity.name)
            let relationships = model.allRelationships(of: entity.name)
            for column in table.columns {
                switch column.source {
                case .attribute(let slot):
                    columns.append(.init(name: attributes[slot].name, type: attributes[slot].type))
                    let c = "t.\(SQL.quote(column.name))"
                    if case .externalBinary = column.storage {
                        // The value after Core Data's marker (substr counts bytes in a blob), or its file's name.
                        selected.append("(CASE substr(\(c), 1, 1) WHEN x'01' THEN substr(\(c), 2) "
                                            + "WHEN x'02' THEN '<bytes in _EXTERNAL_DATA/' || CAST(substr(\(c), 2, 36) AS TEXT) || '>' ELSE \(c) END)")
                    } else {
                        selected.append(c)
                    }
                case .link(let slot):
                    columns.append(.init(name: relationships[slot].name, type: .string))
                    selected.append(keyText(of: relationships[slot].destination, row: "t.\(SQL.quote(column.name))",
                                            tables: tables, model: model))
                case .linkEntity, .order:
                    continue
                }
            }
            let layout = StoreTables(tables: tables)
            for slot in ComparedSet.listSlots(of: entity.name, table: table, model: model) {
                guard let field = ComparedSet.listField(slot, of: entity.name, table: table, layout: layout, model: model),
                      case .linkedKeys(let sql, _) = field.source else { continue }
                columns.append(.init(name: field.name, type: .string))
                selected.append(sql)
            }
            var filter = ""
            if let column = table.entityColumn, let number = table.entityNumber {
                filter = "t.\(SQL.quote(column)) = \(number) AND "
            }
            let select = "SELECT \(selected.joined(separator: ", ")) FROM \(SQL.quote(table.name)) AS t "
                + "WHERE \(filter)t.\(SQL.quote(table.rowID)) > "
            let order = " ORDER BY t.\(SQL.quote(table.rowID)) LIMIT "
            out.append(StoredRows(entity: entity.name, columns: columns) { emit in
                var last: Int64 = .min
                var left = limit ?? .max
                while left > 0 {
                    let size = min(pageSize, left)
                    let page = try store.rows(select + String(last) + order + String(size))
                    for row in page { try emit(row) }
                    left -= page.count
                    guard page.count == size, case .integer(let id)? = page.last?.first else { break }
                    last = id
                }
            })
        }
        return out
    }

    /// The key of the `destination` row whose id `row` (an SQL expression) holds, as users read
    /// it: `Unit name=kg`, `Person firstName=Ada, lastName=Lovelace`; `Nutrition row 3` for an
    /// entity keyed otherwise or not at all. NULL where `row` is.
    private static func keyText(of destination: String, row: String, tables: [EntityTable?], model: StoreModel) -> String {
        let fallback = "\(SQL.literal("\(destination) row ")) || \(row)"
        let targets = model.entities.indices.filter { model.lineage(of: model.entities[$0].name).contains { $0.name == destination } }
        guard let table = targets.lazy.compactMap({ tables[$0] }).first,
              targets.allSatisfy({ tables[$0] == nil || tables[$0]?.name == table.name }) else { return fallback }
        let attributes = model.allAttributes(of: destination)
        let key = model.uniqueKey(of: destination)
        let parts = key.compactMap { name in
            attributes.firstIndex { $0.name == name }.flatMap(table.column(ofAttribute:)).map { (name, $0) }
        }
        guard !key.isEmpty, parts.count == key.count else { return fallback }
        let text = parts.map { name, column in "\(SQL.literal("\(name)=")) || coalesce(d.\(SQL.quote(column)), '')" }
            .joined(separator: " || ', ' || ")
        return "(SELECT \(SQL.literal("\(destination) ")) || \(text) FROM \(SQL.quote(table.name)) AS d "
            + "WHERE d.\(SQL.quote(table.rowID)) = \(row))"
    }
}
