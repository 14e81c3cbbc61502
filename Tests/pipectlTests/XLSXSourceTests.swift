import CXLSXWriter
import Foundation
import SinksSQLite
import Testing

/// `read: { xlsx: ... }` through the built pipectl: the options a workbook laid out for people
/// needs (a title above the table, a block of cells), into a real store.
@Suite struct XLSXSourceTests {
    /// A sheet as people lay one out: a title in A1, a blank row, the table from B3, notes below it.
    static func workbook(_ ws: Workspace) throws {
        let book = try #require(workbook_new(ws.root.appendingPathComponent("groceries.xlsx").path))
        let sheet = try #require(workbook_add_worksheet(book, "Items"))
        worksheet_write_string(sheet, 0, 0, "Groceries, November", nil)
        for (column, name) in ["name", "quantity"].enumerated() { worksheet_write_string(sheet, 2, lxw_col_t(column + 1), name, nil) }
        for (row, (name, quantity)) in [("Milk", 1.5), ("Eggs", 12)].enumerated() {
            worksheet_write_string(sheet, lxw_row_t(row + 3), 1, name, nil)
            worksheet_write_number(sheet, lxw_row_t(row + 3), 2, quantity, nil)
        }
        worksheet_write_string(sheet, 6, 1, "Checked by Sam", nil)
        #expect(workbook_close(book) == LXW_NO_ERROR)
    }

    static func pipeline(range: String) -> String {
        """
        version: 1
        name: groceries
        store: { path: build/groceries.sqlite }
        entities: { Item: { unique: name, attributes: { name: string, quantity: double } } }
        sources:
          - name: items
            read: { xlsx: groceries.xlsx, range: "\(range)" }
            load: { Item: { name: name, quantity: quantity } }
        """
    }

    @Test("range: a block of cells whose first row names the fields, or a top left cell alone, to the sheet's end")
    func ranges() throws {
        let ws = try Workspace()
        try Self.workbook(ws)
        try ws.write(Self.pipeline(range: "B3:C5"), to: "block.yaml")
        let block = try ws.run("run", "-q", "block.yaml")
        #expect(block.status == 0, "\(block.stderr)")
        #expect(try ws.store("build/groceries.sqlite").rows("SELECT name, quantity FROM Item ORDER BY id") == [
            [.text("Milk"), .double(1.5)], [.text("Eggs"), .double(12)],
        ])

        // From B3 on: the notes under the table are a record too, and the report says where.
        try ws.write(Self.pipeline(range: "B3"), to: "open.yaml")
        let open = try ws.run("run", "-q", "open.yaml")
        #expect(open.status == 0, "\(open.stderr)")
        #expect(try ws.store("build/groceries.sqlite").rows("SELECT name FROM Item ORDER BY id") == [
            [.text("Milk")], [.text("Eggs")], [.text("Checked by Sam")],
        ])

        try ws.write(Self.pipeline(range: "C5:B3"), to: "bad.yaml")
        let bad = try ws.run("run", "bad.yaml")
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(bad.stderr.contains("bad.yaml:7:42: error: xlsx: 'range' is two cells, the top left and the bottom right, such as A1:F500, "
                                    + "or the top left alone (A3: to the end of the sheet); found 'C5:B3'"), "\(bad.stderr)")
    }
}
