import Foundation
import Diagnostics
import Pipeline
// `package`: the xlsx reader (SourcesXLSX) words libxml2's errors with this trap too.
package import CLibXML2

/// Catches what libxml2 reports about one file (instead of letting it print to standard error)
/// and turns the first error into the `PipelineError` users see.
///
/// The reader hands libxml2 a pointer to its trap as the structured error handler's context; the
/// xlsx reader's parsers keep one each.
package struct XMLErrorTrap {
    /// The file as shown in messages.
    let displayPath: String
    /// The path given to libxml2 as the document's URL, which its errors name.
    let path: String
    /// The first error, if libxml2 reported one.
    package var error: PipelineError?
    /// That error's libxml2 code.
    var code: Int32 = 0

    package init(displayPath: String, path: String) {
        self.displayPath = displayPath
        self.path = path
    }

    /// Keeps the first error (warnings, such as a DTD not loaded, are no reason to stop).
    package mutating func capture(_ error: xmlError) {
        guard self.error == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        code = Int32(error.code)
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
            self.error = PipelineError(.invalidInput, code: .xmlEntitiesRefused, at: location, stage: "xml",
                                       "the file uses entities that refer to each other over and over; pipectl does not expand "
                                           + "entities (they can read local files or explode in size): replace them with their text")
        default:
            self.error = PipelineError(.invalidInput, code: XMLErrorTrap.code(of: error), at: location, stage: "xml",
                                       XMLErrorTrap.message(of: error))
        }
    }

    /// libxml2's message on one line (it puts the offending bytes on a second one), in words for
    /// the user where libxml2 speaks to programmers. Told apart by domain and code (and the
    /// numbers and strings libxml2 gives with them), never by the message's text.
    static func message(of error: xmlError) -> String {
        let original = (error.message.map { String(cString: $0) } ?? "malformed XML (libxml2 error \(error.code))")
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        guard error.domain == Int32(XML_FROM_PARSER.rawValue) else { return original }
        let tooLong = "a text or attribute value longer than 10 MB, more than pipectl reads (is a quote or closing tag missing?)"
        switch Int(error.code) {
        case Int(XML_ERR_INTERNAL_ERROR.rawValue):
            // Without XML_PARSE_HUGE, which pipectl never sets, libxml2's internal errors are its
            // limits: the nesting depth (given as int1) or the 10 MB lookup.
            return error.int1 > 0 ? "elements are nested more than \(error.int1) levels deep" : tooLong
        case Int(XML_ERR_NO_MEMORY.rawValue):
            // What libxml2 reports for a text node over its limit; a real shortage of memory would
            // have stopped far earlier.
            return tooLong
        case Int(XML_ERR_INVALID_CHAR.rawValue):
            if let detail = error.str1.map({ String(cString: $0) }) {
                // Bytes that are not UTF-8: libxml2 lists them as "Bytes: 0xFF 0x6F ...".
                let bytes = detail.split(whereSeparator: \.isWhitespace).filter { $0.hasPrefix("0x") }.joined(separator: " ")
                return "invalid UTF-8\(bytes.isEmpty ? "" : " (bytes \(bytes))"): re-export the file as UTF-8, or declare its "
                    + "real encoding in its first line (<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>)"
            }
            return "the character 0x\(String(error.int1, radix: 16, uppercase: true)) is not allowed in XML "
                + "(is the file damaged, or not text?)"
        case Int(XML_ERR_ATTRIBUTE_NOT_STARTED.rawValue), Int(XML_ERR_ATTRIBUTE_NOT_FINISHED.rawValue):
            return "an attribute value is not in quotes, or its closing quote is missing"
        case Int(XML_ERR_SPACE_REQUIRED.rawValue):
            // In a start tag: an attribute's closing quote is missing, so the next one runs on.
            return "malformed attributes (is a quote missing?)"
        default:
            return original
        }
    }

    /// The code of the failure `message(of:)` words, told apart the same way.
    static func code(of error: xmlError) -> PipelineError.Code {
        guard error.domain == Int32(XML_FROM_PARSER.rawValue) else { return .xmlMalformed }
        switch Int(error.code) {
        case Int(XML_ERR_INTERNAL_ERROR.rawValue): return error.int1 > 0 ? .xmlTooDeep : .xmlValueTooLong
        case Int(XML_ERR_NO_MEMORY.rawValue): return .xmlValueTooLong
        case Int(XML_ERR_INVALID_CHAR.rawValue): return error.str1 != nil ? .inputInvalidText : .xmlInvalidCharacter
        default: return .xmlMalformed
        }
    }
}

extension XMLErrorTrap {
    /// Whether the error is an entity's: one not declared, external, or expanding into others.
    package var isEntityError: Bool {
        [XML_ERR_UNDECLARED_ENTITY, XML_ERR_ENTITY_IS_EXTERNAL, XML_ERR_ENTITY_LOOP].contains { Int32($0.rawValue) == code }
    }
}

/// libxml2's structured error handler; `context` is the reader's `XMLErrorTrap`.
func captureXMLError(_ context: UnsafeMutableRawPointer?, _ error: xmlErrorPtr?) {
    guard let context, let error else { return }
    context.assumingMemoryBound(to: XMLErrorTrap.self).pointee.capture(error.pointee)
}
