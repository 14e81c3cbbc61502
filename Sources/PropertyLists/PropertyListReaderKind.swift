import Foundation
import Pipeline

/// The `plist` format of `read:`: `read: { plist: data/grocery.plist, key_field: name }`.
public struct PropertyListReaderKind: ReaderKind {
    public init() {}

    public var name: String { "plist" }
    public var picksFieldsByName: Bool { true }
    public func namesInInput(_ input: Input, options: Options) -> [String] { PropertyListReaderKind.keys(in: input) }

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

    /// The dictionary keys of a property list (XML or binary), for the suggestion when a field the
    /// pipeline names never came: read only on that rare path, from a file of at most 16 MB
    /// within the budget.
    static func keys(in input: Input) -> [String] {
        guard let data = try? Data(contentsOf: input.url), data.count <= 16 << 20,
              data.withUnsafeBytes(PropertyListBudget.overrun(in:)) == nil,
              let root = try? PropertyListSerialization.propertyList(from: data, format: nil) else { return [] }
        var keys: [String] = [], seen = Set<String>()
        func visit(_ value: Any) {
            if let dictionary = value as? [String: Any] {
                for (key, inner) in dictionary.sorted(by: { $0.key < $1.key }) {
                    if seen.insert(key).inserted { keys.append(key) }
                    visit(inner)
                }
            } else if let array = value as? [Any] {
                for inner in array.prefix(1000) { visit(inner) }
            }
        }
        visit(root)
        return keys
    }
}
