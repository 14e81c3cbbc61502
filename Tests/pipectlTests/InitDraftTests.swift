import CXLSXWriter
import Foundation
import SQLite
import Testing

/// `pipectl init` drafts that load (issue 35, item 6): an input named after an entity loads it,
/// keys only from values that identify records, yes and no in other languages mapped, required
/// attributes without a field named, and the draft run on its sample before it is written.
@Suite struct InitDraftTests {
    /// Writes a workbook of `sheets` (each: name, then rows, the first the header) to `path` in
    /// `ws`: cells are `String`, `Double`, `Int` or `Bool`; nil leaves a cell empty.
    static func workbook(_ ws: Workspace, _ path: String, _ sheets: [(name: String, rows: [[Any?]])]) throws {
        let book = try #require(workbook_new(ws.root.appendingPathComponent(path).path))
        for (name, rows) in sheets {
            let sheet = try #require(workbook_add_worksheet(book, name))
            for (r, row) in rows.enumerated() {
                for (c, cell) in row.enumerated() {
                    let (r, c) = (lxw_row_t(r), lxw_col_t(c))
                    switch cell {
                    case let text as String: worksheet_write_string(sheet, r, c, text, nil)
                    case let number as Double: worksheet_write_number(sheet, r, c, number, nil)
                    case let number as Int: worksheet_write_number(sheet, r, c, Double(number), nil)
                    case let flag as Bool: worksheet_write_boolean(sheet, r, c, flag ? 1 : 0, nil)
                    default: break
                    }
                }
            }
        }
        #expect(workbook_close(book) == LXW_NO_ERROR)
    }

    static func text(_ ws: Workspace, _ path: String) throws -> String {
        String(decoding: try ws.bytes(path), as: UTF8.self)
    }

    static func expectLines(_ lines: [String], in text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for line in lines {
            #expect(text.contains(line), "\(line)\n  is missing from:\n\(text)", sourceLocation: sourceLocation)
        }
    }

    // MARK: An input or sheet named after an entity loads it

    static let kitchenModel = """
        import SwiftData
        @Model final class Ingredient {
            @Attribute(.unique) var name: String
            var summary: String?
            var colour: String?
        }
        @Model final class Category {
            @Attribute(.unique) var name: String
        }
        @Model final class KitchenTool {
            @Attribute(.unique) var name: String
        }
        @Model final class Tag {
            @Attribute(.unique) var name: String
        }
        @Model final class Unit {
            @Attribute(.unique) var name: String
        }
        """

    @Test("sheets and an input named after entities (case, plural, spaces and _ aside) load those entities, though their columns name more attributes of another")
    func namedAfterEntities() throws {
        let ws = try Workspace()
        try ws.write(Self.kitchenModel, to: "Models/Kitchen.swift")
        try Self.workbook(ws, "Kitchen.xlsx", [
            ("Ingredients", [["Name", "Summary", "Colour"], ["Basil", "A herb", "green"], ["Rice", "A grain", "white"]]),
            // Name and Summary are Ingredient's too: by its columns alone, this sheet would fill Ingredient.
            ("Categories", [["Name", "Summary"], ["Herbs", "Leafy things"], ["Grains", "Seeds of grasses"]]),
            ("Kitchen_Tools", [["name", "colour"], ["Whisk", "silver"], ["Pan", "black"]]),
            ("Units", [["abbr", "factor"], ["kg", 1000], ["g", 1]]),
        ])
        try ws.write("name,colour\nquick,green\ncheap,red\n", to: "TAGS.csv")
        let made = try ws.run("init", "--model", "Models", "Kitchen.xlsx", "TAGS.csv", "-o", "kitchen.yaml")
        #expect(made.status == 0, "\(made.stderr)")
        let yaml = try Self.text(ws, "kitchen.yaml")
        Self.expectLines([
            "    read: { xlsx: Kitchen.xlsx, sheet: Categories }\n    load:\n      Category:",
            "# the sheet's name names the entity",
            "    read: { xlsx: Kitchen.xlsx, sheet: Kitchen_Tools }\n    load:\n      KitchenTool:",
            "    read: { csv: TAGS.csv, encoding: auto, delimiter: auto }",
            "      Tag:                                                  # the file's name names the entity",
            "    # not loaded, as no attribute of Category matches: Summary",
            "    # not loaded, as no attribute of KitchenTool matches: colour",
            "  # sheet Units of Kitchen.xlsx is not read: the sheet's name names Unit, but no column names an attribute of it "
                + "(columns: abbr, factor); map them by hand",
            "# Run on its inputs before it was written: 8 of 8 records load.",
        ], in: yaml)
        let run = try ws.run("run", "-q", "kitchen.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/default.store")
        #expect(try store.rows("SELECT ZNAME FROM ZINGREDIENT ORDER BY Z_PK") == [[.text("Basil")], [.text("Rice")]])
        #expect(try store.rows("SELECT ZNAME FROM ZCATEGORY ORDER BY Z_PK") == [[.text("Herbs")], [.text("Grains")]])
        #expect(try store.rows("SELECT ZNAME FROM ZKITCHENTOOL ORDER BY Z_PK") == [[.text("Whisk")], [.text("Pan")]])
        #expect(try store.rows("SELECT ZNAME FROM ZTAG ORDER BY Z_PK") == [[.text("quick")], [.text("cheap")]])
    }

    @Test("a database's export in Northwind's shape (a sheet per table, IDs, the table's name before its columns'): each sheet loads its own entity, and a link by ID to a name is told")
    func databaseExport() throws {
        // What init made of Northwind.xlsx (nine sheets) with Northwind-swift/NorthwindSwiftData's
        // models, restated with our own: Shippers went to Customer, whose columns they share;
        // Categories and Product were not read, as CategoryName and ProductName named no attribute;
        // Employee's key was its title, which repeats.
        let ws = try Workspace()
        try ws.write("""
            import SwiftData
            @Model final class Customer {
                @Attribute(.unique) var code: String
                var companyName: String
                var phone: String?
            }
            @Model final class Supplier {
                var companyName: String
                var phone: String?
            }
            @Model final class Shipper {
                var companyName: String
                var phone: String?
            }
            @Model final class Category {
                @Attribute(.unique) var name: String
            }
            @Model final class Product {
                @Attribute(.unique) var name: String
                var category: Category?
            }
            @Model final class OrderDetail {
                var quantity: Int
            }
            @Model final class Employee {
                var firstName: String
                var title: String?
            }
            """, to: "Models/Trade.swift")
        try Self.workbook(ws, "Trade.xlsx", [
            ("Shippers", [["ShipperID", "CompanyName", "Phone"], [1, "Speedy", "555-1"], [2, "United", "555-2"], [3, "Federal", "555-3"]]),
            ("Suppliers", [["SupplierID", "CompanyName", "Phone"], [1, "Exotic Liquids", "555-4"], [2, "Cajun Delights", "555-5"]]),
            ("Categories", [["CategoryID", "CategoryName"], [1, "Beverages"], [2, "Condiments"]]),
            ("Product", [["ProductID", "ProductName", "CategoryID"], [1, "Chai", 1], [2, "Chang", 1], [3, "Syrup", 2]]),
            ("Orders Details", [["OrderID", "Quantity"], [10248, 12], [10248, 10]]),
            ("Employees", [["FirstName", "Title"], ["Nancy", "Sales Representative"], ["Andrew", "Vice President"],
                           ["Janet", "Sales Representative"]]),
        ])
        let made = try ws.run("init", "--model", "Models", "Trade.xlsx", "-o", "trade.yaml")
        #expect(made.status == 0, "\(made.stderr)")
        let yaml = try Self.text(ws, "trade.yaml")
        Self.expectLines([
            "# Run on its inputs before it was written: 15 of 15 records load.",
            "#   links made 2 Category records no source gives (the first, name=1, at Trade.xlsx: Product!A2): check that each link's field holds its key",
            "sheet: Shippers }\n    load:\n      Shipper: ",
            "sheet: Suppliers }\n    load:\n      Supplier: ",
            "      Category:                                             # the sheet's name names the entity\n"
                + "        name: CategoryName                                  # the entity's name, then the attribute's",
            "        name: ProductName                                   # the entity's name, then the attribute's",
            "sheet: \"Orders Details\" }\n    load:\n      OrderDetail: ",
            "  # Employee: { unique: title }                             # no key guessed: the model has no uniqueness constraint on "
                + "Employee, and Title repeats in the sampled records (\"Sales Representative\" 2 times)",
        ], in: yaml)
        let run = try ws.run("run", "-q", "trade.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/default.store")
        #expect(try store.rows("SELECT ZCOMPANYNAME FROM ZSHIPPER ORDER BY Z_PK") == [[.text("Speedy")], [.text("United")], [.text("Federal")]])
        #expect(try store.rows("SELECT ZCOMPANYNAME FROM ZSUPPLIER ORDER BY Z_PK") == [[.text("Exotic Liquids")], [.text("Cajun Delights")]])
        #expect(try store.rows("SELECT count(*) FROM ZCUSTOMER") == [[.integer(0)]])
        #expect(try store.rows("SELECT ZFIRSTNAME FROM ZEMPLOYEE ORDER BY Z_PK") == [[.text("Nancy")], [.text("Andrew")], [.text("Janet")]])
        #expect(try store.rows("SELECT ZNAME FROM ZPRODUCT ORDER BY Z_PK") == [[.text("Chai")], [.text("Chang")], [.text("Syrup")]])
        // The two Category records that only the draft's link by ID made, as its first lines said.
        #expect(try store.rows("SELECT ZNAME FROM ZCATEGORY ORDER BY Z_PK") == [[.text("Beverages")], [.text("Condiments")], [.text("1")], [.text("2")]])
        #expect(try store.rows("SELECT count(*) FROM ZORDERDETAIL") == [[.integer(2)]])
    }

    // MARK: A key only from values that identify records

    static let recipeModel = """
        import SwiftData
        @Model final class Recipe {
            var title: String
            var serves: Int
        }
        """

    @Test("a key is guessed only from a field whose sampled values differ and are all there; else the draft says why it chose none, and every record loads")
    func keysFromValuesThatIdentify() throws {
        let ws = try Workspace()
        try ws.write(Self.recipeModel, to: "Models/Recipe.swift")
        // A title the export repeats: as a key, the later soups and stews would count as the first.
        try ws.write("title,serves\nSoup,2\nStew,4\nSoup,3\nSalad,1\nSoup,6\nStew,2\n", to: "dinners.csv")
        let made = try ws.run("init", "--model", "Models", "dinners.csv", "-o", "dinners.yaml")
        #expect(made.status == 0, "\(made.stderr)")
        let yaml = try Self.text(ws, "dinners.yaml")
        #expect(!yaml.contains("  Recipe: { unique"), "\(yaml)")
        Self.expectLines([
            "  # Recipe: { unique: title }                               # no key guessed: the model has no uniqueness constraint on "
                + "Recipe, and title repeats in the sampled records (Soup 3 times, Stew 2 times); each record is inserted as it comes",
            "# Run on its inputs before it was written: 6 of 6 records load.",
        ], in: yaml)
        #expect(try ws.run("run", "-q", "dinners.yaml").status == 0)
        #expect(try ws.store("build/default.store").rows("SELECT ZTITLE, ZSERVES FROM ZRECIPE ORDER BY Z_PK").count == 6)

        // A title missing from a record: as a key, that record would be skipped (and the model
        // requires a title: the draft's run on the sample says that one is rejected).
        try ws.write("title,serves\nSoup,2\n,4\nSalad,1\n", to: "gaps.csv")
        #expect(try ws.run("init", "--model", "Models", "gaps.csv", "-o", "gaps.yaml").status == 0)
        Self.expectLines(["# entities:\n  # Recipe: { unique: title }                               # no key guessed: the model has no "
                            + "uniqueness constraint on Recipe, and title is empty in 1 of the 3 sampled records; each record is inserted as it comes",
                          "# Run on its inputs before it was written: 2 of 3 records load.\n#   gaps: 2 of 3 records load; first: gaps.csv:3:1: "
                            + "rejected: load: field 'title' value \"\": Recipe.title is required and has no default, but the value is empty\n"],
                         in: try Self.text(ws, "gaps.yaml"))
        #expect(try ws.run("validate", "gaps.yaml").status == 0)

        // Titles that identify each record: the key.
        try ws.write("title,serves\nSoup,2\nStew,4\nSalad,1\n", to: "menu.csv")
        #expect(try ws.run("init", "--model", "Models", "menu.csv", "-o", "menu.yaml").status == 0)
        Self.expectLines(["  Recipe: { unique: title }                                 # guessed: the model has no uniqueness constraint on Recipe; "
                            + "title differs in each of the 3 sampled records"], in: try Self.text(ws, "menu.yaml"))
    }

    // MARK: Yes and no in other languages

    @Test("yes and no in Spanish, German, French, Portuguese and Russian get a map into a Bool; a column that shows only one of a pair maps the other too")
    func yesAndNo() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData
            @Model final class Dish {
                @Attribute(.unique) var name: String
                var vegetarian: Bool
                var vegan: Bool
                var spicy: Bool
                var frozen: Bool
                var seasonal: Bool
                var organic: Bool
            }
            """, to: "Models/Dish.swift")
        try ws.write("""
            name,vegetarian,vegan,spicy,frozen,seasonal,organic
            Gazpacho,Sí,Ja,Non,Não,Да,Sim
            Chili,No,Nein,Oui,Sim,Нет,Sim
            Borscht,SÍ,nein,non,NÃO,да,sim

            """, to: "dishes.csv")
        let made = try ws.run("init", "--model", "Models", "dishes.csv", "-o", "dishes.yaml")
        #expect(made.status == 0, "\(made.stderr)")
        let yaml = try Self.text(ws, "dishes.yaml")
        Self.expectLines([
            #"- map: { fields: [vegetarian], values: { "no": false, "sí": true }, ignore_case: true }"#,
            "- map: { fields: [vegan], values: { ja: true, nein: false }, ignore_case: true }",
            "- map: { fields: [spicy], values: { non: false, oui: true }, ignore_case: true }",
            #"- map: { fields: [frozen], values: { "não": false, sim: true }, ignore_case: true }"#,
            #"- map: { fields: [seasonal], values: { "да": true, "нет": false }, ignore_case: true }"#,
            #"- map: { fields: [organic], values: { "não": false, sim: true }, ignore_case: true }"#,
            "# Run on its inputs before it was written: 3 of 3 records load.",
        ], in: yaml)
        let run = try ws.run("run", "-q", "dishes.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ws.store("build/default.store").rows(
            "SELECT ZNAME, ZVEGETARIAN, ZVEGAN, ZSPICY, ZFROZEN, ZSEASONAL, ZORGANIC FROM ZDISH ORDER BY Z_PK") == [
                [.text("Gazpacho"), .integer(1), .integer(1), .integer(0), .integer(0), .integer(1), .integer(1)],
                [.text("Chili"), .integer(0), .integer(0), .integer(1), .integer(1), .integer(0), .integer(1)],
                [.text("Borscht"), .integer(1), .integer(0), .integer(0), .integer(0), .integer(1), .integer(1)],
            ])
    }

    // MARK: Required attributes without a field; a draft that loads nothing

    @Test("attributes the model requires that no field gives are named; the draft loading none of its records exits 65 unwritten, unless --force")
    func draftThatLoadsNothing() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData
            @Model final class Recipe {
                @Attribute(.unique) var title: String
                var serves: Int
                var course: String
                var notes: String?
            }
            """, to: "Models/Recipe.swift")
        try ws.write("title,notes\nSoup,hot\nSalad,cold\nStew,\n", to: "recipes.csv")
        let refused = try ws.run("init", "--model", "Models", "recipes.csv", "-o", "recipes.yaml")
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr == "recipes.yaml: error: init: the draft loads no record: 0 of 3 records load (source 'recipes': "
                    + "recipes.csv:2:1: rejected: sqlite: field 'serves': Recipe.serves is required and has no default, but the record gives "
                    + "no value); not written. Map what its comments name, or write it anyway with --force\n", "\(refused.stderr)")
        #expect(!ws.exists("recipes.yaml") && !ws.exists("build"))

        let forced = try ws.run("init", "--model", "Models", "recipes.csv", "-o", "recipes.yaml", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.hasPrefix("wrote recipes.yaml: 1 source, 0 of 3 records load; "), "\(forced.stdout)")
        #expect(forced.stderr.hasPrefix("recipes.yaml: warning: init: the draft loads no record: 0 of 3 records load"), "\(forced.stderr)")
        let yaml = try Self.text(ws, "recipes.yaml")
        Self.expectLines([
            "# Run on its inputs before it was written: 0 of 3 records load.\n"
                + "#   recipes: 0 of 3 records load; first: recipes.csv:2:1: rejected: sqlite: field 'serves': Recipe.serves is required",
            "    # required by Recipe, and no field gives them: serves, course; a record without them is rejected: map a field, "
                + "or give the model a default",
        ], in: yaml)
        #expect(!ws.exists("build"))
        // As the draft says: run, it loads nothing, and fails.
        #expect(try ws.run("run", "-q", "recipes.yaml").status == 67)
    }

    // MARK: The draft run on its sample

    @Test("the draft runs on the sampled records into a store of its own, removed after: its first lines tally what loads and each source's first rejection; the store it names is never touched")
    func runOnTheSample() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData
            @Model final class Item {
                @Attribute(.unique) var name: String
                var quantity: Double
            }
            """, to: "Models/Item.swift")
        // 600 records, more than init samples: the 4th and the 551st are no number.
        let rows = (1...600).map { $0 == 4 || $0 == 551 ? "item \($0),lots" : "item \($0),\($0)" }
        try ws.write("name,quantity\n" + rows.joined(separator: "\n") + "\n", to: "big.csv")
        try ws.write("name,quantity\nMilk,1\nEggs,a dozen\nTea,2\n", to: "small.csv")
        // What a store at the draft's path holds stays as it is.
        try ws.write("an earlier store", to: "build/default.store")
        try FileManager.default.createDirectory(at: ws.root.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let made = try Pipectl.runTool(Pipectl.productsDirectory.appendingPathComponent("pipectl").path,
                                       ["init", "--model", "Models", "big.csv", "small.csv", "-o", "items.yaml"], in: ws.root,
                                       environment: ["TMPDIR": ws.root.appendingPathComponent("tmp").path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.hasPrefix("wrote items.yaml: 2 sources, 501 of 503 sampled records load; "), "\(made.stdout)")
        let yaml = try Self.text(ws, "items.yaml")
        #expect(yaml.hasPrefix("""
            # Drafted by `pipectl init` from Models and big.csv, small.csv.
            # Check each guess a comment marks, then `pipectl validate` and `pipectl run` this file.
            # Run on the first 500 records of each input before it was written: 501 of 503 sampled records load.
            #   big: 499 of 500 sampled records load; first: big.csv:5:8: rejected: load: field 'quantity' value "lots": Item.quantity (double): not a number (use the 'number' transform for decimal commas, grouping or currency signs)
            #   small: 2 of 3 records load; first: small.csv:3:6: rejected: load: field 'quantity' value "a dozen": Item.quantity (double): not a number (use the 'number' transform for decimal commas, grouping or currency signs)
            version: 1

            """), "\(yaml)")
        #expect(try String(decoding: ws.bytes("build/default.store"), as: UTF8.self) == "an earlier store")
        #expect(try FileManager.default.contentsOfDirectory(atPath: ws.root.appendingPathComponent("tmp").path) == [])
        // The same inputs give the same draft, byte for byte.
        #expect(try ws.run("init", "--model", "Models", "big.csv", "small.csv", "-o", "again.yaml").status == 0)
        #expect(try ws.bytes("again.yaml") == ws.bytes("items.yaml"))
    }
}
