import Diagnostics
import Pipeline
// The libyaml that Yams bundles and parses with (SwiftPM hands its module map to every target
// that depends on Yams): its events say where each alias is, which Yams's composed nodes do not.
internal import CYaml

/// Bounds what aliases add to a pipeline file, before Yams composes it.
///
/// An alias stands for a copy of its anchor's node. Yams shares the copies, but converting them
/// to `ConfigNode`s (and Yams's own check for duplicate keys, which hashes each key) walks every
/// one: ten aliases of ten aliases of ten ... ("billion laughs") make a 600-byte file take
/// gigabytes. The sizes are counted on libyaml's events instead, where an alias costs one
/// lookup: each anchor's node is counted once, with the aliases inside it expanded, and every
/// alias adds its anchor's count to the file's.
enum YAMLAliasBudget {
    /// Nodes that aliases may add to the file, in all: a pipeline reusing a block of options per
    /// source or entity stays far below, an alias bomb goes past it at once.
    static let maxNodes = 1_000_000
    /// Bytes of scalar text that aliases may add, in all.
    static let maxTextBytes = 64 << 20

    struct Overrun {
        /// Where the alias that goes past the budget is (1-based, as Yams counts).
        var line: Int
        var column: Int
        var message: String
    }

    /// The first alias that takes the file past a budget; nil when none does. A file libyaml
    /// cannot parse is left to Yams, which reports why.
    static func check(_ yaml: String) -> Overrun? {
        var text = yaml
        return text.withUTF8 { bytes in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return nil }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
            var counter = Counter()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                if let overrun = counter.take(event) { return overrun }
                if event.type == YAML_STREAM_END_EVENT { return nil }
            }
        }
    }

    /// A node's size once its aliases are expanded.
    struct Size {
        var nodes = 0
        var textBytes = 0
    }

    private struct Counter {
        /// The sequences and mappings open around the current event, with their anchors.
        var open: [(anchor: String?, size: Size)] = []
        /// The size of each anchor's node; a later anchor of the same name replaces it, as in Yams.
        var anchors: [String: Size] = [:]
        /// What the aliases so far added.
        var added = Size()

        mutating func take(_ event: yaml_event_t) -> Overrun? {
            switch event.type {
            case YAML_SCALAR_EVENT:
                let size = Size(nodes: 1, textBytes: event.data.scalar.length)
                end(anchor: name(event.data.scalar.anchor), size: size)
            case YAML_SEQUENCE_START_EVENT:
                open.append((name(event.data.sequence_start.anchor), Size(nodes: 1)))
            case YAML_MAPPING_START_EVENT:
                open.append((name(event.data.mapping_start.anchor), Size(nodes: 1)))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let node = open.popLast() else { return nil }
                end(anchor: node.anchor, size: node.size)
            case YAML_ALIAS_EVENT:
                // An alias of no anchor (yet) is Yams's to report.
                guard let anchor = name(event.data.alias.anchor), let size = anchors[anchor] else { return nil }
                added.nodes += size.nodes
                added.textBytes += size.textBytes
                if added.nodes > YAMLAliasBudget.maxNodes || added.textBytes > YAMLAliasBudget.maxTextBytes {
                    let what = added.nodes > YAMLAliasBudget.maxNodes
                        ? "more than \(YAMLAliasBudget.maxNodes.grouped) nodes"
                        : "more than \(YAMLAliasBudget.maxTextBytes >> 20) MB of text"
                    let message = "the alias '*\(anchor)' stands for \(size.nodes.grouped) node\(size.nodes == 1 ? "" : "s") "
                        + "and \(size.textBytes.grouped) bytes of text: with it, aliases would add \(what) to the file "
                        + "(aliases of aliases multiply, as in a \"billion laughs\"); write the repeated part out, "
                        + "or alias smaller pieces"
                    return Overrun(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1,
                                   message: message)
                }
                end(anchor: nil, size: size)
            default:
                break
            }
            return nil
        }

        /// A whole node: its anchor learns its size, and the node around it grows by it.
        private mutating func end(anchor: String?, size: Size) {
            if let anchor { anchors[anchor] = size }
            if !open.isEmpty {
                open[open.count - 1].size.nodes += size.nodes
                open[open.count - 1].size.textBytes += size.textBytes
            }
        }

        private func name(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
        }
    }
}
