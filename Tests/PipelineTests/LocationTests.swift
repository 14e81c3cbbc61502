import Foundation
@testable import Diagnostics
import Testing
@testable import Pipeline

@Suite("Location: names kept as numbers, paths as a prefix and an index")
struct LocationTests {
    @Test("file:line:column made as one string reads as the interpolations did, for every width of number and any name")
    func numberedAsInterpolated() {
        let numbers = [0, 1, 9, 10, 99, 100, 12_345, 999_999_999, Int(Int32.max), Int.max, -1, -10, Int.min]
        for file in ["", "g.csv", "data/ünïcödé 漢字/items 🥚.csv", String(repeating: "long/", count: 40) + "g.csv"] {
            for line in numbers {
                #expect(Location.numbered(file, line: line, column: nil) == "\(file):\(line)")
                for column in numbers {
                    #expect(Location.numbered(file, line: line, column: column) == "\(file):\(line):\(column)")
                }
            }
        }
    }

    @Test func printsAsEditorsLinkIt() {
        #expect(Location(file: "data/g.csv", line: 3, column: 7).description == "data/g.csv:3:7")
        #expect(Location(file: "data/g.csv", line: 3).description == "data/g.csv:3")
        #expect(Location(file: "data/g.xml", line: 4, path: "items/item[2]").description == "data/g.xml:4 (items/item[2])")
        #expect(Location(file: "data/g.json", path: "[0]").description == "data/g.json: at [0]")
        #expect(Location(file: "data/g.csv").description == "data/g.csv")
    }

    /// Every path reads back as it was set, whether or not it ends in an index kept as a number.
    @Test func pathsReadBackAsSet() {
        let paths = ["items/item[17]", "items/item", "[0]", "[3]", "data.items[2147483647]", "a[2147483648]", "a[03]",
                     "a[]", "a[x]", "a[3][4]", "]", "", "shop/aisle/item[1]"]
        for path in paths {
            var location = Location(file: "data/g.xml", line: 1)
            location.path = path
            #expect(location.path == path)
            #expect(Location(file: "data/g.xml", line: 1, path: path).path == path)
        }
        var location = Location(file: "data/g.xml", path: "items/item[1]")
        location.path = nil
        #expect(location.path == nil && location.description == "data/g.xml")
    }

    /// A record's location made from its array's (`appendingPathIndex`) is the one made from the
    /// whole path: equal, with the same hash, whichever way it was made.
    @Test func indexedPathsEqualTheirText() {
        let base = Location(file: "data/g.xml", path: "items/item")
        for index in [0, 1, 17, 65_536, Int(Int32.max)] {
            let indexed = base.appendingPathIndex(index)
            let whole = Location(file: "data/g.xml", path: "items/item[\(index)]")
            #expect(indexed.path == "items/item[\(index)]")
            #expect(indexed == whole)
            #expect(indexed.hashValue == whole.hashValue)
        }
        // Past what an index keeps as a number, and under a path that has an index: as text.
        #expect(base.appendingPathIndex(Int(Int32.max) + 1).path == "items/item[2147483648]")
        #expect(base.appendingPathIndex(2).appendingPathIndex(5).path == "items/item[2][5]")
        #expect(Location(file: "data/g.json").appendingPathIndex(4).path == "[4]")
        #expect(base.appendingPathIndex(3) != base.appendingPathIndex(4))
        #expect(Location(file: "data/a.xml", path: "i[1]") != Location(file: "data/b.xml", path: "i[1]"))
    }

    /// A workbook's cell: a record's location made from its column's (`cell(row:)`) is the one
    /// made from the whole cell, and the table of names gains one name per column, not per cell.
    @Test func cellsEqualTheirText() throws {
        let column = Location(file: "data/g.xlsx", path: "Items!A")
        for row in [1, 12, 1_048_576] {
            let cell = column.cell(row: row)
            let whole = Location(file: "data/g.xlsx", path: "Items!A\(row)")
            #expect(cell.path == "Items!A\(row)")
            #expect(cell.description == "data/g.xlsx: Items!A\(row)")
            #expect(cell == whole && cell.hashValue == whole.hashValue)
            #expect(whole.numbers?.pathPrefix == column.numbers?.pathPrefix)
        }
        #expect(column.cell(row: 3) != column.cell(row: 4))
        let paths = ["Items!A007", "Items!A0", "Items!A99999999999", "Sheet 1!AB12", "My!Sheet!C3"]
        for path in paths { #expect(Location(file: "data/g.xlsx", path: path).path == path) }
        let back = try #require(column.cell(row: 12).numbers)
        #expect(Location(fileNumber: back.file, pathPrefix: back.pathPrefix, pathIndex: back.pathIndex, line: nil, column: nil)
                    == column.cell(row: 12))
    }

    /// A later field's cell, made from the record's: past Z into two letters, in a sheet whose
    /// name holds a `!`; a location that is no cell stays as it is.
    @Test func cellsToTheRight() {
        let record = Location(file: "data/g.xlsx", path: "Items!B").cell(row: 12)
        #expect(record.cell(columnsRight: 0) == record)
        #expect(record.cell(columnsRight: 2) == Location(file: "data/g.xlsx", path: "Items!D12"))
        #expect(record.cell(columnsRight: 25).description == "data/g.xlsx: Items!AA12")
        #expect(Location(file: "g.xlsx", path: "My!Sheet!Z").cell(row: 3).cell(columnsRight: 2).path == "My!Sheet!AB3")
        #expect(Location(file: "g.xlsx", path: "Items!XFC").cell(row: 1).cell(columnsRight: 1).path == "Items!XFD1")
        let line = Location(file: "data/g.csv", line: 2, column: 5)
        #expect(line.cell(columnsRight: 3) == line)
    }

    @Test func linesAndColumnsAreOptional() {
        var location = Location(file: "data/g.csv", line: 2, column: 5)
        location.column = nil
        #expect(location.line == 2 && location.column == nil && location.description == "data/g.csv:2")
        location.line = nil
        #expect(location == Location(file: "data/g.csv"))
        location.file = "data/h.csv"
        #expect(location.file == "data/h.csv")
    }

    /// What a list of locations keeps (`numbers`) gives the location back.
    @Test func numbersGiveTheLocationBack() throws {
        for location in [Location(file: "data/g.xml", line: 9, path: "items/item[4]"), Location(file: "data/g.csv", line: 2, column: 1),
                         Location(file: "data/g.json", path: "x")] {
            let numbers = try #require(location.numbers)
            let back = Location(fileNumber: numbers.file, pathPrefix: numbers.pathPrefix, pathIndex: numbers.pathIndex,
                                line: location.line, column: location.column)
            #expect(back == location)
            #expect(back.description == location.description)
        }
    }

    /// Past its limit the table numbers no new name; names it knows keep their numbers.
    @Test func theTableOfNamesHasALimit() {
        let table = Location.NameTable(limit: 3)
        #expect(table.number(for: "a") == 0 && table.number(for: "b") == 1 && table.number(for: "c") == 2)
        #expect(table.number(for: "d") == nil)
        #expect(table.number(for: "b") == 1 && table.name(2) == "c")
    }
}
