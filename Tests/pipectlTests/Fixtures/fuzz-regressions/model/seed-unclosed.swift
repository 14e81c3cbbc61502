import SwiftData

@Model
final class Item {
    @Attribute(.unique var name: String
    var tags: [String: [Int]
    init(name: String) { self.name = name
