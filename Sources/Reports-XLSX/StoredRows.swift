import Pipeline

/// The rows of one entity as stored, for the workbook's sheet of that entity: the caller reads
/// them from the finished store (the report module reads no database itself).
///
/// ```swift
/// StoredRows(entity: "Item", columns: [.init(name: "id", type: .integer64), .init(name: "name", type: .string)]) { emit in
///     for row in try store.rows("SELECT id, name FROM Item ORDER BY id") { try emit(row) }
/// }
/// ```
public struct StoredRows {
    /// A column and the attribute type that decides how its cells are written (dates as Excel
    /// dates, booleans as TRUE/FALSE, numbers as numbers).
    public struct Column: Sendable {
        public var name: String
        public var type: AttributeType
        public init(name: String, type: AttributeType) {
            self.name = name
            self.type = type
        }
    }

    public var entity: String
    public var columns: [Column]
    /// Calls its argument with each row (one value per column), in the order they are to appear.
    public var forEachRow: (_ emit: ([Value]) throws -> Void) throws -> Void

    public init(entity: String, columns: [Column], forEachRow: @escaping (_ emit: ([Value]) throws -> Void) throws -> Void) {
        self.entity = entity
        self.columns = columns
        self.forEachRow = forEachRow
    }
}
