import Foundation
import Pipeline
internal import CLibXML2

/// Streams the records of an XML file with libxml2's `xmlTextReader`: one element per record,
/// its fields taken from its attributes or child elements.
///
/// Only one record's worth of the document is in memory at a time. The reader never touches the
/// network and never expands entities: a file that uses one (other than `&amp;` and its four
/// siblings, or a character reference) is refused, since entities can read local files or grow
/// without bound. Names match by local name: namespace prefixes are ignored.
///
/// ```swift
/// let reader = try XMLReader(input: input, options: .init(record: "items/item", fields: ["name", "unit"]))
/// while let record = try reader.next() { ... }  // record.location.path is "items/item[1]", ...
/// ```
public final class XMLReader: RecordReader {
    /// The file read, and how it is named in messages and record locations.
    public let input: Input
    public let options: Options
    /// `options.fields`, in order.
    public var fieldNames: [String] { options.fields }
    /// Bytes of the file libxml2 has consumed so far.
    public var bytesRead: Int64 { Int64(max(0, xmlTextReaderByteConsumed(reader))) }

    /// Parsing options: no network ever; big line numbers so that locations stay right past line
    /// 65,535. Never NOENT, DTDLOAD, DTDATTR, DTDVALID or HUGE: nothing outside the file is read
    /// and libxml2's size and depth limits stay on.
    static let parseOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue)

    private let file: Int32
    private let reader: xmlTextReaderPtr
    private var tree = FieldTree(fields: []) { _ in nil }
    /// The record option's steps as the reader's own names.
    private var steps: [FieldTree.Name] = []
    /// A single step (`item`) matches at any depth; a path must match from the root.
    private let matchesAnywhere: Bool
    /// How many leading steps of the record path the open elements match.
    private var matchedSteps = 0
    /// The names of the open elements outside a record, for record paths.
    private var ancestors: [FieldTree.Name] = []
    private var pathPrefix = ""
    private var pathPrefixAncestors: [FieldTree.Name]? = nil
    private var sawRoot = false
    private var recordCount = 0
    private var finished = false

    // One record's fields, reused from record to record.
    private var values: [Value]
    private var filled: [Bool]
    private var texts: [[UInt8]]
    /// The open elements inside the record: their field tree node and the slot their text goes to.
    private var openElements: [(node: Int, slot: Int)] = []

    /// The first error libxml2 reported, captured by `captureError`.
    fileprivate var reported: PipelineError?

    /// Opens `input`; throws when the file cannot be opened or is empty.
    public init(input: Input, options: Options) throws {
        guard let recordSteps = XMLReader.steps(of: options.record) else {
            throw PipelineError(.invalidPipeline, at: Location(file: input.displayPath), stage: "xml",
                                "'record' must name an element (item) or a path of elements (items/item), not '\(options.record)'")
        }
        var fieldSteps: [[String]] = []
        for field in options.fields {
            guard let steps = XMLReader.steps(of: field) else {
                throw PipelineError(.invalidPipeline, at: Location(file: input.displayPath), stage: "xml",
                                    "'\(field)' is not a field name: use an attribute or element name, or a path of child elements")
            }
            fieldSteps.append(steps)
        }
        let descriptor = open(input.url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PipelineError(.io, at: Location(file: input.displayPath), stage: "xml",
                                "cannot open the file: \(String(cString: strerror(errno)))")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_size == 0 {
            close(descriptor)
            throw PipelineError(.invalidInput, at: Location(file: input.displayPath, line: 1, column: 1), stage: "xml",
                                "the file is empty")
        }
        // The path is the document's URL only so that libxml2 can tell its errors from those inside an entity.
        guard let reader = xmlReaderForFd(descriptor, input.url.path, nil, XMLReader.parseOptions) else {
            close(descriptor)
            throw PipelineError(.io, at: Location(file: input.displayPath), stage: "xml", "libxml2 cannot start reading the file")
        }
        self.input = input
        self.options = options
        self.file = descriptor
        self.reader = reader
        matchesAnywhere = recordSteps.count == 1
        values = Array(repeating: .text(""), count: options.fields.count)
        filled = Array(repeating: false, count: options.fields.count)
        texts = Array(repeating: [], count: options.fields.count)
        // From here on libxml2 reports its errors to this reader instead of printing them.
        xmlTextReaderSetStructuredErrorHandler(reader, captureError, Unmanaged.passUnretained(self).toOpaque())
        steps = recordSteps.compactMap(intern)
        tree = FieldTree(fields: fieldSteps, intern: intern)
        if steps.count != recordSteps.count {
            throw PipelineError(.io, at: Location(file: input.displayPath), stage: "xml", "out of memory")
        }
    }

    deinit {
        xmlFreeTextReader(reader)
        close(file)
    }

    /// The next record, or nil at the end of the file; throws `PipelineError` for a file that is
    /// not well-formed XML, uses an entity, or whose root does not match the record path.
    public func next() throws -> Record? {
        guard !finished else { return nil }
        while true {
            let node = try read()
            guard let node else {
                finished = true
                return nil
            }
            switch xmlTextReaderNodeType(reader) {
            case ReaderNode.element:
                let name = node.pointee.name!
                let depth = ancestors.count
                if !sawRoot {
                    sawRoot = true
                    if !matchesAnywhere, !same(name, steps[0]) {
                        finished = true
                        throw PipelineError(.invalidPipeline, at: location(of: node), stage: "xml",
                                            "record path '\(options.record)' does not match the root element <\(String(cString: name))>")
                    }
                }
                let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
                if matchesAnywhere ? same(name, steps[0])
                    : depth == steps.count - 1 && matchedSteps == depth && same(name, steps[depth]) {
                    return try readRecord(node, isEmpty: isEmpty)
                }
                if !isEmpty {
                    if matchedSteps == depth, depth < steps.count - 1, same(name, steps[depth]) { matchedSteps += 1 }
                    ancestors.append(name)
                }
            case ReaderNode.endElement:
                ancestors.removeLast()
                matchedSteps = min(matchedSteps, ancestors.count)
            case ReaderNode.entityReference:
                throw entityError(node)
            default:
                break
            }
        }
    }

    // MARK: Records

    /// Reads the record whose start tag `element` is, up to its end tag.
    private func readRecord(_ element: xmlNodePtr, isEmpty: Bool) throws -> Record {
        recordCount += 1
        let location = recordLocation(element)
        for slot in values.indices {
            values[slot] = .text("")
            filled[slot] = false
        }
        var attribute = element.pointee.properties
        while let current = attribute {
            attribute = current.pointee.next
            let slot = tree.attributeSlot(named: current.pointee.name)
            guard slot >= 0, !filled[slot] else { continue }
            filled[slot] = true
            values[slot] = .text(try attributeText(current))
        }
        if !isEmpty { try readChildren() }
        return Record(values: values, location: location)
    }

    /// Reads the elements inside the record, filling the slots their names resolve to.
    private func readChildren() throws {
        openElements.removeAll(keepingCapacity: true)
        var collecting: [Int] = []
        while let node = try read() {
            switch xmlTextReaderNodeType(reader) {
            case ReaderNode.element:
                let parent = openElements.last ?? (node: 0, slot: -1)
                let child = parent.node >= 0 ? tree.child(of: parent.node, named: node.pointee.name) : -1
                var slot = parent.slot
                if child >= 0, case let fieldSlot = tree.nodes[child].slot, fieldSlot >= 0 {
                    // The first element of a field's name fills it, unless an attribute did.
                    slot = filled[fieldSlot] ? -1 : fieldSlot
                    if slot >= 0 {
                        filled[slot] = true
                        texts[slot].removeAll(keepingCapacity: true)
                        collecting.append(slot)
                    }
                }
                if xmlTextReaderIsEmptyElement(reader) != 1 { openElements.append((child, slot)) }
            case ReaderNode.text, ReaderNode.cdata, ReaderNode.whitespace, ReaderNode.significantWhitespace:
                if let slot = openElements.last?.slot, slot >= 0, let content = node.pointee.content {
                    texts[slot].append(contentsOf: UnsafeBufferPointer(start: content, count: strlen(content)))
                }
            case ReaderNode.endElement:
                if openElements.isEmpty {
                    for slot in collecting { values[slot] = .text(String(decoding: texts[slot], as: UTF8.self)) }
                    return
                }
                openElements.removeLast()
            case ReaderNode.entityReference:
                throw entityError(node)
            default:
                break
            }
        }
        throw PipelineError(.invalidInput, at: Location(file: input.displayPath), stage: "xml", "the file ends inside a record")
    }

    /// The text of an attribute; its value is a list of text nodes, and entity references among them are refused.
    private func attributeText(_ attribute: xmlAttrPtr) throws -> String {
        var part = attribute.pointee.children
        if let only = part, only.pointee.next == nil, only.pointee.type == XML_TEXT_NODE {
            return only.pointee.content.map { String(cString: $0) } ?? ""
        }
        var bytes: [UInt8] = []
        while let node = part {
            part = node.pointee.next
            if node.pointee.type == XML_ENTITY_REF_NODE { throw entityError(node) }
            if let content = node.pointee.content {
                bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: strlen(content)))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: libxml2

    /// Moves to the next node: nil at the end of the document; throws what libxml2 reported.
    @inline(__always)
    private func read() throws -> xmlNodePtr? {
        let status = xmlTextReaderRead(reader)
        if let reported {
            finished = true
            throw reported
        }
        if status == 1, let node = xmlTextReaderCurrentNode(reader) { return node }
        if status == 0 { return nil }
        finished = true
        throw PipelineError(.invalidInput, at: Location(file: input.displayPath), stage: "xml", "libxml2 cannot read the file on")
    }

    /// The name as the reader's dictionary holds it, shared with the element and attribute names it hands out.
    private func intern(_ name: String) -> FieldTree.Name? {
        var bytes = Array(name.utf8)
        bytes.append(0)
        return xmlTextReaderConstString(reader, bytes)
    }

    fileprivate func capture(_ error: xmlError) {
        guard reported == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "malformed XML (error \(error.code))"
        // libxml2 adds the offending bytes on a second line; keep the message on one.
        message = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        if error.code == XML_ERR_INTERNAL_ERROR.rawValue, message.hasPrefix("Excessive depth in document") {
            let limit = message.drop { !$0.isNumber }.prefix { $0.isNumber }
            message = "elements are nested more than \(limit.isEmpty ? "libxml2 allows" : limit + " levels") deep"
        }
        // Inside an entity's text libxml2 counts lines from the entity's start: those are no help.
        let inDocument = error.file.map { strcmp($0, input.url.path) == 0 } ?? false
        let location = Location(file: input.displayPath, line: inDocument && error.line > 0 ? Int(error.line) : nil,
                                column: inDocument && error.line > 0 && error.int2 > 0 ? Int(error.int2) : nil)
        switch Int(error.code) {
        case Int(XML_ERR_UNDECLARED_ENTITY.rawValue), Int(XML_ERR_ENTITY_IS_EXTERNAL.rawValue):
            // `&nbsp;` copied from HTML, or an external entity in an attribute: the advice is the same.
            reported = XMLReader.entityError(named: error.str1.map { String(cString: $0) } ?? "", at: location)
        case Int(XML_ERR_ENTITY_LOOP.rawValue):
            // libxml2 finds entities that expand into each other ("billion laughs") before the
            // reference reaches this reader; it expands nothing either way.
            reported = PipelineError(.invalidInput, at: location, stage: "xml",
                                     "the file uses entities that refer to each other over and over; pipectl does not expand "
                                         + "entities (they can read local files or explode in size): replace them with their text")
        default:
            reported = PipelineError(.invalidInput, at: location, stage: "xml", message)
        }
    }

    // MARK: Locations

    private func recordLocation(_ element: xmlNodePtr) -> Location {
        if pathPrefixAncestors != ancestors {
            pathPrefixAncestors = ancestors
            pathPrefix = (ancestors + [element.pointee.name!]).map { String(cString: $0) }.joined(separator: "/")
        }
        var location = location(of: element)
        location.path = pathPrefix + "[\(recordCount)]"
        return location
    }

    /// The line of the node's start tag (where it ends, for a tag over several lines). No column:
    /// libxml2 keeps none per node, and its parser position is up to a chunk ahead of the node.
    /// libxml2 keeps element lines in 16 bits: past line 65,535 the parser's line stands in, a few
    /// lines ahead at most.
    private func location(of node: xmlNodePtr) -> Location {
        var line = xmlGetLineNo(node)
        if line <= 0 || line >= 65_535 { line = max(line, Int(xmlTextReaderGetParserLineNumber(reader))) }
        return Location(file: input.displayPath, line: line)
    }

    private func entityError(_ node: xmlNodePtr) -> PipelineError {
        finished = true
        return XMLReader.entityError(named: node.pointee.name.map { String(cString: $0) } ?? "", at: location(of: node))
    }

    static func entityError(named name: String, at location: Location) -> PipelineError {
        PipelineError(.invalidInput, at: location, stage: "xml",
                      "the file uses the entity '&\(name);'; pipectl does not expand entities (they can read local files "
                          + "or explode in size): replace it with its text")
    }
}

/// `xmlTextReaderNodeType`'s answers (`xmlReaderTypes`) as plain constants to switch on.
private enum ReaderNode {
    static let element = Int32(XML_READER_TYPE_ELEMENT.rawValue)
    static let text = Int32(XML_READER_TYPE_TEXT.rawValue)
    static let cdata = Int32(XML_READER_TYPE_CDATA.rawValue)
    static let entityReference = Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue)
    static let whitespace = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
    static let significantWhitespace = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
    static let endElement = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
}

/// libxml2's structured error handler; `context` is the `XMLReader` (unretained: it owns the
/// xmlTextReader that calls this, so it outlives every call).
private func captureError(_ context: UnsafeMutableRawPointer?, _ error: xmlErrorPtr?) {
    guard let context, let error else { return }
    Unmanaged<XMLReader>.fromOpaque(context).takeUnretainedValue().capture(error.pointee)
}
