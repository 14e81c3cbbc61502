import Foundation
import Diagnostics
import Pipeline
import Testing
@testable import PropertyLists

@Suite("Property-list reader")
struct PlistReaderTests {
    static let added = Date(timeIntervalSinceReferenceDate: 797_558_400)

    func write(_ root: Any, _ format: PropertyListSerialization.PropertyListFormat, name: String = "grocery.plist") throws -> Input {
        let data = try PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0)
        return try JSONTest.file(name, [UInt8](data))
    }

    func failure(_ input: Input, keyField: String? = nil) -> PipelineError? {
        do {
            _ = try JSONTest.collect(PropertyListReader(input: input, fields: ["name"], keyField: keyField))
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func arrayOfDictionariesKeepsTypes(format: PropertyListSerialization.PropertyListFormat) throws {
        let root: [Any] = [
            ["name": "Milk", "quantity": 1.5, "count": 2, "organic": true, "added": Self.added,
             "photo": Data([0xFF, 0x00, 0x01]), "unit": ["name": "litre", "symbol": "l"]] as [String: Any],
            ["name": "Salt", "count": 0, "organic": false, "quantity": 3.0] as [String: Any],
            "not a dictionary",
            ["name": "Eggs", "unit": ["name": ["nested"]]] as [String: Any],
        ]
        let reader = try PropertyListReader(input: write(root, format),
                                            fields: ["name", "quantity", "count", "organic", "added", "photo", "unit.symbol", "missing"])
        let result = try JSONTest.collect(reader)
        #expect(result.rows == [
            [.text("Milk"), .double(1.5), .integer(2), .bool(true), .date(797_558_400), .binary([0xFF, 0x00, 0x01]), .text("l"), .null],
            [.text("Salt"), .double(3), .integer(0), .bool(false), .null, .null, .null, .null],
            [.text("Eggs"), .null, .null, .null, .null, .null, .null, .null],
        ])
        #expect(result.records.map(\.location) == [
            Location(file: "data/grocery.plist", path: "[0]"),
            Location(file: "data/grocery.plist", path: "[1]"),
            Location(file: "data/grocery.plist", path: "[3]"),
        ])
        #expect(result.rejections.map(\.description) == [
            "data/grocery.plist: at [2]: rejected: plist: the entry is a string, not a dictionary",
        ])
    }

    @Test func fieldHoldingACollectionRejectsTheRecord() throws {
        let root: [Any] = [["name": "Milk", "unit": ["name": "litre"], "tags": ["a"]] as [String: Any]]
        let reader = try PropertyListReader(input: write(root, .xml), fields: ["unit", "tags", "name.first"])
        let result = try JSONTest.collect(reader)
        #expect(result.rejections.map(\.description) == [
            "data/grocery.plist: at [0]: rejected: plist: field 'unit': the value is a dictionary; name a field inside it",
        ])
        let second = try JSONTest.collect(PropertyListReader(input: write(root, .xml), fields: ["name.first"]))
        #expect(second.rejections.map(\.description) == [
            "data/grocery.plist: at [0]: rejected: plist: field 'name.first': 'name' is a string, not a dictionary",
        ])
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func dictionaryOfDictionariesWithKeyField(format: PropertyListSerialization.PropertyListFormat) throws {
        let root: [String: Any] = [
            "Milk": ["quantity": 1, "unit": "l"],
            "Bread": ["quantity": 2, "unit": "loaf"],
        ]
        let reader = try PropertyListReader(input: write(root, format), fields: ["quantity", "unit"], keyField: "name")
        let result = try JSONTest.collect(reader)
        #expect(result.fieldNames == ["quantity", "unit", "name"])
        #expect(result.rows == [[.integer(2), .text("loaf"), .text("Bread")], [.integer(1), .text("l"), .text("Milk")]])
        #expect(result.records.map(\.location.description) == ["data/grocery.plist: at Bread", "data/grocery.plist: at Milk"])
    }

    @Test func readerKindReadsKeyField() throws {
        let input = try write(["Milk": ["unit": "l"]], .xml)
        let at = Location(file: "p.yaml")
        let node = ConfigNode(.mapping([
            (ConfigNode(.scalar("plist"), at: at), ConfigNode(.scalar("grocery.plist"), at: at)),
            (ConfigNode(.scalar("key_field"), at: at), ConfigNode(.scalar("name"), at: at)),
        ]), at: at)
        let options = try Pipeline.Options(node, spec: PropertyListReaderKind().spec, ignoring: ["plist"])
        let reader = try PropertyListReaderKind().makeReader(input: input, options: options, fields: ["name", "unit"])
        #expect(try JSONTest.collect(reader).rows == [[.text("Milk"), .text("l")]])
    }

    @Test func dictionaryRootNeedsKeyField() throws {
        let error = failure(try write(["Milk": ["unit": "l"]], .xml))
        #expect(error?.code == .plistNeedsKeyField)
        #expect(error?.description == """
            data/grocery.plist: error: plist: the root is a dictionary: set 'key_field:' to the field that receives \
            each entry's key (such as key_field: name), or make the root an array of dictionaries
            """)
    }

    @Test func rootThatIsNotACollection() throws {
        expectError(failure(try write("Milk", .xml)), .plistNoRecords, at: "data/grocery.plist")
        expectError(failure(try write(42, .binary)), .plistNoRecords, at: "data/grocery.plist")
    }

    /// The keys a missing field's suggestion is picked from are read within the budget too: a
    /// reference bomb gives none, at once, instead of expanding in Foundation.
    @Test func suggestedKeysStayWithinTheBudget() throws {
        let fine = try write([["name": "Milk", "unit": ["symbol": "l"]]], .binary)
        #expect(PropertyListReaderKind.keys(in: fine) == ["name", "unit", "symbol"])
        #expect(PropertyListReaderKind.keys(in: try JSONTest.file("bomb.plist", Self.nestedReferences())) == [])
    }

    /// 592 bytes: 26 levels of arrays of 16 references to the next level, 16^26 objects once decoded.
    static func nestedReferences() -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for level in 0..<26 {
            offsets.append(bytes.count)
            bytes += [0xAF, 0x10, 16] + [UInt8](repeating: UInt8(level + 1), count: 16)
        }
        offsets.append(bytes.count)
        bytes += [0x53] + Array("lol".utf8)
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        for value in [UInt64(offsets.count), 0, UInt64(table)] { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
        return bytes
    }

    @Test func corruptAndEmptyFiles() throws {
        let valid = try PropertyListSerialization.data(fromPropertyList: [["name": "Milk"]], format: .binary, options: 0)
        let corrupt = try JSONTest.file("corrupt.plist", Array([UInt8](valid).prefix(valid.count - 12)))
        // The trailer, read from the wrong place, is what gives the damage away (the corpus's plist-binary-truncated).
        expectError(failure(corrupt), .plistMalformed, at: "data/corrupt.plist")
        let xml = try JSONTest.file("broken.plist", "<?xml version=\"1.0\"?><plist version=\"1.0\"><array><dict><key>name</key>")
        expectError(failure(xml), .plistMalformed, at: "data/broken.plist")
        // Foundation's own reason for a text property list, without a word of the binary format.
        #expect(failure(xml)?.message.contains("binary") == false)
        expectError(failure(try JSONTest.file("empty.plist", "")), .inputEmpty, at: "data/empty.plist")
    }
}
