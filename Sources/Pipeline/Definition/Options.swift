import Diagnostics
/// A mapping node checked against a `ComponentSpec`, with typed accessors whose errors point at
/// the offending key or value.
public struct Options: Sendable {
    public let spec: ComponentSpec
    /// The mapping node itself (for errors about a missing key).
    public let node: ConfigNode
    public let stage: String
    private let values: [String: (key: ConfigNode, value: ConfigNode)]

    /// Checks every key of `node` against `spec`: unknown keys (with a suggestion), duplicate and
    /// missing required keys, and values of the wrong kind are errors. Keys in `ignoring` are
    /// left for the caller (e.g. the reader kind key `csv:` itself).
    public init(_ node: ConfigNode, spec: ComponentSpec, stage: String? = nil, ignoring: Set<String> = []) throws {
        self.spec = spec
        self.node = node
        self.stage = stage ?? spec.name
        guard let pairs = node.mapping else {
            throw node.error(.pipelineWrongType, "'\(spec.name)' expects a mapping of options, found \(node.kindDescription)", stage: self.stage)
        }
        var values: [String: (key: ConfigNode, value: ConfigNode)] = [:]
        for pair in pairs {
            guard let key = pair.key.scalar else { throw pair.key.error(.pipelineInvalidName, "keys must be plain names", stage: self.stage) }
            if ignoring.contains(key) { continue }
            guard let option = spec.option(named: key) else {
                let known = spec.options.map(\.name)
                throw pair.key.error(.pipelineUnknownKey,
                    "unknown key '\(key)' in '\(spec.name)'\(Suggestion.hint(for: key, in: known))"
                        + " (known keys: \(known.joined(separator: ", ")))",
                    stage: self.stage)
            }
            try Options.check(pair.value, against: option, stage: self.stage)
            values[key] = pair
        }
        for option in spec.options where option.required && values[option.name] == nil {
            throw node.error(.pipelineMissingKey, "'\(spec.name)' needs the key '\(option.name)' (\(option.summary))", stage: self.stage)
        }
        self.values = values
    }

    static func check(_ value: ConfigNode, against option: OptionSpec, stage: String) throws {
        func fail() -> PipelineError {
            value.error(.pipelineWrongType, "'\(option.name)' expects \(option.kind.description), found \(value.kindDescription)", stage: stage)
        }
        switch option.kind {
        case .any: return
        case .mapping: if value.mapping == nil { throw fail() }
        case .string, .path: if value.scalar == nil { throw fail() }
        case .bool: if let s = value.scalar, Options.bool(s) != nil { return }; throw fail()
        case .integer: if let s = value.scalar, Int(s) != nil { return }; throw fail()
        case .stringList:
            guard let items = value.sequence, items.allSatisfy({ $0.scalar != nil }) else { throw fail() }
        case .stringOrList, .pathOrList:
            if value.scalar != nil { return }
            guard let items = value.sequence, items.allSatisfy({ $0.scalar != nil }) else { throw fail() }
        case .oneOf(let allowed):
            guard let s = value.scalar else { throw fail() }
            if !allowed.contains(s) {
                throw value.error(.pipelineValueNotAllowed,
                    "'\(option.name)' must be \(option.kind.description), not '\(s)'\(Suggestion.hint(for: s, in: allowed))",
                    stage: stage)
            }
        }
    }

    /// `true`, `yes`, `on` and their opposites, in any case.
    public static func bool(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: return nil
        }
    }

    public func has(_ key: String) -> Bool { values[key] != nil }

    /// The value node of `key`, if present (already checked against its kind).
    public func node(_ key: String) -> ConfigNode? { values[key]?.value }

    public func string(_ key: String) -> String? { values[key]?.value.scalar }

    public func bool(_ key: String) -> Bool? { string(key).flatMap(Options.bool) }

    public func integer(_ key: String) -> Int? { string(key).flatMap { Int($0) } }

    /// A list of strings; a single string is a list of one.
    public func strings(_ key: String) -> [String]? {
        guard let value = values[key]?.value else { return nil }
        if let s = value.scalar { return [s] }
        return value.sequence?.compactMap(\.scalar)
    }
}
