import Pipeline

/// The `plist` format of `read:`: `read: { plist: data/grocery.plist, key_field: name }`.
public struct PropertyListReaderKind: ReaderKind {
    public init() {}

    public var name: String { "plist" }
    public var picksFieldsByName: Bool { true }
    public func namesInInput(_ input: Input, options: Options) -> [String] { InputNames.plistKeys(input) }

    public var spec: ComponentSpec { PropertyListReaderKind.componentSpec }

    static let componentSpec = ComponentSpec(
        name: "plist",
        summary: "Reads an XML or binary property list: an array of dictionaries, or a dictionary of "
            + "dictionaries (with key_field). Integers, reals, booleans, dates and data keep their types.",
        options: [
            OptionSpec("key_field", .string,
                       "For a dictionary of dictionaries: the field that receives each entry's key."),
            OptionSpec("fields", .stringList, default: "the fields the loads use",
                       "The fields to read; a.b reaches into nested dictionaries."),
        ])

    public func makeReader(input: Input, options: Options, fields: [String]) throws -> any RecordReader {
        try PropertyListReader(input: input, fields: options.strings("fields") ?? fields,
                               keyField: options.string("key_field"))
    }
}
