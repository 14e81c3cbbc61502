import Foundation
import SinksSQLite
import SQLite
import Testing

/// What a real team's data needed (issue 24), run end to end on the built binary.
@Suite struct DataNeedsTests {
    /// A recipes export: a German yes/no column, a status column with drafts.
    static let pipeline = """
        version: 1
        name: recipes-export
        store: { path: build/recipes.sqlite }
        entities:
          Recipe:
            unique: name
            attributes: { name: string, vegan: bool, status: string }
        sources:
          - name: recipes
            read: { csv: recipes.csv }
            transform:
              - trim: all
              - keep: { status: [active, new] }
              - drop: { name: "" }
              - map: { fields: [vegan], values: { ja: true, nein: false } }
            load:
              Recipe: { name: name, vegan: vegan, status: status }
        """

    static let csv = """
        name,vegan,status
        Pesto,ja,active
        Ragù,nein,draft
        ,ja,new
        Hummus,ja,new
        Tiramisu,nein,archived

        """

    @Test("keep and drop: filtered records counted per source, not rejected, the first ones in the summary and the report; map's ja/nein")
    func filtersAndMaps() throws {
        let ws = try Workspace()
        try ws.write(Self.pipeline, to: "recipes.yaml")
        try ws.write(Self.csv, to: "recipes.csv")
        let run = try ws.run("run", "recipes.yaml", "--report", "build/report.json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("rejected  filtered"), "\(run.stdout)")
        #expect(run.stdout.contains("source recipes     5         2        0        0        0         0         3"), "\(run.stdout)")
        #expect(run.stdout.contains(#"filtered from recipes: first at recipes.csv:3:1 (keep: status "draft" is none of active, new)"#), "\(run.stdout)")
        #expect(!run.stderr.contains("rejected"), "\(run.stderr)")
        #expect(try ws.store("build/recipes.sqlite").rows("SELECT name, vegan FROM Recipe ORDER BY id") == [
            [.text("Pesto"), .integer(1)], [.text("Hummus"), .integer(1)],
        ])
        let report = try #require(try JSONSerialization.jsonObject(with: ws.bytes("build/report.json")) as? [String: Any])
        let source = try #require((report["sources"] as? [[String: Any]])?.first)
        #expect(source["filtered"] as? Int == 3 && source["rejected"] as? Int == 0)
        let issues = try #require(report["issues"] as? [[String: Any]])
        #expect(issues.filter { $0["kind"] as? String == "filtered" }.compactMap { $0["location"] as? String }
                == ["recipes.csv:3:1", "recipes.csv:4:1", "recipes.csv:6:1"])
        #expect(issues.first { $0["location"] as? String == "recipes.csv:4:1" }?["reason"] as? String == "name is empty")
    }

    @Test("a source whose every record is filtered does not replace a store that holds records")
    func everyRecordFiltered() throws {
        let ws = try Workspace()
        try ws.write(Self.pipeline, to: "recipes.yaml")
        try ws.write(Self.csv, to: "recipes.csv")
        #expect(try ws.run("run", "-q", "recipes.yaml").status == 0)
        try ws.write(Self.pipeline.replacingOccurrences(of: "[active, new]", with: "[actve]"), to: "recipes.yaml")
        let run = try ws.run("run", "recipes.yaml")
        #expect(run.status != 0 && run.stderr.contains("gave the store no record (5 read: 5 filtered)"), "\(run.stderr)")
        #expect(try ws.store("build/recipes.sqlite").rows("SELECT count(*) FROM Recipe") == [[.integer(2)]])
    }

    @Test("${NAME} from --var, then the environment, then its default; an undefined one fails at its line and column")
    func variables() throws {
        let ws = try Workspace()
        try ws.write(Self.csv, to: "recipes.csv")
        let yaml = Self.pipeline.replacingOccurrences(of: "path: build/recipes.sqlite", with: #"path: "${OUT_DIR}/${STORE_NAME:-recipes}.sqlite""#)
        try ws.write(yaml, to: "recipes.yaml")
        let undefined = try ws.run("run", "recipes.yaml")
        #expect(undefined.status == 65, "\(undefined.stderr)")
        #expect(undefined.stderr.hasPrefix("recipes.yaml:3:17: error: pipeline: the variable 'OUT_DIR' is not set: give it with --var OUT_DIR=VALUE or in the environment, or a default with ${OUT_DIR:-VALUE}"), "\(undefined.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("${OUT_DIR}").path))
        let given = try ws.run("run", "-q", "recipes.yaml", "--var", "OUT_DIR=dist", "--var", "STORE_NAME=app")
        #expect(given.status == 0, "\(given.stderr)")
        #expect(FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("dist/app.sqlite").path))
        // The environment, when --var does not give it; the default where neither does.
        let environment = try Pipectl.runTool("env", ["OUT_DIR=from-env", Pipectl.productsDirectory.appendingPathComponent("pipectl").path,
                                                      "run", "-q", "recipes.yaml"], in: ws.root)
        #expect(environment.status == 0, "\(environment.stderr)")
        #expect(FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("from-env/recipes.sqlite").path))
        let bad = try ws.run("run", "recipes.yaml", "--var", "OUT DIR=x")
        #expect(bad.status != 0 && bad.stderr.contains("--var expects NAME=VALUE"), "\(bad.stderr)")
        // Unquoted inside a flow mapping, YAML itself stops at the `{`: the error says to quote it.
        try ws.write(Self.pipeline.replacingOccurrences(of: "path: build/recipes.sqlite", with: "path: ${OUT_DIR}/recipes.sqlite"), to: "unquoted.yaml")
        let unquoted = try ws.run("run", "unquoted.yaml", "--var", "OUT_DIR=dist")
        #expect(unquoted.status == 65, "\(unquoted.stderr)")
        #expect(unquoted.stderr.hasPrefix("unquoted.yaml:3:"), "\(unquoted.stderr)")
        #expect(unquoted.stderr.contains(#"inside { ... } quote a value that uses a variable, as in path: "${BUILD_DIR}/Grocery.sqlite""#), "\(unquoted.stderr)")
    }

    @Test("--dry-run writes nothing: not the store, not its folder, not the pipeline's reports; --report still writes its own")
    func dryRunWritesNothing() throws {
        let ws = try Workspace()
        try ws.write(Self.csv, to: "recipes.csv")
        try ws.write(Self.pipeline.replacingOccurrences(of: "path: build/recipes.sqlite }", with: "path: out/deep/recipes.sqlite }\nreport: { json: reports/r.json }"),
                     to: "recipes.yaml")
        let before = try FileManager.default.subpathsOfDirectory(atPath: ws.root.path).sorted()
        let run = try ws.run("run", "recipes.yaml", "--dry-run")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("dry run, the store was not written"), "\(run.stdout)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: ws.root.path).sorted() == before)
        let asked = try ws.run("run", "-q", "recipes.yaml", "--dry-run", "--report", "dry.json")
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: ws.root.path).sorted() == (before + ["dry.json"]).sorted())
    }

    @Test("a field no record of a JSON or XML source has is a warning at the pipeline's line with the closest name; under on_reject: fail it fails the run")
    func fieldsThatNeverCome() throws {
        let ws = try Workspace()
        try ws.write(#"{"recipes": [{"name": "Toast", "prepMinutes": 5, "status": "active"}, {"name": "Soup", "prepMinutes": 30, "status": "draft"}]}"#,
                     to: "recipes.json")
        let yaml = """
            version: 1
            name: recipes-json
            store: { path: build/recipes.sqlite }
            entities:
              Recipe:
                unique: name
                attributes: { name: string, minutes: int, listed: bool }
            sources:
              - name: recipes
                read: { json: recipes.json, records: recipes }
                transform:
                  - keep: { status: active }
                load:
                  Recipe: { name: name, minutes: prep_minutes, listed: false }
            """
        try ws.write(yaml, to: "recipes.yaml")
        let run = try ws.run("run", "recipes.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        // The filter reads a field no load does: the reader picks it out too.
        #expect(try ws.store("build/recipes.sqlite").rows("SELECT name FROM Recipe") == [[.text("Toast")]])
        #expect(run.stderr.contains("recipes.yaml:14:38: warning: pipeline: no record of source 'recipes' has a value for 'prep_minutes'; did you mean 'prepMinutes'? (every record loads it empty)"), "\(run.stderr)")
        // A bare word is a field name: `listed: false` reads a field "false".
        #expect(run.stderr.contains("recipes.yaml:14:60: warning: pipeline: no record of source 'recipes' has a value for 'false'; for the value itself, write '{ value: false }'"), "\(run.stderr)")
        try ws.write("version: 1\non_reject: fail\n" + yaml.dropFirst("version: 1\n".count), to: "recipes.yaml")
        let failing = try ws.run("run", "recipes.yaml")
        #expect(failing.status == 65 && failing.stderr.contains("recipes.yaml:15:38: error: pipeline: no record of source 'recipes' has a value for 'prep_minutes'"), "\(failing.stderr)")
        // XML: attribute and element names are the suggestions.
        try ws.write(#"<items><item name="Milk" unitName="l"/></items>"#, to: "items.xml")
        try ws.write("""
            version: 1
            name: items
            store: { path: build/items.sqlite }
            entities:
              Item: { unique: name, attributes: { name: string, unit: string } }
            sources:
              - name: items
                read: { xml: items.xml, record: items/item }
                load:
                  Item: { name: name, unit: unitname }
            """, to: "items.yaml")
        let xml = try ws.run("run", "items.yaml")
        #expect(xml.status == 0 && xml.stderr.contains("no record of source 'items' has a value for 'unitname'; did you mean 'unitName'?"), "\(xml.stderr)")
    }

    @Test("what auto chose for a CSV (encoding, delimiter, line ends, byte order mark): in the summary and both reports")
    func detectedEncoding() throws {
        let ws = try Workspace()
        // A Windows export: Windows-1252 (é as one byte), semicolons, CRLF, no byte order mark.
        let bytes = Array("name;vegan;status\r\nCr".utf8) + [0xE8] + Array("me br".utf8) + [0xFB, UInt8(ascii: "l"), 0xE9]
            + Array("e;ja;active\r\n".utf8)
        try Data(bytes).write(to: ws.root.appendingPathComponent("recipes.csv"))
        try ws.write(Self.pipeline.replacingOccurrences(of: "read: { csv: recipes.csv }", with: "read: { csv: recipes.csv, encoding: auto, delimiter: auto }"),
                     to: "recipes.yaml")
        let run = try ws.run("run", "recipes.yaml", "--report", "build/report.json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("read recipes.csv as encoding windows-1252 (detected), byte order mark none, delimiter ';' (detected), line ends CRLF"), "\(run.stdout)")
        #expect(try ws.store("build/recipes.sqlite").rows("SELECT name FROM Recipe") == [[.text("Crème brûlée")]])
        let report = try #require(try JSONSerialization.jsonObject(with: ws.bytes("build/report.json")) as? [String: Any])
        let input = try #require((report["inputs"] as? [[String: Any]])?.first)
        #expect(input["detected"] as? [String: String] == [
            "encoding": "windows-1252 (detected)", "byte order mark": "none", "delimiter": "';' (detected)", "line ends": "CRLF",
        ])
    }

    @Test("pipelines/recipes.yaml: each recipe's uuid from its name, the same in every regeneration, also for a recipe another source made first")
    func recipesHaveStableIDs() throws {
        let ws = try Workspace()
        #expect(try ws.run("run", "-q", "pipelines/recipes.yaml").status == 0)
        let query = "SELECT ZNAME, hex(ZUUID) FROM ZENTRY WHERE ZNAME IS NOT NULL ORDER BY ZNAME"
        let first = try ws.store("build/Recipes.sqlite").rows(query)
        // python3 -c "import uuid; print(uuid.uuid5(uuid.UUID('0b1ab72c-5a5c-5688-9e4e-c94bd60f4870'), 'Shakshuka'))"
        #expect(first.contains([.text("Shakshuka"), .text("2E187F1E2D5351EBBB66C4EF6520419B")]))
        #expect(!first.contains { $0[1] == .null } && Set(first.map { $0[1] }).count == first.count)
        #expect(try ws.run("run", "-q", "pipelines/recipes.yaml").status == 0)
        #expect(try ws.store("build/Recipes.sqlite").rows(query) == first)
    }
}
