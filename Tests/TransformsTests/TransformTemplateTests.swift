import Diagnostics
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("template transform")
struct TransformTemplateTests {
    @Test("fields put into the text; braces doubled; a record whose fields are all empty gets no value")
    func rendersFields() throws {
        let (step, fields) = try TransformFixture.bind("template", #"{ field: title, value: "{first} {last} {{{n}}}" }"#,
                                                       fields: ["first", "last", "n"])
        #expect(fields == ["first", "last", "n", "title"])
        var record = TransformFixture.record([.text("Ada"), .text("Lovelace"), .integer(1)])
        try step.apply(&record)
        #expect(record.values[3] == .text("Ada Lovelace {1}"))
        var partial = TransformFixture.record([.text("Ada"), .null, .null])
        try step.apply(&partial)
        #expect(partial.values[3] == .text("Ada  {}"))
        var empty = TransformFixture.record([.null, .text(""), .null])
        try step.apply(&empty)
        #expect(empty.values[3] == .null)
    }

    @Test("a field that does not reach the step and unbalanced braces are errors at the template")
    func badTemplates() throws {
        let missing = try #require(throws: PipelineError.self) {
            try TransformFixture.bind("template", #"{ field: title, value: "{frist} {last}" }"#, fields: ["first", "last"])
        }
        #expect(missing.code == .pipelineUnknownField)
        #expect(missing.message.hasPrefix("no field 'frist' reaches 'template'; did you mean 'first'?"), "\(missing)")
        for value in [#""{open""#, #""close}""#, #""{}""#] {
            let error = #expect(throws: PipelineError.self) { try TransformFixture.make("template", "{ field: t, value: \(value) }") }
            #expect(error?.code == .templateMalformed, "\(value)")
        }
    }
}
