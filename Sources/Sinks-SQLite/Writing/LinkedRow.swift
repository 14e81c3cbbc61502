/// A row that a record links to: its row id, and which entity it is where one table holds the
/// rows of several entities.
struct LinkedRow {
    var rowID: Int64
    /// The linked entity's `EntityTable.entityNumber`; 0 where its table holds it alone.
    var entityNumber: Int64
    /// The linking row's order key in the linked row's ordered to-many (`EntityTable.Source.order`).
    var order: Int64? = nil
}
