/// The keys a component (reader, transform, sink section) accepts, declared once.
///
/// The same declaration checks pipeline files (unknown key -> error with a suggestion, wrong value
/// type -> error) and generates the reference in `docs/pipeline-format.md`.
public struct ComponentSpec: Sendable {
    public var name: String
    public var summary: String
    public var options: [OptionSpec]
    /// What the whole value may be instead of a mapping of the options (`trim: all`), if anything.
    public var shorthand: OptionSpec.ValueKind?

    public init(name: String, summary: String, options: [OptionSpec], shorthand: OptionSpec.ValueKind? = nil) {
        self.name = name
        self.summary = summary
        self.options = options
        self.shorthand = shorthand
    }

    public func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }
}

/// One key of a component.
public struct OptionSpec: Sendable {
    public enum ValueKind: Sendable, Equatable {
        case string
        case bool
        case integer
        case path
        /// A file path or a list of them (`model: Models` or `model: [A.swift, B.swift]`).
        case pathOrList
        case stringList
        /// A string or a list of strings (`fields: quantity` or `fields: [a, b]`).
        case stringOrList
        case oneOf([String])
        case mapping
        /// Anything: the component checks it itself.
        case any

        public var description: String {
            switch self {
            case .string: return "a string"
            case .bool: return "true or false"
            case .integer: return "an integer"
            case .path: return "a file path"
            case .pathOrList: return "a file path or a list of them"
            case .stringList: return "a list of strings"
            case .stringOrList: return "a string or a list of strings"
            case .oneOf(let values): return "one of " + values.map { "'\($0)'" }.joined(separator: ", ")
            case .mapping: return "a mapping"
            case .any: return "a value"
            }
        }
    }

    public var name: String
    public var kind: ValueKind
    public var required: Bool
    public var summary: String
    /// The default as documented, if the key is optional.
    public var defaultDescription: String?

    public init(_ name: String, _ kind: ValueKind, required: Bool = false, default defaultDescription: String? = nil, _ summary: String) {
        self.name = name
        self.kind = kind
        self.required = required
        self.summary = summary
        self.defaultDescription = defaultDescription
    }
}
