import Diagnostics
/// A line/column pair inside a text input.
public struct TextPosition: Sendable, Hashable {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// One record on its way through a source: values in the order of the stage's field names.
///
/// Field names live with the stage (a reader's `fieldNames`, a transform's output), not in each
/// record, so a record is just an array of values and where it came from.
public struct Record: Sendable {
    public var values: [Value]
    /// Where the record starts.
    public var location: Location
    /// Where each field starts, where the reader knows it (CSV does); empty otherwise.
    public var fieldPositions: [TextPosition]
    /// In a workbook: how many fields, from the first, lie in the row's cells side by side from
    /// the one `location` names (the reader's fields; one a step adds lies in no cell). A number,
    /// not a location per field: a cell's name is made only for a message.
    public var cellFields: Int

    public init(values: [Value], location: Location, fieldPositions: [TextPosition] = [], cellFields: Int = 0) {
        self.values = values
        self.location = location
        self.fieldPositions = fieldPositions
        self.cellFields = cellFields
    }

    /// The location of field `index`: its own cell, or line and column, where known, else the
    /// record's. For messages: a cell's location is made here.
    public func location(ofField index: Int) -> Location {
        if index < cellFields { return location.cell(columnsRight: index) }
        guard index < fieldPositions.count else { return location }
        var loc = location
        loc.line = fieldPositions[index].line
        loc.column = fieldPositions[index].column
        return loc
    }
}
