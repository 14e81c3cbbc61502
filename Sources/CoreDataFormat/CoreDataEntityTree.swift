import Pipeline

/// A model's entities as Core Data numbers them: `Z_ENT` 1...n in a pre-order walk of the
/// inheritance forest, roots by name, each followed at once by its sub-entities (by name).
///
/// Seen in real stores: Car=1, SportCar=2, ExpensiveSportCar=3, Person=4 (not alphabetical).
public struct CoreDataEntityTree: Sendable {
    /// Every entity (abstract ones too) in `Z_ENT` order; `entities[i]` has number `i + 1`.
    public let entities: [Entity]
    private let numbers: [String: Int]
    private let parents: [Int]     // Z_SUPER per index: 0 for a root
    private let roots: [Int]       // index of each entity's root
    private let childCounts: [Int]

    /// Orders a model's entities. Entities whose parent is missing count as roots: the model
    /// reader refuses such models, so this only keeps hand-built models from crashing.
    public init(_ model: StoreModel) {
        var children: [String: [Entity]] = [:]
        var roots: [Entity] = []
        for entity in model.entities {
            if let parent = entity.parent, model[parent] != nil, parent != entity.name {
                children[parent, default: []].append(entity)
            } else {
                roots.append(entity)
            }
        }
        var ordered: [Entity] = []
        var numbers: [String: Int] = [:]
        var parents: [Int] = []
        var rootIndexes: [Int] = []
        var childCounts: [Int] = []
        func visit(_ entity: Entity, parent: Int, root: Int?) {
            // A cycle in a hand-built model would recurse forever: visit each entity once.
            guard numbers[entity.name] == nil else { return }
            let index = ordered.count
            ordered.append(entity)
            numbers[entity.name] = index + 1
            parents.append(parent)
            rootIndexes.append(root ?? index)
            let subs = (children[entity.name] ?? []).sorted { $0.name < $1.name }
            childCounts.append(subs.count)
            for sub in subs { visit(sub, parent: index + 1, root: root ?? index) }
        }
        for root in roots.sorted(by: { $0.name < $1.name }) { visit(root, parent: 0, root: nil) }
        self.entities = ordered
        self.numbers = numbers
        self.parents = parents
        self.roots = rootIndexes
        self.childCounts = childCounts
    }

    /// The entity's `Z_ENT`.
    public func number(of name: String) -> Int? { numbers[name] }

    /// The parent's `Z_ENT`, 0 for a root (Z_PRIMARYKEY's `Z_SUPER`).
    public func superNumber(of name: String) -> Int? { numbers[name].map { parents[$0 - 1] } }

    /// The root of the entity's hierarchy, whose table holds its rows.
    public func root(of name: String) -> Entity? { numbers[name].map { entities[roots[$0 - 1]] } }

    /// `true` when other entities inherit from this one.
    public func hasSubentities(_ name: String) -> Bool { numbers[name].map { childCounts[$0 - 1] > 0 } ?? false }

    /// Root entities in `Z_ENT` order: one table each.
    public var rootEntities: [Entity] {
        entities.indices.filter { parents[$0] == 0 }.map { entities[$0] }
    }

    /// A root and all its descendants, in `Z_ENT` order.
    public func hierarchy(of root: String) -> [Entity] {
        guard let n = numbers[root] else { return [] }
        let rootIndex = roots[n - 1]
        return entities.indices.filter { roots[$0] == rootIndex }.map { entities[$0] }
    }
}
