import Pipeline

/// The `jsonl` format of `read:`: `read: { jsonl: data/grocery.jsonl }`.
public struct JSONLinesReaderKind: ReaderKind {
    public init() {}

    public var name: String { "jsonl" }
    public var picksFieldsByName: Bool { true }
    public func namesInInput(_ input: Input, options: Options) -> [String] { InputNames.jsonKeys(InputNames.head(of: input)) }

    public var spec: ComponentSpec { JSONLinesReaderKind.componentSpec }

    static let componentSpec = ComponentSpec(
        name: "jsonl",
        summary: "Reads JSON Lines: one JSON object per line, blank lines skipped. Values are read as for json.",
        options: [
            OptionSpec("fields", .stringList, default: "the fields the loads use",
                       "The fields to read; a.b reaches into nested objects. An array is a list (for a to-many link); "
                           + "a field holding an object rejects the record."),
        ])

    /// Refuses `fields` with an empty part (`a..b`) where they are written.
    public func validate(_ options: Options) throws {
        try JSONReaderKind.checkPaths(options, keys: ["fields"])
    }

    public func makeReader(input: Input, options: Options, fields: [String]) throws -> any RecordReader {
        try JSONLinesReader(input: input, fields: options.strings("fields") ?? fields)
    }
}
