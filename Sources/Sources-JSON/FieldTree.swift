import Foundation
import Pipeline

/// The fields a reader picks out of nested objects, as a tree of keys resolved once.
///
/// `["name", "unit.name", "unit.symbol"]` becomes root -> {name: slot 0, unit -> {name: slot 1,
/// symbol: slot 2}}; a record's keys are matched against a node's few children byte for byte, so
/// no key becomes a String.
struct FieldTree {
    struct Node {
        var key: [UInt8]
        var children: [Int] = []
        /// The index of the field in `fieldNames`, for a node that names one.
        var slot: Int?
        /// The dotted path to this node, for messages.
        var path: String
    }

    private(set) var nodes: [Node] = [Node(key: [], path: "")]
    /// The field names, without repeats, in the order given.
    let fieldNames: [String]

    /// The first name with an empty part between dots (`a..b`, `.a`), which no key path can match.
    static func malformedName(in names: [String]) -> String? {
        names.first { $0.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) }
    }

    /// Nil when a name is malformed (see `malformedName(in:)`).
    init?(fields: [String]) {
        var names: [String] = []
        var seen: Set<String> = []
        for name in fields where seen.insert(name).inserted { names.append(name) }
        fieldNames = names
        for (slot, name) in names.enumerated() {
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            guard !parts.contains(where: \.isEmpty) else { return nil }
            var node = 0
            for (index, part) in parts.enumerated() {
                let key = Array(part.utf8)
                if let child = nodes[node].children.first(where: { nodes[$0].key == key }) {
                    node = child
                } else {
                    nodes.append(Node(key: key, path: parts[...index].joined(separator: ".")))
                    nodes[node].children.append(nodes.count - 1)
                    node = nodes.count - 1
                }
            }
            nodes[node].slot = slot
        }
    }

    /// The child of `node` whose key is `key`.
    @inline(__always) func child(of node: Int, key: UnsafeBufferPointer<UInt8>) -> Int? {
        for child in nodes[node].children {
            let matches = nodes[child].key.withUnsafeBufferPointer {
                $0.count == key.count && (key.count == 0 || memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0)
            }
            if matches { return child }
        }
        return nil
    }
}
