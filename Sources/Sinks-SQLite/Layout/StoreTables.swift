import Foundation
import Pipeline

/// Where a store written for a model in a layout keeps each entity's records: the layout's own
/// names, for the tools that read stores back (`inspect`, `diff`, the report's stored rows).
///
/// ```swift
/// let tables = try StoreTables(model: pipeline.model, settings: pipeline.store)
/// tables.tables[0]?.name   // "ZITEM" (coredata) or "Item" (sqlite)
/// ```
public struct StoreTables: Sendable {
    /// One per model entity, in model order; nil for abstract entities, which have no rows.
    public let tables: [EntityTable?]

    public init(model: StoreModel, settings: StoreSettings) throws {
        tables = try StoreTables.layout(model: model, settings: settings).tables
    }

    public init(tables: [EntityTable?]) {
        self.tables = tables
    }

    static func layout(model: StoreModel, settings: StoreSettings) throws -> any TableLayout {
        switch settings.layout {
        case .sqlite: try PlainTableLayout(model: model, settings: settings)
        case .coredata: try CoreDataTableLayout(model: model, settings: settings)
        }
    }
}

/// Stored values as users read them.
public enum StoredValue {
    /// A stored column as users read it: bools as true/false, dates as ISO 8601, a UUID kept as
    /// its 16 bytes as its text.
    public static func displayText(_ value: Value, as type: AttributeType) -> String {
        switch (type, value) {
        case (.bool, .integer(let number)): Value.bool(number != 0).displayText
        case (.date, .double(let seconds)): Value.date(seconds).displayText
        case (.date, .integer(let seconds)): Value.date(Double(seconds)).displayText
        case (.uuid, .binary(let bytes)) where bytes.count == 16:
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
        default: value.displayText
        }
    }
}
