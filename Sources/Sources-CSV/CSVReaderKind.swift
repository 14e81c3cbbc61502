import Pipeline

/// The `csv` format of `read:`: `read: { csv: data/grocery.csv, encoding: auto, delimiter: auto }`.
public struct CSVReaderKind: ReaderKind {
    public init() {}

    public var name: String { "csv" }

    public var spec: ComponentSpec { CSVReaderKind.componentSpec }

    static let componentSpec = ComponentSpec(
        name: "csv",
        summary: "Reads a CSV or tab-separated export from Numbers or Excel, one record per row.",
        options: [
            OptionSpec("encoding", .oneOf(CSVReader.Encoding.allCases.map(\.rawValue)), default: "auto",
                       "The text encoding. auto: a byte order mark decides, else UTF-8 if the file is valid UTF-8, "
                           + "else Windows-1252 or Mac Roman, whichever makes sense of the accented letters."),
            OptionSpec("delimiter", .string, default: "auto",
                       "The character between fields: \",\", \";\", tab (or \"\\t\") or \"|\"; auto picks the one "
                           + "that appears equally often on each of the first lines."),
            OptionSpec("header", .bool, default: "true", "Whether the first row names the fields."),
            OptionSpec("columns", .stringList,
                       "The field names, in file order, for a file without a header row (with header: false)."),
        ])

    public func validate(_ options: Options) throws {
        _ = try CSVReader.Options(options)
    }

    /// Opens a `CSVReader`; `fields` is not needed, the runner checks it against the header.
    public func makeReader(input: Input, options: Options, fields: [String]) throws -> any RecordReader {
        try CSVReader(input: input, options: CSVReader.Options(options))
    }
}
