/// A failure that stops the run: the store is not written and the previous store stays as it was.
///
/// Its description is the message users see: `file:line:col: error: stage: what`, optionally
/// followed by the offending source line and a caret under the column.
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure, which decides the exit code.
    public enum Kind: String, Sendable {
        /// The pipeline file is malformed or inconsistent (exit code 65).
        case invalidPipeline
        /// An input file cannot be parsed: bad bytes, unterminated quote, malformed XML (exit 66).
        case invalidInput
        /// Records were rejected and the pipeline says rejects are fatal (exit 67).
        case rejected
        /// Files cannot be read or written, or the store cannot be built (exit 74).
        case io
        /// Another run is building the same store; trying again later may succeed (exit 75).
        case busy
        /// A check of the pipeline's `checks:` failed on the new store, which was not put in place (exit 69).
        case checksFailed
        /// The store pipectl built breaks its own row checks (`StoreRowChecks`): a bug of pipectl,
        /// not of the data; the old store stays (exit 70, sysexits' EX_SOFTWARE).
        case storeCheckFailed
    }

    /// Which failure, by a stable dotted name (`csv.unterminated-quote`): what code decides on,
    /// while the message is for people (docs/architecture.md, "Errors", lists every code).
    ///
    /// Each module declares its own codes in an `extension PipelineError.Code`:
    ///
    /// ```swift
    /// extension PipelineError.Code {
    ///     /// A quoted field runs to the end of the file.
    ///     public static let csvUnterminatedQuote = Self("csv.unterminated-quote")
    /// }
    /// ```
    public struct Code: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The area, a dot and the failure, in lowercase words joined by hyphens: `store.locked`.
        public let rawValue: String

        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// A code travels as its dotted name alone.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    public var kind: Kind
    /// Which failure this is; tests and code decide on it, never on the message.
    public var code: Code
    public var location: Location?
    /// The stage that speaks: `pipeline`, `csv`, `trim`, `sqlite`, ...
    public var stage: String
    public var message: String
    /// The source line the location points into, shown under the message with a caret.
    public var sourceLine: String?

    public init(_ kind: Kind, code: Code, at location: Location? = nil, stage: String, _ message: String, sourceLine: String? = nil) {
        self.kind = kind
        self.code = code
        self.location = location
        self.stage = stage
        self.message = message
        self.sourceLine = sourceLine
    }

    public var description: String {
        var out = ""
        if let location { out += "\(location): " }
        out += "error: \(stage): \(Snippet.message(message))"
        if let sourceLine {
            let (shown, column) = Snippet.line(sourceLine.replacingTabs(), column: location?.column)
            out += "\n" + shown
            if let column, column >= 1 {
                // Tabs before the column are shown as single spaces, so the caret lines up.
                out += "\n" + String(repeating: " ", count: column - 1) + "^"
            }
        }
        return out
    }
}

/// One record turned away: it is counted and reported, and the run goes on (unless the pipeline
/// says rejects are fatal).
public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: Location
    /// The stage that rejected it (`csv`, `number`, `date`, `load`, ...).
    public var stage: String
    /// The field involved, if one is.
    public var field: String?
    /// The raw value of that field as read.
    public var rawValue: String?
    public var reason: String
    /// The pipeline source whose record it was; the run's log fills it in.
    public var source: String?

    public init(at location: Location, stage: String, field: String? = nil, rawValue: String? = nil, reason: String) {
        self.location = location
        self.stage = stage
        self.field = field
        self.rawValue = rawValue
        self.reason = reason
    }

    public var description: String {
        var out = "\(location): rejected: \(stage): "
        if let field {
            out += "field '\(field)'"
            if let rawValue { out += " value \(Snippet.quoted(rawValue))" }
            out += ": "
        }
        return out + reason
    }
}

/// A record a `keep` or `drop` step turned away on purpose: counted as filtered, not rejected.
public struct Filtered: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: Location
    /// `keep` or `drop`.
    public var stage: String
    public var reason: String
    /// The pipeline source whose record it was; the run's log fills it in.
    public var source: String?

    public init(at location: Location, stage: String, reason: String) {
        self.location = location
        self.stage = stage
        self.reason = reason
    }

    public var description: String { "\(location): filtered: \(stage): \(reason)" }
}

extension String {
    func replacingTabs() -> String {
        contains("\t") ? replacingOccurrences(of: "\t", with: " ") : self
    }
}
