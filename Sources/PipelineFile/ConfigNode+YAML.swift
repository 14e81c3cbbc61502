import Foundation
import Diagnostics
import Yams
import Pipeline

extension ConfigNode {
    /// Parses one YAML document into config nodes that carry their `file:line:col` and source line.
    ///
    /// Scalars keep their text (`isQuoted` for quoted and block scalars), `~`, `null` and empty
    /// plain scalars become `.null`, mappings keep their keys in file order. Anchors and aliases
    /// are resolved, within `YAMLAliasBudget`. Returns nil for a document with nothing in it (blank
    /// lines and comments only).
    ///
    /// - Throws: `PipelineError` (`.invalidPipeline`, stage `pipeline`) at a YAML syntax error, with
    ///   the parser's position and problem, at the second of two equal keys in a mapping, or at the
    ///   alias that takes the file past the alias budget.
    public static func parse(yaml: String, file: String) throws -> ConfigNode? {
        let converter = YAMLConverter(file: file, yaml: yaml)
        if let overrun = YAMLAliasBudget.check(yaml) {
            let (location, sourceLine) = converter.location((overrun.line, overrun.column))
            throw PipelineError(.invalidPipeline, code: .pipelineTooManyAliases, at: location, stage: "pipeline", overrun.message,
                                sourceLine: sourceLine)
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw converter.error(from: error)
        } catch {
            throw PipelineError(.invalidPipeline, code: .pipelineInvalidYAML, at: Location(file: file), stage: "pipeline", "invalid YAML: \(error)")
        }
        return try root.map(converter.convert)
    }
}

/// Turns Yams nodes into `ConfigNode`s and Yams errors into `PipelineError`s for one file.
private final class YAMLConverter {
    let file: String
    let yaml: String
    /// The file's lines, split where libyaml counts a line break, for the caret under messages.
    let lines: [Substring]
    /// Each line as a `String`, made once and shared by the nodes on it: a copy per node would
    /// make a long line of many nodes (a flow list) cost its length times theirs.
    private var lineTexts: [String?]

    init(file: String, yaml: String) {
        self.file = file
        self.yaml = yaml
        var lines: [Substring] = []
        var start = yaml.startIndex
        var index = start
        while index < yaml.endIndex {
            let c = yaml[index]
            // "\r\n" is one Character in Swift, so CRLF, CR and LF all end a line here.
            if c == "\n" || c == "\r\n" || c == "\r" {
                lines.append(yaml[start..<index])
                start = yaml.index(after: index)
            }
            index = yaml.index(after: index)
        }
        lines.append(yaml[start...])
        self.lines = lines
        lineTexts = Array(repeating: nil, count: lines.count)
    }

    func location(_ mark: Mark?) -> (Location, String?) {
        location(mark.map { ($0.line, $0.column) })
    }

    func location(_ position: (line: Int, column: Int)?) -> (Location, String?) {
        guard let (line, column) = position else { return (Location(file: file), nil) }
        return (Location(file: file, line: line, column: column), text(ofLine: line))
    }

    private func text(ofLine line: Int) -> String? {
        guard line >= 1, line <= lines.count else { return nil }
        if let text = lineTexts[line - 1] { return text }
        let text = String(lines[line - 1])
        lineTexts[line - 1] = text
        return text
    }

    func convert(_ node: Node) throws -> ConfigNode {
        let (location, sourceLine) = location(node.mark)
        switch node {
        case .scalar(let scalar):
            if scalar.style == .plain || scalar.style == .any, node.tag == Tag(.null) {
                return ConfigNode(.null, at: location, sourceLine: sourceLine)
            }
            let quoted = scalar.style != .plain && scalar.style != .any
            return ConfigNode(.scalar(scalar.string), at: location, sourceLine: sourceLine, isQuoted: quoted)
        case .sequence(let sequence):
            return ConfigNode(.sequence(try sequence.map(convert)), at: location, sourceLine: sourceLine)
        case .mapping(let mapping):
            var pairs: [(key: ConfigNode, value: ConfigNode)] = []
            pairs.reserveCapacity(mapping.count)
            // Yams rejects keys equal as YAML values; `1` and "1" differ there but are one key here.
            var seen: [String: ConfigNode] = [:]
            for (key, value) in mapping {
                let k = try convert(key)
                if let name = k.scalar {
                    if let first = seen[name] {
                        throw k.error(.pipelineDuplicateKey, "duplicate key '\(name)' in this mapping" + Self.firstSeen(first.location.line))
                    }
                    seen[name] = k
                }
                pairs.append((k, try convert(value)))
            }
            return ConfigNode(.mapping(pairs), at: location, sourceLine: sourceLine)
        case .alias:
            // Yams resolves aliases while composing; an alias node here has nothing to stand for.
            return ConfigNode(.null, at: location, sourceLine: sourceLine)
        }
    }

    static func firstSeen(_ line: Int?) -> String {
        line.map { "; the first one is on line \($0)" } ?? ""
    }

    // MARK: Errors

    func error(from error: YamlError) -> PipelineError {
        func at(_ mark: Mark?, _ code: PipelineError.Code, _ message: String) -> PipelineError {
            at(mark.map { ($0.line, $0.column) }, code, message)
        }
        func at(_ position: (line: Int, column: Int)?, _ code: PipelineError.Code, _ message: String) -> PipelineError {
            let (location, sourceLine) = location(position)
            return PipelineError(.invalidPipeline, code: code, at: location, stage: "pipeline", message, sourceLine: sourceLine)
        }
        func syntax(_ problem: String, _ context: YamlError.Context?) -> String {
            if problem == "but found another document" {
                return "a pipeline file holds one YAML document, but another one starts here"
            }
            var message = "invalid YAML: \(problem)"
            if let context {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            return message
        }
        // `{` and `}` are YAML's own inside a flow mapping, so an unquoted `${NAME}` there breaks the
        // file before any variable is read; the bare syntax error would not say why.
        func variableHint(_ context: YamlError.Context?, _ mark: Mark) -> String {
            guard let context, context.text.contains("flow"),
                  let line = location(mark).1,
                  line.contains("${") else { return "" }
            return "; inside { ... } quote a value that uses a variable, as in path: \"${BUILD_DIR}/Grocery.sqlite\""
        }
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            return at(mark, .pipelineInvalidYAML, syntax(problem, context) + variableHint(context, mark))
        case .reader(let problem, let offset, _, _):
            return at(offset.flatMap(position(atCharacterOffset:)), .pipelineInvalidYAML, "invalid YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let name = duplicates.first ?? ""
            let first = context.mark
            if let second = secondOccurrence(of: name, firstAt: first) {
                return at(second, .pipelineDuplicateKey, "duplicate key '\(name)' in this mapping" + Self.firstSeen(first.line))
            }
            return at(first, .pipelineDuplicateKey, "duplicate key '\(name)' in this mapping")
        default:
            return PipelineError(.invalidPipeline, code: .pipelineInvalidYAML, at: Location(file: file), stage: "pipeline",
                                 "invalid YAML: \(error)")
        }
    }

    /// Line and column (in Unicode scalars, as libyaml counts) of a character offset into the file.
    func position(atCharacterOffset offset: Int) -> (line: Int, column: Int)? {
        guard let end = yaml.index(yaml.startIndex, offsetBy: offset, limitedBy: yaml.endIndex) else { return nil }
        var line = 1
        var lineStart = yaml.startIndex
        var index = yaml.startIndex
        while index < end {
            let c = yaml[index]
            index = yaml.index(after: index)
            if c == "\n" || c == "\r\n" || c == "\r" {
                line += 1
                lineStart = index
            }
        }
        let column = yaml.unicodeScalars[lineStart..<end].count + 1
        return (line, column)
    }

    /// Where the second of two equal keys is, given the first (the one Yams reports).
    ///
    /// Yams stops before handing out any node, so the first key is disguised (one character
    /// swapped for a private-use one, which keeps every position) and the file composed again:
    /// either it now composes and the sibling key is found in the tree, or Yams reports the same
    /// key again, this time at its next occurrence. Anything else gives up, and the message
    /// points at the first key instead.
    func secondOccurrence(of name: String, firstAt first: Mark) -> Mark? {
        guard let disguised = disguising(keyAt: first) else { return nil }
        do {
            guard let root = try Yams.compose(yaml: disguised) else { return nil }
            return Self.sibling(named: name, ofKeyAt: first, in: root)
        } catch YamlError.duplicatedKeysInMapping(let again, let context)
            where again.first == name && Self.isAfter(context.mark, first) {
            return context.mark
        } catch {
            return nil
        }
    }

    /// The file with the first content character of the key at `mark` replaced by U+E000.
    private func disguising(keyAt mark: Mark) -> String? {
        var scalars = Array(yaml.unicodeScalars)
        var line = 1
        var i = 0
        while line < mark.line, i < scalars.count {
            let c = scalars[i]
            i += 1
            if c == "\n" {
                line += 1
            } else if c == "\r" {
                if i < scalars.count, scalars[i] == "\n" { i += 1 }
                line += 1
            }
        }
        var at = i + mark.column - 1
        guard at < scalars.count else { return nil }
        if scalars[at] == "\"" || scalars[at] == "'" { at += 1 }
        guard at < scalars.count, !"\\\"'\r\n".unicodeScalars.contains(scalars[at]) else { return nil }
        scalars[at] = "\u{E000}"
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    private static func sibling(named name: String, ofKeyAt first: Mark, in node: Node) -> Mark? {
        switch node {
        case .mapping(let mapping):
            if mapping.keys.contains(where: { $0.mark.map { same($0, first) } ?? false }) {
                for key in mapping.keys where key.scalar?.string == name {
                    if let mark = key.mark, isAfter(mark, first) { return mark }
                }
            }
            for (key, value) in mapping {
                if let found = sibling(named: name, ofKeyAt: first, in: key) ?? sibling(named: name, ofKeyAt: first, in: value) {
                    return found
                }
            }
            return nil
        case .sequence(let sequence):
            for item in sequence {
                if let found = sibling(named: name, ofKeyAt: first, in: item) { return found }
            }
            return nil
        case .scalar, .alias:
            return nil
        }
    }

    private static func same(_ a: Mark, _ b: Mark) -> Bool { a.line == b.line && a.column == b.column }
    private static func isAfter(_ a: Mark, _ b: Mark) -> Bool { (a.line, a.column) > (b.line, b.column) }
}
