import Foundation
import Diagnostics
import Pipeline

/// An incremental JSON tokenizer over a file read in chunks into one reused buffer.
///
/// Nothing is built that the caller does not ask for: strings and numbers are validated as they
/// are skipped, and only captured ones are copied (into `value` or `key`), so memory stays the same
/// whatever the size of the file. Values may straddle chunk boundaries anywhere. Positions are
/// 1-based line and column in characters; since non-ASCII bytes can only appear inside strings,
/// counting the UTF-8 continuation bytes met there is enough to turn byte offsets into columns.
final class JSONParser {
    /// What a scanned string or number is copied into.
    enum Capture {
        case none
        case value
        case key
    }

    static let maxDepth = 512
    /// Values the lists of one record may hold in all (arrays inside arrays counted): a recipe has
    /// tens, a wrong field (the whole file as one array) millions.
    static let maxListValues = Fields.maxListValues  // every reader's, and split's
    static let defaultChunkSize = 128 * 1024

    /// The file as named in messages, and the stage that speaks (`json` or `jsonl`).
    let file: String
    /// The file's location, copied for each record: making one from the name looks the name up.
    let fileLocation: Location
    let stage: String
    /// The parser's mutable state, `Pinned`: as stored properties of the class, each access would
    /// pay a dynamic exclusivity check, several per byte.
    struct State {
        var pos = 0
        var end = 0
        var atEOF = false
        /// File offset of `bytes[0]`.
        var consumed: Int64 = 0
        var line = 1
        var lineStart: Int64 = 0
        var continuations: Int64 = 0
        var lineStartContinuations: Int64 = 0
        var bytesRead: Int64 = 0
        var newlineIsWhitespace = true
        var depth = 0
        var value = ByteScratch(capacity: 256)
        var key = ByteScratch(capacity: 64)
    }

    private let state: Pinned<State>
    private let descriptor: Int32
    private let chunkSize: Int
    private let buffer: UnsafeMutableRawBufferPointer
    private let bytes: UnsafeMutablePointer<UInt8>

    /// The bytes of the last captured string or number (escapes decoded, valid UTF-8).
    var value: ByteScratch { state.pointee.value }
    /// The bytes of the last key read by `readKey()`.
    var key: ByteScratch { state.pointee.key }
    /// Bytes read from the file so far.
    var bytesRead: Int64 { state.pointee.bytesRead }
    /// JSON Lines: a line break ends a value instead of being whitespace.
    var newlineIsWhitespace: Bool {
        get { state.pointee.newlineIsWhitespace }
        set { state.pointee.newlineIsWhitespace = newValue }
    }
    /// Containers open around the current position.
    var depth: Int {
        get { state.pointee.depth }
        set { state.pointee.depth = newValue }
    }

    private var pos: Int {
        get { state.pointee.pos }
        set { state.pointee.pos = newValue }
    }
    private var end: Int {
        get { state.pointee.end }
        set { state.pointee.end = newValue }
    }
    private var atEOF: Bool {
        get { state.pointee.atEOF }
        set { state.pointee.atEOF = newValue }
    }
    private var consumed: Int64 {
        get { state.pointee.consumed }
        set { state.pointee.consumed = newValue }
    }
    private var line: Int {
        get { state.pointee.line }
        set { state.pointee.line = newValue }
    }
    private var lineStart: Int64 {
        get { state.pointee.lineStart }
        set { state.pointee.lineStart = newValue }
    }
    private var continuations: Int64 {
        get { state.pointee.continuations }
        set { state.pointee.continuations = newValue }
    }
    private var lineStartContinuations: Int64 {
        get { state.pointee.lineStartContinuations }
        set { state.pointee.lineStartContinuations = newValue }
    }

    init(input: Input, stage: String, chunkSize: Int) throws {
        let descriptor = open(input.url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PipelineError(.io, code: .inputCannotOpen, at: Location(file: input.displayPath), stage: stage,
                                "cannot open the file: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        self.file = input.displayPath
        self.fileLocation = Location(file: input.displayPath)
        self.warnings = input.warnings
        self.stage = stage
        self.chunkSize = max(chunkSize, 1)
        buffer = .allocate(byteCount: self.chunkSize + 4, alignment: 16)
        bytes = buffer.baseAddress!.bindMemory(to: UInt8.self, capacity: buffer.count)
        state = Pinned(State())
    }

    deinit {
        state.pointee.value.free()
        state.pointee.key.free()
        buffer.deallocate()
        close(descriptor)
    }

    // MARK: Bytes and positions

    /// Where the next byte is.
    var position: TextPosition {
        let offset = consumed + Int64(pos) - lineStart - (continuations - lineStartContinuations)
        return TextPosition(line: line, column: Int(offset) + 1)
    }

    func location(_ position: TextPosition) -> Location {
        var location = fileLocation
        location.line = position.line
        location.column = position.column
        return location
    }

    /// The values array of the record before, handed back by the reader's `recycle`.
    var spareValues: [Value]?

    /// Where the warnings about the file go (a key given twice in an object).
    let warnings: InputWarnings
    /// The number of the object `parseRecord` is in, and per field tree node the number of the
    /// object its key was last read in and where its value was. Unchecked: used for every key
    /// read, on the reading thread alone.
    @exclusivity(unchecked) var objectStamp = 0
    @exclusivity(unchecked) var keyStamps: [Int] = []
    @exclusivity(unchecked) var keyPositions: [TextPosition] = []

    /// Per field slot, whether its text is trimmed as it is made (the readers'
    /// `trimWhileReading`). Unchecked: read for every field, on the reading thread alone.
    @exclusivity(unchecked) var trims: [Bool] = []

    /// Trims slots `indexes` of records of `count` fields from now on.
    func trim(fields indexes: [Int], count: Int) {
        if trims.count != count { trims = Array(repeating: false, count: count) }
        for i in indexes where trims.indices.contains(i) { trims[i] = true }
    }

    /// An array of `count` nulls for a record's values: the one the record before handed back,
    /// or a new one.
    func takeValues(count: Int) -> [Value] {
        guard var values = spareValues.take(), values.count == count else {
            return [Value](repeating: .null, count: count)
        }
        for i in values.indices { values[i] = .null }
        return values
    }

    /// The location of the record at `position` whose path is `base`'s with `[index]` appended.
    func location(_ position: TextPosition, index: Int, under base: Location) -> Location {
        var location = base.appendingPathIndex(index)
        location.line = position.line
        location.column = position.column
        return location
    }

    func error(_ code: PipelineError.Code, _ message: String, at position: TextPosition? = nil) -> PipelineError {
        PipelineError(.invalidInput, code: code, at: location(position ?? self.position), stage: stage, message)
    }

    /// Reads the next chunk; false at the end of the file.
    private func refill() throws -> Bool {
        consumed += Int64(end)
        pos = 0
        end = 0
        while !atEOF {
            let count = read(descriptor, buffer.baseAddress!, chunkSize)
            if count > 0 {
                end = count
                state.pointee.bytesRead += Int64(count)
                return true
            } else if count == 0 {
                atEOF = true
            } else if errno != EINTR {
                throw PipelineError(.io, code: .inputCannotRead, at: Location(file: file), stage: stage,
                                    "cannot read the file: \(String(cString: strerror(errno)))")
            }
        }
        return false
    }

    /// Makes up to `count` bytes (at most 4) available from `pos`, fewer at the end of the file,
    /// for messages that name a whole character the end of a chunk cuts. Returns how many there are.
    private func lookAhead(_ count: Int) throws -> Int {
        guard end - pos < count else { return end - pos }
        // Move what is left to the front (the buffer has 4 spare bytes past a chunk); positions
        // stay right as `consumed` moves along.
        let remaining = end - pos
        memmove(bytes, bytes + pos, remaining)
        consumed += Int64(pos)
        pos = 0
        end = remaining
        while end < count, !atEOF {
            let got = read(descriptor, bytes + end, count - end)
            if got > 0 {
                end += got
                state.pointee.bytesRead += Int64(got)
            } else if got == 0 {
                atEOF = true
            } else if errno != EINTR {
                throw PipelineError(.io, code: .inputCannotRead, at: Location(file: file), stage: stage,
                                    "cannot read the file: \(String(cString: strerror(errno)))")
            }
        }
        return end - pos
    }

    /// True when a byte is available at `pos`.
    @inline(__always) private func ensure() throws -> Bool {
        pos < end ? true : try refill()
    }

    /// The byte at the current position without consuming it; nil at the end of the file.
    @inline(__always) func peek() throws -> UInt8? {
        try ensure() ? bytes[pos] : nil
    }

    /// Skips a UTF-8 byte order mark at the very start of the file.
    func skipByteOrderMark() throws {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        guard try ensure(), bytes[pos] == mark[0] else { return }
        // The chunk may end inside the mark: check it byte by byte without consuming a partial one.
        var matched = 0
        while matched < 3, try ensure(), bytes[pos] == mark[matched] {
            pos += 1
            matched += 1
        }
        if matched < 3 {
            throw error(.inputInvalidText, "the file starts with an incomplete byte order mark (invalid UTF-8)", at: TextPosition(line: 1, column: 1))
        }
        // The mark is not a character of the first line.
        lineStart = 3
    }

    /// Skips whitespace and returns the next byte (not consumed), or nil at the end of the file.
    /// With `newlineIsWhitespace` off, stops at a line feed.
    @inline(__always) func skipWhitespace() throws -> UInt8? {
        while true {
            while pos < end {
                let b = bytes[pos]
                switch b {
                case 0x20, 0x09, 0x0D:
                    pos += 1
                case 0x0A:
                    guard newlineIsWhitespace else { return b }
                    pos += 1
                    line += 1
                    lineStart = consumed + Int64(pos)
                    lineStartContinuations = continuations
                default:
                    return b
                }
            }
            guard try refill() else { return nil }
        }
    }

    /// Consumes a line feed at the current position (JSON Lines, between lines).
    func consumeNewline() {
        guard pos < end, bytes[pos] == 0x0A else { return }
        pos += 1
        line += 1
        lineStart = consumed + Int64(pos)
        lineStartContinuations = continuations
    }

    @inline(__always) private func append(_ capture: Capture, _ start: UnsafeMutablePointer<UInt8>, _ count: Int) {
        switch capture {
        case .none: break
        case .value: state.pointee.value.append(start, count)
        case .key: state.pointee.key.append(start, count)
        }
    }

    @inline(__always) private func append(_ capture: Capture, _ byte: UInt8) {
        switch capture {
        case .none: break
        case .value: state.pointee.value.append(byte)
        case .key: state.pointee.key.append(byte)
        }
    }

    // MARK: Describing what was found

    /// The next byte as the user would name it, for "expected ..., found ..." messages.
    func describeNext() throws -> String {
        guard try ensure() else { return "the end of the file" }
        let b = bytes[pos]
        switch b {
        case 0x0A: return "the end of the line"
        case UInt8(ascii: "'"): return "a single quote"
        case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(b)))'"
        case 0..<0x20, 0x7F: return "a control character (U+\(hex(b, width: 4)))"
        default:
            let available = try lookAhead(4)
            for length in 2...4 where length <= available {
                if let text = String(validating: UnsafeBufferPointer(start: bytes + pos, count: length), as: UTF8.self) {
                    return "'\(text)'"
                }
            }
            return "the byte 0x\(hex(b, width: 2)) (not valid UTF-8)"
        }
    }

    private func hex(_ value: some BinaryInteger, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// "expected X, found Y" at the current position.
    func expected(_ what: String) throws -> PipelineError {
        let found = try describeNext()
        var hint = ""
        if pos < end, bytes[pos] == UInt8(ascii: "/") { hint = " (JSON allows no comments)" }
        if pos < end, bytes[pos] == UInt8(ascii: "'") { hint = " (JSON strings take double quotes)" }
        return error(.jsonUnexpectedToken, "expected \(what), found \(found)\(hint)")
    }

    // MARK: Containers

    private func openContainer(_ kind: String) throws {
        depth += 1
        if depth > JSONParser.maxDepth {
            throw error(.jsonTooDeep, "\(kind) nested deeper than \(JSONParser.maxDepth) levels")
        }
        pos += 1
    }

    /// Consumes the `{` at the current position; false when the object is empty (and closed).
    func enterObject() throws -> Bool {
        try openContainer("an object")
        guard try skipWhitespace() == UInt8(ascii: "}") else { return true }
        pos += 1
        depth -= 1
        return false
    }

    /// Consumes the `[` at the current position; false when the array is empty (and closed).
    /// Otherwise the first element's first byte is next.
    func enterArray() throws -> Bool {
        try openContainer("an array")
        let b = try skipWhitespace()
        if b == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return false
        }
        if b == nil { throw try expected("a value or ']'") }
        return true
    }

    /// Reads a member's key into `key` and the `:` after it; the value's first byte is next.
    /// `name`: the key names a field (a record's, or an object's that is read), and is held to
    /// `HeaderBudget.maxNameBytes`; a skipped object's keys are strings like any other.
    func readKey(name: Bool = true) throws {
        guard try skipWhitespace() == UInt8(ascii: "\"") else {
            throw try expected("a key (a string in double quotes)")
        }
        state.pointee.key.removeAll()
        try scanString(.key, limit: name ? HeaderBudget.maxNameBytes : JSONParser.maxStringBytes)
        guard try skipWhitespace() == UInt8(ascii: ":") else {
            throw try expected("':' after the key \"\(key.string)\"")
        }
        pos += 1
        if try skipWhitespace() == nil || !newlineIsWhitespace && bytes[pos] == 0x0A {
            throw try expected("a value after ':'")
        }
    }

    /// After a member's value: true when another member follows (its key is next), false when the
    /// object closes.
    func nextMember() throws -> Bool {
        switch try skipWhitespace() {
        case UInt8(ascii: ","):
            let comma = position
            pos += 1
            if try skipWhitespace() == UInt8(ascii: "}") {
                throw error(.jsonTrailingComma, "a comma after the last member of an object (JSON allows no trailing comma)", at: comma)
            }
            return true
        case UInt8(ascii: "}"):
            pos += 1
            depth -= 1
            return false
        default:
            throw try expected("',' or '}' after an object member")
        }
    }

    /// After an element: true when another element follows (its first byte is next), false when
    /// the array closes.
    func nextElement() throws -> Bool {
        switch try skipWhitespace() {
        case UInt8(ascii: ","):
            let comma = position
            pos += 1
            switch try skipWhitespace() {
            case UInt8(ascii: "]"):
                throw error(.jsonTrailingComma, "a comma after the last element of an array (JSON allows no trailing comma)", at: comma)
            case nil, 0x0A:
                throw try expected("a value after ','")
            default:
                return true
            }
        case UInt8(ascii: "]"):
            pos += 1
            depth -= 1
            return false
        default:
            throw try expected("',' or ']' after an array element")
        }
    }

    // MARK: Values

    /// What the value at the current position is, for messages ("an object", "a string", ...).
    func kindOfNext() throws -> String {
        switch try peek() {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "a number"
        }
    }

    /// Validates and skips the value at the current position without building it.
    func skipValue() throws {
        guard let b = try peek() else { throw try expected("a value") }
        switch b {
        case UInt8(ascii: "{"):
            guard try enterObject() else { return }
            repeat {
                try readKey(name: false)
                try skipValue()
            } while try nextMember()
        case UInt8(ascii: "["):
            guard try enterArray() else { return }
            repeat {
                try skipValue()
            } while try nextElement()
        default:
            _ = try scanScalar(.none)
        }
    }

    /// Scans a string, number or literal; strings and numbers are copied into `value` when
    /// captured. Returns the value for literals, `.text` placeholders are left to the caller.
    enum Scalar {
        case string
        case number
        case bool(Bool)
        case null
    }

    @inline(__always) func scanScalar(_ capture: Capture) throws -> Scalar {
        guard let b = try peek() else { throw try expected("a value") }
        switch b {
        case UInt8(ascii: "\""):
            if case .value = capture { state.pointee.value.removeAll() }
            try scanString(capture)
            return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if case .value = capture { state.pointee.value.removeAll() }
            try scanNumber(capture)
            return .number
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            throw try expected("a value (a string, number, object, array, true, false or null)")
        }
    }

    private func literal(_ word: StaticString) throws {
        let start = position
        let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expectedByte in text {
            guard try ensure(), bytes[pos] == expectedByte else {
                throw error(.jsonInvalidLiteral, "expected '\(word)' (JSON literals are true, false and null, in lower case)", at: start)
            }
            pos += 1
        }
    }

    /// The longest string read, in bytes once its escapes are decoded.
    static let maxStringBytes = 8 * 1024 * 1024
    /// The longest number read, in characters: a double holds 17 significant digits, and the
    /// longest exact decimal of one is under 800 characters.
    static let maxNumberLength = 1024
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    /// Scans the string whose opening quote is at the current position, up to its closing quote,
    /// stopping past `limit` bytes.
    func scanString(_ capture: Capture, limit: Int = JSONParser.maxStringBytes) throws {
        let start = position
        pos += 1
        var length = 0
        while true {
            var i = pos
            let stop = end
            // Eight bytes at a time while none of them ends the run, as most of a string's do.
            while i &+ 8 <= stop, !JSONParser.endsRun(UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self)) {
                i &+= 8
            }
            while i < stop {
                let b = bytes[i]
                if b == JSONParser.quote || b == JSONParser.backslash || b < 0x20 || b >= 0x80 { break }
                i += 1
            }
            if i > pos {
                length += i - pos
                // As for CSV fields: no spreadsheet cell is this long; a runaway string must not fill the memory.
                if length > limit { throw tooLong(at: start, limit: limit) }
                append(capture, bytes + pos, i - pos)
                pos = i
            }
            guard try ensure() else {
                throw error(.jsonUnterminatedString, "the string that starts here is never closed (the file ends inside it)", at: start)
            }
            let b = bytes[pos]
            if b == JSONParser.quote {
                pos += 1
                return
            } else if b == JSONParser.backslash {
                // Counted as decoded: a string of escapes only must not slip past the limit.
                length += try scanEscape(capture, stringStart: start)
                if length > limit { throw tooLong(at: start, limit: limit) }
            } else if b >= 0x80 {
                length += try scanMultibyte(capture)
                if length > limit { throw tooLong(at: start, limit: limit) }
            } else if b == 0x0A {
                throw error(.jsonControlCharacter, "a line break inside a string (write it as \\n, or close the string that starts at "
                                                   + "\(start.line):\(start.column))")
            } else if b < 0x20 {
                throw error(.jsonControlCharacter, "a control character (U+\(hex(b, width: 4))) inside a string must be escaped")
            }
            // Otherwise the run stopped at the end of a chunk: go on in the next one.
        }
    }

    /// Whether any of eight bytes is a quote, a backslash, a control character or not ASCII: the
    /// bytes that end a run of plain string bytes. `(x - 0x01…) & ~x & 0x80…` is nonzero exactly
    /// when some byte of `x` is zero (with `0x20…`: below 0x20).
    @inline(__always)
    static func endsRun(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(quote))
        let backslashes = word ^ (ones &* UInt64(backslash))
        let found = ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | ((word &- ones &* 0x20) & ~word) | word
        return found & highs != 0
    }

    private func tooLong(at start: TextPosition, limit: Int) -> PipelineError {
        if limit == HeaderBudget.maxNameBytes {
            return error(.inputHeaderNameTooLong, HeaderBudget.nameTooLong("the key that starts here") + " (is a quote missing?)", at: start)
        }
        return error(.jsonStringTooLong, "a string longer than \(JSONParser.maxStringBytes >> 20) MB starts here (is its closing quote missing?)",
                                  at: start)
    }

    /// Checks one multi-byte UTF-8 character (shortest form, no surrogates, at most U+10FFFF);
    /// returns its length in bytes.
    private func scanMultibyte(_ capture: Capture) throws -> Int {
        let start = position
        let lead = bytes[pos]
        var count: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 1
        case 0xE0: count = 2; low = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: count = 2
        case 0xED: count = 2; high = 0x9F
        case 0xF0: count = 3; low = 0x90
        case 0xF1...0xF3: count = 3
        case 0xF4: count = 3; high = 0x8F
        default: throw invalidUTF8(lead, at: start)
        }
        append(capture, lead)
        pos += 1
        let length = count + 1
        while count > 0 {
            guard try ensure(), bytes[pos] >= low, bytes[pos] <= high else { throw invalidUTF8(lead, at: start) }
            append(capture, bytes[pos])
            pos += 1
            continuations += 1
            count -= 1
            low = 0x80
            high = 0xBF
        }
        return length
    }

    private func invalidUTF8(_ lead: UInt8, at position: TextPosition) -> PipelineError {
        error(.inputInvalidText, "invalid UTF-8 (a malformed sequence starting with byte 0x\(hex(lead, width: 2))); "
                                 + "JSON files must be UTF-8", at: position)
    }

    /// Decodes the escape whose backslash is at the current position; returns the length of
    /// what it stands for, in UTF-8 bytes.
    private func scanEscape(_ capture: Capture, stringStart: TextPosition) throws -> Int {
        let start = position
        pos += 1
        guard try ensure() else {
            throw error(.jsonUnterminatedString, "the string that starts here is never closed (the file ends inside it)", at: stringStart)
        }
        let e = bytes[pos]
        pos += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): append(capture, e)
        case UInt8(ascii: "b"): append(capture, 0x08)
        case UInt8(ascii: "f"): append(capture, 0x0C)
        case UInt8(ascii: "n"): append(capture, 0x0A)
        case UInt8(ascii: "r"): append(capture, 0x0D)
        case UInt8(ascii: "t"): append(capture, 0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(escapeAt: start)
            if (0xDC00...0xDFFF).contains(scalar) {
                throw error(.jsonUnpairedSurrogate,
                            "\\u\(hex(scalar, width: 4)) is the second half of a surrogate pair without a first half", at: start)
            }
            if (0xD800...0xDBFF).contains(scalar) {
                let second = position
                let unpaired = error(.jsonUnpairedSurrogate, "\\u\(hex(scalar, width: 4)) is the first half of a surrogate pair and must be "
                                                             + "followed by a \\uDC00-\\uDFFF escape", at: start)
                guard try ensure(), bytes[pos] == JSONParser.backslash else { throw unpaired }
                pos += 1
                guard try ensure(), bytes[pos] == UInt8(ascii: "u") else { throw unpaired }
                pos += 1
                let low = try hex4(escapeAt: second)
                guard (0xDC00...0xDFFF).contains(low) else { throw unpaired }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            if capture != .none, let unicode = Unicode.Scalar(scalar) {
                for unit in UTF8.encode(unicode)! { append(capture, unit) }
            }
            return scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4
        default:
            pos -= 1
            throw error(.jsonInvalidEscape, "invalid escape \\\(try describeNext().trimmingCharacters(in: ["'"])) in a string "
                                            + "(JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX)", at: start)
        }
        return 1
    }

    private func hex4(escapeAt start: TextPosition) throws -> UInt32 {
        var result: UInt32 = 0
        for _ in 0..<4 {
            guard try ensure() else { throw error(.jsonInvalidEscape, "\\u must be followed by four hexadecimal digits", at: start) }
            let b = bytes[pos]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw error(.jsonInvalidEscape, "\\u must be followed by four hexadecimal digits", at: start)
            }
            result = result << 4 | UInt32(digit)
            pos += 1
        }
        return result
    }

    /// Scans a number (RFC 8259 grammar) whose first byte is at the current position.
    private func scanNumber(_ capture: Capture) throws {
        let start = position
        @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
        var length = 0
        /// Consumes a run of digits; returns how many.
        func digits() throws -> Int {
            var count = 0
            while try ensure() {
                var i = pos
                while i < end, isDigit(bytes[i]) { i += 1 }
                count += i - pos
                // Checked per run of digits in a chunk, not per digit; the sign, point and
                // exponent marker are left out, a few characters at most.
                length += i - pos
                if length > JSONParser.maxNumberLength {
                    throw error(.jsonNumberTooLong, "a number of more than \(JSONParser.maxNumberLength.grouped) digits starts here (no "
                                                    + "spreadsheet value is this long; is it damaged?)", at: start)
                }
                append(capture, bytes + pos, i - pos)
                pos = i
                if i < end { break }
            }
            return count
        }
        func take() {
            append(capture, bytes[pos])
            pos += 1
        }
        if bytes[pos] == UInt8(ascii: "-") {
            take()
            guard try ensure(), isDigit(bytes[pos]) else { throw try expected("a digit after '-'") }
        }
        if bytes[pos] == UInt8(ascii: "0") {
            take()
            if try ensure(), isDigit(bytes[pos]) {
                throw error(.jsonInvalidNumber, "a number cannot start with 0 followed by more digits", at: start)
            }
        } else {
            _ = try digits()
        }
        if try ensure(), bytes[pos] == UInt8(ascii: ".") {
            take()
            guard try digits() > 0 else { throw try expected("a digit after the decimal point") }
        }
        if try ensure(), bytes[pos] | 0x20 == UInt8(ascii: "e") {
            take()
            if try ensure(), bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { take() }
            guard try digits() > 0 else { throw try expected("a digit in the exponent") }
        }
    }
}
