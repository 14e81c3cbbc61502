import Foundation
import Diagnostics
import Pipeline

/// The `xlsx` format of `read:`: `read: { xlsx: data/Groceries.xlsx, sheet: Items }`.
public struct XLSXReaderKind: ReaderKind {
    public init() {}

    public var name: String { "xlsx" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "xlsx",
            summary: "Reads the rows of one sheet of an Excel workbook (.xlsx; Numbers exports one): a row per record, streaming;"
                + " dates, numbers as written, booleans and formulas' values as Excel means them; an error cell rejects its record.",
            options: [
                OptionSpec("sheet", .string, default: "the first sheet (after Numbers' Export Summary)", "The sheet: its name (in any case, as Excel compares them), or its 1-based position."),
                OptionSpec("header", .bool, default: "true", "Whether the first row (of the range) names the fields."),
                OptionSpec("columns", .stringList, "The field names, when `header: false` (or to rename the header's)."),
                OptionSpec("range", .string, default: "the whole sheet",
                           "The cells read, such as `A1:F500`, or from a top left cell to the sheet's end (`A3`): the first row is the header."),
                OptionSpec("timezone", .string, default: "UTC",
                           "The zone the workbook's dates and times are in (Excel keeps none): an IANA name such as `Europe/Berlin`."),
            ])
    }

    public func validate(_ options: Options) throws {
        _ = try Self.options(options)
    }

    static func options(_ options: Options) throws -> XLSXReader.Options {
        var range: (Int, Int, Int, Int)?
        if let text = options.string("range") {
            let corners = text.uppercased().split(separator: ":").map(String.init)
            // One cell is the top left of a block that runs to the sheet's end: `A3` under a title.
            let end = corners.count == 1 ? (column: XLSXReader.lastColumn, row: XLSXReader.lastRow)
                : corners.count == 2 ? XLSXReader.cellPosition(corners[1]) : nil
            guard let start = corners.first.flatMap(XLSXReader.cellPosition), let end, start.column <= end.column, start.row <= end.row else {
                throw (options.node("range") ?? ConfigNode(.null, at: Location(file: ""))).error(.xlsxInvalidRange,
                    "'range' is two cells, the top left and the bottom right, such as A1:F500, or the top left alone (A3: "
                        + "to the end of the sheet); found '\(text)'", stage: "xlsx")
            }
            range = (start.column, start.row, end.column, end.row)
        }
        let header = options.bool("header") ?? true
        if !header, options.strings("columns") == nil {
            throw (options.node("header") ?? ConfigNode(.null, at: Location(file: ""))).error(.pipelineMissingKey,
                "'header: false' needs 'columns:', the names of the fields", stage: "xlsx")
        }
        var zone = TimeZone(identifier: "UTC")!
        if let name = options.string("timezone") {
            guard let found = TimeZone(identifier: name) else {
                throw (options.node("timezone") ?? ConfigNode(.null, at: Location(file: ""))).error(.pipelineUnknownTimeZone,
                    "unknown time zone '\(name)'\(Suggestion.hint(for: name, in: TimeZone.knownTimeZoneIdentifiers)) (use an IANA name such as Europe/Berlin, or UTC)",
                    stage: "xlsx")
            }
            zone = found
        }
        return XLSXReader.Options(sheet: options.string("sheet"), header: header, columns: options.strings("columns"), range: range,
                                  timeZone: zone)
    }

    public func makeReader(input: Input, options: Options, fields: [String]) throws -> any RecordReader {
        var options = try Self.options(options)
        options.fieldsRead = fields.isEmpty ? nil : Set(fields)
        return try XLSXReader(input: input, options: options)
    }
}
