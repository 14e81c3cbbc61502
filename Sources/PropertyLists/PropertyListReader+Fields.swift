import Foundation
import Pipeline

extension PropertyListReader {
    /// The fields of a property list's records, as `pipectl init` drafts a read of it: the keys of
    /// the first `limit` dictionaries of the root array, a nested dictionary's as dotted names
    /// (`location.home`), in the order first met, each dictionary's keys sorted. The file is
    /// decoded as the reader decodes it, within the budget. Nil when the root is no array: a
    /// dictionary of dictionaries is read with `key_field:`, which `init` does not guess.
    public static func fields(of input: Input, limit: Int) throws -> [String]? {
        guard let array = try decode(input).root as? [Any] else { return nil }
        var names: [String] = [], seen: Set<String> = []
        func visit(_ dictionary: [String: Any], prefix: String) {
            for key in dictionary.keys.sorted() {
                if let inner = dictionary[key] as? [String: Any] {
                    visit(inner, prefix: prefix + key + ".")
                } else if seen.insert(prefix + key).inserted {
                    names.append(prefix + key)
                }
            }
        }
        for dictionary in array.lazy.compactMap({ $0 as? [String: Any] }).prefix(limit) { visit(dictionary, prefix: "") }
        return names
    }
}
