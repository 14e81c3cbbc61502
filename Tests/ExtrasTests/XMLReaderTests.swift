import Foundation
import Diagnostics
import Pipeline
import SourcesXML
import Testing

/// The XML reader on real files and the real libxml2: record and field shapes, encodings,
/// locations, malformed input and the inputs that try to make libxml2 read more than the file.
@Suite struct XMLReaderTests {
    static let fields = ["name", "unit", "locationathome", "locationatshop"]
    static let groceries = [
        ["Milk", "l", "Fridge", "Aisle 3: Dairy"],
        ["Bread", "loaf", "Pantry", "Aisle 1: Bakery"],
        ["Apples", "kg", "Fruit bowl", "Aisle 2: Fruit & Vegetables"],
    ]

    // MARK: Shapes

    @Test func attributesOfTheClassicCoreDataDefaultData() throws {
        let input = try XMLTest.file("grocery.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <items>
                <item name="Milk" unit="l" locationathome="Fridge" locationatshop="Aisle 3: Dairy"/>
                <item name="Bread" unit="loaf" locationathome="Pantry" locationatshop="Aisle 1: Bakery"/>
                <item name="Apples" unit="kg" locationathome="Fruit bowl" locationatshop="Aisle 2: Fruit &amp; Vegetables"/>
            </items>
            """)
        #expect(try XMLTest.rows(input, record: "items/item", fields: Self.fields) == Self.groceries)
        #expect(try XMLTest.rows(input, record: "item", fields: Self.fields) == Self.groceries)
    }

    @Test func childElements() throws {
        let input = try XMLTest.file("grocery.xml", """
            <items>
              <item><name>Milk</name><unit>l</unit><locationathome>Fridge</locationathome><locationatshop>Aisle 3: Dairy</locationatshop></item>
              <item>
                <locationatshop>Aisle 1: Bakery</locationatshop>
                <name>Bread</name>
                <unit>loaf</unit>
                <locationathome>Pantry</locationathome>
              </item>
              <item><name>Apples</name><unit>kg</unit><locationathome>Fruit bowl</locationathome><locationatshop>Aisle 2: Fruit &amp; Vegetables</locationatshop></item>
            </items>
            """)
        #expect(try XMLTest.rows(input, record: "items/item", fields: Self.fields) == Self.groceries)
    }

    @Test func attributesAndChildrenMixedWithGrandchildrenAndMissingFields() throws {
        let input = try XMLTest.file("mixed.xml", """
            <items>
              <item name="Milk"><unit>l</unit><where><home>Fridge</home></where><note/></item>
              <item name="Bread" unit="loaf"><name>ignored: the attribute comes first</name><unit>ignored</unit></item>
              <item><name>Tea</name><name>Green tea</name><where><shop>Aisle 4</shop></where></item>
            </items>
            """)
        let fields = ["name", "unit", "where/home", "where/shop", "note", "absent"]
        #expect(try XMLTest.rows(input, record: "items/item", fields: fields) == [
            ["Milk", "l", "Fridge", "", "", ""],
            ["Bread", "loaf", "", "", "", ""],
            ["[Tea, Green tea]", "", "", "Aisle 4", "", ""],
        ])
    }

    /// An element with attributes or child elements is an object (for `each:`), unless it holds
    /// text and has no child elements.
    @Test func elementsWithAttributesOrChildrenAreObjects() throws {
        let input = try XMLTest.file("recipes.xml", """
            <recipes>
              <recipe name="Soup">
                <ingredient name="Lentils" amount="300 g"/>
                <ingredient><name>Onion</name><amount> 1 </amount><note>chopped</note><note>fine</note></ingredient>
                <unit code="kg">Kilogram</unit>
                <size cm="20"> </size>
              </recipe>
            </recipes>
            """)
        let records = try XMLTest.read(input, record: "recipe", fields: ["name", "ingredient", "unit", "size"])
        #expect(records.map(\.values) == [[
            .text("Soup"),
            .list([.object(Fields(names: ["name", "amount"], values: [.text("Lentils"), .text("300 g")])),
                   .object(Fields(names: ["name", "amount", "note"],
                                  values: [.text("Onion"), .text(" 1 "), .list([.text("chopped"), .text("fine")])]))]),
            .text("Kilogram"),
            .object(Fields(names: ["cm"], values: [.text("20")])),
        ]])
    }

    /// `<tag>a</tag><tag>b</tag>`: a field whose element comes again is a list, for a to-many link.
    @Test func repeatedElementsAreLists() throws {
        let input = try XMLTest.file("tags.xml", """
            <recipes>
              <recipe name="Soup"><tag> vegan </tag><tag>quick</tag><tag/></recipe>
              <recipe name="Tea"><tag>quick</tag></recipe>
              <recipe name="Toast"/>
            </recipes>
            """)
        let reader = try XMLReader(input: input, options: .init(record: "recipe", fields: ["name", "tag"]))
        #expect(reader.trimWhileReading(fields: [1]))
        var records: [Record] = []
        while let record = try reader.next() { records.append(record) }
        #expect(records.map(\.values) == [
            [.text("Soup"), .list([.text("vegan"), .text("quick"), .text("")])],
            [.text("Tea"), .text("quick")],
            [.text("Toast"), .text("")],
        ])
    }

    @Test func whitespaceIsKeptAsIs() throws {
        let input = try XMLTest.file("spaces.xml", "<items><item note=\" a \"><name>\n  Milk\t</name><unit>   </unit></item></items>")
        #expect(try XMLTest.rows(input, record: "items/item", fields: ["name", "unit", "note"]) == [["\n  Milk\t", "   ", " a "]])
    }

    @Test func recordByNameAtAnyDepthAndByPathFromTheRoot() throws {
        let input = try XMLTest.file("nested.xml", """
            <shop>
              <aisle><item name="Milk"/><item name="Cheese"/></aisle>
              <storage><box><item name="Flour"/></box></storage>
              <item name="Bread"/>
            </shop>
            """)
        let byName = try XMLTest.read(input, record: "item", fields: ["name"])
        #expect(byName.map { $0.values.map(\.displayText) } == [["Milk"], ["Cheese"], ["Flour"], ["Bread"]])
        #expect(byName.map { $0.location.path } == ["shop/aisle/item[1]", "shop/aisle/item[2]", "shop/storage/box/item[3]", "shop/item[4]"])
        #expect(try XMLTest.rows(input, record: "shop/aisle/item", fields: ["name"]) == [["Milk"], ["Cheese"]])
        #expect(try XMLTest.rows(input, record: "shop/item", fields: ["name"]) == [["Bread"]])
        #expect(try XMLTest.rows(input, record: "shop/box/item", fields: ["name"]) == [])
    }

    @Test func namespacePrefixesAreIgnored() throws {
        let input = try XMLTest.file("ns.xml", """
            <g:items xmlns:g="urn:grocery" xmlns:x="urn:extra">
              <g:item g:name="Milk" x:unit="l"><x:home>Fridge</x:home></g:item>
              <item xmlns="urn:grocery" name="Bread"><home>Pantry</home></item>
            </g:items>
            """)
        #expect(try XMLTest.rows(input, record: "items/item", fields: ["name", "unit", "home"]) == [
            ["Milk", "l", "Fridge"], ["Bread", "", "Pantry"],
        ])
        #expect(try XMLTest.rows(input, record: "g:items/g:item", fields: ["g:name"]) == [["Milk"], ["Bread"]])
    }

    // MARK: Text

    @Test func cdataAndCharacterReferencesAreDecoded() throws {
        let input = try XMLTest.file("text.xml", """
            <items>
              <item name="Cr&#232;me fra&#xEE;che &amp; &lt;co&gt; &quot;q&quot; &apos;a&apos;"><note><![CDATA[<b>bold</b> & more]]> after</note></item>
              <item name=" &#38;#38; &amp;amp; &#x1F34E;&#10;" note="a&#9;b"/>
            </items>
            """)
        // libxml2 hands an attribute's `&` over as `&#38;`: a reference written out in the file
        // (`&amp;amp;`) stays the text it is.
        #expect(try XMLTest.rows(input, record: "items/item", fields: ["name", "note"]) == [
            ["Crème fraîche & <co> \"q\" 'a'", "<b>bold</b> & more after"],
            [" &#38; &amp; 🍎\n", "a\tb"],
        ])
    }

    @Test func unicodeRoundTrips() throws {
        let names = ["Crème fraîche", "Jalapeño", "Äpfel 🍎", "寿司", "👨‍👩‍👧 family pack"]
        let body = names.map { "<item name=\"\($0)\"><copy>\($0)</copy></item>" }.joined()
        let input = try XMLTest.file("unicode.xml", "<items>\(body)</items>")
        #expect(try XMLTest.rows(input, record: "items/item", fields: ["name", "copy"]) == names.map { [$0, $0] })
    }

    @Test func utf8WithAByteOrderMark() throws {
        let input = try XMLTest.file("bom.xml", [0xEF, 0xBB, 0xBF] + Array("<items><item name=\"Jalapeño\"/></items>".utf8))
        #expect(try XMLTest.rows(input, record: "items/item", fields: ["name"]) == [["Jalapeño"]])
    }

    @Test func iso88591AsDeclared() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<items><item name=\"Cr".utf8)
        bytes += [0xE8] + Array("me fra".utf8) + [0xEE] + Array("che\"/><item name=\"Jalape".utf8) + [0xF1] + Array("o\"/></items>".utf8)
        let input = try XMLTest.file("latin1.xml", bytes)
        #expect(try XMLTest.rows(input, record: "items/item", fields: ["name"]) == [["Crème fraîche"], ["Jalapeño"]])
    }

    // MARK: Locations

    @Test func recordsKnowTheirLineAndPath() throws {
        let input = try XMLTest.file("grocery.xml", """
            <?xml version="1.0"?>
            <items>
              <item name="Milk"/>
              <item
                  name="Bread"><unit>loaf</unit></item>

              <item name="Tea"/><item name="Rice"/>
            </items>
            """)
        let records = try XMLTest.read(input, record: "items/item", fields: ["name"])
        #expect(records.map(\.location.description) == [
            "data/grocery.xml:3 (items/item[1])",
            "data/grocery.xml:5 (items/item[2])",
            "data/grocery.xml:7 (items/item[3])",
            "data/grocery.xml:7 (items/item[4])",
        ])
        #expect(records.allSatisfy { $0.fieldPositions.isEmpty })
    }

    @Test func linesPastTheSixteenBitLimit() throws {
        let body = String(repeating: "\n", count: 70_000)
        let input = try XMLTest.file("long.xml", "<items>\(body)<item name=\"Far\"/></items>")
        let records = try XMLTest.read(input, record: "items/item", fields: ["name"])
        #expect(records.map(\.location.description) == ["data/long.xml:70001 (items/item[1])"])
    }

    // MARK: Empty and unmatched

    @Test func emptyFile() throws {
        expectError(XMLTest.failure(try XMLTest.file("empty.xml", "")), .inputEmpty, at: "data/empty.xml:1:1")
    }

    @Test func rootOnlyAndNoMatchingRecordGiveNoRecords() throws {
        #expect(try XMLTest.rows(try XMLTest.file("root.xml", "<items/>"), record: "items/item", fields: ["name"]) == [])
        #expect(try XMLTest.rows(try XMLTest.file("root.xml", "<items>\n</items>"), record: "items/item", fields: ["name"]) == [])
        let other = try XMLTest.file("other.xml", "<items><product name=\"Milk\"/></items>")
        #expect(try XMLTest.rows(other, record: "items/item", fields: ["name"]) == [])
        #expect(try XMLTest.rows(other, record: "item", fields: ["name"]) == [])
    }

    @Test func recordPathThatDoesNotMatchTheRoot() throws {
        let input = try XMLTest.file("groceries.xml", "<?xml version=\"1.0\"?>\n<groceries><item name=\"Milk\"/></groceries>")
        expectError(XMLTest.failure(input), .xmlRecordPathMismatch, at: "data/groceries.xml:2")
    }

    // MARK: Malformed

    @Test func malformedXML() throws {
        let input = try XMLTest.file("bad.xml", "<items>\n  <item name=\"Milk\">\n  </itm>\n</items>\n")
        let mismatch = XMLTest.failure(input)
        expectError(mismatch, .xmlMalformed, at: "data/bad.xml:3:9")
        // libxml2's own words, on one line.
        #expect(mismatch?.message == "Opening and ending tag mismatch: item line 2 and itm")
        let unclosed = try XMLTest.file("unclosed.xml", "<items>\n  <item name=\"Milk\"/>\n")
        // libxml2 2.9 words an unclosed root this way when it reads from a stream.
        expectError(XMLTest.failure(unclosed), .xmlMalformed, at: "data/unclosed.xml:2:22")
        let quote = try XMLTest.file("quote.xml", "<items>\n<item name=\"Milk/>\n</items>\n")
        expectError(XMLTest.failure(quote), .xmlMalformed, at: "data/quote.xml:3:1")
    }

    @Test func invalidBytesForTheEncoding() throws {
        let input = try XMLTest.file("latin1.xml", Array("<items>\n<item name=\"Cr".utf8) + [0xE8] + Array("me\"/></items>".utf8))
        expectError(XMLTest.failure(input), .inputInvalidText, at: "data/latin1.xml:2:15")
    }

    @Test func nothingIsPrintedToStandardError() throws {
        // A malformed file, an undeclared entity and a network DTD: libxml2 would print all three.
        let files = [
            try XMLTest.file("bad.xml", "<items><item></items>"),
            try XMLTest.file("nbsp.xml", "<items><item>&nbsp;</item></items>"),
            try XMLTest.file("dtd.xml", "<!DOCTYPE items SYSTEM \"http://example.invalid/x.dtd\"><items/>"),
        ]
        let printed = try capturingStandardError { for file in files { _ = XMLTest.failure(file) } }
        // The capture takes the whole process's standard error: the test runner's own lines about
        // tests running meanwhile are not libxml2's.
        let foreign = printed.split(separator: "\n").filter { line in !["◇", "✔", "✘", "↳", "􀟈", "􀄵", "􁁛", "􀢄"].contains { line.hasPrefix($0) } }
        #expect(foreign.isEmpty, "\(printed)")
    }

    // MARK: Security

    @Test func externalEntityIsRefusedAndItsFileNeverRead() throws {
        let folder = try XMLTest.folder()
        let secret = folder.appendingPathComponent("secret.txt")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        let doctype = "<!DOCTYPE items [<!ENTITY secret SYSTEM \"\(secret.absoluteString)\">]>\n"
        let inText = try XMLTest.file("xxe.xml", doctype + "<items>\n<item><name>&secret;</name></item>\n</items>")
        expectError(XMLTest.failure(inText), .xmlEntitiesRefused, at: "data/xxe.xml:3")
        let inAttribute = try XMLTest.file("xxe-attribute.xml", doctype + "<items>\n<item name=\"&secret;\"/>\n</items>")
        // An external entity in an attribute is not even well-formed: libxml2 stops at it.
        expectError(XMLTest.failure(inAttribute), .xmlEntitiesRefused, at: "data/xxe-attribute.xml:3:21")
        // Records before the reference hold no trace of the file either.
        let after = try XMLTest.file("xxe-late.xml", doctype + "<items><item name=\"a\"/><item><name>&secret;</name></item></items>")
        let reader = try XMLReader(input: after, options: .init(record: "items/item", fields: ["name"]))
        var seen: [String] = []
        do { while let record = try reader.next() { seen += record.values.map(\.displayText) } } catch {}
        #expect(seen == ["a"])
        #expect(!seen.joined().contains("TOP-SECRET"))
    }

    @Test func internalEntityIsRefused() throws {
        let input = try XMLTest.file("entity.xml", "<!DOCTYPE items [<!ENTITY dairy \"Aisle 3: Dairy\">]>\n<items>\n<item name=\"Milk\"><shop>&dairy;</shop></item></items>")
        expectError(XMLTest.failure(input, fields: ["name", "shop"]), .xmlEntitiesRefused, at: "data/entity.xml:3")
        let inAttribute = try XMLTest.file("entity-attribute.xml", "<!DOCTYPE items [<!ENTITY dairy \"Aisle 3: Dairy\">]>\n<items>\n<item name=\"&dairy;\"/></items>")
        expectError(XMLTest.failure(inAttribute), .xmlEntitiesRefused, at: "data/entity-attribute.xml:3")
        let undeclared = try XMLTest.file("nbsp.xml", "<items>\n<item><name>Milk&nbsp;1l</name></item></items>")
        expectError(XMLTest.failure(undeclared), .xmlEntitiesRefused, at: "data/nbsp.xml:2:23")
    }

    @Test func networkDTDIsNeverFetched() throws {
        let input = try XMLTest.file("dtd.xml", """
            <?xml version="1.0"?>
            <!DOCTYPE items SYSTEM "http://example.invalid/items.dtd">
            <items><item name="Milk"/></items>
            """)
        let start = Date()
        #expect(try XMLTest.rows(input, record: "items/item", fields: ["name"]) == [["Milk"]])
        #expect(Date().timeIntervalSince(start) < 1)
    }

    /// libxml2 finds the loop before the reader reaches the reference, and says so; nothing is expanded.
    @Test func billionLaughsIsRefusedWithoutExpanding() throws {
        var doctype = "<!DOCTYPE items [\n<!ENTITY lol \"lol\">\n"
        doctype += "<!ENTITY lol1 \"" + String(repeating: "&lol;", count: 10) + "\">\n"
        for level in 2...9 { doctype += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n" }
        doctype += "]>\n"
        let start = Date()
        let inText = try XMLTest.file("laughs.xml", doctype + "<items><item><name>&lol9;</name></item></items>")
        expectError(XMLTest.failure(inText), .xmlEntitiesRefused, at: "data/laughs.xml:13")
        let inAttribute = try XMLTest.file("laughs-attribute.xml", doctype + "<items><item name=\"&lol9;\"/></items>")
        expectError(XMLTest.failure(inAttribute), .xmlEntitiesRefused, at: "data/laughs-attribute.xml:13:26")
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test func deepNestingStopsCleanly() throws {
        let depth = 5000
        let input = try XMLTest.file("deep.xml", "<items>" + String(repeating: "<item>", count: depth) + String(repeating: "</item>", count: depth) + "</items>")
        expectError(XMLTest.failure(input), .xmlTooDeep, at: "data/deep.xml:1")
        expectError(XMLTest.failure(input, record: "item"), .xmlTooDeep, at: "data/deep.xml:1")
    }
}

/// What `body` writes to standard error (file descriptor 2, where libxml2 prints by default).
private func capturingStandardError(_ body: () throws -> Void) throws -> String {
    let url = try XMLTest.folder().appendingPathComponent("stderr.txt")
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    let saved = dup(2)
    dup2(handle.fileDescriptor, 2)
    defer {
        dup2(saved, 2)
        close(saved)
        try? handle.close()
    }
    try body()
    return try String(contentsOf: url, encoding: .utf8)
}

@Suite("XML: a leading trim done while reading, records handed back")
struct XMLReaderReuseTests {
    static let padded = ["  Milk\t", "\u{A0}Crème\u{2009}", "x", "", " ", "\u{FEFF}Bread", "in side  ", " Fish &amp; chips "]

    /// Attributes and child elements, trimmed as the `trim` transform trims them; a field that is
    /// not trimmed keeps its whitespace.
    @Test func fieldsAreTrimmedAsTheTrimTransformTrimsThem() throws {
        var text = "<items>\n"
        for k in 0..<2_000 {
            let a = Self.padded[k % Self.padded.count], b = Self.padded[(k + 3) % Self.padded.count]
            text += k % 2 == 0 ? "  <item name=\"\(a)\" note=\"\(b)\"/>\n" : "  <item><name>\(a)</name><note>\(b)</note></item>\n"
        }
        let input = try XMLTest.file("padded.xml", text + "</items>\n")
        let plain = try XMLTest.read(input, record: "items/item", fields: ["name", "note"])

        let reader = try XMLReader(input: input, options: .init(record: "items/item", fields: ["name", "note"]))
        #expect(reader.trimWhileReading(fields: [0]))
        var records: [Record] = []
        while let record = try reader.next() { records.append(record) }

        #expect(records.count == 2_000 && plain.count == 2_000)
        for (k, record) in records.enumerated() {
            let raw = plain[k].values[0].displayText
            #expect(record.values[0] == .text(Trimming.trimmed(raw) ?? raw), "record \(k)")
            #expect(record.values[1] == plain[k].values[1], "record \(k): not a trimmed field")
            #expect(record.location == plain[k].location)
        }
        #expect(records[1].values[0] == .text("Crème"))
        #expect(records[7].values[0] == .text("Fish & chips"))
    }

    /// Every record recycled as soon as it is read: the later records it holds have their own
    /// values, and nothing of the records before (a field missing from a record is empty).
    @Test func recycledRecordsHoldOnlyTheirRecord() throws {
        var text = "<items>\n"
        for k in 0..<3_000 {
            text += k % 3 == 0 ? "  <item name=\"item \(k)\"/>\n" : "  <item name=\"item \(k)\" note=\"note \(k)\"><count>\(k)</count></item>\n"
        }
        let input = try XMLTest.file("rows.xml", text + "</items>\n")
        let fields = ["name", "note", "count"]
        let plain = try XMLTest.read(input, record: "items/item", fields: fields)

        let reader = try XMLReader(input: input, options: .init(record: "items/item", fields: fields))
        var values: [[Value]] = [], locations: [Location] = []
        while let record = try reader.next() {
            // Copied element by element: the record's own array stays unshared, to be reused.
            values.append(record.values.map { $0 })
            locations.append(record.location)
            reader.recycle(record)
        }
        #expect(values == plain.map(\.values))
        #expect(locations == plain.map(\.location))
        #expect(values[3] == [.text("item 3"), .text(""), .text("")])
        #expect(locations[2].path == "items/item[3]")
    }
}
