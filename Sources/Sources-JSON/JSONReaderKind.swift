import Pipeline

/// The `json` format of `read:`: `read: { json: data/export.json, records: data.items }`.
public struct JSONReaderKind: ReaderKind {
    public init() {}

    public var name: String { "json" }
    public var picksFieldsByName: Bool { true }
    public func namesInInput(_ input: Input, options: Options) -> [String] { InputNames.jsonKeys(InputNames.head(of: input)) }

    public var spec: ComponentSpec { JSONReaderKind.componentSpec }

    static let componentSpec = ComponentSpec(
        name: "json",
        summary: "Reads a JSON array of objects, one record per object, streaming (any file size). Numbers are "
            + "read as the text written, so decimals stay exact; a missing key or null gives no value.",
        options: [
            OptionSpec("records", .string, default: "the top-level array",
                       "The dotted path of the array of records inside the top-level object, such as data.items."),
            OptionSpec("fields", .stringList, default: "the fields the loads use",
                       "The fields to read; a.b reaches into nested objects. An array is a list (for a to-many link); "
                           + "a field holding an object rejects the record."),
        ])

    /// Refuses `fields` and `records` paths with an empty part (`a..b`) where they are written.
    public func validate(_ options: Options) throws {
        try JSONReaderKind.checkPaths(options, keys: ["fields", "records"])
    }

    /// Checks that the dotted names under `keys` have no empty part.
    static func checkPaths(_ options: Options, keys: [String]) throws {
        for key in keys {
            guard let node = options.node(key) else { continue }
            for item in node.sequence ?? [node] {
                if let name = item.scalar, FieldTree.malformedName(in: [name]) != nil {
                    throw item.error(.jsonInvalidFieldPath, "'\(name)' has an empty part between dots (write a.b to reach the key b inside a)",
                                                            stage: options.stage)
                }
            }
        }
    }

    public func makeReader(input: Input, options: Options, fields: [String]) throws -> any RecordReader {
        try JSONReader(input: input, fields: options.strings("fields") ?? fields, records: options.string("records"))
    }
}
