import Foundation
import Diagnostics
import Pipeline
import ReportsXLSX
import SinksSQLite
import SQLite

/// The stored rows of each concrete entity, read back from the finished store for the workbook:
/// from the table and columns its layout names (`StoreTables`), filtered by the entity column
/// where a table holds a hierarchy, with columns named as the attributes and to-one
/// relationships (which hold the linked row's id).
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
            var sqlColumns = [table.rowID]
            let attributes = model.allAttributes(of: entity.name)
            let relationships = model.allRelationships(of: entity.name)
            for column in table.columns {
                switch column.source {
                case .attribute(let slot):
                    columns.append(.init(name: attributes[slot].name, type: attributes[slot].type))
                case .link(let slot):
                    columns.append(.init(name: relationships[slot].name, type: .integer64))
                case .linkEntity, .order:
                    continue
                }
                sqlColumns.append(column.name)
            }
            var filter = ""
            if let column = table.entityColumn, let number = table.entityNumber {
                filter = "\(SQL.quote(column)) = \(number) AND "
            }
            let select = "SELECT \(sqlColumns.map(SQL.quote).joined(separator: ", ")) FROM \(SQL.quote(table.name)) "
                + "WHERE \(filter)\(SQL.quote(table.rowID)) > "
            let order = " ORDER BY \(SQL.quote(table.rowID)) LIMIT "
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
}
