import Foundation
import Pipeline
import ReportsXLSX
import SinksSQLite

/// The stored rows of each concrete entity, read back from the finished store for the workbook:
/// the entity's table (plain layout) or its root's `Z` table filtered by `Z_ENT` (coredata), with
/// columns named as the attributes and to-one relationships (which hold the linked row's id).
enum StoredRowsQuery {
    /// Rows are read in pages of this many, by row id, so that memory stays flat for any store size.
    static let pageSize = 4096

    /// `limit`: the most rows of each entity (the pipeline's `report: { stored_rows: }`), nil for all.
    static func rows(of pipeline: PipelineDefinition, limit: Int? = nil) throws -> [StoredRows] {
        guard limit != 0 else { return [] }
        let store = try SQLiteStore(readingAt: pipeline.store.path)
        let model = pipeline.model
        let schema = pipeline.store.layout == .coredata ? try CoreDataSchema(model) : nil
        var out: [StoredRows] = []
        for entity in model.entities where !entity.isAbstract {
            var columns = [StoredRows.Column(name: "id", type: .integer64)]
            var sqlColumns: [String]
            var table = entity.name
            var filter = ""
            if let schema {
                guard let root = schema.table(of: entity.name),
                      case .integer(let number)? = try store.scalar(
                          "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = \(literal(entity.name))")
                else { continue }
                table = root.name
                sqlColumns = ["Z_PK"]
                filter = "Z_ENT = \(number) AND "
            } else {
                sqlColumns = ["id"]
            }
            for attribute in model.allAttributes(of: entity.name) where !attribute.isTransient {
                guard let column = schema.map({ $0.column(of: entity.name, property: attribute.name) }) ?? attribute.name
                else { continue }
                columns.append(.init(name: attribute.name, type: attribute.type))
                sqlColumns.append(column)
            }
            for relationship in model.allRelationships(of: entity.name) where !relationship.isToMany && !relationship.isTransient {
                guard let column = schema.map({ $0.column(of: entity.name, property: relationship.name) })
                    ?? "\(relationship.name)_id" else { continue }
                columns.append(.init(name: relationship.name, type: .integer64))
                sqlColumns.append(column)
            }
            let select = "SELECT \(sqlColumns.map(quote).joined(separator: ", ")) FROM \(quote(table)) "
                + "WHERE \(filter)\(quote(sqlColumns[0])) > "
            let order = " ORDER BY \(quote(sqlColumns[0])) LIMIT "
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

    private static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
