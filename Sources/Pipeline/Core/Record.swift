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

    public init(values: [Value], location: Location, fieldPositions: [TextPosition] = []) {
        self.values = values
        self.location = location
        self.fieldPositions = fieldPositions
    }

    /// The location of field `index`: its own line and column where known, else the record's.
    public func location(ofField index: Int) -> Location {
        guard index < fieldPositions.count else { return location }
        var loc = location
        loc.line = fieldPositions[index].line
        loc.column = fieldPositions[index].column
        return loc
    }
}
