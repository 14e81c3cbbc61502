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

/// Works out where a record's fields start from the record's text as read, for a reader that
/// does so only when a message needs a field's line and column (CSV: following every field's
/// start as the file is read costs more than reading the file).
public protocol FieldLocator: AnyObject, Sendable {
    /// Where each field of the record whose text is `text`, starting on `line`, starts.
    func fieldPositions(in text: [UInt8], line: Int) -> [TextPosition]
}

/// One record on its way through a source: values in the order of the stage's field names.
///
/// Field names live with the stage (a reader's `fieldNames`, a transform's output), not in each
/// record, so a record is just an array of values and where it came from.
public struct Record: Sendable {
    public var values: [Value]
    /// Where the record starts.
    public var location: Location
    /// Where each field starts, where the reader knows it (CSV does); empty otherwise. Worked out
    /// from `sourceText` when the reader gave a `locator` and no positions.
    public var fieldPositions: [TextPosition] {
        get {
            guard positions.isEmpty, let locator else { return positions }
            return locator.fieldPositions(in: sourceText, line: sourceLine)
        }
        set { positions = newValue }
    }
    private var positions: [TextPosition]
    /// The record's text as read and the line it starts on, for `locator`; the reader refills the
    /// array of a recycled record in place.
    public var sourceText: [UInt8] = []
    public var sourceLine = 1
    public var locator: (any FieldLocator)?
    /// In a workbook: how many fields, from the first, lie in the row's cells side by side from
    /// the one `location` names (the reader's fields; one a step adds lies in no cell). A number,
    /// not a location per field: a cell's name is made only for a message.
    public var cellFields: Int

    public init(values: [Value], location: Location, fieldPositions: [TextPosition] = [], cellFields: Int = 0) {
        self.values = values
        self.location = location
        self.positions = fieldPositions
        self.cellFields = cellFields
    }

    /// The location of field `index`: its own cell, or line and column, where known, else the
    /// record's. For messages: a cell's location is made here, a CSV field's position found here.
    public func location(ofField index: Int) -> Location {
        if index < cellFields { return location.cell(columnsRight: index) }
        let fieldPositions = self.fieldPositions
        guard index < fieldPositions.count else { return location }
        var loc = location
        loc.line = fieldPositions[index].line
        loc.column = fieldPositions[index].column
        return loc
    }
}
