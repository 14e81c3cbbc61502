// A small SwiftData app's model, as the app declares it: pipectl reads these @Model classes
// (store.model: Models) and writes the store SwiftData opens as its own.
import Foundation
import SwiftData

@Model
final class Author {
    @Attribute(.unique) var name: String
    var born: Date?
    @Relationship(deleteRule: .cascade, inverse: \Book.author) var books: [Book] = []

    init(name: String) {
        self.name = name
    }
}

@Model
final class Book {
    @Attribute(.unique) var isbn: String
    var title: String
    var pages: Int = 0
    var rating: Double?
    var author: Author?

    init(isbn: String, title: String) {
        self.isbn = isbn
        self.title = title
    }
}
