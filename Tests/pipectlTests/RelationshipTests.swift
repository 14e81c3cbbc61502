import Foundation
import SinksSQLite
import Testing

/// Relationships of every shape (issue 22), through the built binary into real stores read back
/// with SQL.
@Suite struct RelationshipTests {
    /// The raywenderlich tutorial's FailedBanks model: FailedBankInfo.details <-> FailedBankDetails.info,
    /// a one-to-one with both sides declared (onetoone-wibosco's real store keeps a foreign key on both).
    static let failedBanksModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
            <entity name="FailedBankDetails" representedClassName="FailedBankDetails" syncable="YES">
                <attribute name="closeDate" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="updatedDate" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="zip" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                <relationship name="info" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="FailedBankInfo" inverseName="details" inverseEntity="FailedBankInfo"/>
            </entity>
            <entity name="FailedBankInfo" representedClassName="FailedBankInfo" syncable="YES">
                <attribute name="city" optional="YES" attributeType="String"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="state" optional="YES" attributeType="String"/>
                <relationship name="details" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="FailedBankDetails" inverseName="info" inverseEntity="FailedBankDetails"/>
            </entity>
        </model>

        """

    static let failedBanksCSV = """
        name,city,state,zip,closeDate,updatedDate
        Almena State Bank,Almena,KS,67622,2020-10-23,2020-11-05
        First City Bank of Florida,Fort Walton Beach,FL,32548,2020-10-16,2020-11-05
        The First State Bank,Barboursville,WV,25504,2020-04-03,2020-10-19
        Ericson State Bank,Ericson,NE,68637,2020-02-14,2020-02-21

        """

    static func failedBanksPipeline(unique: Bool = false, layout: String = "coredata") -> String {
        """
        version: 1
        name: failed-banks
        store: { path: FailedBanks.sqlite, layout: \(layout), model: FailedBanks.xcdatamodel }
        entities: { FailedBankInfo: { unique: name }\(unique ? ", FailedBankDetails: { unique: zip }" : "") }
        sources:
          - name: banks
            read: { csv: banks.csv }
            transform:
              - date: { fields: [closeDate, updatedDate], format: "yyyy-MM-dd", timezone: UTC }
            load:
              FailedBankInfo:
                name: name
                city: city
                state: state
                details: { FailedBankDetails: { zip: zip, closeDate: closeDate, updatedDate: updatedDate } }

        """
    }

    func failedBanks(csv: String = failedBanksCSV, unique: Bool = false, layout: String = "coredata") throws -> Workspace {
        let ws = try Workspace()
        try ws.write(Self.failedBanksModel, to: "FailedBanks.xcdatamodel/contents")
        try ws.write(csv, to: "banks.csv")
        try ws.write(Self.failedBanksPipeline(unique: unique, layout: layout), to: "banks.yaml")
        return ws
    }

    @Test("a one-to-one loaded from one side has both foreign keys set on every row (FailedBanks, one CSV, one load)")
    func oneToOneBothSides() throws {
        let ws = try failedBanks()
        let run = try ws.run("run", "-q", "banks.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("FailedBanks.sqlite")
        #expect(try store.rows("SELECT count(*) FROM ZFAILEDBANKINFO WHERE ZDETAILS IS NULL") == [[.integer(0)]])
        #expect(try store.rows("SELECT count(*) FROM ZFAILEDBANKDETAILS WHERE ZINFO IS NULL") == [[.integer(0)]])
        // Each side points at the other: details.info reads the bank back in the app.
        let pairs = try store.rows("""
            SELECT i.ZNAME, d.ZZIP FROM ZFAILEDBANKINFO i JOIN ZFAILEDBANKDETAILS d ON d.Z_PK = i.ZDETAILS AND d.ZINFO = i.Z_PK ORDER BY i.ZNAME
            """)
        #expect(pairs == [[.text("Almena State Bank"), .integer(67622)], [.text("Ericson State Bank"), .integer(68637)],
                          [.text("First City Bank of Florida"), .integer(32548)], [.text("The First State Bank"), .integer(25504)]])
        // As in onetoone-wibosco's store (Core Data, 7,995 pairs): every row's Z_OPT stays 1, the
        // second foreign key set after the insert notwithstanding.
        #expect(try store.rows("SELECT DISTINCT Z_OPT FROM ZFAILEDBANKINFO UNION SELECT DISTINCT Z_OPT FROM ZFAILEDBANKDETAILS") == [[.integer(1)]])
        #expect(try ws.run("inspect", "FailedBanks.sqlite", "--model", "FailedBanks.xcdatamodel").status == 0)

        // The plain layout keeps both sides too.
        let plain = try failedBanks(layout: "sqlite")
        #expect(try plain.run("run", "-q", "banks.yaml").status == 0)
        let rows = try plain.store("FailedBanks.sqlite")
            .rows("SELECT count(*) FROM FailedBankInfo i JOIN FailedBankDetails d ON d.id = i.details_id AND d.info_id = i.id")
        #expect(rows == [[.integer(4)]])
    }

    @Test("a one-to-one target already linked from another record rejects the later record, with both named")
    func oneToOneClaimedTwice() throws {
        // Two banks with one zip: with FailedBankDetails keyed by zip, the second finds the first's details.
        let csv = Self.failedBanksCSV.replacingOccurrences(of: "Ericson,NE,68637", with: "Ericson,NE,67622")
        let ws = try failedBanks(csv: csv, unique: true)
        let run = try ws.run("run", "banks.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("""
            banks.csv:5:1: warning: record rejected: sqlite: field 'details': FailedBankDetails zip=67622 is already linked from FailedBankInfo \
            name=Almena State Bank through the one-to-one 'details' (inverse 'info'), and each FailedBankDetails belongs to one FailedBankInfo
            """), "\(run.stderr)")
        let store = try ws.store("FailedBanks.sqlite")
        #expect(try store.rows("SELECT ZNAME FROM ZFAILEDBANKINFO ORDER BY ZNAME").count == 3)
        #expect(try store.rows("""
            SELECT count(*) FROM ZFAILEDBANKINFO i JOIN ZFAILEDBANKDETAILS d ON d.Z_PK = i.ZDETAILS AND d.ZINFO = i.Z_PK
            """) == [[.integer(3)]])
    }

    // MARK: Links that must find their record

    static func unitsPipeline(missing: String) -> String {
        """
        version: 1
        name: units
        store: { path: store.sqlite, layout: coredata }
        entities:
          Unit: { unique: name, attributes: { name: string, symbol: string } }
          Item:
            unique: name
            attributes: { name: string }
            relationships: { unit: { to: Unit, inverse: items } }
        sources:
          - name: units
            read: { csv: units.csv }
            load: { Unit: { name: name, symbol: symbol } }
          - name: items
            read: { csv: items.csv }
            load: { Item: { name: name, unit: { Unit: { name: unit }\(missing) } } }

        """
    }

    func units(missing: String) throws -> Workspace {
        let ws = try Workspace()
        try ws.write("name,symbol\nkilogram,kg\nlitre,l\npiece,pcs\n", to: "units.csv")
        try ws.write("name,unit\nFlour,kilogram\nMilk,litre\nFeta,kilogramm\nEggs,dozen\n", to: "items.csv")
        try ws.write(Self.unitsPipeline(missing: missing), to: "units.yaml")
        return ws
    }

    @Test("a record naming itself as its parent is one row linking itself, not two rows of one key")
    func ownParent() throws {
        let ws = try Workspace()
        let categories = String(decoding: try ws.bytes("pipelines/data/categories.csv"), as: UTF8.self)
        try ws.write(categories + "Desserts;Desserts\r\n", to: "pipelines/data/categories.csv")
        let run = try ws.run("run", "-q", "pipelines/recipes.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try ws.store("build/Recipes.sqlite")
        #expect(try store.rows("SELECT count(*), ZPARENT = Z_PK FROM ZCATEGORY WHERE ZNAME = 'Desserts'") == [[.integer(1), .integer(1)]])
        #expect(try ws.run("inspect", "build/Recipes.sqlite", "--model", "pipelines/model/Recipes.xcdatamodeld").status == 0)
    }

    @Test("missing: reject rejects a record whose link names a record not in the store, with the closest key, and creates nothing")
    func missingReject() throws {
        let ws = try units(missing: ", missing: reject")
        let run = try ws.run("run", "units.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("""
            items.csv:4:1: warning: record rejected: sqlite: field 'unit' "kilogramm": no Unit name=kilogramm in the store; \
            did you mean 'kilogram'? (Item.unit says missing: reject)
            """), "\(run.stderr)")
        #expect(run.stderr.contains("items.csv:5:1: warning: record rejected: sqlite: field 'unit' \"dozen\": no Unit name=dozen in the store (Item.unit says missing: reject)\n"),
                "\(run.stderr)")
        let store = try ws.store("store.sqlite")
        #expect(try store.rows("SELECT ZNAME FROM ZUNIT ORDER BY ZNAME") == [[.text("kilogram")], [.text("litre")], [.text("piece")]])
        #expect(try store.rows("SELECT i.ZNAME, u.ZNAME FROM ZITEM i JOIN ZUNIT u ON u.Z_PK = i.ZUNIT ORDER BY i.ZNAME")
                    == [[.text("Flour"), .text("kilogram")], [.text("Milk"), .text("litre")]])
    }

    @Test("missing: skip loads the record with the link left empty and reports it; create (the default) makes the record")
    func missingSkipAndCreate() throws {
        let skip = try units(missing: ", missing: skip")
        let run = try skip.run("run", "units.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("""
            items.csv:4:1: warning: Unit skipped: no Unit name=kilogramm in the store; did you mean 'kilogram'? (missing: skip), \
            so Item.unit is left empty
            """), "\(run.stderr)")
        let store = try skip.store("store.sqlite")
        #expect(try store.rows("SELECT ZNAME, ZUNIT IS NULL FROM ZITEM ORDER BY ZNAME")
                    == [[.text("Eggs"), .integer(1)], [.text("Feta"), .integer(1)], [.text("Flour"), .integer(0)], [.text("Milk"), .integer(0)]])
        #expect(try store.rows("SELECT count(*) FROM ZUNIT") == [[.integer(3)]])

        let create = try units(missing: "")
        #expect(try create.run("run", "-q", "units.yaml").status == 0)
        #expect(try create.store("store.sqlite").rows("SELECT ZNAME, ZSYMBOL FROM ZUNIT WHERE ZSYMBOL IS NULL ORDER BY ZNAME")
                    == [[.text("dozen"), .null], [.text("kilogramm"), .null]])
    }

    @Test("missing: takes create, reject or skip; anything else is an error at the value")
    func missingValues() throws {
        let ws = try units(missing: ", missing: rejct")
        let run = try ws.run("validate", "units.yaml")
        #expect(run.status == 65)
        #expect(run.stderr.hasPrefix("units.yaml:16:72: error: pipeline: 'missing' is one of create, reject, skip, not 'rejct'; did you mean 'reject'?"),
                "\(run.stderr)")
    }

    // MARK: Placeholders

    @Test("a record a link created takes the values of its own later record (an insert of that source), and one never completed is listed")
    func placeholdersAreCompleted() throws {
        let ws = try Workspace()
        try ws.write("name,unit\nFlour,kilogram\nMilk,litre\nFeta,kilogramm\n", to: "items.csv")
        try ws.write("name,symbol\nkilogram,kg\nlitre,l\npiece,pcs\n", to: "units.csv")
        // Items first: their links create the units, which the units source then completes.
        let pipeline = Self.unitsPipeline(missing: "")
            .replacingOccurrences(of: "  - name: units\n    read: { csv: units.csv }\n    load: { Unit: { name: name, symbol: symbol } }\n", with: "")
            + "  - name: units\n    read: { csv: units.csv }\n    load: { Unit: { name: name, symbol: symbol } }\n"
            + "report: { json: report.json, xlsx: report.xlsx }\n"
        try ws.write(pipeline, to: "units.yaml")
        let run = try ws.run("run", "units.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(Array(lines.dropFirst()) == [
            "              read  inserted  present  updated  skipped  rejected",
            "source items     3         6        0        0        0         0",
            "source units     3         3        0        0        0         0",
            "  Unit                     4        0        0        0",
            "  Item                     3        0        0        0",
            "created by links only (no source loads them; listed in the report): Unit 1",
            "links: Item.unit 3",
            "read items.csv as encoding utf-8 (detected), byte order mark none, delimiter ',' (detected), line ends LF",
            "read units.csv as encoding utf-8 (detected), byte order mark none, delimiter ',' (detected), line ends LF",
        ])
        let store = try ws.store("store.sqlite")
        #expect(try store.rows("SELECT ZNAME, ZSYMBOL FROM ZUNIT ORDER BY Z_PK")
                    == [[.text("kilogram"), .text("kg")], [.text("litre"), .text("l")], [.text("kilogramm"), .null], [.text("piece"), .text("pcs")]])
        // The report lists the one nothing completed, with the link that made it.
        let json = try #require(try JSONSerialization.jsonObject(with: ws.bytes("report.json")) as? [String: Any])
        #expect(json["createdByLinks"] as? [[String: String]] == [["entity": "Unit", "key": "name=kilogramm", "first": "items.csv:4:1"]])
        let workbook = try Workbook(ws.root.appendingPathComponent("report.xlsx"))
        #expect(try workbook.sheetNames() == ["Summary", "Rejected", "Duplicates", "Created by links", "Changes", "Unit", "Item"])
        #expect(try workbook.sheet(4).contains("<t>name=kilogramm</t></is></c><c r=\"C2\" t=\"inlineStr\"><is><t>items.csv:4:1</t>"))
    }

    // MARK: Keys over relationships

    static func recipeIngredientsPipeline(layout: String) -> String {
        """
        version: 1
        name: recipe-ingredients
        store: { path: store.sqlite, layout: \(layout) }
        entities:
          Recipe: { unique: name, attributes: { name: string } }
          Ingredient: { unique: name, attributes: { name: string } }
          RecipeIngredient:
            unique: [recipe, ingredient]
            attributes: { amount: string }
            relationships:
              recipe: { to: Recipe, inverse: ingredients }
              ingredient: { to: Ingredient, inverse: recipes }
        sources:
          - name: lines
            read: { csv: lines.csv }
            load:
              RecipeIngredient:
                amount: amount
                recipe: { Recipe: { name: recipe } }
                ingredient: { Ingredient: { name: ingredient } }

        """
    }

    @Test("a join entity keyed by its two relationships: one record per pair, a repeated pair is a duplicate named by both keys", arguments: ["coredata", "sqlite"])
    func keysOverRelationships(layout: String) throws {
        let ws = try Workspace()
        try ws.write("""
            recipe,ingredient,amount
            Soup,Leek,2
            Soup,Potato,500 g
            Salad,Leek,1
            Soup,Leek,3
            Salad,Feta,200 g

            """, to: "lines.csv")
        try ws.write(Self.recipeIngredientsPipeline(layout: layout), to: "lines.yaml")
        let run = try ws.run("run", "lines.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("lines.csv:5:1: warning: RecipeIngredient recipe=(name=Soup), ingredient=(name=Leek) was already loaded from lines.csv:2:1 "),
                "\(run.stderr)")
        let store = try ws.store("store.sqlite")
        let sql = layout == "coredata"
            ? "SELECT r.ZNAME, i.ZNAME, l.ZAMOUNT FROM ZRECIPEINGREDIENT l JOIN ZRECIPE r ON r.Z_PK = l.ZRECIPE JOIN ZINGREDIENT i ON i.Z_PK = l.ZINGREDIENT ORDER BY 1, 2"
            : "SELECT r.name, i.name, l.amount FROM RecipeIngredient l JOIN Recipe r ON r.id = l.recipe_id JOIN Ingredient i ON i.id = l.ingredient_id ORDER BY 1, 2"
        #expect(try store.rows(sql) == [[.text("Salad"), .text("Feta"), .text("200 g")], [.text("Salad"), .text("Leek"), .text("1")],
                                        [.text("Soup"), .text("Leek"), .text("2")], [.text("Soup"), .text("Potato"), .text("500 g")]])
        if layout == "sqlite" {
            // The plain layout keeps the key as a unique index over the two foreign keys.
            #expect(try store.rows("SELECT name FROM pragma_index_info((SELECT name FROM pragma_index_list('RecipeIngredient') WHERE \"unique\" = 1))")
                        == [[.text("recipe_id")], [.text("ingredient_id")]])
        }
    }

    @Test("a to-many relationship cannot be part of a key")
    func keyOverAToMany() throws {
        let ws = try Workspace()
        try ws.write("recipe,ingredient,amount\n", to: "lines.csv")
        try ws.write(Self.recipeIngredientsPipeline(layout: "coredata").replacingOccurrences(of: "Recipe: { unique: name,", with: "Recipe: { unique: [name, ingredients],"), to: "lines.yaml")
        let run = try ws.run("validate", "lines.yaml")
        #expect(run.status == 65)
        // The inverse to-many exists once the entities are read; the key is checked before.
        #expect(run.stderr.contains("error: pipeline: unique key 'ingredients' is not an attribute or to-one relationship of 'Recipe' (attributes: name)"),
                "\(run.stderr)")
    }
}
