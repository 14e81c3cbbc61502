import Foundation
import Testing
@testable import SinksSQLite
@testable import CoreDataFormat
@testable import PropertyLists
@testable import StoreTools
import SQLite

@Suite("Binary property list writer")
struct BinaryPropertyListTests {
    static func decode(_ data: Data) throws -> Any {
        try PropertyListSerialization.propertyList(from: data, format: nil)
    }

    @Test func everyKindDecodesBack() throws {
        let long = (0..<20).map { Int64($0 * 1000) }
        let data = BinaryPropertyList.encode(.dictionary([
            "true": .bool(true), "false": .bool(false),
            "small": .integer(7), "word": .integer(40_000), "large": .integer(5_000_000_000), "negative": .integer(-3),
            "real": .real(2.5), "date": .date(0), "bytes": .data(Array(0..<40)),
            "ascii": .string("a string longer than fourteen bytes"), "unicode": .string("Entrée 🌱"),
            "list": .array(long.map { .integer($0) }), "empty": .array([]),
        ]))
        #expect(data.starts(with: Array("bplist00".utf8)))
        let plist = try #require(try Self.decode(data) as? [String: Any])
        #expect(plist["true"] as? Bool == true)
        #expect(plist["false"] as? Bool == false)
        #expect(plist["small"] as? Int == 7)
        #expect(plist["word"] as? Int == 40_000)
        #expect(plist["large"] as? Int == 5_000_000_000)
        #expect(plist["negative"] as? Int == -3)
        #expect(plist["real"] as? Double == 2.5)
        #expect(plist["date"] as? Date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(plist["bytes"] as? Data == Data(0..<40))
        #expect(plist["ascii"] as? String == "a string longer than fourteen bytes")
        #expect(plist["unicode"] as? String == "Entrée 🌱")
        #expect((plist["list"] as? [Int])?.map(Int64.init) == long)
        #expect((plist["empty"] as? [Any])?.isEmpty == true)
    }

    @Test func manyObjectsUseWiderReferences() throws {
        let entries = Dictionary(uniqueKeysWithValues: (0..<300).map { ("key\($0)", BinaryPropertyList.Object.integer(Int64($0))) })
        let plist = try #require(try Self.decode(BinaryPropertyList.encode(.dictionary(entries))) as? [String: Int])
        #expect(plist.count == 300)
        #expect(plist["key299"] == 299)
    }

    @Test func sameInputSameBytes() {
        // Built in different orders, so the dictionaries iterate differently.
        let a = Dictionary(uniqueKeysWithValues: (0..<50).map { ("k\($0)", BinaryPropertyList.Object.integer(Int64($0))) })
        let b = Dictionary(uniqueKeysWithValues: (0..<50).reversed().map { ("k\($0)", BinaryPropertyList.Object.integer(Int64($0))) })
        #expect(BinaryPropertyList.encode(.dictionary(a)) == BinaryPropertyList.encode(.dictionary(b)))
    }

    /// An array of 16 references to an array of 16 references ... 26 deep: 600 bytes that
    /// Foundation would expand into 16^26 objects. Refused on its bytes, before decoding.
    @Test func nestedReferencesAreRefusedBeforeDecoding() throws {
        let data = Self.nestedReferences()
        let error = #expect(throws: BinaryPropertyList.BudgetError.self) { try BinaryPropertyList.decode(data) }
        #expect(error?.description.hasPrefix("the binary property list decodes into more than 10,000,000 objects") == true)
        // What the writer makes is within the budget and decodes.
        let fine = BinaryPropertyList.encode(.array((0..<1000).map { .dictionary(["n": .integer(Int64($0))]) }))
        #expect(try BinaryPropertyList.decode(fine) == .array((0..<1000).map { .dictionary(["n": .integer(Int64($0))]) }))
    }

    /// The same, with one array's count given as an integer of 256 bytes, which the format does
    /// not allow: Foundation read past it and expanded the rest without bound (found by
    /// scripts/fuzz); the damage is told before it decodes.
    @Test func damagedObjectIsRefusedBeforeDecoding() throws {
        let data = Self.nestedReferences(damaged: 10)
        let error = #expect(throws: BinaryPropertyList.BudgetError.self) { try BinaryPropertyList.decode(data) }
        #expect(error?.description == "the binary property list is damaged: object 10 has a length that runs past the file's objects")
    }

    static func nestedReferences(damaged: Int? = nil) -> Data {
        var data = Data("bplist00".utf8)
        var offsets: [Int] = []
        for level in 0..<26 {
            offsets.append(data.count)
            data.append(contentsOf: [0xAF, level == damaged ? 0x18 : 0x10, 16] + [UInt8](repeating: UInt8(level + 1), count: 16))
        }
        offsets.append(data.count)
        data.append(contentsOf: [0x53] + Array("lol".utf8))
        let table = data.count
        for offset in offsets { data.append(contentsOf: [UInt8(offset >> 8), UInt8(offset & 0xFF)]) }
        data.append(contentsOf: [0, 0, 0, 0, 0, 0, 2, 1])
        for value in [UInt64(offsets.count), 0, UInt64(table)] { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
        return data
    }
}
