internal import CLibXML2

/// The field names resolved once against the reader's name dictionary: which attribute or which
/// element below the record fills which slot, so that records are read by comparing pointers.
struct FieldTree {
    typealias Name = UnsafePointer<xmlChar>

    struct Node {
        var name: Name?
        /// The field this element fills, or -1 when it only leads to deeper fields.
        var slot = -1
        var children: [Int] = []
    }

    /// Node 0 is the record element itself; its children are the record's child elements.
    private(set) var nodes = [Node()]
    /// Fields that name no path (`name`, not `details/price`) may come from an attribute.
    private(set) var attributes: [(name: Name, slot: Int)] = []

    /// `intern` turns a name into the reader's own copy, which element and attribute names share.
    init(fields: [[String]], intern: (String) -> Name?) {
        for (slot, steps) in fields.enumerated() {
            var node = 0
            for step in steps {
                guard let name = intern(step) else { break }
                if let child = nodes[node].children.first(where: { nodes[$0].name.map { same($0, name) } ?? false }) {
                    node = child
                } else {
                    nodes.append(Node(name: name))
                    nodes[node].children.append(nodes.count - 1)
                    node = nodes.count - 1
                }
            }
            if nodes[node].slot < 0 { nodes[node].slot = slot }
            if steps.count == 1, let name = intern(steps[0]) { attributes.append((name, slot)) }
        }
    }

    /// The child of `node` named `name`, or -1.
    @inline(__always)
    func child(of node: Int, named name: Name) -> Int {
        for child in nodes[node].children where nodes[child].name == name { return child }
        for child in nodes[node].children {
            if let childName = nodes[child].name, same(childName, name) { return child }
        }
        return -1
    }

    /// The slot of the attribute named `name`, or -1.
    @inline(__always)
    func attributeSlot(named name: Name) -> Int {
        // The dictionary's names first, by pointer: the string comparison is for the rest.
        for attribute in attributes where attribute.name == name { return attribute.slot }
        for attribute in attributes where same(attribute.name, name) { return attribute.slot }
        return -1
    }
}

/// Names from the reader's dictionary are equal when their pointers are; the string comparison
/// only backs that up for a name libxml2 did not take from its dictionary.
@inline(__always)
func same(_ a: UnsafePointer<xmlChar>, _ b: UnsafePointer<xmlChar>) -> Bool {
    a == b || xmlStrEqual(a, b) != 0
}
