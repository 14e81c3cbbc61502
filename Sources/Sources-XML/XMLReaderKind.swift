import Pipeline

/// The `xml` format of `read:`: `read: { xml: data/grocery.xml, record: items/item, fields: [name, unit] }`.
public struct XMLReaderKind: ReaderKind {
    public init() {}

    public var name: String { "xml" }
    public var picksFieldsByName: Bool { true }
    public func namesInInput(_ input: Input, options: Options) -> [String] { InputNames.xmlNames(input) }

    public var spec: ComponentSpec { XMLReaderKind.componentSpec }

    static let componentSpec = ComponentSpec(
        name: "xml",
        summary: "Reads records from an XML file, one element per record, streaming (no network, no entities).",
        options: [
            OptionSpec("record", .string, required: true,
                       "The element that is one record: its name (item) or its path from the root element "
                           + "(items/item). Names match local names: namespace prefixes are ignored."),
            OptionSpec("fields", .stringList, default: "the fields the loads use",
                       "The field names. Each takes the record element's attribute of that name, else the text of "
                           + "its child element of that name (a/b for a grandchild), else empty."),
        ])

    public func validate(_ options: Options) throws {
        _ = try XMLReader.Options(options, fields: [])
    }

    /// Opens an `XMLReader`; `fields` (the names the loads use) are its fields unless `fields:` is given.
    public func makeReader(input: Input, options: Options, fields: [String]) throws -> any RecordReader {
        try XMLReader(input: input, options: XMLReader.Options(options, fields: fields))
    }
}
