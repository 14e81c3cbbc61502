import Foundation
import Diagnostics
import Pipeline
import SourcesXML
@testable import PropertyLists
import Testing

/// The budgets every reader shares with JSON's (`Fields.maxListValues`, `Fields.maxNames`),
/// on real files through libxml2 and Foundation's property list decoder.
@Suite("reader budgets")
struct ReaderBudgetTests {
    /// 1,000,001 repeated elements in one record (once 1.1 GB for 3M) stop at the one past the budget.
    @Test func xmlListsHoldAtMostAMillionValues() throws {
        let tags = String(repeating: "<tag>x</tag>\n", count: Fields.maxListValues + 1)
        let input = try XMLTest.file("items.xml", "<items><item><name>Milk</name>\n\(tags)</item></items>")
        let error = XMLTest.failure(input, fields: ["name", "tag"])
        // Tag 1,000,001 is on line 1,000,002.
        #expect(error?.description == "data/items.xml:1000002: error: xml: the lists of one record hold more than 1,000,000 values "
            + "(field 'tag' repeats here), more than pipectl reads")
        #expect(error?.code == .inputTooManyListValues)
        // Within it: a list of them all.
        let fewer = try XMLTest.file("items.xml", "<items><item><name>Milk</name>\(String(repeating: "<tag>x</tag>", count: 1000))</item></items>")
        let records = try XMLTest.read(fewer, record: "items/item", fields: ["name", "tag"])
        #expect(records.first?.values[1].elements.count == 1000)
    }

    /// An element of 10,001 distinct children (40,000 once took 27 s) stops at the one past the budget.
    @Test func xmlElementsHoldAtMostTenThousandKeys() throws {
        let children = (0...Fields.maxNames).map { "<c\($0)>x</c\($0)>\n" }.joined()
        let input = try XMLTest.file("items.xml", "<items><item><name>Milk</name><unit>\n\(children)</unit></item></items>")
        let error = XMLTest.failure(input, fields: ["name", "unit"])
        #expect(error?.description == "data/items.xml:10002: error: xml: the element of field 'unit' has more than 10,000 attributes "
            + "and child elements, more than pipectl reads")
        #expect(error?.code == .inputTooManyKeys)
        // A child given again within it becomes a list, in place.
        let again = try XMLTest.file("items.xml", "<items><item><unit>" + (0..<20).map { "<c\($0)>x</c\($0)>" }.joined() + "<c3>y</c3></unit></item></items>")
        let record = try #require(try XMLTest.read(again, record: "items/item", fields: ["unit"]).first)
        guard case .object(let fields) = record.values[0] else {
            Issue.record("no object read")
            return
        }
        #expect(fields["c3"] == .list([.text("x"), .text("y")]))
        #expect(fields.names.count == 20)
    }

    /// An element's or attribute's name taken as a field's holds at most
    /// `HeaderBudget.maxNameBytes` bytes (libxml2 allows 50,000), as a header row's name does:
    /// the keys of an element read as an object, the names `init` drafts from. A name no field
    /// takes is skipped as before.
    @Test func xmlNamesHoldAtMost1024Bytes() throws {
        let name = String(repeating: "n", count: HeaderBudget.maxNameBytes)
        let other = String(repeating: "m", count: HeaderBudget.maxNameBytes)
        let within = try XMLTest.file("items.xml", "<items><item><name>Milk</name><unit \(name)=\"1\"><\(other)>l</\(other)></unit></item></items>")
        let record = try #require(try XMLTest.read(within, record: "items/item", fields: ["name", "unit"]).first)
        guard case .object(let fields) = record.values[1] else {
            Issue.record("no object read")
            return
        }
        #expect(fields.names == [name, other])
        let child = try XMLTest.file("items.xml", "<items><item><name>Milk</name>\n<unit><\(name)x>l</\(name)x></unit></item></items>")
        let error = XMLTest.failure(child, fields: ["name", "unit"])
        #expect(error?.description == "data/items.xml:2: error: xml: an element's name is longer than the 1,024 bytes pipectl reads as a field name")
        #expect(error?.code == .inputHeaderNameTooLong && error?.kind == .invalidInput)
        let attribute = try XMLTest.file("items.xml", "<items><item><name>Milk</name>\n<unit \(name)x=\"1\"/></item></items>")
        #expect(XMLTest.failure(attribute, fields: ["name", "unit"])?.description
                == "data/items.xml:2: error: xml: an attribute's name is longer than the 1,024 bytes pipectl reads as a field name")
        // A child no field names: skipped.
        let skipped = try XMLTest.file("items.xml", "<items><item><name>Milk</name><\(name)x>l</\(name)x></item></items>")
        #expect(try XMLTest.rows(skipped, record: "items/item", fields: ["name"]) == [["Milk"]])
        // What init drafts from: a record's child elements and attributes.
        let onRecord = try XMLTest.file("items.xml", "<items><item \(name)x=\"1\"><name>Milk</name></item></items>")
        for file in [skipped, onRecord] {
            let layout = try #require(throws: PipelineError.self) { _ = try XMLLayout.find(in: file, limit: 500) }
            #expect(layout.code == .inputHeaderNameTooLong, "\(layout)")
        }
    }

    /// A property list's array of 1,000,001 values in one field, a dictionary of 10,001 keys, and
    /// a string of more than 8 MB each stop at their record.
    @Test func propertyListsKeepTheSameBudgets() throws {
        func plist(_ tags: Any) throws -> Input {
            let data = try PropertyListSerialization.data(fromPropertyList: [["name": "Milk", "tags": tags]], format: .binary, options: 0)
            let url = try XMLTest.folder().appendingPathComponent("items.plist")
            try data.write(to: url)
            return Input(url: url, displayPath: "data/items.plist")
        }
        func failure(_ input: Input) throws -> PipelineError {
            try #require(throws: PipelineError.self) {
                let reader = try PropertyListReader(input: input, fields: ["name", "tags"])
                while try reader.next() != nil {}
            }
        }
        // One list past the budget is refused on the file's bytes, before Foundation decodes it.
        let one = try failure(plist(Array(repeating: 1, count: Fields.maxListValues + 1)))
        #expect(one.description.hasPrefix("data/items.plist: error: plist: the binary property list has an array of 1,000,001 values (object "))
        #expect(one.description.hasSuffix("), more than the 1,000,000 pipectl reads in one list"))
        // Lists within it that hold more together: at their record.
        let list = try failure(plist([Array(repeating: 1, count: 500_000), Array(repeating: 2, count: 500_000)]))
        #expect(list.description == "data/items.plist: at [0]: error: plist: the lists in 'tags' hold more than 1,000,000 values in one record, "
            + "more than pipectl reads")
        let keys = try failure(plist([Dictionary(uniqueKeysWithValues: (0...Fields.maxNames).map { ("k\($0)", $0) })]))
        #expect(keys.description == "data/items.plist: at [0]: error: plist: a dictionary in 'tags' has 10,001 keys, more than the 10,000 pipectl reads")
        let long = try failure(plist(String(repeating: "a", count: (8 << 20) + 1)))
        #expect(long.description == "data/items.plist: at [0]: error: plist: a string in 'tags' of 8,388,609 bytes, longer than the 8 MB pipectl reads")
        #expect([one, list, keys, long].allSatisfy { $0.kind == .invalidInput })
    }

    /// A list of 9M references to one string (9 MB) is 9M objects, within the object budget:
    /// Foundation took 8 s and 900 MB to decode it before the reader counted the list's values.
    /// Refused on the file's bytes, as a dictionary of more keys than a header has columns.
    @Test func binaryPropertyListsRefuseALongListOnItsBytes() throws {
        func plist(_ container: [UInt8], count: Int, references: Int) -> Data {
            // [{"name": "Milk", "tags": container of `count` references to "l"}], references one byte wide.
            func be(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
            let objects: [[UInt8]] = [[0xA1, 1], [0xD2, 2, 4, 3, 5], [0x54] + Array("name".utf8), [0x54] + Array("Milk".utf8),
                                      [0x54] + Array("tags".utf8), container + [0x12] + be(count, 4) + Array(repeating: 6, count: references),
                                      [0x51, UInt8(ascii: "l")]]
            var bytes = Array("bplist00".utf8), offsets: [Int] = []
            for object in objects {
                offsets.append(bytes.count)
                bytes += object
            }
            let table = bytes.count
            for offset in offsets { bytes += be(offset, 4) }
            return Data(bytes + [0, 0, 0, 0, 0, 0, 4, 1] + be(objects.count, 8) + be(0, 8) + be(table, 8))
        }
        let url = try XMLTest.folder().appendingPathComponent("items.plist")
        let started = Date()
        try plist([0xAF], count: 9_000_000, references: 9_000_000).write(to: url)
        let list = try #require(throws: PipelineError.self) {
            _ = try PropertyListReader(input: Input(url: url, displayPath: "data/items.plist"), fields: ["name", "tags"])
        }
        #expect(list.description == "data/items.plist: error: plist: the binary property list has an array of 9,000,000 values (object 5), "
            + "more than the 1,000,000 pipectl reads in one list")
        #expect(list.code == .plistOverBudget)
        #expect(Date().timeIntervalSince(started) < 5)
        // A dictionary of 16,385 keys: as many key references and value references (all "l").
        try plist([0xDF], count: HeaderBudget.maxColumns + 1, references: 2 * (HeaderBudget.maxColumns + 1)).write(to: url)
        let keys = try #require(throws: PipelineError.self) {
            _ = try PropertyListReader(input: Input(url: url, displayPath: "data/items.plist"), fields: ["name", "tags"])
        }
        #expect(keys.description == "data/items.plist: error: plist: the binary property list has a dictionary of 16,385 keys (object 5), "
            + "more than the 16,384 pipectl reads in one")
    }

    /// One 1 MB string referred to 600 times is a 1 MB file, but 600 MB once decoded: the binary
    /// budget counts the bytes of strings and data with their references followed.
    @Test func binaryPropertyListsCountTheBytesOfSharedStrings() throws {
        func plist(references: Int) -> Data {
            // Object 0: an array of `references` references to object 1, a dictionary whose key
            // "name" (object 2) holds a 1 MB string (object 3). Foundation's writer shares no string.
            var bytes = Array("bplist00".utf8), offsets: [Int] = []
            offsets.append(bytes.count)
            bytes += [0xAF, 0x11, UInt8(references >> 8), UInt8(references & 0xFF)] + Array(repeating: 1, count: references)
            offsets.append(bytes.count)
            bytes += [0xD1, 2, 3]
            offsets.append(bytes.count)
            bytes += [0x54] + Array("name".utf8)
            offsets.append(bytes.count)
            bytes += [0x5F, 0x12, 0x00, 0x10, 0x00, 0x00] + Array(repeating: UInt8(ascii: "a"), count: 1 << 20)
            let table = bytes.count
            for offset in offsets { bytes += [UInt8(offset >> 24), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)] }
            func long(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
            bytes += [0, 0, 0, 0, 0, 0, 4, 1] + long(offsets.count) + long(0) + long(table)
            return Data(bytes)
        }
        let url = try XMLTest.folder().appendingPathComponent("items.plist")
        try plist(references: 600).write(to: url)
        let error = try #require(throws: PipelineError.self) {
            _ = try PropertyListReader(input: Input(url: url, displayPath: "data/items.plist"), fields: ["name"])
        }
        #expect(error.description == "data/items.plist: error: plist: the binary property list decodes into more than 512 MB of strings "
            + "and data, more than pipectl reads (it refers to the same ones over and over)")
        #expect(error.code == .plistOverBudget)
        // 400 references, 400 MB: within it.
        #expect(plist(references: 400).withUnsafeBytes(PropertyListBudget.overrun(in:)) == nil)
    }
}
