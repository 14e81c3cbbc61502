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

    /// The node with every variable in its strings (keys and values) replaced.
    func substitute(in node: ConfigNode) throws -> ConfigNode {
        var node = node
        switch node.content {
        case .scalar(let text) where text.contains("$"):
            node.content = .scalar(try substitute(text, at: node))
        case .sequence(let items):
            node.content = .sequence(try items.map(substitute))
        case .mapping(let pairs):
            node.content = .mapping(try pairs.map { (try substitute(in: $0.key), try substitute(in: $0.value)) })
        default:
            break
        }
        return node
    }

    private func substitute(_ text: String, at node: ConfigNode) throws -> String {
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
            var location = node.location
            location.column = location.column.map { $0 + text.distance(from: text.startIndex, to: dollar) + (node.isQuoted ? 1 : 0) }
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
            if let value = given[String(name)] ?? environment[String(name)] {
                out += value
            } else if let fallback {
                out += fallback
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
