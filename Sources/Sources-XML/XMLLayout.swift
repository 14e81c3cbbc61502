import Foundation
import Diagnostics
import Pipeline
internal import CLibXML2

/// Where the records of an XML file are and which fields they have, as `pipectl init` drafts a
/// read of it: the root's first child element is the record (`items/item`), the attributes and
/// child elements of the first `limit` such elements its fields. Read by `XMLReader`'s own
/// libxml2 reader, under its limits: no network, no DTD loaded, an entity refused.
///
/// ```swift
/// let layout = try XMLLayout.find(in: input, limit: 500)  // record: "items/item", fields: ["name", "unit", ...]
/// ```
public struct XMLLayout: Sendable, Hashable {
    /// `record:`: the root element and the record element, as the file names them (with prefixes).
    public var record: String
    /// Attribute names (each element's in sorted order) and child element names, in the order
    /// first met, each once.
    public var fields: [String]

    public init(record: String, fields: [String]) {
        self.record = record
        self.fields = fields
    }

    /// Nil when the root element has no child element.
    public static func find(in input: Input, limit: Int) throws -> XMLLayout? {
        // A reader whose record matches no element ('*' is no XML name): only its parsing is used.
        let reader = try XMLReader(input: input, options: XMLReader.Options(record: "*", fields: []))
        var root: String?, record: String?
        var fields: [String] = [], seen: Set<String> = []
        var records = 0, inRecord = false
        func add(_ name: String) {
            if seen.insert(name).inserted { fields.append(name) }
        }
        var depth = 0
        while let event = try reader.read() {
            switch event.kind {
            case .start:
                depth += 1
                // Names deeper than a record's fields are no field's: a run skips them too.
                guard depth <= 3 else { continue }
                let name = try reader.fieldName(reader.qualifiedName(event), "an element's name", line: event.line)
                switch depth {
                case 1:
                    root = name
                case 2:
                    if record == nil { record = name }
                    inRecord = name == record
                    guard inRecord else { continue }
                    records += 1
                    if records > limit { return XMLLayout(record: "\(root ?? "")/\(name)", fields: fields) }
                    var attributes: [String] = []
                    for attribute in reader.attributes(of: event) {
                        let local = try reader.fieldName(attribute.name, "an attribute's name", line: event.line)
                        attributes.append((attribute.prefix.map { String(cString: $0) + ":" } ?? "") + local)
                    }
                    attributes.sorted().forEach(add)
                case 3 where inRecord:
                    add(name)
                default:
                    break
                }
            case .end:
                depth -= 1
            case .text:
                break
            }
        }
        guard let root, let record else { return nil }
        return XMLLayout(record: "\(root)/\(record)", fields: fields)
    }
}
