import Diagnostics
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("map transform")
struct TransformMapTests {
    @Test("mapped values, trimmed keys, an empty value left alone, lists element by element")
    func mapsValues() throws {
        let (step, _) = try TransformFixture.bind("map", "{ fields: [vegan, tags], values: { ja: true, nein: false, Veg: vegetarian } }",
                                                  fields: ["name", "vegan", "tags"])
        var record = TransformFixture.record([.text("Toast"), .text(" ja "), .list([.text("Veg"), .text("ja")])])
        try step.apply(&record)
        #expect(record.values == [.text("Toast"), .text("true"), .list([.text("vegetarian"), .text("true")])])
        var empty = TransformFixture.record([.text("Soup"), .text(""), .null])
        try step.apply(&empty)
        #expect(empty.values == [.text("Soup"), .text(""), .null])
    }

    @Test("an unmapped value is rejected with the known ones and the closest, unless otherwise says")
    func unmappedValues() throws {
        let (step, _) = try TransformFixture.bind("map", "{ fields: vegan, values: { ja: true, nein: false } }", fields: ["vegan"])
        var record = TransformFixture.record(["jein"])
        let rejection = try #require(throws: Rejection.self) { try step.apply(&record) }
        #expect(rejection.description == "items.csv:2:1: rejected: map: field 'vegan' value \"jein\": not in the map ('ja', 'nein'); did you mean 'nein'?", "\(rejection)")
        for (otherwise, expected) in [("keep", Value.text("Ja")), ("empty", .null), ("unknown", .text("unknown"))] {
            let (step, _) = try TransformFixture.bind("map", "{ fields: vegan, values: { ja: true }, otherwise: \(otherwise) }", fields: ["vegan"])
            var record = TransformFixture.record(["Ja"])
            try step.apply(&record)
            #expect(record.values == [expected], "otherwise: \(otherwise)")
        }
        let (folded, _) = try TransformFixture.bind("map", "{ fields: vegan, values: { ja: true }, ignore_case: true }", fields: ["vegan"])
        var upper = TransformFixture.record([" JA"])
        try folded.apply(&upper)
        #expect(upper.values == [.text("true")])
    }

    @Test("a key given twice, an empty table and a field that does not reach the step are errors in the pipeline file")
    func badOptions() throws {
        let twice = #expect(throws: PipelineError.self) {
            try TransformFixture.bind("map", "{ fields: v, values: { ja: 1, Ja: 2 }, ignore_case: true }", fields: ["v"])
        }
        #expect(twice?.code == .pipelineDuplicateName)
        let empty = #expect(throws: PipelineError.self) { try TransformFixture.bind("map", "{ fields: v, values: {} }", fields: ["v"]) }
        #expect(empty?.code == .pipelineEmptyValue)
        let field = #expect(throws: PipelineError.self) { try TransformFixture.bind("map", "{ fields: w, values: { a: b } }", fields: ["v"]) }
        #expect(field?.code == .pipelineUnknownField)
    }
}
