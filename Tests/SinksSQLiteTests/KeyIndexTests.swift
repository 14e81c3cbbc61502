import Pipeline
@testable import SinksSQLite
import Testing

@Suite("KeyIndex: unique keys in memory")
struct KeyIndexTests {
    @Test("text keys are found as String compares them: canonically equivalent text is the same key")
    func canonicalEquivalence() throws {
        let index = KeyIndex()
        let at = Location(file: "items.csv", line: 2, column: 1)
        try index.insert(.text("Crème"), rowID: 1, first: at)  // è as one scalar
        try index.insert(.text("K-9"), rowID: 2, first: at)
        try index.insert(.text("a;b"), rowID: 3, first: at)
        #expect(index.lookup(.text("Cre\u{300}me"))?.rowID == 1)  // e and a combining grave accent
        #expect(index.lookup(.text("\u{212A}-9"))?.rowID == 2)  // KELVIN SIGN
        #expect(index.lookup(.text("a\u{37E}b"))?.rowID == 3)  // GREEK QUESTION MARK
        #expect(index.lookup(.text("Creme")) == nil)
        #expect(index.lookup(.text("k-9")) == nil)

        try index.insert(.text("\u{1FEF}x"), rowID: 4, first: at)  // GREEK VARIA, stored as "`x"
        #expect(index.lookup(.text("`x"))?.rowID == 4)
        try index.insert(.text("Cafe\u{301}"), rowID: 5, first: at)
        #expect(index.lookup(.text("Café"))?.rowID == 5)
        #expect(index.lookup(.text("Cafe")) == nil)
    }

    @Test("200,000 keys (the table grows many times): every one found with its row, none that was not inserted")
    func manyKeys() throws {
        let index = KeyIndex()
        let count = 200_000
        for k in 0..<count {
            try index.insert(.text("Item number \(k)"), rowID: Int64(k + 1), first: Location(file: "items.csv", line: k + 2, column: 1))
        }
        for k in stride(from: 0, to: count, by: 997) {
            let entry = try #require(index.lookup(.text("Item number \(k)")))
            #expect(entry.rowID == Int64(k + 1))
            #expect(index.firstLocation(of: entry) == Location(file: "items.csv", line: k + 2, column: 1))
        }
        #expect(index.lookup(.text("Item number \(count)")) == nil)
        #expect(index.lookup(.text("Item number")) == nil)
        #expect(index.lookup(.text("")) == nil)
    }

    @Test("other keys: single values and composite keys")
    func valueKeys() throws {
        let index = KeyIndex()
        try index.insert(.value(.integer(7)), rowID: 1, first: Location(file: "a.json", path: "[0]"))
        try index.insert(.values([.text("North"), .integer(3)]), rowID: 2, first: Location(file: "a.json", path: "[1]"))
        #expect(index.lookup(.value(.integer(7)))?.rowID == 1)
        #expect(index.lookup(.values([.text("North"), .integer(3)]))?.rowID == 2)
        #expect(index.lookup(.values([.text("North"), .integer(4)])) == nil)
        #expect(index.lookup(.text("7")) == nil)
    }

    @Test("first locations read back as they were given, whatever their shape")
    func locations() throws {
        let index = KeyIndex()
        let locations = [
            Location(file: "items.csv", line: 2, column: 1),
            Location(file: "items.xml", line: 4, path: "items/item[0]"),
            Location(file: "items.xml", line: 70_000, path: "items/item[12345]"),
            Location(file: "items.json", line: 3, column: 5, path: "[17]"),
            Location(file: "items.json", line: 3, column: 5, path: "data.items[2147483647]"),
            Location(file: "items.json", path: "data.items[2147483648]"),  // too large for 32 bits
            Location(file: "items.json", path: "data.items[007]"),  // would not read back the same
            Location(file: "items.json", path: "data.items[-1]"),
            Location(file: "items.plist", path: "root"),
            Location(file: "items.csv", line: Int(Int32.max) + 1, column: 1),
            Location(file: "items.csv"),
        ]
        for (k, location) in locations.enumerated() {
            try index.insert(.value(.integer(Int64(k))), rowID: Int64(k), first: location)
        }
        for (k, location) in locations.enumerated() {
            let entry = try #require(index.lookup(.value(.integer(Int64(k)))))
            #expect(index.firstLocation(of: entry) == location)
            #expect(index.firstLocation(of: entry).description == location.description)
        }
    }
}
