import CXLSXWriter
import Foundation
import SinksSQLite
import Testing

/// Where a workbook's values are told to be wrong: at their cell, whichever step rejects them,
/// and what a formula saved without its value does (openpyxl writes them so).
@Suite struct XLSXCellTests {
    /// A table from column B (A is the sheet's margin), every value written as text, as an export
    /// of people's typing would be.
    static func workbook(_ ws: Workspace, rows: [[String]]) throws {
        let book = try #require(workbook_new(ws.root.appendingPathComponent("cells.xlsx").path))
        let sheet = try #require(workbook_add_worksheet(book, "Items"))
        for (r, row) in rows.enumerated() {
            for (c, text) in row.enumerated() where !text.isEmpty {
                worksheet_write_string(sheet, lxw_row_t(r), lxw_col_t(c + 1), text, nil)
            }
        }
        #expect(workbook_close(book) == LXW_NO_ERROR)
    }

    @Test("a rejected value points at its cell, whichever step rejects it: after rename, a split's part (in a CSV too), a to-one's key, a load")
    func rejectedValuesNameTheirCell() throws {
        let ws = try Workspace()
        try Self.workbook(ws, rows: [
            ["name", "Qty", "added", "tags", "grams", "count"],
            ["Milk", "1,5", "01/11/2026", "1; 2", "500", "3"],
            ["Eggs", "lots", "01/11/2026", "", "", ""],         // number, after rename: C3
            ["Tea", "2", "someday", "", "", ""],               // date: D4
            ["Rice", "1", "02/11/2026", "3; x", "", ""],       // a split's part, loaded as Tag.code: E5
            ["Salt", "1", "02/11/2026", "", "heavy", ""],      // a to-one's key, Unit.grams: F6
            ["Flour", "1", "02/11/2026", "", "", "many"],      // a load into Item.count: G7
        ])
        try ws.write("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="quantity" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                    <attribute name="added" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                    <attribute name="count" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                    <relationship name="unit" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Unit" inverseName="items" inverseEntity="Unit"/>
                    <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
                </entity>
                <entity name="Unit" representedClassName="Unit" syncable="YES">
                    <attribute name="grams" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="unit" inverseEntity="Item"/>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="code" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
                </entity>
            </model>

            """, to: "Items.xcdatamodel/contents")
        try ws.write("""
            version: 1
            name: cells
            store: { path: build/cells.sqlite, layout: sqlite, model: Items.xcdatamodel }
            entities: { Item: { unique: name }, Unit: { unique: grams }, Tag: { unique: code } }
            sources:
              - name: items
                read: { xlsx: cells.xlsx, range: B1 }
                transform:
                  - rename: { Qty: quantity }
                  - number: { fields: [quantity], decimal: "," }
                  - date: { fields: [added], format: dd/MM/yyyy, timezone: UTC }
                  - split: { fields: [tags], separator: ";" }
                load:
                  Item: { name: name, quantity: quantity, added: added, count: count, unit: { Unit: { grams: grams } }, tags: { Tag: { code: tags } } }
            """, to: "cells.yaml")
        let run = try ws.run("run", "cells.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == """
            cells.xlsx: Items!C3: warning: record rejected: number: field 'quantity' "lots": not a number with decimal ',' and grouping '.': unexpected 'l'
            cells.xlsx: Items!D4: warning: record rejected: date: field 'added' "someday": does not match the format "dd/MM/yyyy": expected 2 digits for 'dd' at character 1
            cells.xlsx: Items!E5: warning: record rejected: load: field 'tags' "x": Tag.code (integer64): not an integer
            cells.xlsx: Items!F6: warning: record rejected: load: field 'grams' "heavy": Unit.grams (integer64): not an integer
            cells.xlsx: Items!G7: warning: record rejected: load: field 'count' "many": Item.count (integer64): not an integer

            """)
        #expect(try ws.store("build/cells.sqlite").rows("SELECT name, quantity, count FROM Item ORDER BY id") == [
            [.text("Milk"), .double(1.5), .integer(3)],
        ])

        // A split's part in a CSV likewise: at its field's line and column, not the record's start.
        try ws.write("name,tags\nRice,\"3; x\"\nMilk,1\n", to: "tags.csv")
        try ws.write("""
            version: 1
            name: tags
            store: { path: build/tags.sqlite, layout: sqlite, model: Items.xcdatamodel }
            entities: { Item: { unique: name }, Tag: { unique: code } }
            sources:
              - name: items
                read: { csv: tags.csv }
                transform: [ { split: { fields: [tags], separator: ";" } } ]
                load: { Item: { name: name, tags: { Tag: { code: tags } } } }
            """, to: "tags.yaml")
        let csv = try ws.run("run", "tags.yaml")
        #expect(csv.status == 0 && csv.stderr == "tags.csv:2:6: warning: record rejected: load: field 'tags' \"x\": Tag.code (integer64): not an integer\n",
                "\(csv.stderr)")
    }

    /// formulas.xlsx (Fixtures/openpyxl/make.py): Tea's quantity is `=1/0`, Rice's `=2*3` and its
    /// note `="a"&"b"`, all without values; Milk's helper `=B4*2`, in a column nothing reads.
    static func formulasPipeline(onReject: String) -> String {
        """
        version: 1
        name: formulas
        store: { path: build/formulas.sqlite }
        on_reject: \(onReject)
        report: { json: build/formulas.json, xlsx: build/formulas-report.xlsx }
        entities: { Item: { unique: name, attributes: { name: string, quantity: double, note: string } } }
        sources:
          - name: items
            read: { xlsx: formulas.xlsx }
            load: { Item: { name: name, quantity: quantity, note: note } }
        """
    }

    @Test("a formula saved without its value (openpyxl): empty, with one warning per source naming the first cell and counting the rest")
    func formulasWithoutValuesWarn() throws {
        let ws = try Workspace()
        try FileManager.default.copyItem(at: Pipectl.repository.appendingPathComponent("Tests/pipectlTests/Fixtures/openpyxl/formulas.xlsx"),
                                         to: ws.root.appendingPathComponent("formulas.xlsx"))
        try ws.write(Self.formulasPipeline(onReject: "continue"), to: "formulas.yaml")
        let run = try ws.run("run", "formulas.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == """
            formulas.xlsx: Items!B2: warning: xlsx: field 'quantity' holds the formula =1/0 with no value saved, loaded as empty: \
            the program that wrote the workbook does not compute formulas; open it in Excel or LibreOffice and save it there \
            (3 cells of fields read, the first here)

            """)
        #expect(try ws.store("build/formulas.sqlite").rows("SELECT name, quantity, note FROM Item ORDER BY id") == [
            [.text("Tea"), .null, .text("loose")], [.text("Rice"), .null, .null],
            [.text("Milk"), .double(4), .text("fresh")], [.text("Bread"), .double(2), .text("sliced")],
        ])
        // Both reports keep the warning with the input it is about.
        let json = try #require(JSONSerialization.jsonObject(with: ws.bytes("build/formulas.json")) as? [String: Any])
        let input = try #require((json["inputs"] as? [[String: Any]])?.first)
        #expect(input["warnings"] as? [[String: String]] == [[
            "location": "formulas.xlsx: Items!B2", "stage": "xlsx",
            "message": "field 'quantity' holds the formula =1/0 with no value saved, loaded as empty: the program that wrote the workbook "
                + "does not compute formulas; open it in Excel or LibreOffice and save it there (3 cells of fields read, the first here)",
        ]])
        let summary = try Workbook(ws.root.appendingPathComponent("build/formulas-report.xlsx")).sheet(1)
        #expect(summary.contains(">Warnings<") && summary.contains("formulas.xlsx: Items!B2: xlsx: field"), "\(summary)")

        // on_reject: fail: each such record is rejected at its first such cell, and the store stays as it was.
        try ws.write(Self.formulasPipeline(onReject: "fail"), to: "strict.yaml")
        let strict = try ws.run("run", "strict.yaml")
        #expect(strict.status == 67, "\(strict.stderr)")
        #expect(strict.stderr == """
            formulas.xlsx: Items!B2: warning: record rejected: xlsx: field 'quantity' "=1/0": the cell holds a formula with no \
            value saved (the program that wrote the workbook does not compute formulas; open it in Excel or LibreOffice and save it there)
            formulas.xlsx: Items!B3: warning: record rejected: xlsx: field 'quantity' "=2*3": the cell holds a formula with no \
            value saved (the program that wrote the workbook does not compute formulas; open it in Excel or LibreOffice and save it there)
            formulas.xlsx: Items!B2: error: xlsx: 2 record(s) rejected and the pipeline says on_reject: fail; first: field 'quantity' \
            value "=1/0": the cell holds a formula with no value saved (the program that wrote the workbook does not compute \
            formulas; open it in Excel or LibreOffice and save it there)

            """)
        #expect(try ws.store("build/formulas.sqlite").rows("SELECT count(*) FROM Item") == [[.integer(4)]])
    }

    @Test("a formula with its value saved loads the value without a word, an empty text (=\"\") too, under on_reject: fail as well")
    func formulasWithValuesLoad() throws {
        let ws = try Workspace()
        let book = try #require(workbook_new(ws.root.appendingPathComponent("formulas.xlsx").path))
        let sheet = try #require(workbook_add_worksheet(book, "Items"))
        for (column, name) in ["name", "quantity", "note", "helper"].enumerated() { worksheet_write_string(sheet, 0, lxw_col_t(column), name, nil) }
        worksheet_write_string(sheet, 1, 0, "Rice", nil)
        worksheet_write_formula_num(sheet, 1, 1, "=2*3", nil, 6)
        worksheet_write_formula_str(sheet, 1, 2, "=\"a\"&\"b\"", nil, "ab")
        worksheet_write_string(sheet, 2, 0, "Tea", nil)
        worksheet_write_number(sheet, 2, 1, 1, nil)
        // An empty text a formula computed (="") is a value, as Excel saves it.
        worksheet_write_formula_str(sheet, 2, 2, "=\"\"", nil, "")
        #expect(workbook_close(book) == LXW_NO_ERROR)
        try ws.write(Self.formulasPipeline(onReject: "fail"), to: "formulas.yaml")
        let run = try ws.run("run", "formulas.yaml")
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        #expect(try ws.store("build/formulas.sqlite").rows("SELECT name, quantity, note FROM Item ORDER BY id") == [
            [.text("Rice"), .double(6), .text("ab")], [.text("Tea"), .double(1), .null],
        ])
    }
}
