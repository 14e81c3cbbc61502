import Foundation
import SinksSQLite
import SQLite
import Testing

/// `pipectl init` (issue 25): a first pipeline from the model and the exports.
@Suite struct InitTests {
    /// JSON Lines of the grocery JSON's items, one per line, as a team's other export would be.
    static func jsonLines(_ ws: Workspace) throws -> String {
        let root = try #require(try JSONSerialization.jsonObject(with: ws.bytes("pipelines/data/grocery.json")) as? [String: Any])
        let items = try #require(root["items"] as? [[String: Any]])
        return try items.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
            .joined(separator: "\n") + "\n"
    }

    @Test("the grocery model and each grocery input, all five formats: a pipeline that validates and runs to the hand-written store's content",
          arguments: ["csv", "xml", "json", "jsonl", "plist"])
    func grocery(format: String) throws {
        let ws = try Workspace()
        if format == "jsonl" { try ws.write(try Self.jsonLines(ws), to: "pipelines/data/grocery.jsonl") }
        let made = try ws.run("init", "--model", "pipelines/model/Grocery.xcdatamodeld", "pipelines/data/grocery.\(format)",
                              "-o", "pipelines/drafted.yaml", "--timezone", "Europe/Berlin")
        #expect(made.status == 0, "\(made.stderr)")
        let yaml = try String(decoding: ws.bytes("pipelines/drafted.yaml"), as: UTF8.self)
        #expect(yaml.contains("Item: { unique: name }") && yaml.contains("guessed: the model has no uniqueness constraint on Item"), "\(yaml)")
        #expect(try ws.run("validate", "pipelines/drafted.yaml").status == 0)
        let run = try ws.run("run", "-q", "pipelines/drafted.yaml")
        #expect(run.status == 0, "\(run.stderr)\n\(yaml)")
        #expect(try ws.run("run", "-q", "pipelines/grocery.yaml").status == 0)
        let diff = try ws.run("diff", "build/Grocery.sqlite", "pipelines/build/Grocery.sqlite", "--pipeline", "pipelines/grocery.yaml")
        #expect(diff.status == 0, "\(diff.stdout)\n\(yaml)")
    }

    @Test("fields whose names differ in case, spaces and underscores still match; a field that matches nothing is listed")
    func namesThatDiffer() throws {
        let ws = try Workspace()
        try ws.write("""
            import SwiftData
            @Model final class Product {
                @Attribute(.unique) var productName: String
                var unitPrice: Double
                var inStock: Bool
            }
            """, to: "Models/Product.swift")
        try ws.write("Product_Name,unit price,IN_STOCK,Colour\nTea,\" 4,20 \",ja,green\nCoffee,\"7,50\",nein,brown\n", to: "products.csv")
        let made = try ws.run("init", "--model", "Models", "products.csv", "-o", "products.yaml")
        #expect(made.status == 0, "\(made.stderr)")
        let yaml = try String(decoding: ws.bytes("products.yaml"), as: UTF8.self)
        #expect(yaml.contains("Product: { unique: productName }") && yaml.contains("the model's uniqueness constraint"), "\(yaml)")
        for line in ["productName: Product_Name", #"unitPrice: "unit price""#, "inStock: IN_STOCK", "same name ignoring case, spaces and _",
                     #"- number: { fields: ["unit price"], decimal: "," }"#, "- trim: all",
                     "- map: { fields: [IN_STOCK], values: { ja: true, nein: false }, ignore_case: true }",
                     "# not loaded, as no attribute of Product matches: Colour"] {
            #expect(yaml.contains(line), "\(line) is missing from:\n\(yaml)")
        }
        let run = try ws.run("run", "-q", "products.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ws.store("build/default.store").rows("SELECT ZPRODUCTNAME, ZUNITPRICE, ZINSTOCK FROM ZPRODUCT ORDER BY Z_PK") == [
            [.text("Tea"), .double(4.2), .integer(1)], [.text("Coffee"), .double(7.5), .integer(0)],
        ])
    }

    @Test("dates that read as dd/MM and as MM/dd: the draft picks one and says the other reads them too")
    func ambiguousDates() throws {
        let ws = try Workspace()
        try ws.write("name,added\nMilk,03/04/2024\nEggs,05/06/2024\n", to: "items.csv")
        let made = try ws.run("init", "--model", "pipelines/model/Grocery.xcdatamodeld", "items.csv", "-o", "items.yaml")
        #expect(made.status == 0, "\(made.stderr)")
        let yaml = try String(decoding: ws.bytes("items.yaml"), as: UTF8.self)
        #expect(yaml.contains(#"- date: { fields: [added], format: "dd/MM/yyyy", timezone: UTC }"#), "\(yaml)")
        #expect(yaml.contains(#"ambiguous: "MM/dd/yyyy" also reads every value, as other dates; check which the export means"#), "\(yaml)")
        #expect(yaml.contains("the zone is a guess (pipectl init --timezone)"), "\(yaml)")
        // An existing file is kept unless --force.
        let again = try ws.run("init", "--model", "pipelines/model/Grocery.xcdatamodeld", "items.csv", "-o", "items.yaml")
        #expect(again.status == 74 && again.stderr.contains("the file exists"), "\(again.stderr)")
    }
}
