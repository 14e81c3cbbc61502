import Foundation
import Diagnostics
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
public final class XMLReader: TrimmingReader, RecyclingReader {
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
    /// The longest field value, as libxml2's limit on one text node (XML_MAX_TEXT_LENGTH).
    static let maxTextBytes = 10_000_000

    private let file: Int32
    /// libxml2's reader (`XMLLayout` walks its nodes too).
    let reader: xmlTextReaderPtr
    private let tree: FieldTree
    /// The record option's steps as the reader's own names.
    private let steps: [FieldTree.Name]
    /// A single step (`item`) matches at any depth; a path must match from the root.
    private let matchesAnywhere: Bool
    // The properties read for every record are @exclusivity(unchecked): a reader belongs to one
    // thread and is not reentered, and their run-time checks were four calls a record.

    /// How many leading steps of the record path the open elements match.
    private var matchedSteps = 0
    /// The names of the open elements outside a record, for record paths.
    @exclusivity(unchecked) private var ancestors: [FieldTree.Name] = []
    /// The file's location, copied for each record: making one from the name looks the name up.
    private let fileLocation: Location
    /// The file's location with the path of the records now read (`items/item`), set when the
    /// elements around them change; each record's location adds its number.
    @exclusivity(unchecked) private var pathBase: Location
    @exclusivity(unchecked) private var pathPrefixAncestors: [FieldTree.Name]? = nil
    private var sawRoot = false
    @exclusivity(unchecked) private var recordCount = 0
    private var finished = false

    /// One record's fields, reused from record to record.
    @exclusivity(unchecked) private var scratch: Scratch
    /// The values array of the record before, handed back by `recycle`.
    @exclusivity(unchecked) private var spareValues: [Value]?
    /// Per field, whether it is trimmed as it is read (`trimWhileReading`).
    private var trims: [Bool]
    /// What libxml2 reported; behind a pointer, as its error handler's context.
    private let trap: Pinned<XMLErrorTrap>
    /// The file as libxml2 reads it; behind a pointer, as its read callback's context.
    private let feed: Pinned<Feed>
    /// How far libxml2 may read ahead of the node it hands over (see `Feed`).
    static let maxReadAhead = 32 << 20
    private var failure: PipelineError?

    /// The state of the record being read. `readRecord` swaps it into a local so that the work
    /// per node pays no exclusivity checks on the class's properties.
    private struct Scratch {
        var values: [Value]
        var filled: [Bool]
        var texts: [[UInt8]]
        /// The open elements inside the record: their field tree node and the slot their text goes to.
        var openElements: [(node: Int, slot: Int)] = []
        /// The slots filled from child elements, turned into text at the record's end.
        var collecting: [Int] = []
        /// Per slot whose element came again: the values of the ones before the last (a list).
        var repeats: [Int: [Value]] = [:]
        /// Per slot whose element has attributes or child elements: what it reads as an object.
        var objects: [Int: ObjectDraft] = [:]
        /// The values the record's lists hold so far (`Fields.maxListValues`).
        var listValues = 0

        init(count: Int) {
            values = Array(repeating: .text(""), count: count)
            filled = Array(repeating: false, count: count)
            texts = Array(repeating: [], count: count)
        }
    }

    /// A field's element with attributes or child elements, read as an object (a list element
    /// for `each:`) unless it holds text and no child elements: `<unit code="kg">Kilogram</unit>`
    /// stays the text it always was.
    private struct ObjectDraft {
        var fields = Fields(names: [], values: [])
        /// How many of `fields` are attributes; the rest are child elements.
        var attributes = 0
        /// The child element being read, and where its text starts in the field's text.
        var child: (name: String, start: Int)?
        /// The fields by name, once there are a few (`Fields.set`).
        var index: [String: Int] = [:]
    }

    /// Opens `input`; throws when the file cannot be opened or is empty.
    public init(input: Input, options: Options) throws {
        guard let recordSteps = XMLReader.steps(of: options.record) else {
            throw PipelineError(.invalidPipeline, code: .xmlInvalidPath, at: Location(file: input.displayPath), stage: "xml",
                                "'record' must name an element (item) or a path of elements (items/item), not '\(options.record)'")
        }
        var fieldSteps: [[String]] = []
        for field in options.fields {
            guard let steps = XMLReader.steps(of: field) else {
                throw PipelineError(.invalidPipeline, code: .xmlInvalidPath, at: Location(file: input.displayPath), stage: "xml",
                                    "'\(field)' is not a field name: use an attribute or element name, or a path of child elements")
            }
            fieldSteps.append(steps)
        }
        let descriptor = open(input.url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PipelineError(.io, code: .inputCannotOpen, at: Location(file: input.displayPath), stage: "xml",
                                "cannot open the file: \(String(cString: strerror(errno)))")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_size == 0 || XMLReader.isBlank(descriptor, size: Int(status.st_size)) {
            close(descriptor)
            throw PipelineError(.invalidInput, code: .inputEmpty, at: Location(file: input.displayPath, line: 1, column: 1), stage: "xml",
                                "the file is empty")
        }
        let feed = Pinned(Feed(descriptor: descriptor))
        // The path is the document's URL only so that libxml2 can tell its errors from those inside an entity.
        guard let reader = xmlReaderForIO(feedXML, nil, feed.context, input.url.path, nil, XMLReader.parseOptions) else {
            close(descriptor)
            throw PipelineError(.io, code: .xmlCannotStartParser, at: Location(file: input.displayPath), stage: "xml",
                                "libxml2 cannot start reading the file")
        }
        self.feed = feed
        self.input = input
        self.options = options
        self.fileLocation = Location(file: input.displayPath)
        self.pathBase = fileLocation
        self.file = descriptor
        self.reader = reader
        matchesAnywhere = recordSteps.count == 1
        scratch = Scratch(count: options.fields.count)
        trims = Array(repeating: false, count: options.fields.count)
        trap = Pinned(XMLErrorTrap(displayPath: input.displayPath, path: input.url.path))
        // From here on libxml2 reports its errors to the trap instead of printing them.
        xmlTextReaderSetStructuredErrorHandler(reader, captureXMLError, trap.context)
        let intern = { XMLReader.intern($0, in: reader) }
        steps = recordSteps.compactMap(intern)
        tree = FieldTree(fields: fieldSteps, intern: intern)
        if steps.count != recordSteps.count {
            throw PipelineError(.io, code: .inputOutOfMemory, at: Location(file: input.displayPath), stage: "xml", "out of memory")
        }
    }

    deinit {
        xmlFreeTextReader(reader)
        close(file)
    }

    /// The next record, or nil at the end of the file; throws `PipelineError` for a file that is
    /// not well-formed XML, uses an entity, or whose root does not match the record path.
    public func next() throws -> Record? {
        if let failure { throw failure }
        guard !finished else { return nil }
        do {
            return try nextRecord()
        } catch let error as PipelineError {
            // The file cannot be read on: say so again if asked for more.
            failure = error
            throw error
        }
    }

    private func nextRecord() throws -> Record? {
        while true {
            let node = try read()
            guard let node else {
                finished = true
                return nil
            }
            switch xmlTextReaderNodeType(reader) {
            case ReaderNode.element:
                guard let name = node.pointee.name else { continue }
                let depth = ancestors.count
                if !sawRoot {
                    sawRoot = true
                    if !matchesAnywhere, !same(name, steps[0]) {
                        throw PipelineError(.invalidPipeline, code: .xmlRecordPathMismatch, at: location(of: node), stage: "xml",
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
                _ = ancestors.popLast()
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
        var record = Scratch(count: 0)
        swap(&record, &scratch)
        defer { swap(&record, &scratch) }
        // The array the record before handed back (`recycle`), or a new one.
        if let spare = spareValues.take(), spare.count == record.filled.count {
            record.values = spare
        } else if record.values.count != record.filled.count {
            record.values = Array(repeating: .text(""), count: record.filled.count)
        }
        for slot in record.values.indices {
            record.values[slot] = .text("")
            record.filled[slot] = false
        }
        var attribute = element.pointee.properties
        while let current = attribute {
            attribute = current.pointee.next
            guard let name = current.pointee.name else { continue }
            let slot = tree.attributeSlot(named: name)
            guard slot >= 0, !record.filled[slot] else { continue }
            record.filled[slot] = true
            record.values[slot] = .text(try attributeText(current, trim: trims[slot]))
        }
        if !isEmpty { try readChildren(into: &record) }
        // Handed out alone: were the array kept here too, the transforms' first change to the
        // record would copy it.
        let values = record.values
        record.values = []
        return Record(values: values, location: location)
    }

    /// Trims the fields as it makes their text (see `RecordReader`): always possible.
    public func trimWhileReading(fields indexes: [Int]) -> Bool {
        for i in indexes where trims.indices.contains(i) { trims[i] = true }
        return true
    }

    /// libxml2 parses each record's element into a tree: more work than the record's transforms
    /// and entity records, which the writing thread then does (`RecordReader.readsSlowly`).
    public var readsSlowly: Bool { true }

    /// Keeps the record's values array for the next record (see `RecordReader`).
    public func recycle(_ record: consuming Record) {
        spareValues = record.values
    }

    /// Reads the elements inside the record, filling the slots their names resolve to.
    private func readChildren(into record: inout Scratch) throws {
        record.openElements.removeAll(keepingCapacity: true)
        record.collecting.removeAll(keepingCapacity: true)
        record.objects.removeAll(keepingCapacity: true)
        record.listValues = 0
        while let node = try read() {
            switch xmlTextReaderNodeType(reader) {
            case ReaderNode.element:
                let parent = record.openElements.last ?? (node: 0, slot: -1)
                let child = parent.node >= 0 ? node.pointee.name.map { tree.child(of: parent.node, named: $0) } ?? -1 : -1
                var slot = parent.slot
                if child >= 0, case let fieldSlot = tree.nodes[child].slot, fieldSlot >= 0 {
                    // The first element of a field's name fills it, unless an attribute did.
                    slot = record.filled[fieldSlot] ? -1 : fieldSlot
                    if slot >= 0 {
                        record.filled[slot] = true
                        record.texts[slot].removeAll(keepingCapacity: true)
                        record.collecting.append(slot)
                    } else if parent.slot != fieldSlot, record.collecting.contains(fieldSlot) {
                        // The element again (not inside itself): the field is a list of their values.
                        try countListValue(of: fieldSlot, in: &record, at: node)
                        record.repeats[fieldSlot, default: []].append(fieldValue(fieldSlot, of: &record))
                        record.texts[fieldSlot].removeAll(keepingCapacity: true)
                        slot = fieldSlot
                    }
                    if slot >= 0, node.pointee.properties != nil { try readObjectAttributes(node, slot: slot, into: &record) }
                } else if slot >= 0, parent.node >= 0, tree.nodes[parent.node].slot == slot, let name = node.pointee.name {
                    // A child element of a field's element: a field of that element read as an object.
                    record.objects[slot, default: ObjectDraft()].child = (try fieldName(name, "an element's name", at: node),
                                                                          record.texts[slot].count)
                }
                if xmlTextReaderIsEmptyElement(reader) != 1 {
                    record.openElements.append((child, slot))
                } else if slot >= 0, parent.node >= 0, child < 0, tree.nodes[parent.node].slot == slot {
                    try endObjectChild(slot, of: &record, at: node)
                }
            case ReaderNode.text, ReaderNode.cdata, ReaderNode.whitespace, ReaderNode.significantWhitespace:
                if let slot = record.openElements.last?.slot, slot >= 0, let content = node.pointee.content {
                    record.texts[slot].append(contentsOf: UnsafeBufferPointer(start: content, count: strlen(content)))
                    // libxml2 limits each text node; comments, CDATA sections and child elements
                    // cut a value into many, so the limit is checked again on the whole value.
                    if record.texts[slot].count > XMLReader.maxTextBytes {
                        throw PipelineError(.invalidInput, code: .xmlValueTooLong, at: location(of: node), stage: "xml",
                                            "the text of field '\(options.fields[slot])' grows past \(XMLReader.maxTextBytes / 1_000_000) MB "
                                                + "here, more than pipectl reads (its pieces between comments, CDATA sections "
                                                + "and child elements count together; is a closing tag missing?)")
                    }
                }
            case ReaderNode.endElement:
                guard let closed = record.openElements.popLast() else {
                    for slot in record.collecting { record.values[slot] = fieldValue(slot, of: &record) }
                    if !record.repeats.isEmpty {
                        for (slot, var before) in record.repeats {
                            before.append(record.values[slot])
                            record.values[slot] = .list(before)
                        }
                        record.repeats.removeAll(keepingCapacity: true)
                    }
                    return
                }
                if closed.slot >= 0, closed.node < 0, let parent = record.openElements.last, parent.node >= 0,
                   tree.nodes[parent.node].slot == closed.slot {
                    try endObjectChild(closed.slot, of: &record, at: node)
                }
            case ReaderNode.entityReference:
                throw entityError(node)
            default:
                break
            }
        }
        throw PipelineError(.invalidInput, code: .xmlTruncated, at: Location(file: input.displayPath), stage: "xml", "the file ends inside a record")
    }

    /// The value of field `slot` once its element ends: its attributes and child elements as an
    /// object where it has any, else its text.
    private func fieldValue(_ slot: Int, of record: inout Scratch) -> Value {
        let text = record.texts[slot].withUnsafeBytes { XMLReader.text($0, trim: trims[slot]) }
        if let object = record.objects.removeValue(forKey: slot), !object.fields.names.isEmpty,
           object.fields.names.count > object.attributes || (Trimming.trimmed(text) ?? text).isEmpty {
            return .object(object.fields)
        }
        return .text(text)
    }

    /// The attributes of a field's element, as the fields of the object it may be read as.
    private func readObjectAttributes(_ element: xmlNodePtr, slot: Int, into record: inout Scratch) throws {
        var fields = Fields(names: [], values: [])
        var attribute = element.pointee.properties
        while let current = attribute {
            attribute = current.pointee.next
            guard let name = current.pointee.name else { continue }
            guard fields.names.count < Fields.maxNames else {
                throw PipelineError(.invalidInput, code: .inputTooManyKeys, at: location(of: element), stage: "xml",
                                    "the element of field '\(options.fields[slot])' has more than \(Fields.maxNames.grouped) attributes, "
                                        + "more than pipectl reads")
            }
            fields.names.append(try fieldName(name, "an attribute's name", at: element))
            fields.values.append(.text(try attributeText(current, trim: trims[slot])))
        }
        record.objects[slot] = ObjectDraft(fields: fields, attributes: fields.names.count)
    }

    /// Ends the child element of field `slot`'s element being read: its text (what the field's
    /// text gained since it began) becomes a field of the object; a name given again, a list.
    private func endObjectChild(_ slot: Int, of record: inout Scratch, at node: xmlNodePtr) throws {
        guard var object = record.objects.removeValue(forKey: slot), let child = object.child else { return }
        let text = Value.text(record.texts[slot][child.start...].withUnsafeBytes { XMLReader.text($0, trim: trims[slot]) })
        if let known = object.fields.position(of: child.name, index: &object.index) {
            // The child again: its values a list, grown in place.
            try countListValue(of: slot, in: &record, at: node)
            var elements = object.fields.values[known].elements
            object.fields.values[known] = .null
            elements.append(text)
            object.fields.values[known] = .list(elements)
        } else if !object.fields.set(child.name, text, index: &object.index) {
            throw PipelineError(.invalidInput, code: .inputTooManyKeys, at: location(of: node), stage: "xml",
                                "the element of field '\(options.fields[slot])' has more than \(Fields.maxNames.grouped) attributes and "
                                    + "child elements, more than pipectl reads")
        }
        object.child = nil
        record.objects[slot] = object
    }

    /// Counts one more value in the record's lists, within `Fields.maxListValues`.
    private func countListValue(of slot: Int, in record: inout Scratch, at node: xmlNodePtr) throws {
        record.listValues += 1
        guard record.listValues < Fields.maxListValues else {  // the list holds one more: the first
            throw PipelineError(.invalidInput, code: .inputTooManyListValues, at: location(of: node), stage: "xml",
                                "the lists of one record hold more than \(Fields.maxListValues.grouped) values (field "
                                    + "'\(options.fields[slot])' repeats here), more than pipectl reads")
        }
    }

    /// The text of an attribute; its value is a list of text nodes, and entity references among them are refused.
    private func attributeText(_ attribute: xmlAttrPtr, trim: Bool) throws -> String {
        var part = attribute.pointee.children
        if let only = part, only.pointee.next == nil, only.pointee.type == XML_TEXT_NODE {
            guard let content = only.pointee.content else { return "" }
            return XMLReader.text(UnsafeRawBufferPointer(start: content, count: strlen(content)), trim: trim)
        }
        var bytes: [UInt8] = []
        while let node = part {
            part = node.pointee.next
            if node.pointee.type == XML_ENTITY_REF_NODE { throw entityError(node) }
            if let content = node.pointee.content {
                bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: strlen(content)))
            }
        }
        return bytes.withUnsafeBytes { XMLReader.text($0, trim: trim) }
    }

    /// UTF-8 `bytes` as text, trimmed as the `trim` transform trims (`trimWhileReading`).
    private static func text(_ bytes: UnsafeRawBufferPointer, trim: Bool) -> String {
        trim ? Trimming.text(bytes) : String(decoding: bytes, as: UTF8.self)
    }

    // MARK: libxml2

    /// Moves to the next node: nil at the end of the document; throws what libxml2 reported.
    @inline(__always)
    func read() throws -> xmlNodePtr? {
        feed.pointee.limit = feed.pointee.delivered + XMLReader.maxReadAhead
        let status = xmlTextReaderRead(reader)
        if feed.pointee.ranAhead { throw readAheadError() }
        if let reported = trap.pointee.error { throw located(reported) }
        if status == 1, let node = xmlTextReaderCurrentNode(reader) { return node }
        if status == 0 { return nil }
        throw PipelineError(.invalidInput, code: .xmlMalformed, at: Location(file: input.displayPath), stage: "xml",
                            "libxml2 cannot read the file on")
    }

    private func readAheadError() -> PipelineError {
        let line = Int(xmlTextReaderGetParserLineNumber(reader))
        return PipelineError(.invalidInput, code: .xmlValueTooLong, at: Location(file: input.displayPath, line: line > 0 ? line : nil), stage: "xml",
                             "a text cut into pieces (by comments, CDATA sections or processing instructions) runs on for "
                                 + "more than \(XMLReader.maxReadAhead >> 20) MB up to here, more than pipectl reads (values "
                                 + "are at most 10 MB; is a closing tag missing?)")
    }

    /// libxml2's error with the parser's line where the error itself has none (inside an entity),
    /// and a word on truncation when it is at the file's very end.
    private func located(_ reported: PipelineError) -> PipelineError {
        var error = reported
        if error.location?.line == nil {
            let line = Int(xmlTextReaderGetParserLineNumber(reader))
            if line > 0 { error.location = Location(file: input.displayPath, line: line) }
        }
        if let line = error.location?.line, endsWithoutClosing(), line >= XMLReader.lineCount(file) - 1 {
            error.message += " (the file ends here: is it cut off?)"
        }
        return error
    }

    /// Whether the file's last non-blank byte is not the '>' that ends a well-formed document.
    private func endsWithoutClosing() -> Bool {
        var status = stat()
        guard fstat(file, &status) == 0, status.st_size > 0 else { return false }
        var tail = [UInt8](repeating: 0, count: Int(min(status.st_size, 64)))
        guard pread(file, &tail, tail.count, off_t(status.st_size) - off_t(tail.count)) == tail.count else { return false }
        return tail.last { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } != UInt8(ascii: ">")
    }

    /// The number of lines in the file, read again from the start (only when reporting an error).
    private static func lineCount(_ descriptor: Int32) -> Int {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0, lines = 1
        while true {
            let count = pread(descriptor, &buffer, buffer.count, offset)
            guard count > 0 else { return lines }
            lines += buffer[..<count].lazy.filter { $0 == 0x0A }.count
            offset += off_t(count)
        }
    }

    /// Whether a small file holds nothing but a byte order mark and white space.
    private static func isBlank(_ descriptor: Int32, size: Int) -> Bool {
        guard size <= 4096 else { return false }
        var bytes = [UInt8](repeating: 0, count: size)
        guard pread(descriptor, &bytes, size, 0) == size else { return false }
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        return text.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
    }

    /// The name as the reader's dictionary holds it, shared with the element and attribute names it hands out.
    private static func intern(_ name: String, in reader: xmlTextReaderPtr) -> FieldTree.Name? {
        var bytes = Array(name.utf8)
        bytes.append(0)
        return xmlTextReaderConstString(reader, bytes)
    }

    // MARK: Locations

    private func recordLocation(_ element: xmlNodePtr) -> Location {
        if pathPrefixAncestors != ancestors {
            pathPrefixAncestors = ancestors
            let names = ancestors + (element.pointee.name.map { [$0] } ?? [])
            pathBase.path = names.map { String(cString: $0) }.joined(separator: "/")
        }
        var location = pathBase.appendingPathIndex(recordCount)
        location.line = line(of: element)
        return location
    }

    /// The location of the node's start tag; see `line(of:)`.
    private func location(of node: xmlNodePtr) -> Location {
        var location = fileLocation
        location.line = line(of: node)
        return location
    }

    /// The line of the node's start tag (where it ends, for a tag over several lines). No column:
    /// libxml2 keeps none per node, and its parser position is up to a chunk ahead of the node.
    /// libxml2 keeps element lines in 16 bits: past line 65,535 the parser's line stands in, a few
    /// lines ahead at most.
    private func line(of node: xmlNodePtr) -> Int {
        let line = xmlGetLineNo(node)
        guard line <= 0 || line >= 65_535 else { return line }
        return max(line, Int(xmlTextReaderGetParserLineNumber(reader)))
    }

    /// A name from the file taken as a field's name (`what`: "an attribute's name"), within
    /// `HeaderBudget.maxNameBytes`: libxml2 allows 50,000 bytes, and 10,000 names an element.
    func fieldName(_ name: UnsafePointer<xmlChar>, _ what: String, at node: xmlNodePtr) throws -> String {
        guard xmlStrlen(name) <= HeaderBudget.maxNameBytes else {
            throw PipelineError(.invalidInput, code: .inputHeaderNameTooLong, at: location(of: node), stage: "xml",
                                HeaderBudget.nameTooLong(what))
        }
        return String(cString: name)
    }

    func entityError(_ node: xmlNodePtr) -> PipelineError {
         XMLReader.entityError(named: node.pointee.name.map { String(cString: $0) } ?? "", at: location(of: node))
    }

    static func entityError(named name: String, at location: Location) -> PipelineError {
        PipelineError(.invalidInput, code: .xmlEntitiesRefused, at: location, stage: "xml",
                      "the file uses the entity '&\(name);'; pipectl does not expand entities (they can read local files "
                          + "or explode in size): replace it with its text")
    }
}

/// The file as libxml2 reads it, with a bound on how far it reads ahead of the reader.
///
/// libxml2's reader (2.9) hands over a text node only once it has parsed what follows it: a text
/// cut by comments, CDATA sections or processing instructions into millions of pieces is parsed
/// whole, as a tree, before its first piece arrives (a 200 MB one took 1 GB). Each read from the
/// reader may pull at most `XMLReader.maxReadAhead` bytes of the file; ordinary documents pull a
/// few kilobytes.
struct Feed {
    let descriptor: Int32
    /// Bytes handed to libxml2 so far.
    var delivered = 0
    /// Where the current read from the reader must stop.
    var limit = Int.max
    /// Whether the reader hit `limit`.
    var ranAhead = false
}

/// libxml2's read callback; `context` is the reader's `Feed`.
private func feedXML(_ context: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ length: Int32) -> Int32 {
    guard let feed = context?.assumingMemoryBound(to: Feed.self), let buffer else { return -1 }
    if feed.pointee.delivered >= feed.pointee.limit {
        feed.pointee.ranAhead = true
        return -1
    }
    while true {
        let count = read(feed.pointee.descriptor, buffer, Int(length))
        if count >= 0 {
            feed.pointee.delivered += count
            return Int32(count)
        }
        if errno != EINTR { return -1 }
    }
}

/// `xmlTextReaderNodeType`'s answers (`xmlReaderTypes`) as plain constants to switch on.
enum ReaderNode {
    static let element = Int32(XML_READER_TYPE_ELEMENT.rawValue)
    static let text = Int32(XML_READER_TYPE_TEXT.rawValue)
    static let cdata = Int32(XML_READER_TYPE_CDATA.rawValue)
    static let entityReference = Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue)
    static let whitespace = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
    static let significantWhitespace = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
    static let endElement = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
}
