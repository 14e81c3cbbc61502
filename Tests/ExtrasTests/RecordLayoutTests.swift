import Foundation
import Diagnostics
import Pipeline
import PropertyLists
import SourcesJSON
import SourcesXML
import Testing

/// Where records are and which fields they have, as `pipectl init` finds them with the readers' own
/// parsers (`XMLLayout`, `JSONLayout`, `PropertyListReader.fields`): under the readers' limits.
@Suite("Record layouts for init")
struct RecordLayoutTests {
    func failure(_ body: () throws -> Void) -> PipelineError? {
        do {
            try body()
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }

    @Test func xmlRecordIsTheRootsFirstChildAndItsAttributesAndChildrenTheFields() throws {
        let input = try XMLTest.file("items.xml", """
            <?xml version="1.0"?>
            <items>
              <item unit="l" name="Milk"><added>2024-01-31</added><location><home>Fridge</home></location></item>
              <note>not a record</note>
              <item name="Salt" code="S1"><added>2024-02-01</added><price>0,45</price></item>
              <item name="Tea"><late>read past the limit</late></item>
            </items>
            """)
        #expect(try XMLLayout.find(in: input, limit: 2) == XMLLayout(record: "items/item",
                                                                     fields: ["name", "unit", "added", "location", "code", "price"]))
        #expect(try XMLLayout.find(in: input, limit: 500)?.fields.last == "late")
        #expect(try XMLLayout.find(in: XMLTest.file("root.xml", "<items/>"), limit: 500) == nil)
        #expect(try XMLLayout.find(in: XMLTest.file("text.xml", "<items>text</items>"), limit: 500) == nil)
    }

    /// As the reader: an entity is refused, the DTD and what it names never read.
    @Test func xmlEntitiesAreRefused() throws {
        let folder = try XMLTest.folder()
        let secret = folder.appendingPathComponent("secret.txt")
        try Data("TOP-SECRET".utf8).write(to: secret)
        let url = folder.appendingPathComponent("items.xml")
        try Data("""
            <?xml version="1.0"?>
            <!DOCTYPE items [<!ENTITY secret SYSTEM "\(secret.path)">]>
            <items>
              <item><name>&secret;</name></item>
            </items>
            """.utf8).write(to: url)
        let error = failure { _ = try XMLLayout.find(in: Input(url: url, displayPath: "data/items.xml"), limit: 500) }
        expectError(error, .xmlEntitiesRefused, at: "data/items.xml:4")
        let dtd = try XMLTest.file("dtd.xml", "<?xml version=\"1.0\"?><!DOCTYPE items SYSTEM \"\(secret.path)\"><items><item name=\"A\"/></items>")
        #expect(try XMLLayout.find(in: dtd, limit: 500) == XMLLayout(record: "items/item", fields: ["name"]))
        expectError(failure { _ = try XMLLayout.find(in: XMLTest.file("bad.xml", "<items><item></items>"), limit: 500) },
                    .xmlMalformed, at: "data/bad.xml:1:22")
    }

    @Test func jsonTopLevelArrayGivesSortedKeysNestedObjectsDotted() throws {
        let input = try JSONTest.file("items.json", """
            [{"unit": "l", "name": "Milk", "location": {"shop": "A1", "home": "Fridge"}, "tags": ["a"], "empty": {}},
             "not an object",
             {"name": "Salt", "added": null, "": "no name", "a.": "no name either"},
             {"name": "Tea", "late": 1}]
            """)
        let layout = try #require(try JSONLayout.json(input, limit: 2))
        #expect(layout.records == nil)
        #expect(layout.fields == ["location.home", "location.shop", "name", "tags", "unit", "", "a.", "added"])
        #expect(layout.readableFields == ["location.home", "location.shop", "name", "tags", "unit", "added"])
        #expect(try JSONLayout.json(input, limit: 3)?.fields.last == "late")
    }

    @Test func jsonTopLevelObjectGivesItsFirstKeyHoldingAnArray() throws {
        let input = try JSONTest.file("export.json", """
            {"zeta": [{"z": 1}], "meta": {"count": 2}, "items": [{"name": "Milk"}, {"name": "Salt", "unit": "kg"}], "about": "text"}
            """)
        #expect(try JSONLayout.json(input, limit: 500) == JSONLayout(records: "items", fields: ["name", "unit"]))
        #expect(try JSONLayout.json(JSONTest.file("object.json", #"{"a": {"b": [1]}}"#), limit: 500) == nil)
        #expect(try JSONLayout.json(JSONTest.file("number.json", "42"), limit: 500) == nil)
        expectError(failure { _ = try JSONLayout.json(JSONTest.file("empty.json", ""), limit: 500) }, .inputEmpty, at: "data/empty.json:1:1")
    }

    @Test func jsonLinesGivesTheFieldsOfItsObjectLines() throws {
        let input = try JSONTest.file("items.jsonl", "{\"name\": \"Milk\", \"unit\": {\"symbol\": \"l\"}}\n\n[1, 2]\n{\"added\": \"2024-01-31\", \"name\": \"Salt\"}\n")
        #expect(try JSONLayout.jsonLines(input, limit: 500) == JSONLayout(records: nil, fields: ["name", "unit.symbol", "added"]))
        #expect(try JSONLayout.jsonLines(input, limit: 1).fields == ["name", "unit.symbol"])
        expectError(failure { _ = try JSONLayout.jsonLines(JSONTest.file("two.jsonl", "{\"a\": 1} {\"b\": 2}\n"), limit: 500) },
                    .jsonUnexpectedToken, at: "data/two.jsonl:1:10")
    }

    /// Nesting past the reader's limit is its error, not a deep recursion.
    @Test func jsonNestingIsHeldToTheReadersLimit() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        expectError(failure { _ = try JSONLayout.json(JSONTest.file("deep.json", deep), limit: 500) }, .jsonTooDeep, at: "data/deep.json:1:513")
        let object = "[{\"name\": \"A\", \"x\": " + String(repeating: "{\"a\": ", count: 1000) + "1" + String(repeating: "}", count: 1000) + "}]"
        #expect(failure { _ = try JSONLayout.json(JSONTest.file("object.json", object), limit: 500) }?.code == .jsonTooDeep)
    }

    @Test func propertyListFieldsKeepTheReadersBudget() throws {
        let root: [Any] = [["name": "Milk", "location": ["home": "Fridge"], "added": Date(timeIntervalSinceReferenceDate: 0)] as [String: Any],
                           "not a dictionary", ["name": "Salt", "count": 2] as [String: Any]]
        let data = try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
        #expect(try PropertyListReader.fields(of: JSONTest.file("items.plist", [UInt8](data)), limit: 500) == ["added", "location.home", "name", "count"])
        let keyed = try PropertyListSerialization.data(fromPropertyList: ["items": [["name": "Milk"]]], format: .xml, options: 0)
        #expect(try PropertyListReader.fields(of: JSONTest.file("keyed.plist", [UInt8](keyed)), limit: 500) == nil)
        let bomb = try JSONTest.file("bomb.plist", PlistReaderTests.nestedReferences())
        expectError(failure { _ = try PropertyListReader.fields(of: bomb, limit: 500) }, .plistOverBudget, at: "data/bomb.plist")
    }
}
