import Foundation
import Diagnostics
import Pipeline
internal import CLibXML2

/// One thing libxml2's parser met, in document order: a start tag, an end tag or a piece of text.
struct XMLEvent {
    enum Kind: UInt8 { case start, end, text }

    var kind: Kind
    /// The element's local name (start and end tags), from the parser's dictionary.
    var name: FieldTree.Name?
    /// The element's namespace prefix, if it has one.
    var prefix: FieldTree.Name?
    /// The parser's line as it met the event; for a start tag, the line of its `>`.
    var line: Int
    /// A start tag's attributes (in `XMLEvents.attributes`), or a text's bytes (in `XMLEvents.bytes`).
    var range: Range<Int>
}

/// An attribute of a start tag, its value in `XMLEvents.bytes`.
struct XMLAttribute {
    var name: FieldTree.Name
    var prefix: FieldTree.Name?
    var value: Range<Int>
    /// Whether the value holds an `&`: libxml2 hands an `&` over as `&#38;`, and an entity it
    /// does not expand as `&name;` (see `XMLEvents.decode`).
    var hasReference: Bool
}

/// The events libxml2's SAX callbacks gathered from the chunk of the file parsed last, taken by
/// the reader in order. Reached from the callbacks through the parser's `_private`.
///
/// libxml2's own SAX2 callbacks still keep the DTD, so that entities are declared, checked and
/// refused as its tree parser would; pipectl's own take the elements and text, so that no tree is
/// built: the text reader it replaced built and freed a node for every element and attribute.
struct XMLEvents {
    var events: [XMLEvent] = []
    var attributes: [XMLAttribute] = []
    /// The texts and attribute values, one after the other; grown as the chunk needs, freed by
    /// `deallocate`. The reader reads them in place until the next chunk is parsed.
    private(set) var bytes: UnsafeMutableRawPointer
    private(set) var byteCount = 0
    private var byteCapacity: Int
    /// What libxml2 reported.
    var trap: XMLErrorTrap
    /// The first error, libxml2's (`trap`) or the callbacks' own, and where: the events before it
    /// are read, then it is thrown.
    private(set) var error: (error: PipelineError, isLibXML2s: Bool)?
    private(set) var errorAt: Int?
    /// How deep the open elements are nested.
    private var depth = 0
    /// libxml2's own limit (`xmlParserMaxDepth`) on how deep a document's elements are nested,
    /// which its parser checks only when it builds a tree.
    static let maxDepth = 256
    /// The parser, for its line.
    var parser: xmlParserCtxtPtr?

    init(trap: XMLErrorTrap) {
        self.trap = trap
        byteCapacity = 1 << 16
        bytes = .allocate(byteCount: byteCapacity, alignment: 16)
    }

    func deallocate() {
        bytes.deallocate()
    }

    /// The bytes of a text or an attribute's value.
    @inline(__always)
    func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes + range.lowerBound, count: range.count)
    }

    /// Appends `count` bytes from `start`: where they now are.
    private mutating func append(_ start: UnsafePointer<xmlChar>, count: Int) -> Range<Int> {
        if byteCount + count > byteCapacity {
            byteCapacity = max(byteCapacity * 2, byteCount + count)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: byteCapacity, alignment: 16)
            grown.copyMemory(from: bytes, byteCount: byteCount)
            bytes.deallocate()
            bytes = grown
        }
        (bytes + byteCount).copyMemory(from: start, byteCount: count)
        byteCount += count
        return (byteCount - count)..<byteCount
    }

    var line: Int { Int(parser?.pointee.input?.pointee.line ?? 0) }

    /// The file's location at the parser's line.
    func location() -> Location {
        Location(file: trap.displayPath, line: line > 0 ? line : nil)
    }

    /// Keeps the first error and stops the parser there: nothing after it is read.
    mutating func fail(_ error: PipelineError, isLibXML2s: Bool = false) {
        guard self.error == nil else { return }
        self.error = (error, isLibXML2s)
        errorAt = events.count
        // What xmlStopParser does, short of freeing the input the parser may still be reading.
        // Without it an entity referenced again is parsed again (in SAX, libxml2 keeps no copy).
        parser?.pointee.instate = XML_PARSER_EOF
        parser?.pointee.disableSAX = 1
    }

    /// Forgets the events read, keeping the storage for the next chunk's.
    mutating func removeAll() {
        events.removeAll(keepingCapacity: true)
        attributes.removeAll(keepingCapacity: true)
        byteCount = 0
    }

    mutating func text(_ characters: UnsafePointer<xmlChar>, count: Int) {
        guard errorAt == nil, count > 0 else { return }
        let range = append(characters, count: count)
        // libxml2 hands a text over in pieces (around each `&amp;`, at its buffer's end): one event.
        if let last = events.indices.last, events[last].kind == .text, events[last].range.upperBound == range.lowerBound {
            events[last].range = events[last].range.lowerBound..<range.upperBound
        } else {
            events.append(XMLEvent(kind: .text, line: line, range: range))
        }
    }

    /// An attribute value as text: `&#38;` (and any other character reference) decoded, the five
    /// predefined entities too, into `out`; false and `entity` set for an entity libxml2 left in place.
    static func decode(_ value: UnsafeRawBufferPointer, into out: inout [UInt8], entity: inout String?) -> Bool {
        out.removeAll(keepingCapacity: true)
        var i = 0
        while let ampersand = value[i...].firstIndex(of: UInt8(ascii: "&")) {
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[i..<ampersand]))
            guard let end = value[ampersand...].firstIndex(of: UInt8(ascii: ";")) else { return false }
            let name = UnsafeRawBufferPointer(rebasing: value[(ampersand + 1)..<end])
            if name.first == UInt8(ascii: "#") {
                // libxml2's own `&#38;` for an `&` most of all; the reference is checked already.
                let hex = name.count > 1 && name[1] == UInt8(ascii: "x")
                var scalar: UInt32 = 0
                for digit in name.dropFirst(hex ? 2 : 1) {
                    guard let value = hexValue(digit), hex || value < 10 else { return false }
                    scalar = scalar &* (hex ? 16 : 10) &+ UInt32(value)
                    if scalar > 0x10FFFF { return false }
                }
                guard let character = Unicode.Scalar(scalar) else { return false }
                if scalar < 0x80 {
                    out.append(UInt8(scalar))
                } else {
                    out.append(contentsOf: String(Character(character)).utf8)
                }
            } else if let character = predefined(name) {
                out.append(character)
            } else {
                entity = String(decoding: name, as: UTF8.self)
                return false
            }
            i = end + 1
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[i...]))
        return true
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The character of one of XML's five predefined entities.
    private static func predefined(_ name: UnsafeRawBufferPointer) -> UInt8? {
        switch String(decoding: name, as: UTF8.self) {
        case "amp": UInt8(ascii: "&")
        case "lt": UInt8(ascii: "<")
        case "gt": UInt8(ascii: ">")
        case "quot": UInt8(ascii: "\"")
        case "apos": UInt8(ascii: "'")
        default: nil
        }
    }

    /// A handler whose DTD and entity callbacks are libxml2's SAX2 ones and whose element and
    /// text callbacks gather events. The parser's user data must be the parser itself (as
    /// libxml2's callbacks expect), its `_private` an `XMLEvents`.
    static func handler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        xmlSAXVersion(&handler, 2)
        // No tree: the document node (which holds the DTD) and nothing below it.
        handler.startElement = nil
        handler.endElement = nil
        handler.comment = nil
        handler.processingInstruction = nil
        handler.startElementNs = { context, name, prefix, _, _, _, count, _, attributes in
            guard let events = XMLEvents.of(context), events.pointee.errorAt == nil, let name else { return }
            events.pointee.start(name: name, prefix: prefix, count: Int(count), attributes: attributes)
        }
        handler.endElementNs = { context, name, prefix, _ in
            guard let events = XMLEvents.of(context), events.pointee.errorAt == nil else { return }
            events.pointee.depth -= 1
            events.pointee.events.append(XMLEvent(kind: .end, name: name, prefix: prefix, line: events.pointee.line, range: 0..<0))
        }
        let characters: charactersSAXFunc = { context, characters, count in
            guard let events = XMLEvents.of(context), let characters else { return }
            events.pointee.text(characters, count: Int(count))
        }
        handler.characters = characters
        handler.ignorableWhitespace = characters
        handler.cdataBlock = characters
        handler.reference = { context, name in
            // An entity libxml2 left unexpanded. While it checks an entity's own text (depth > 0),
            // the references inside are its to judge (a loop is an error of its own).
            guard let events = XMLEvents.of(context), let parser = events.pointee.parser, parser.pointee.depth == 0 else { return }
            events.pointee.fail(XMLReader.entityError(named: name.map { String(cString: $0) } ?? "", at: events.pointee.location()))
        }
        handler.serror = { context, error in
            guard let events = XMLEvents.of(context), let error else { return }
            events.pointee.trap.capture(error.pointee)
            if let captured = events.pointee.trap.error { events.pointee.fail(captured, isLibXML2s: true) }
        }
        return handler
    }

    @inline(__always)
    private static func of(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<XMLEvents>? {
        context?.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private?.assumingMemoryBound(to: XMLEvents.self)
    }

    private mutating func start(name: FieldTree.Name, prefix: FieldTree.Name?, count: Int,
                                attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        depth += 1
        guard depth <= XMLEvents.maxDepth else {
            fail(PipelineError(.invalidInput, code: .xmlTooDeep, at: location(), stage: "xml",
                               "elements are nested more than \(XMLEvents.maxDepth) levels deep"))
            return
        }
        let first = self.attributes.count
        if let attributes {
            // Five pointers each: local name, prefix, namespace, value start, value end.
            for i in 0..<count {
                guard let local = attributes[5 * i], let start = attributes[5 * i + 3], let end = attributes[5 * i + 4] else { continue }
                let count = end - start
                self.attributes.append(XMLAttribute(name: local, prefix: attributes[5 * i + 1], value: append(start, count: count),
                                                    hasReference: memchr(start, Int32(UInt8(ascii: "&")), count) != nil))
            }
        }
        events.append(XMLEvent(kind: .start, name: name, prefix: prefix, line: line, range: first..<self.attributes.count))
    }
}
