import Foundation
import Pipeline
internal import CLibXML2

/// Catches what libxml2 reports about one file (instead of letting it print to standard error)
/// and turns the first error into the `PipelineError` users see.
///
/// The reader hands libxml2 a pointer to its trap as the structured error handler's context.
struct XMLErrorTrap {
    /// The file as shown in messages.
    let displayPath: String
    /// The path given to libxml2 as the document's URL, which its errors name.
    let path: String
    /// The first error, if libxml2 reported one.
    var error: PipelineError?

    init(displayPath: String, path: String) {
        self.displayPath = displayPath
        self.path = path
    }

    /// Keeps the first error (warnings, such as a DTD not loaded, are no reason to stop).
    mutating func capture(_ error: xmlError) {
        guard self.error == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        // Inside an entity's text libxml2 counts lines from the entity's start: those are no help.
        let inDocument = error.file.map { strcmp($0, path) == 0 } ?? false
        let location = Location(file: displayPath, line: inDocument && error.line > 0 ? Int(error.line) : nil,
                                column: inDocument && error.line > 0 && error.int2 > 0 ? Int(error.int2) : nil)
        switch Int(error.code) {
        case Int(XML_ERR_UNDECLARED_ENTITY.rawValue), Int(XML_ERR_ENTITY_IS_EXTERNAL.rawValue):
            // `&nbsp;` copied from HTML, or an external entity in an attribute: the advice is the same.
            self.error = XMLReader.entityError(named: error.str1.map { String(cString: $0) } ?? "", at: location)
        case Int(XML_ERR_ENTITY_LOOP.rawValue):
            // libxml2 finds entities that expand into each other ("billion laughs") before the
            // reference reaches the reader; it expands nothing either way.
            self.error = PipelineError(.invalidInput, at: location, stage: "xml",
                                       "the file uses entities that refer to each other over and over; pipectl does not expand "
                                           + "entities (they can read local files or explode in size): replace them with their text")
        default:
            self.error = PipelineError(.invalidInput, at: location, stage: "xml", XMLErrorTrap.message(of: error))
        }
    }

    /// libxml2's message on one line (it puts the offending bytes on a second one), in words for
    /// the user where libxml2 speaks to programmers.
    static func message(of error: xmlError) -> String {
        var message = error.message.map { String(cString: $0) } ?? "malformed XML (libxml2 error \(error.code))"
        message = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        if error.code == XML_ERR_INTERNAL_ERROR.rawValue, message.hasPrefix("Excessive depth in document") {
            // "Excessive depth in document: 256 use XML_PARSE_HUGE option"
            let limit = message.drop { !$0.isNumber }.prefix { $0.isNumber }
            message = "elements are nested more than \(limit.isEmpty ? "libxml2 allows" : limit + " levels") deep"
        } else if message.hasPrefix("Input is not proper UTF-8") {
            // "Input is not proper UTF-8, indicate encoding !; Bytes: 0xFF 0x6F 0x75 0x72"
            let bytes = message.range(of: "Bytes: ").map { " (bytes " + message[$0.upperBound...] + ")" } ?? ""
            message = "invalid UTF-8\(bytes): re-export the file as UTF-8, or declare its real encoding in its first line "
                + "(<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>)"
        } else if message.hasPrefix("Char 0x"), message.hasSuffix("out of allowed range") {
            // "Char 0x0 out of allowed range"
            let code = message.dropFirst(5).prefix { !$0.isWhitespace }
            message = "the character \(code) is not allowed in XML (is the file damaged, or not text?)"
        } else if message.contains("huge text node") || message.contains("Huge input lookup")
                    || message.contains("AttValue length too long") {
            // libxml2's limit without XML_PARSE_HUGE, which pipectl never sets.
            message = "a text or attribute value longer than 10 MB, more than pipectl reads (is a quote or closing tag missing?)"
        } else if message.hasPrefix("AttValue: ") {
            // "AttValue: \" or ' expected"
            message = "an attribute value is not in quotes, or its closing quote is missing"
        } else if message == "attributes construct error" {
            message = "malformed attributes (is a quote missing?)"
        }
        return message
    }
}

/// libxml2's structured error handler; `context` is the reader's `XMLErrorTrap`.
func captureXMLError(_ context: UnsafeMutableRawPointer?, _ error: xmlErrorPtr?) {
    guard let context, let error else { return }
    context.assumingMemoryBound(to: XMLErrorTrap.self).pointee.capture(error.pointee)
}
