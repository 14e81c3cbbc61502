import Diagnostics
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("keep and drop transforms")
struct TransformFilterTests {
    func outcome(_ step: any Transform, _ values: [String]) -> String {
        var record = TransformFixture.record(values.map(Value.text))
        do {
            try step.apply(&record)
            return "loaded"
        } catch let filtered as Filtered {
            return "\(filtered.stage): \(filtered.reason)"
        } catch {
            return "error: \(error)"
        }
    }

    @Test("keep: every condition must hold; values compare trimmed; lists, regexes and emptiness")
    func keep() throws {
        let (step, _) = try TransformFixture.bind("keep", #"{ status: [active, new], name: { matches: "^[A-Z]" }, notes: { empty: true } }"#,
                                                  fields: ["name", "status", "notes"])
        #expect(outcome(step, ["Milk", " active ", ""]) == "loaded")
        #expect(outcome(step, ["Milk", "draft", ""]) == #"keep: status "draft" is none of active, new"#)
        #expect(outcome(step, ["milk", "new", ""]) == #"keep: name "milk" does not match /^[A-Z]/"#)
        #expect(outcome(step, ["Milk", "new", "todo"]) == "keep: notes is not empty")
    }

    @Test("drop: a record goes only when all its conditions hold, and the reason says which")
    func drop() throws {
        let (step, _) = try TransformFixture.bind("drop", #"{ name: "", status: draft }"#, fields: ["name", "status"])
        #expect(outcome(step, ["", "draft"]) == #"drop: name is empty and status "draft" is "draft""#)
        #expect(outcome(step, ["Milk", "draft"]) == "loaded")
        #expect(outcome(step, ["", "active"]) == "loaded")
    }

    @Test("a field that does not reach the step, a bad regex and an unknown condition are errors in the pipeline file")
    func badConditions() throws {
        let field = #expect(throws: PipelineError.self) { try TransformFixture.bind("keep", "{ stauts: active }", fields: ["status"]) }
        #expect(field?.code == .pipelineUnknownField)
        let regex = #expect(throws: PipelineError.self) { try TransformFixture.make("keep", #"{ status: { matches: "(" } }"#) }
        #expect(regex?.code == .filterInvalidRegex)
        let unknown = try #require(throws: PipelineError.self) { try TransformFixture.make("drop", "{ status: { matchs: x } }") }
        #expect(unknown.code == .pipelineUnknownKey)
        #expect(unknown.message.hasPrefix("'matchs' is no condition") && unknown.message.contains("did you mean 'matches'?"), "\(unknown)")
    }
}
