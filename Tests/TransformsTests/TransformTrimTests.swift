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
        let nothing = TransformFixture.expectError(.pipelineWrongType, at: 15) { _ = try TransformFixture.make("trim", "") }
        #expect(nothing?.message == "'trim' expects `all`, a list of fields or { fields: [...] }, found nothing")
        let text = "{ field: [name] }"
        TransformFixture.expectError(.pipelineUnknownKey, at: 17) { _ = try TransformFixture.make("trim", text) }
        TransformFixture.expectError(.pipelineEmptyValue, at: 15) { _ = try TransformFixture.make("trim", "[]") }
    }
}
