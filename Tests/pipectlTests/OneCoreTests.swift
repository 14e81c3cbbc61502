import Foundation
import Pipeline
import SQLite
import Testing

/// A run held to one core (`taskset`, a CI runner's cpuset) builds its indexes without SQLite's
/// sorter helpers (`Cores.usable`), and writes the same store byte for byte.
@Suite("One core")
struct OneCoreTests {
    #if os(Linux)
    @Test("a run held to one core writes the store of a run on every core, byte for byte")
    func sameStoreOnOneCore() throws {
        let ws = try Workspace()
        // Names long enough that the index on them sorts in several runs of SQLite's 2 MB
        // cache, which the sorter's helpers merge where there are cores for them.
        var csv = "name;quantity\n"
        for i in 0..<60_000 { csv += "A grocery item with a long name, number \((i &* 7919) % 60_000);\(i % 7),5\n" }
        try ws.write(csv, to: "big.csv")
        try ws.write("""
            version: 1
            name: big
            store: { path: build/big.sqlite }
            entities: { Item: { unique: name, attributes: { name: { type: string, indexed: true }, quantity: double } } }
            sources:
              - name: items
                read: { csv: big.csv }
                transform: [ { number: { fields: [quantity], decimal: "," } } ]
                load: { Item: { name: name, quantity: quantity } }
            """, to: "big.yaml")
        let everyCore = try ws.run("run", "-q", "big.yaml")
        #expect(everyCore.status == 0, "\(everyCore.stderr)")
        let first = try ws.bytes("build/big.sqlite")
        try FileManager.default.removeItem(at: ws.build.appendingPathComponent("big.sqlite"))
        let oneCore = try Pipectl.runTool("taskset", ["-c", "0", Pipectl.binary.path, "run", "-q", "big.yaml"], in: ws.root)
        #expect(oneCore.status == 0, "\(oneCore.stderr)")
        #expect(try ws.bytes("build/big.sqlite") == first)
        #expect(try ws.store("build/big.sqlite").scalar("SELECT count(*) FROM Item") == .integer(60_000))
    }
    #endif
}
