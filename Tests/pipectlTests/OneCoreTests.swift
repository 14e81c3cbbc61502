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
