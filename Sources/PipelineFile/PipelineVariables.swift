import Diagnostics
import Foundation
import Pipeline

/// `${NAME}` and `${NAME:-default}` in the pipeline file's strings: the values given on the
/// command line (`pipectl run --var NAME=VALUE`) first, then the environment. `$${` is a literal
/// `${`. An undefined variable without a default is an error at its line and column, so that
/// `${BUILD_DIR}` never becomes a folder of that name.
public struct PipelineVariables: Sendable {
    public var given: [String: String]
    public var environment: [String: String]

    public init(given: [String: String] = [:], environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.given = given
        self.environment = environment
    }

    /// `NAME=VALUE` as `--var` takes it.
    public static func parse(_ assignment: String) -> (name: String, value: String)? {
        guard let equals = assignment.firstIndex(of: "="), isName(assignment[..<equals]) else { return nil }
        return (String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...]))
    }

    static func isName(_ text: Substring) -> Bool {
        guard let first = text.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return text.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }

    /// Bytes that variables (their values and defaults) may add to the file, in all: as much
    /// text as YAML aliases may add (`YAMLAliasBudget`). A 120 KB file of `${V}` with a value of
    /// 131 KB would otherwise ask for 4 GB.
    static let maxExpandedBytes = 64 << 20

    /// The node with every variable in its strings (keys and values) replaced.
    func substitute(in node: ConfigNode) throws -> ConfigNode {
        var added = 0
        return try substitute(in: node, added: &added)
    }

    private func substitute(in node: ConfigNode, added: inout Int) throws -> ConfigNode {
        var node = node
        switch node.content {
        case .scalar(let text) where text.contains("$"):
            node.content = .scalar(try substitute(text, at: node, added: &added))
        case .sequence(let items):
            var substituted: [ConfigNode] = []
            substituted.reserveCapacity(items.count)
            for item in items { substituted.append(try substitute(in: item, added: &added)) }
            node.content = .sequence(substituted)
        case .mapping(let pairs):
            var substituted: [(ConfigNode, ConfigNode)] = []
            substituted.reserveCapacity(pairs.count)
            for pair in pairs { substituted.append((try substitute(in: pair.key, added: &added), try substitute(in: pair.value, added: &added))) }
            node.content = .mapping(substituted)
        default:
            break
        }
        return node
    }

    /// One pass over the text: where a `${` is, in characters, is counted only for an error (once
    /// counted per variable, a 448 KB line of them took 48 s).
    private func substitute(_ text: String, at node: ConfigNode, added: inout Int) throws -> String {
        var out = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            if after.hasPrefix("${") {  // `$${` is a literal `${`
                out += "${"
                rest = after.dropFirst(2)
                continue
            }
            guard after.hasPrefix("{") else {
                out += "$"
                rest = after
                continue
            }
            // Where the `${` is, for errors: the node's column, past an opening quote.
            var location: Location {
                var location = node.location
                location.column = location.column.map { $0 + text.distance(from: text.startIndex, to: dollar) + (node.isQuoted ? 1 : 0) }
                return location
            }
            guard let close = after.firstIndex(of: "}") else {
                throw PipelineError(.invalidPipeline, code: .pipelineInvalidVariable, at: location, stage: "pipeline",
                                    "'${' opens a variable that no '}' closes (write '$${' for the text '${')", sourceLine: node.sourceLine)
            }
            let inside = after[after.index(after: after.startIndex)..<close]
            let name: Substring, fallback: Substring?
            if let range = inside.range(of: ":-") {
                (name, fallback) = (inside[..<range.lowerBound], inside[range.upperBound...])
            } else {
                (name, fallback) = (inside, nil)
            }
            guard PipelineVariables.isName(name) else {
                throw PipelineError(.invalidPipeline, code: .pipelineInvalidVariable, at: location, stage: "pipeline",
                                    "'${\(inside)}' names no variable: a name is letters, digits and '_' (as in ${BUILD_DIR} or ${BUILD_DIR:-build})",
                                    sourceLine: node.sourceLine)
            }
            if let value = given[String(name)] ?? environment[String(name)] ?? fallback.map(String.init) {
                added += value.utf8.count
                guard added <= Self.maxExpandedBytes else {
                    throw PipelineError(.invalidPipeline, code: .pipelineVariablesTooLarge, at: location, stage: "pipeline",
                                        "with '${\(name)}' (\(value.utf8.count.grouped) bytes) the variables add more than "
                                            + "\((Self.maxExpandedBytes >> 20).grouped) MB to the pipeline file, more than pipectl reads",
                                        sourceLine: node.sourceLine)
                }
                out += value
            } else {
                throw PipelineError(.invalidPipeline, code: .pipelineUnsetVariable, at: location, stage: "pipeline",
                                    "the variable '\(name)' is not set: give it with --var \(name)=VALUE or in the environment, "
                                        + "or a default with ${\(name):-VALUE}", sourceLine: node.sourceLine)
            }
            rest = after[after.index(after: close)...]
        }
        return out + rest
    }
}
