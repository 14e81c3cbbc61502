import Foundation
import Pipeline
import SQLite
import Testing

/// A run held to one core (`taskset`, a CI runner's cpuset) reads and writes on one thread and
/// builds its indexes without SQLite's sorter helpers (`Cores.usable`): the same store byte for
/// byte, the same messages.
@Suite("One core")
struct OneCoreTests {
    #if os(Linux)
    static func onOneCore(_ arguments: String..., in ws: Workspace) throws -> Pipectl.Result {
        try Pipectl.runTool("taskset", ["-c", "0", Pipectl.binary.path] + arguments, in: ws.root)
    }

    @Test("every example pipeline writes the same store on one core", arguments: [
        ("grocery.yaml", "build/Grocery.sqlite"), ("grocery-json.yaml", "build/Grocery-json.sqlite"),
        ("grocery-xml.yaml", "build/Grocery-xml.sqlite"), ("grocery-plist.yaml", "build/Grocery-plist.sqlite"),
        ("grocery-xlsx.yaml", "build/Grocery-xlsx.sqlite"), ("recipes.yaml", "build/Recipes.sqlite"),
        ("recipes-photos.yaml", "build/RecipeBook.sqlite"),
    ])
    func examplesOnOneCore(pipeline: String, store: String) throws {
        let ws = try Workspace()
        let everyCore = try ws.run("run", "-q", "pipelines/" + pipeline)
        #expect(everyCore.status == 0, "\(everyCore.stderr)")
        let first = try ws.bytes(store)
        try FileManager.default.removeItem(at: ws.root.appendingPathComponent(store))
        let oneCore = try Self.onOneCore("run", "-q", "pipelines/" + pipeline, in: ws)
        #expect(oneCore.status == 0, "\(oneCore.stderr)")
        #expect(oneCore.stderr == everyCore.stderr)
        #expect(try ws.bytes(store) == first)
    }

    @Test("a rejected row and a failed run read the same on one core")
    func failuresOnOneCore() throws {
        let ws = try Workspace()
        #expect(try ws.run("run", "-q", "pipelines/grocery.yaml").status == 0)
        let before = try ws.bytes("build/Grocery.sqlite")
        var csv = try String(contentsOf: ws.pipelines.appendingPathComponent("data/grocery.csv"), encoding: .utf8)
        csv += "Bad row;with;too;many;fields;here;and;more;still\n"
        try ws.write(csv, to: "pipelines/data/grocery.csv")
        let yaml = try String(contentsOf: ws.pipelines.appendingPathComponent("grocery.yaml"), encoding: .utf8)
        try ws.write(yaml.replacingOccurrences(of: "version: 1\n", with: "version: 1\non_reject: fail\n"), to: "pipelines/grocery.yaml")
        let everyCore = try ws.run("run", "-q", "pipelines/grocery.yaml")
        let oneCore = try Self.onOneCore("run", "-q", "pipelines/grocery.yaml", in: ws)
        #expect(everyCore.status == 67, "\(everyCore.stderr)")
        #expect(oneCore.status == everyCore.status)
        #expect(oneCore.stderr == everyCore.stderr, "\(oneCore.stderr)")
        #expect(try ws.bytes("build/Grocery.sqlite") == before, "the previous store stays")
    }

    /// On two cores the XML reader's thread only reads, and the writing thread converts the
    /// records (`RecordReader.readsSlowly`): rejections, duplicates and the report come out as
    /// when one thread does everything, over many batches.
    @Test("XML records converted on the writing thread give the one-core run's store, messages and report")
    func xmlConvertedOnTheWritingThread() throws {
        let ws = try Workspace()
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<items>\n"
        for k in 0..<3_000 {
            let name = k % 50 == 49 ? "Item \(k - 30)" : "Item \(k)"  // a later row of an earlier name
            let quantity = k % 97 == 0 ? "lots" : "\(k % 9),5"        // rejected by the number step
            let added = k % 89 == 0 ? "31/02/2026" : String(format: "%02d/%02d/2026", 1 + k % 28, 1 + k % 9)  // 31/02: rejected
            xml += "  <item name=\"\(name)\" quantity=\"\(quantity)\" unit=\"u\(k % 7)\" locationathome=\"h\(k % 5)\""
                + " locationatshop=\"s\(k % 11)\" added=\"\(added)\"/>\n"
        }
        try ws.write(xml + "</items>\n", to: "pipelines/data/grocery.xml")
        let everyCore = try ws.run("run", "--report", "every.json", "pipelines/grocery-xml.yaml")
        #expect(everyCore.status == 0, "\(everyCore.stderr)")
        #expect(everyCore.stderr.contains("rejected"), "\(everyCore.stderr)")
        let first = try ws.bytes("build/Grocery-xml.sqlite")
        try FileManager.default.removeItem(at: ws.root.appendingPathComponent("build/Grocery-xml.sqlite"))
        let oneCore = try Self.onOneCore("run", "--report", "one.json", "pipelines/grocery-xml.yaml", in: ws)
        #expect(oneCore.status == 0, "\(oneCore.stderr)")
        #expect(oneCore.stderr == everyCore.stderr)
        #expect(try ws.bytes("build/Grocery-xml.sqlite") == first)
        // The same report but for the phases' timings.
        let untimed = { (path: String) throws -> [Substring] in
            String(decoding: try ws.bytes(path), as: UTF8.self).split(separator: "\n").filter { !$0.contains("\"seconds\"") }
        }
        #expect(try untimed("one.json") == untimed("every.json"))
        let store = try ws.store("build/Grocery-xml.sqlite")
        // The names of the rows not rejected, each once.
        let rejected = (0..<3_000).filter { $0 % 97 == 0 || $0 % 89 == 0 }
        let stored = Set((0..<3_000).filter { !rejected.contains($0) }.map { $0 % 50 == 49 ? $0 - 30 : $0 })
        #expect(try store.scalar("SELECT count(*) FROM ZITEM") == .integer(Int64(stored.count)))
    }

    @Test("a run held to one core writes the store of a run on every core, byte for byte")
    func sameStoreOnOneCore() throws {
        // Names long enough that the index on them sorts in several runs of SQLite's 2 MB
        // cache, which the sorter's helpers merge where there are cores for them.
        let ws = try Workspace.bigExport(rows: 60_000) { "A grocery item with a long name, number \(($0 &* 7919) % 60_000)" }
        let everyCore = try ws.run("run", "-q", "big.yaml")
        #expect(everyCore.status == 0, "\(everyCore.stderr)")
        let first = try ws.bytes("build/big.sqlite")
        try FileManager.default.removeItem(at: ws.build.appendingPathComponent("big.sqlite"))
        let oneCore = try Self.onOneCore("run", "-q", "big.yaml", in: ws)
        #expect(oneCore.status == 0, "\(oneCore.stderr)")
        #expect(try ws.bytes("build/big.sqlite") == first)
        #expect(try ws.store("build/big.sqlite").scalar("SELECT count(*) FROM Item") == .integer(60_000))
    }
    #endif
}
