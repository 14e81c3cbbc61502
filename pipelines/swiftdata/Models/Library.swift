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
    /// The app tells its default books apart by this: the same in every regeneration.
    var id: UUID = UUID()
    @Attribute(.unique) var isbn: String
    var title: String
    var pages: Int = 0
    var rating: Double?
    var author: Author?
    var format: Format = .paperback
    var shelf: Shelf?
    var publisher: Publisher?
    var tags: [String] = []

    init(isbn: String, title: String) {
        self.isbn = isbn
        self.title = title
    }
}

/// Stored as its raw value, one column.
enum Format: String, Codable {
    case hardcover, paperback
    case ebook = "e-book"
}

/// No raw values: SwiftData keeps a column per case.
enum Shelf: Codable {
    case toRead, reading, finished
}

/// A Codable struct: a column per property (ZNAME, ZCITY).
struct Publisher: Codable {
    var name: String
    var city: String?
}
