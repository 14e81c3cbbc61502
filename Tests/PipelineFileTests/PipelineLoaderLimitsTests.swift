import Foundation
import Diagnostics
import Testing
@testable import PipelineFile
import Pipeline

/// What a pipeline file may cost to load: aliases within a budget, long lines shown cut, and
/// loading time linear in the number of entities.
@Suite struct PipelineLoaderLimitsTests {
    // MARK: Aliases

    @Test func smallAliasesStillWork() throws {
        // An anchor reused a few times, as pipelines share a block of options.
        let yaml = loaderBase.swapping("read: { csv: data/items.csv }", "read: &items { csv: data/items.csv }")
            + "\n  - name: again\n    read: *items\n    load: { Unit: { name: unit } }"
            + "\n  - name: thrice\n    read: *items\n    load: { Unit: { name: unit } }"
        let pipeline = try loadTestPipeline(yaml)
        #expect(pipeline.sources.map(\.name) == ["items", "again", "thrice"])
        #expect(Set(pipeline.sources.map(\.reader.input.displayPath)).count == 1)
    }

    /// A list of ten aliases of a list of ten aliases ... adds 10^levels nodes; the alias that
    /// takes the file past 1,000,000 is named, at its line and column.
    @Test func nestedAliasesStopAtTheAliasThatGoesPastTheBudget() {
        var lines = ["version: 1", "name: laughs", "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...9 {
            lines.append("l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        let started = Date()
        let error = expectLoadError(lines.joined(separator: "\n"), .pipelineTooManyAliases, at: "pipelines/test.yaml:8:45")
        #expect(error?.message.hasPrefix("the alias '*l4' stands for 111,111 nodes and 300,000 bytes of text") == true)
        #expect(Date().timeIntervalSince(started) < 2, "the budget is counted, not expanded")
    }

    /// Aliases as keys are hashed by Yams for its duplicate check: bounded by the same budget.
    @Test func aliasesAsKeysCountToo() {
        let big = "k: &k [" + Array(repeating: "x", count: 1_000).joined(separator: ", ") + "]"
        let keys = (0..<1_001).map { "  - { *k : \($0) }" }
        guard let error = loadTestPipelineError((["version: 1", big, "m:"] + keys).joined(separator: "\n")) else { return }
        #expect(error.code == .pipelineTooManyAliases)
        #expect(error.location?.line == 1_003)
        #expect(error.message.hasPrefix("the alias '*k' stands for 1,001 nodes"))
    }

    // MARK: Variables

    /// 30,000 `${V}` of 131 KB each would add 4 GB: the 513th, past 64 MB, is named at its column (8 + 512 × 4).
    @Test func variablesStopAtTheOneThatGoesPastTheBudget() throws {
        let yaml = loaderBase.swapping("name: test", "name: \"" + String(repeating: "${V}", count: 30_000) + "\"")
        let variables = PipelineVariables(given: ["V": String(repeating: "v", count: 131_072)], environment: [:])
        let error = try #require(throws: PipelineError.self) {
            try PipelineLoader.load(yaml: yaml, file: loaderTestFile, registry: loaderTestRegistry, variables: variables)
        }
        #expect(error.code == .pipelineVariablesTooLarge)
        #expect(error.kind == .invalidPipeline)
        #expect(error.location?.description == "pipelines/test.yaml:2:2056")
        #expect(error.message == "with '${V}' (131,072 bytes) the variables add more than 64 MB to the pipeline file, more than pipectl reads")
    }

    /// A line of 100,000 variables is one pass: each `${` once counted the characters before it.
    @Test func variablesAreSubstitutedInOnePass() throws {
        let yaml = loaderBase.swapping("name: test", "name: \"" + String(repeating: "${V}", count: 100_000) + "\"")
        let started = Date()
        let pipeline = try PipelineLoader.load(yaml: yaml, file: loaderTestFile, registry: loaderTestRegistry,
                                               variables: PipelineVariables(given: ["V": "v"], environment: [:]))
        #expect(pipeline.name == String(repeating: "v", count: 100_000))
        #expect(Date().timeIntervalSince(started) < 20, "generous: quadratic took minutes")
    }

    // MARK: Long lines

    /// A 2 MB line is shown as 160 characters around the caret, not whole.
    @Test func aLongLineIsShownCutAroundTheCaret() {
        let long = String(repeating: "a", count: 2_000_000)
        let yaml = loaderBase.swapping("store: { path: out.sqlite }", "store: { path: \"\(long).sqlite\", bogus: 1 }")
        guard let error = loadTestPipelineError(yaml) else { return }
        #expect(error.code == .pipelineUnknownKey)
        let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(error.description.utf8.count < 1_000)
        #expect(lines.count == 3)
        guard lines.count == 3 else { return }
        #expect(lines[0].hasPrefix("pipelines/test.yaml:3:"))
        #expect(lines[1].hasPrefix("…") && lines[1].hasSuffix(", bogus: 1 }"))
        #expect(lines[1].unicodeScalars.count == Snippet.lineWidth + 1)
        // The caret is under the same character as in the whole line: the one the column names.
        let caret = lines[2].count - 1
        #expect(lines[2].hasSuffix("^"))
        let shown = Array(lines[1].unicodeScalars)
        #expect(caret < shown.count && shown[caret] == "b", "caret under \(caret < shown.count ? String(shown[caret]) : "nothing")")
    }

    @Test func longValuesInMessagesAreCutWithTheirLength() {
        let long = String(repeating: "b", count: 100_000)
        guard let error = loadTestPipelineError(loaderBase.swapping("version: 1", "version: \(long)")) else { return }
        #expect(error.code == .pipelineWrongType)
        #expect(error.message.contains("\"" + String(repeating: "b", count: Snippet.valueWidth) + "…\" (100,000 characters)"))
        #expect(error.description.utf8.count < 1_000)
    }

    /// A key of 2 MB (libyaml takes long keys after '?') is named by its start in "unknown key".
    @Test func longNamesInMessagesAreCut() {
        let key = String(repeating: "k", count: 2_000_000)
        guard let error = loadTestPipelineError(loaderBase.swapping("name: test\n", "name: test\n? \(key)\n: 1\n")) else { return }
        #expect(error.code == .pipelineUnknownKey)
        let message = error.description.split(separator: "\n").first.map(String.init) ?? ""
        #expect(message.hasPrefix("pipelines/test.yaml:3:3: error: pipeline: unknown key '\(key.prefix(Snippet.wordWidth - 1))…' in "
                + "'pipeline' (known keys: version, name, "))
    }

    // MARK: Many entities

    /// Loading is linear in the number of entities: four times the entities take about four
    /// times as long (quadratic, they took sixteen times; 40,000 entities took 14 s in a release build).
    @Test func loadingIsLinearInTheNumberOfEntities() throws {
        func seconds(_ count: Int) throws -> Double {
            let root = ConfigNode.parse(entities: count)
            let started = DispatchTime.now()
            let pipeline = try PipelineLoader.Context(file: loaderTestFile, registry: loaderTestRegistry).pipeline(from: root)
            #expect(pipeline.model.entities.count == count)
            return Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        }
        _ = try seconds(500)  // warm up
        let small = try seconds(2_000), large = try seconds(8_000)
        #expect(large / small < 8, "2,000 entities: \(small) s, 8,000: \(large) s")
    }
}

extension ConfigNode {
    /// A pipeline's nodes, built without YAML: `count` entities, each with a relationship to the
    /// one before, and one source.
    static func parse(entities count: Int) -> ConfigNode {
        let at = Location(file: "pipelines/test.yaml", line: 1, column: 1)
        func scalar(_ text: String) -> ConfigNode { ConfigNode(.scalar(text), at: at) }
        func mapping(_ pairs: [(String, ConfigNode)]) -> ConfigNode {
            ConfigNode(.mapping(pairs.map { (scalar($0.0), $0.1) }), at: at)
        }
        var entities: [(String, ConfigNode)] = []
        for i in 0..<count {
            var body: [(String, ConfigNode)] = [
                ("unique", scalar("name")),
                ("attributes", mapping([("name", scalar("string")), ("unit", scalar("string"))])),
            ]
            if i > 0 { body.append(("relationships", mapping([("previous", scalar("E\(i - 1)"))]))) }
            entities.append(("E\(i)", mapping(body)))
        }
        let source = mapping([
            ("name", scalar("items")),
            ("read", mapping([("csv", scalar("data/items.csv"))])),
            ("load", mapping([("E0", mapping([("name", scalar("name")), ("unit", scalar("unit"))]))])),
        ])
        return mapping([
            ("version", scalar("1")), ("name", scalar("many")),
            ("store", mapping([("path", scalar("out.sqlite")), ("layout", scalar("sqlite"))])),
            ("entities", mapping(entities)),
            ("sources", ConfigNode(.sequence([source]), at: at)),
        ])
    }
}
