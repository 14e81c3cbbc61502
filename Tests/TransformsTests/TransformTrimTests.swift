import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("trim transform")
struct TransformTrimTests {
    @Test("removes export whitespace at both ends", arguments: [
        (" Milk ", "Milk"),
        ("\tMilk\t\t", "Milk"),
        ("Milk\r\n", "Milk"),
        ("\r\nMilk\n", "Milk"),
        ("\u{00A0}Milk\u{00A0}", "Milk"),  // no-break space, Numbers and Excel exports
        ("\u{202F}1 234\u{202F}", "1 234"),  // narrow no-break space (French)
        ("\u{2007}42\u{2007}", "42"),  // figure space
        ("\u{3000}牛乳\u{3000}", "牛乳"),  // ideographic space
        ("\u{200B}Milk\u{200B}", "Milk"),  // zero-width space
        ("\u{FEFF}Milk", "Milk"),  // a byte order mark left in a cell
        (" \t\u{00A0}\u{202F}\u{200B}\u{FEFF}Milk \u{2009}\r\n", "Milk"),
        ("Crème brûlée ", "Crème brûlée"),
        (" é", "é"),
    ])
    func trims(raw: String, trimmed: String) throws {
        let (step, _) = try TransformFixture.bind("trim", "all", fields: ["name"])
        var record = TransformFixture.record([raw])
        try step.apply(&record)
        #expect(record.values == [.text(trimmed)])
    }

    @Test func keepsInnerWhitespace() {
        #expect(Trimming.trimmed(" Whole  milk\t3.5 % ") == "Whole  milk\t3.5 %")
        #expect(Trimming.trimmed("a\u{00A0}b") == nil)
    }

    @Test func reportsNothingToTrimWithoutMakingAString() {
        #expect(Trimming.trimmed("Milk") == nil)
        #expect(Trimming.trimmed("") == nil)
        #expect(Trimming.trimmed("Crème") == nil)
        #expect(Trimming.trimmed("牛乳") == nil)
    }

    @Test func blankBecomesEmpty() {
        #expect(Trimming.trimmed(" \t\u{00A0}\r\n") == "")
    }

    @Test func leavesValuesOtherThanTextAlone() throws {
        let (step, _) = try TransformFixture.bind("trim", "all", fields: ["a", "b", "c", "d"])
        var record = TransformFixture.record([.null, .integer(3), .date(12), .text(" x ")])
        try step.apply(&record)
        #expect(record.values == [.null, .integer(3), .date(12), .text("x")])
    }

    @Test("trims only the fields named", arguments: ["[name, unit]", "{ fields: [name, unit] }", "{ fields: all }"])
    func namedFields(text: String) throws {
        let (step, fields) = try TransformFixture.bind("trim", text, fields: ["name", "unit"])
        #expect(fields == ["name", "unit"])
        var record = TransformFixture.record([" a ", " b "])
        try step.apply(&record)
        #expect(record.values == [.text("a"), .text("b")])
    }

    @Test func trimsOneFieldOfSeveral() throws {
        let (step, _) = try TransformFixture.bind("trim", "[unit]", fields: ["name", "unit"])
        var record = TransformFixture.record([" a ", " b "])
        try step.apply(&record)
        #expect(record.values == [.text(" a "), .text("b")])
    }

    @Test func quotedAllNamesAField() throws {
        let (step, _) = try TransformFixture.bind("trim", #"["all"]"#, fields: ["name", "all"])
        var record = TransformFixture.record([" a ", " b "])
        try step.apply(&record)
        #expect(record.values == [.text(" a "), .text("b")])
    }

    @Test func rejectsOtherForms() {
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.make("trim", "") }
                    == "pipeline.yaml:12:15: error: trim: 'trim' expects `all`, a list of fields or { fields: [...] }, found nothing"
                    + "\n      - trim: \n              ^")
        let text = "{ field: [name] }"
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.make("trim", text) }
                    == "pipeline.yaml:12:17: error: trim: unknown key 'field' in 'trim'; did you mean 'fields'? (known keys: fields)"
                    + TransformFixture.caret("trim", text, at: 17))
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.make("trim", "[]") }
                    == "pipeline.yaml:12:15: error: trim: 'trim' lists no fields" + TransformFixture.caret("trim", "[]", at: 15))
    }
}
