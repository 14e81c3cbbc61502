import Diagnostics
/// A node of a pipeline file with its position, so that every check can point at the exact key.
///
/// The YAML parser's nodes are converted once into these; components read their options from them
/// through `Options`, and never see YAML.
public struct ConfigNode: Sendable {
    public enum Content: Sendable {
        case scalar(String)
        case sequence([ConfigNode])
        /// Keys in file order; duplicate keys are rejected when the file is loaded.
        case mapping([(key: ConfigNode, value: ConfigNode)])
        case null
    }

    public var content: Content
    /// Where the node starts in the pipeline file.
    public var location: Location
    /// The whole pipeline-file line the node is on, for the caret in messages.
    public var sourceLine: String?
    /// `true` when the scalar was quoted in the file (`"1"` is text, `1` may be a number).
    public var isQuoted: Bool

    public init(_ content: Content, at location: Location, sourceLine: String? = nil, isQuoted: Bool = false) {
        self.content = content
        self.location = location
        self.sourceLine = sourceLine
        self.isQuoted = isQuoted
    }

    public var scalar: String? {
        if case .scalar(let s) = content { return s }
        return nil
    }

    public var sequence: [ConfigNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    public var mapping: [(key: ConfigNode, value: ConfigNode)]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    public var isNull: Bool {
        if case .null = content { return true }
        return false
    }

    /// What the node is, in words, for "expected X, found Y" messages.
    public var kindDescription: String {
        switch content {
        case .scalar(let s): return "the value \(Snippet.quoted(s))"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .null: return "nothing"
        }
    }

    /// An error pointing at this node, with the code that names the mistake.
    public func error(_ code: PipelineError.Code, _ message: String, stage: String = "pipeline") -> PipelineError {
        PipelineError(.invalidPipeline, code: code, at: location, stage: stage, message, sourceLine: sourceLine)
    }
}
