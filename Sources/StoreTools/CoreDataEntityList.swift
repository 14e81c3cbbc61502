import Pipeline

/// A Core Data store's own list of its entities (`Z_PRIMARYKEY`), read without the model: each
/// entity's name and parent, the table its rows are in, and which entity a `Z_<n>...` name (a
/// join table or one of its columns) means.
struct CoreDataEntityList {
    struct Entry {
        var name: String
        /// `Z_SUPER`: the parent's number, 0 for a root entity.
        var parent: Int64
        var max: Int64?
    }

    /// In `Z_ENT` order.
    let numbers: [Int64]
    let entries: [Int64: Entry]

    /// From the rows of `SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT`.
    init(rows: [[Value]]) {
        var numbers: [Int64] = []
        var entries: [Int64: Entry] = [:]
        // Read as inspect reads any number: a store written by other tools may keep them as text.
        let integer = StoreInspection.integer
        for row in rows {
            guard let number = integer(row[0]) else { continue }
            let parent = integer(row[2]) ?? 0
            let max = row.count > 3 ? integer(row[3]) : nil
            numbers.append(number)
            entries[number] = Entry(name: row[1].displayText, parent: parent, max: max)
        }
        self.numbers = numbers
        self.entries = entries
    }

    init(numbers: [Int64], entries: [Int64: Entry]) {
        self.numbers = numbers
        self.entries = entries
    }

    static let query = "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"

    /// The root of entity `number`'s hierarchy, whose table (`Z` + its name upper-cased) holds the
    /// rows of every entity below it. A `Z_SUPER` naming a missing entity, or a cycle, ends the walk.
    func root(of number: Int64) -> Int64 {
        var root = number
        var seen: Set<Int64> = [root]
        while let parent = entries[root]?.parent, parent != 0, entries[parent] != nil, seen.insert(parent).inserted {
            root = parent
        }
        return root
    }

    /// `Z_1TAGS` and its column `Z_2RECIPES`: the entity number after `Z_`; nil for other names.
    static func entityNumber(inName name: String) -> Int64? {
        guard name.hasPrefix("Z_") else { return nil }
        return Int64(name.dropFirst(2).prefix(while: \.isNumber))
    }
}
