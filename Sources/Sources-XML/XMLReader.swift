import Foundation
import Diagnostics
import Pipeline
internal import CLibXML2

/// Streams the records of an XML file with libxml2's push parser and SAX callbacks: one element
/// per record, its fields taken from its attributes or child elements.
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
    /// Bytes of the file handed to libxml2 so far.
    public private(set) var bytesRead: Int64 = 0

    /// Parsing options: no network ever; big line numbers so that locations stay right past line
    /// 65,535. Never NOENT, DTDLOAD, DTDATTR, DTDVALID or HUGE: nothing outside the file is read
    /// and libxml2's size and depth limits stay on.
    static let parseOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue)
    /// The longest field value, as libxml2's limit on one text node (XML_MAX_TEXT_LENGTH).
    static let maxTextBytes = 10_000_000

    private let file: Int32
    /// libxml2's push parser; its SAX callbacks fill `parsed`.
    private let parser: xmlParserCtxtPtr
    /// The events of the chunk parsed last; behind a pointer, as the parser's `_private`.
    private let parsed: Pinned<XMLEvents>
    /// The next event of `parsed` to hand out, and how many may be: those before an error.
    @exclusivity(unchecked) private var position = 0
    @exclusivity(unchecked) private var available = 0
    /// The file's bytes as they are handed to the parser.
    private let chunk: UnsafeMutableRawBufferPointer
    static let chunkBytes = 16 << 10
    private var parsedAll = false
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
    /// An attribute's value with its references decoded (`XMLEvents.decode`), reused.
    @exclusivity(unchecked) private var decoded: [UInt8] = []
    /// Per field, whether it is trimmed as it is read (`trimWhileReading`).
    private var trims: [Bool]
    private var failure: PipelineError?

    /// The state of the record being read, which `readRecord` works on in place.
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
        var handler = XMLEvents.handler()
        // The path is the document's URL only so that libxml2 can tell its errors from those inside an entity.
        guard let parser = xmlCreatePushParserCtxt(&handler, nil, nil, 0, input.url.path) else {
            close(descriptor)
            throw PipelineError(.io, code: .xmlCannotStartParser, at: Location(file: input.displayPath), stage: "xml",
                                "libxml2 cannot start reading the file")
        }
        xmlCtxtUseOptions(parser, XMLReader.parseOptions)
        parsed = Pinned(XMLEvents(trap: XMLErrorTrap(displayPath: input.displayPath, path: input.url.path)))
        parsed.pointee.parser = parser
        // From here on libxml2 reports its errors, and its callbacks their events, to `parsed`.
        parser.pointee._private = parsed.context
        chunk = .allocate(byteCount: XMLReader.chunkBytes, alignment: 16)
        self.parser = parser
        self.input = input
        self.options = options
        self.fileLocation = Location(file: input.displayPath)
        self.pathBase = fileLocation
        self.file = descriptor
        matchesAnywhere = recordSteps.count == 1
        scratch = Scratch(count: options.fields.count)
        trims = Array(repeating: false, count: options.fields.count)
        let intern = { XMLReader.intern($0, in: parser) }
        steps = recordSteps.compactMap(intern)
        tree = FieldTree(fields: fieldSteps, intern: intern)
        if steps.count != recordSteps.count {
            throw PipelineError(.io, code: .inputOutOfMemory, at: Location(file: input.displayPath), stage: "xml", "out of memory")
        }
    }

    deinit {
        // The document node holds the DTD only; the parser does not free it.
        if let document = parser.pointee.myDoc { xmlFreeDoc(document) }
        xmlFreeParserCtxt(parser)
        parsed.pointee.deallocate()
        chunk.deallocate()
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
            let event = try read()
            guard let event else {
                finished = true
                return nil
            }
            switch event.kind {
            case .start:
                guard let name = event.name else { continue }
                let depth = ancestors.count
                if !sawRoot {
                    sawRoot = true
                    if !matchesAnywhere, !same(name, steps[0]) {
                        throw PipelineError(.invalidPipeline, code: .xmlRecordPathMismatch, at: location(line: event.line), stage: "xml",
                                            "record path '\(options.record)' does not match the root element <\(qualifiedName(event))>")
                    }
                }
                if matchesAnywhere ? same(name, steps[0])
                    : depth == steps.count - 1 && matchedSteps == depth && same(name, steps[depth]) {
                    return try readRecord(event)
                }
                if matchedSteps == depth, depth < steps.count - 1, same(name, steps[depth]) { matchedSteps += 1 }
                ancestors.append(name)
            case .end:
                _ = ancestors.popLast()
                matchedSteps = min(matchedSteps, ancestors.count)
            case .text:
                break
            }
        }
    }

    // MARK: Records

    /// Reads the record whose start tag `element` is, up to its end tag.
    private func readRecord(_ element: XMLEvent) throws -> Record {
        recordCount += 1
        let location = recordLocation(element)
        // In place: the record's state is the reader's, and `scratch` is not checked for exclusivity.
        return try withUnsafeMutablePointer(to: &scratch) { scratch in
            // The array the record before handed back (`recycle`), or a new one.
            if let spare = spareValues.take(), spare.count == scratch.pointee.filled.count {
                scratch.pointee.values = spare
            } else if scratch.pointee.values.count != scratch.pointee.filled.count {
                scratch.pointee.values = Array(repeating: .text(""), count: scratch.pointee.filled.count)
            }
            for slot in scratch.pointee.values.indices {
                scratch.pointee.values[slot] = .text("")
                scratch.pointee.filled[slot] = false
            }
            for index in element.range {
                let attribute = parsed.pointee.attributes[index]
                let slot = tree.attributeSlot(named: attribute.name)
                guard slot >= 0, !scratch.pointee.filled[slot] else { continue }
                scratch.pointee.filled[slot] = true
                scratch.pointee.values[slot] = .text(try attributeText(attribute, trim: trims[slot], at: element.line))
            }
            if position < available, parsed.pointee.events[position].kind == .end {
                position += 1  // `<item .../>`: the fields are all attributes
            } else {
                try readChildren(into: &scratch.pointee)
            }
            // Handed out alone: were the array kept here too, the transforms' first change to the
            // record would copy it.
            let values = scratch.pointee.values
            scratch.pointee.values = []
            return Record(values: values, location: location)
        }
    }

    /// Trims the fields as it makes their text (see `RecordReader`): always possible.
    public func trimWhileReading(fields indexes: [Int]) -> Bool {
        for i in indexes where trims.indices.contains(i) { trims[i] = true }
        return true
    }

    /// libxml2's parsing is about as much work as the record's transforms and entity records,
    /// which the writing thread then does (`RecordReader.readsSlowly`): at 1M rows both ways take
    /// the same time, and this one about 4% less CPU.
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
        while let event = try read() {
            switch event.kind {
            case .start:
                let parent = record.openElements.last ?? (node: 0, slot: -1)
                let child = parent.node >= 0 ? event.name.map { tree.child(of: parent.node, named: $0) } ?? -1 : -1
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
                        try countListValue(of: fieldSlot, in: &record, at: event.line)
                        record.repeats[fieldSlot, default: []].append(fieldValue(fieldSlot, of: &record))
                        record.texts[fieldSlot].removeAll(keepingCapacity: true)
                        slot = fieldSlot
                    }
                    if slot >= 0, !event.range.isEmpty { try readObjectAttributes(event, slot: slot, into: &record) }
                } else if slot >= 0, parent.node >= 0, tree.nodes[parent.node].slot == slot, let name = event.name {
                    // A child element of a field's element: a field of that element read as an object.
                    record.objects[slot, default: ObjectDraft()].child = (try fieldName(name, "an element's name", line: event.line),
                                                                          record.texts[slot].count)
                }
                record.openElements.append((child, slot))
            case .text:
                if let slot = record.openElements.last?.slot, slot >= 0 {
                    record.texts[slot].append(contentsOf: parsed.pointee.bytes(event.range))
                    // libxml2 limits each text node; comments, CDATA sections and child elements
                    // cut a value into many, so the limit is checked again on the whole value.
                    if record.texts[slot].count > XMLReader.maxTextBytes {
                        throw PipelineError(.invalidInput, code: .xmlValueTooLong, at: location(line: event.line), stage: "xml",
                                            "the text of field '\(options.fields[slot])' grows past \(XMLReader.maxTextBytes / 1_000_000) MB "
                                                + "here, more than pipectl reads (its pieces between comments, CDATA sections "
                                                + "and child elements count together; is a closing tag missing?)")
                    }
                }
            case .end:
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
                    try endObjectChild(closed.slot, of: &record, at: event.line)
                }
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
    private func readObjectAttributes(_ element: XMLEvent, slot: Int, into record: inout Scratch) throws {
        var fields = Fields(names: [], values: [])
        for index in element.range {
            let attribute = parsed.pointee.attributes[index]
            guard fields.names.count < Fields.maxNames else {
                throw PipelineError(.invalidInput, code: .inputTooManyKeys, at: location(line: element.line), stage: "xml",
                                    "the element of field '\(options.fields[slot])' has more than \(Fields.maxNames.grouped) attributes, "
                                        + "more than pipectl reads")
            }
            fields.names.append(try fieldName(attribute.name, "an attribute's name", line: element.line))
            fields.values.append(.text(try attributeText(attribute, trim: trims[slot], at: element.line)))
        }
        record.objects[slot] = ObjectDraft(fields: fields, attributes: fields.names.count)
    }

    /// Ends the child element of field `slot`'s element being read: its text (what the field's
    /// text gained since it began) becomes a field of the object; a name given again, a list.
    private func endObjectChild(_ slot: Int, of record: inout Scratch, at line: Int) throws {
        guard var object = record.objects.removeValue(forKey: slot), let child = object.child else { return }
        let text = Value.text(record.texts[slot][child.start...].withUnsafeBytes { XMLReader.text($0, trim: trims[slot]) })
        if let known = object.fields.position(of: child.name, index: &object.index) {
            // The child again: its values a list, grown in place.
            try countListValue(of: slot, in: &record, at: line)
            var elements = object.fields.values[known].elements
            object.fields.values[known] = .null
            elements.append(text)
            object.fields.values[known] = .list(elements)
        } else if !object.fields.set(child.name, text, index: &object.index) {
            throw PipelineError(.invalidInput, code: .inputTooManyKeys, at: location(line: line), stage: "xml",
                                "the element of field '\(options.fields[slot])' has more than \(Fields.maxNames.grouped) attributes and "
                                    + "child elements, more than pipectl reads")
        }
        object.child = nil
        record.objects[slot] = object
    }

    /// Counts one more value in the record's lists, within `Fields.maxListValues`.
    private func countListValue(of slot: Int, in record: inout Scratch, at line: Int) throws {
        record.listValues += 1
        guard record.listValues < Fields.maxListValues else {  // the list holds one more: the first
            throw PipelineError(.invalidInput, code: .inputTooManyListValues, at: location(line: line), stage: "xml",
                                "the lists of one record hold more than \(Fields.maxListValues.grouped) values (field "
                                    + "'\(options.fields[slot])' repeats here), more than pipectl reads")
        }
    }

    /// The text of an attribute of the start tag on `line`; an entity reference in it is refused.
    private func attributeText(_ attribute: XMLAttribute, trim: Bool, at line: Int) throws -> String {
        let value = parsed.pointee.bytes(attribute.value)
        guard attribute.hasReference else { return XMLReader.text(value, trim: trim) }
        var entity: String?
        guard XMLEvents.decode(value, into: &decoded, entity: &entity) else {
            throw XMLReader.entityError(named: entity ?? String(decoding: value, as: UTF8.self), at: location(line: line))
        }
        return decoded.withUnsafeBytes { XMLReader.text($0, trim: trim) }
    }

    /// UTF-8 `bytes` as text, trimmed as the `trim` transform trims (`trimWhileReading`). libxml2
    /// hands over only UTF-8 it has checked (it refuses a file that is not, and encodes character
    /// references itself), so the bytes are not checked again.
    @inline(__always)
    private static func text(_ bytes: UnsafeRawBufferPointer, trim: Bool) -> String {
        UTF8Text.fromValidUTF8(trim ? UnsafeRawBufferPointer(rebasing: bytes[Trimming.range(of: bytes)]) : bytes)
    }

    // MARK: libxml2

    /// The next event: nil at the end of the document; throws what libxml2 reported once the
    /// events before it are read.
    @inline(__always)
    func read() throws -> XMLEvent? {
        guard position < available else { return try parseOn() }
        position += 1
        return parsed.pointee.events[position - 1]
    }

    /// Parses the next chunk of the file, until it gives events, an error or the end.
    private func parseOn() throws -> XMLEvent? {
        while true {
            if let (error, isLibXML2s) = parsed.pointee.error { throw isLibXML2s ? located(error) : error }
            if parsedAll { return nil }
            parsed.pointee.removeAll()
            position = 0
            let count = Feed.read(file, into: chunk)
            guard count >= 0 else {
                throw PipelineError(.io, code: .inputCannotRead, at: Location(file: input.displayPath), stage: "xml",
                                    "cannot read the file: \(String(cString: strerror(errno)))")
            }
            bytesRead += Int64(count)
            parsedAll = count == 0
            let status = xmlParseChunk(parser, chunk.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(count), parsedAll ? 1 : 0)
            if status != 0, parsed.pointee.error == nil, parser.pointee.wellFormed == 0 {
                parsed.pointee.fail(PipelineError(.invalidInput, code: .xmlMalformed, at: Location(file: input.displayPath), stage: "xml",
                                                  "libxml2 cannot read the file on"))
            }
            available = parsed.pointee.errorAt ?? parsed.pointee.events.count
            if available > 0 {
                position = 1
                return parsed.pointee.events[0]
            }
        }
    }

    /// libxml2's error with the parser's line where the error itself has none (inside an entity),
    /// and a word on truncation when it is at the file's very end.
    private func located(_ reported: PipelineError) -> PipelineError {
        var error = reported
        if error.location?.line == nil {
            let line = parsed.pointee.line
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

    /// The name as the parser's dictionary holds it, shared with the element and attribute names it hands out.
    private static func intern(_ name: String, in parser: xmlParserCtxtPtr) -> FieldTree.Name? {
        let bytes = Array(name.utf8)
        return xmlDictLookup(parser.pointee.dict, bytes, Int32(bytes.count))
    }

    // MARK: Locations

    private func recordLocation(_ element: XMLEvent) -> Location {
        if pathPrefixAncestors != ancestors {
            pathPrefixAncestors = ancestors
            let names = ancestors + (element.name.map { [$0] } ?? [])
            pathBase.path = names.map { String(cString: $0) }.joined(separator: "/")
        }
        var location = pathBase.appendingPathIndex(recordCount)
        location.line = element.line > 0 ? element.line : nil
        return location
    }

    /// The file's location at `line`: where the parser was as it met an event (for a start tag,
    /// the line of its `>`). No column: the parser reads whole tags before it tells of them.
    func location(line: Int) -> Location {
        var location = fileLocation
        location.line = line > 0 ? line : nil
        return location
    }

    /// The attributes of a start tag.
    func attributes(of event: XMLEvent) -> ArraySlice<XMLAttribute> {
        parsed.pointee.attributes[event.range]
    }

    /// An element's name as the file writes it, with its prefix.
    func qualifiedName(_ event: XMLEvent) -> String {
        let local = event.name.map { String(cString: $0) } ?? ""
        return event.prefix.map { String(cString: $0) + ":" + local } ?? local
    }

    /// A name from the file taken as a field's name (`what`: "an attribute's name"), within
    /// `HeaderBudget.maxNameBytes`: libxml2 allows 50,000 bytes, and 10,000 names an element.
    func fieldName(_ name: UnsafePointer<xmlChar>, _ what: String, line: Int) throws -> String {
        try fieldName(String(cString: name), what, line: line)
    }

    func fieldName(_ name: String, _ what: String, line: Int) throws -> String {
        guard name.utf8.count <= HeaderBudget.maxNameBytes else {
            throw PipelineError(.invalidInput, code: .inputHeaderNameTooLong, at: location(line: line), stage: "xml",
                                HeaderBudget.nameTooLong(what))
        }
        return name
    }

    static func entityError(named name: String, at location: Location) -> PipelineError {
        PipelineError(.invalidInput, code: .xmlEntitiesRefused, at: location, stage: "xml",
                      "the file uses the entity '&\(name);'; pipectl does not expand entities (they can read local files "
                          + "or explode in size): replace it with its text")
    }
}

/// The file read in chunks for the parser.
enum Feed {
    /// Fills `chunk` from the file as far as it can: the byte count, 0 at the end, -1 on an error (in `errno`).
    static func read(_ descriptor: Int32, into chunk: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < chunk.count {
            let count = Foundation.read(descriptor, chunk.baseAddress! + filled, chunk.count - filled)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return -1
            }
            filled += count
        }
        return filled
    }
}
