import Foundation
import Diagnostics
import Pipeline
import PipelineRun
import ReportsXLSX
import SQLite
import Testing

/// The run library (`PipelineRun`): a pipeline run in-process exactly as `pipectl run` runs it.
@Suite struct PipelineRunTests {
    @Test("the library writes the grocery store byte for byte as the command does, and says what it did")
    func groceryAsTheCommand() throws {
        let command = try Workspace(), library = try Workspace()
        #expect(try command.run("run", "-q", "pipelines/grocery.yaml").status == 0)

        let run = PipelineRun(pipeline: try PipelineRun.load(library.pipelines.appendingPathComponent("grocery.yaml")))
        let report = try run.run()
        #expect(try library.bytes("build/Grocery.sqlite") == command.bytes("build/Grocery.sqlite"))
        #expect(report.outcome == .succeeded)
        #expect(report.sources.map(\.name) == ["items"])
        #expect(report.entities.first { $0.name == "Item" }?.inserted == 414)
        #expect(report.entities.first { $0.name == "Unit" }?.inserted == 11)
        #expect(!report.checks.isEmpty && report.checks.allSatisfy(\.passed))
        // The pipeline's reports, as the command writes them.
        #expect(library.exists("build/grocery-report.json") && library.exists("build/grocery-report.xlsx"))
        let written = try JSONDecoder().decode(ImportReport.self, from: library.bytes("build/grocery-report.json"))
        #expect(written.sources == report.sources && written.entities == report.entities)
    }

    @Test("execute() runs as run() does, without the report's value: the same store and report files; the value is there after")
    func executeWithoutTheValue() throws {
        let ran = try Workspace(), executed = try Workspace()
        let value = try PipelineRun(pipeline: try PipelineRun.load(ran.pipelines.appendingPathComponent("grocery.yaml"))).run()
        let run = PipelineRun(pipeline: try PipelineRun.load(executed.pipelines.appendingPathComponent("grocery.yaml")))
        try run.execute()
        #expect(try executed.bytes("build/Grocery.sqlite") == ran.bytes("build/Grocery.sqlite"))
        let written = try JSONDecoder().decode(ImportReport.self, from: executed.bytes("build/grocery-report.json"))
        #expect(written.sources == value.sources && written.entities == value.entities && written.duplicates.count == value.duplicates.count)
        // The value, made after: what the report file says (its locations name this workspace's files).
        #expect(run.report.sources == written.sources && run.report.entities == written.entities && run.report.duplicates == written.duplicates)
        #expect(run.report.outcome == .succeeded && !run.report.duplicates.isEmpty)
    }

    @Test("a failed check keeps the previous store, throws the check's error and leaves the results in the log")
    func failedCheckKeepsTheStore() throws {
        let ws = try Workspace()
        let file = ws.pipelines.appendingPathComponent("grocery.yaml")
        #expect(throws: Never.self) { try PipelineRun(pipeline: try PipelineRun.load(file)).run() }
        let before = try ws.bytes("build/Grocery.sqlite")
        let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "count: { min: 400 }", with: "count: { min: 4000 }")
        try text.write(to: file, atomically: true, encoding: .utf8)

        let run = PipelineRun(pipeline: try PipelineRun.load(file))
        let error = #expect(throws: PipelineError.self) { try run.run() }
        #expect(error?.kind == .checksFailed)
        #expect(error?.code == .checksFailed)
        #expect(run.log.checkResults.filter { !$0.passed }.map(\.name) == ["Item count >= 4000"])
        #expect(try ws.bytes("build/Grocery.sqlite") == before)
        // The report says the run failed.
        let report = try JSONDecoder().decode(ImportReport.self, from: ws.bytes("build/grocery-report.json"))
        #expect(report.outcome.name == "failed")
    }

    @Test("a new store that breaks the row checks is not put in place: the run throws what the rows break")
    func rowChecksKeepTheStore() throws {
        let ws = try Workspace()
        let file = ws.pipelines.appendingPathComponent("grocery.yaml")
        #expect(throws: Never.self) { try PipelineRun(pipeline: try PipelineRun.load(file)).run() }
        let before = try ws.bytes("build/Grocery.sqlite")

        let run = PipelineRun(pipeline: try PipelineRun.load(file))
        // What a bug in the sink would do: a Boolean written as text, a to-one to no row.
        run.finishStore = { url in
            try SQLiteConnection(path: url.path, readOnly: false).execute("UPDATE ZITEM SET ZLISTED = 'true' WHERE Z_PK <= 3; UPDATE ZITEM SET ZUNIT = 999 WHERE Z_PK = 5")
        }
        let error = #expect(throws: PipelineError.self) { try run.run() }
        #expect(error?.kind == .storeCheckFailed)
        #expect(error?.code == .storeRowCheckFailed)
        #expect(error?.message.contains("Item.listed: 3 rows not stored as INTEGER, as a Boolean is (Z_PK 1: TEXT 'true'") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("Item.unit: 1 row pointing at no Unit row (Z_PK 5: Z_PK 999)") == true)
        #expect(try ws.bytes("build/Grocery.sqlite") == before)
    }

    @Test("changes of your own to the new store run alone: the links are counted before them, and the run puts the changed store in place")
    func finishStoreRunsAlone() throws {
        let ws = try Workspace()
        let file = ws.pipelines.appendingPathComponent("grocery.yaml")
        let plain = PipelineRun(pipeline: try PipelineRun.load(file))
        _ = try plain.run()
        let links = plain.log.links.map { "\($0.relationship) \($0.count)" }
        #expect(links.contains { $0.hasPrefix("Item.unit ") })

        let run = PipelineRun(pipeline: try PipelineRun.load(file))
        run.finishStore = { url in
            try SQLiteConnection(path: url.path, readOnly: false).execute("UPDATE ZITEM SET ZUNIT = NULL")
        }
        _ = try run.run()
        #expect(run.log.links.map { "\($0.relationship) \($0.count)" } == links)
        let store = try SQLiteConnection(path: ws.root.appendingPathComponent("build/Grocery.sqlite").path, readOnly: true)
        #expect(try store.rows("SELECT count(ZUNIT) FROM ZITEM") == [[.integer(0)]])
    }

    @Test("progress and status are told as values while the run goes on; a dry run writes nothing")
    func progressAsValues() throws {
        let ws = try Workspace()
        let run = PipelineRun(pipeline: try PipelineRun.load(ws.pipelines.appendingPathComponent("grocery.yaml")),
                              options: .init(dryRun: true))
        nonisolated(unsafe) var statuses: [String] = []
        run.status = { if let text = $0 { statuses.append(text) } }
        let report = try run.run()
        #expect(report.outcome == .dryRun)
        #expect(statuses.contains("finishing build/Grocery.sqlite: indexes and checks") || statuses.contains { $0.hasPrefix("finishing ") })
        #expect(!ws.exists("build"))
    }

    @Test("a run that shows ten duplicates describes those alone and counts every one; the store is the same, and a report still lists them all")
    func duplicatesDescribedAsShown() throws {
        // 17 duplicates: ten with another quantity, two identical, two with another unit only (a
        // link), two more quantities, one identical: 14 with other values.
        func workspace() throws -> Workspace {
            let ws = try Workspace()
            var csv = "name,quantity,unit\n"
            for k in 0..<20 { csv += "item \(k),\(k),g\n" }
            for k in 0..<10 { csv += "item \(k),\(k + 100),g\n" }
            csv += "item 10,10,g\nitem 11,11,g\nitem 12,12,kg\nitem 13,13,kg\nitem 14,999,g\nitem 15,998,g\nitem 16,16,g\n"
            try ws.write(csv, to: "dups.csv")
            try ws.write("""
                version: 1
                name: dups
                store: { path: build/dups.sqlite }
                entities:
                  Unit: { unique: name, attributes: { name: string } }
                  Item:
                    unique: name
                    attributes: { name: string, quantity: double }
                    relationships: { unit: { to: Unit, inverse: items } }
                sources:
                  - name: items
                    read: { csv: dups.csv }
                    load: { Item: { name: name, quantity: quantity, unit: { Unit: { name: unit } } } }
                """, to: "dups.yaml")
            return ws
        }
        let shown = try workspace(), every = try workspace(), reported = try workspace(), valued = try workspace()

        let run = PipelineRun(pipeline: try PipelineRun.load(shown.root.appendingPathComponent("dups.yaml")),
                              options: .init(duplicatesShown: 10))
        try run.execute()
        #expect(run.log.duplicates.map { $0.again.line ?? 0 } == Array(22...31))
        #expect(run.log.duplicates.allSatisfy { $0.differences.map(\.attribute) == ["quantity"] })
        // Those past the ten are counted by whether they differ: the unit-only ones too.
        #expect(run.log.conflictingDuplicates == 14)

        let all = PipelineRun(pipeline: try PipelineRun.load(every.root.appendingPathComponent("dups.yaml")))
        try all.execute()
        #expect(all.log.duplicates.count == 17 && all.log.conflictingDuplicates == 14)
        #expect(all.log.duplicates.filter { $0.differences.map(\.attribute) == ["unit"] }.map { $0.again.line ?? 0 } == [34, 35])
        #expect(Array(all.log.duplicates.prefix(10)).map(\.key) == run.log.duplicates.map(\.key))
        #expect(try shown.bytes("build/dups.sqlite") == every.bytes("build/dups.sqlite"))

        // A report reads them all: the limit gives way.
        let report = reported.root.appendingPathComponent("build/dups.json")
        try PipelineRun(pipeline: try PipelineRun.load(reported.root.appendingPathComponent("dups.yaml")),
                        options: .init(reportFile: report, duplicatesShown: 10)).execute()
        #expect(try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: report)).duplicates.count == 17)
        let value = try PipelineRun(pipeline: try PipelineRun.load(valued.root.appendingPathComponent("dups.yaml")),
                                    options: .init(duplicatesShown: 10)).run()
        #expect(value.duplicates.count == 17)

        // The command shows the same ten, and counts the rest.
        let result = try every.run("run", "dups.yaml")
        #expect(result.status == 0)
        #expect(result.stderr.components(separatedBy: "\n").filter { $0.contains("was already loaded from") }.count == 10)
        #expect(result.stderr.contains("... and 4 more conflicting duplicates"))
    }
}
