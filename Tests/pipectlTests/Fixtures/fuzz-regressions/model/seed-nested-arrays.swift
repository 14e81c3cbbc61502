import SwiftData

@Model
final class Item {
    var name: String
    var grid: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[Int]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] = []
    init(name: String) { self.name = name }
}
