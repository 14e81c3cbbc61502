import Foundation
import SinksSQLite
import SQLite
import Testing

/// `checks:` (issue 25): run on the new store before it replaces the old one.
@Suite struct ChecksTests {
    static let csv = """
        name,unit,price
        Milk,l,1.20
        Eggs,pcs,2.50
        Flour,kg,0.90
        Butter,,2.10

        """

    static func pipeline(_ checks: String) -> String {
        """
        version: 1
        name: shop
        store: { path: build/shop.sqlite }
        entities:
          Unit: { unique: name, attributes: { name: string } }
          Item:
            unique: name
            attributes: { name: string, price: double }
            relationships: { unit: { to: Unit, inverse: items } }
        sources:
          - name: items
            read: { csv: items.csv }
            load:
              Item: { name: name, price: price, unit: { Unit: { name: unit } } }
        checks:
        \(checks)
        """
    }

    func workspace(_ checks: String) throws -> Workspace {
        let ws = try Workspace()
        try ws.write(Self.csv, to: "items.csv")
        try ws.write(Self.pipeline(checks), to: "shop.yaml")
        return ws
    }

    @Test("every check kind passes on good data; the summary and both reports say so")
    func passing() throws {
        let ws = try workspace("""
              Item: { count: { min: 4 }, not_empty: [name], unique: [name, [name, price]], values: { price: [0.9, 1.2, 2.1, 2.5] } }
              Unit: { count: { between: [3, 3] } }
            """)
        let run = try ws.run("run", "shop.yaml", "--report", "build/report.json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("checks: 6 of 6 passed"), "\(run.stdout)")
        #expect(run.stdout.contains("  passed Item count >= 4: 4 records"), "\(run.stdout)")
        let report = try #require(try JSONSerialization.jsonObject(with: ws.bytes("build/report.json")) as? [String: Any])
        let checks = try #require(report["checks"] as? [[String: Any]])
        #expect(checks.count == 6 && checks.allSatisfy { $0["passed"] as? Bool == true })
    }

    @Test("each check kind failing: exit 69, the offending records named, the previous store kept, the report saying why",
          arguments: [
            ("Item: { count: { min: 5 } }", "Item count >= 5: 4 records"),
            ("Item: { count: { max: 3 } }", "Item count <= 3: 4 records"),
            ("Item: { not_empty: [unit] }", "Item unit not empty: 1 record has no unit (name=Butter)"),
            ("Unit: { values: { name: [l, kg] } }", "Unit name in [l, kg]: 1 record holds another value (name=pcs: pcs)"),
            ("placeholders: none", "no placeholders: 3 records only links created"),
          ])
    func failing(check: String, message: String) throws {
        let ws = try workspace("  Item: { count: { min: 1 } }")
        #expect(try ws.run("run", "-q", "shop.yaml").status == 0)
        let before = try ws.bytes("build/shop.sqlite")
        try ws.write(Self.pipeline("  " + check), to: "shop.yaml")
        let run = try ws.run("run", "shop.yaml", "--report", "build/report.json")
        #expect(run.status == 69, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("error: checks: 1 check failed, first: \(message)"), "\(run.stderr)")
        #expect(run.stderr.contains("the store was left as it was"), "\(run.stderr)")
        #expect(run.stdout.contains("FAILED"), "\(run.stdout)")
        #expect(try ws.bytes("build/shop.sqlite") == before)
        let report = try #require(try JSONSerialization.jsonObject(with: ws.bytes("build/report.json")) as? [String: Any])
        #expect((report["checks"] as? [[String: Any]])?.first?["passed"] as? Bool == false)
        #expect((report["outcome"] as? [String: Any])?["status"] as? String == "failed")
    }

    @Test("unique: a repeated value names the value and how many records hold it")
    func uniqueFailing() throws {
        let ws = try workspace("  Item: { unique: [price] }")
        try ws.write(Self.csv + "Cream,l,1.20\n", to: "items.csv")
        let run = try ws.run("run", "shop.yaml")
        #expect(run.status == 69 && run.stderr.contains("Item price unique: 1 value is held by several records (price=1.2 (2 records))"), "\(run.stderr)")
    }

    @Test("pipectl check runs the checks on a store already built; a misspelt check is an error at its line")
    func checkCommand() throws {
        let ws = try workspace("  Item: { count: { min: 4 }, not_empty: [unit] }")
        #expect(try ws.run("run", "-q", "shop.yaml").status == 69)
        try ws.write(Self.pipeline("  Item: { count: { min: 4 } }"), to: "shop.yaml")
        #expect(try ws.run("run", "-q", "shop.yaml").status == 0)
        let passing = try ws.run("check", "build/shop.sqlite", "--pipeline", "shop.yaml")
        #expect(passing.status == 0 && passing.stdout.contains("checks: 1 of 1 passed"), "\(passing.stdout)\(passing.stderr)")
        try ws.write(Self.pipeline("  Item: { count: { min: 4 }, not_empty: [unit] }"), to: "shop.yaml")
        let failing = try ws.run("check", "build/shop.sqlite", "--pipeline", "shop.yaml")
        #expect(failing.status == 69 && failing.stdout.contains("      name=Butter"), "\(failing.stdout)\(failing.stderr)")
        try ws.write(Self.pipeline("  Item: { not_emtpy: [unit] }"), to: "shop.yaml")
        let typo = try ws.run("run", "shop.yaml")
        #expect(typo.status == 65 && typo.stderr.contains("shop.yaml:16:11: error: pipeline: 'not_emtpy' is no check; did you mean 'not_empty'?"), "\(typo.stderr)")
        // A value the attribute cannot hold is an error at that value, before anything is read or built.
        try ws.write(Self.pipeline("  Item: { values: { price: [1.20, cheap] } }"), to: "shop.yaml")
        let before = try ws.bytes("build/shop.sqlite")
        let value = try ws.run("run", "shop.yaml")
        #expect(value.status == 65, "\(value.stderr)")
        #expect(value.stderr.hasPrefix("shop.yaml:16:35: error: pipeline: Item.price (double) cannot hold \"cheap\": "), "\(value.stderr)")
        #expect(try ws.bytes("build/shop.sqlite") == before)
    }
}
