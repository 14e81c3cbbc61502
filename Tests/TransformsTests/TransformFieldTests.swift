import Diagnostics
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("default, set and rename transforms")
struct TransformFieldTests {
    @Test func defaultFillsEmptyAndNullValuesOnly() throws {
        let (step, fields) = try TransformFixture.bind("default", #"{ unit: pcs, listed: "true" }"#, fields: ["name", "unit", "listed"])
        #expect(fields == ["name", "unit", "listed"])
        var record = TransformFixture.record([.text("Milk"), .text(""), .null])
        try step.apply(&record)
        #expect(record.values == [.text("Milk"), .text("pcs"), .text("true")])
        var full = TransformFixture.record([.text("Milk"), .text("l"), .text("false")])
        try step.apply(&full)
        #expect(full.values == [.text("Milk"), .text("l"), .text("false")])
        // Whitespace is a value: trim first to treat it as empty.
        var blank = TransformFixture.record([.text("Milk"), .text(" "), .integer(0)])
        try step.apply(&blank)
        #expect(blank.values == [.text("Milk"), .text(" "), .integer(0)])
    }

    @Test func defaultAddsFieldsThatDoNotReachIt() throws {
        let (step, fields) = try TransformFixture.bind("default", #"{ unit: pcs, listed: "true", name: x }"#, fields: ["name"])
        #expect(fields == ["name", "unit", "listed"])
        var record = TransformFixture.record(["Milk"])
        try step.apply(&record)
        #expect(record.values == [.text("Milk"), .text("pcs"), .text("true")])
        #expect(record.location(ofField: 2) == Location(file: "items.csv", line: 2))
    }

    @Test func setAlwaysSetsAndAdds() throws {
        let (step, fields) = try TransformFixture.bind("set", "{ source_name: grocery, unit: pcs }", fields: ["name", "unit"])
        #expect(fields == ["name", "unit", "source_name"])
        var record = TransformFixture.record(["Milk", "l"])
        try step.apply(&record)
        #expect(record.values == [.text("Milk"), .text("pcs"), .text("grocery")])
        var empty = TransformFixture.record(["Eggs", ""])
        try step.apply(&empty)
        #expect(empty.values == [.text("Eggs"), .text("pcs"), .text("grocery")])
    }

    @Test func valuesAreTextAsWritten() throws {
        let (step, _) = try TransformFixture.bind("set", #"{ a: 1, b: "007", c: "", d: true }"#, fields: [])
        var record = TransformFixture.record([String]())
        try step.apply(&record)
        #expect(record.values == [.text("1"), .text("007"), .text(""), .text("true")])
    }

    @Test func defaultAndSetErrors() {
        TransformFixture.expectError(.pipelineWrongType, at: 18) { _ = try TransformFixture.make("default", "[unit]") }
        let list = "{ unit: [pcs, kg] }"
        let single = TransformFixture.expectError(.pipelineWrongType, at: 22) { _ = try TransformFixture.make("set", list) }
        #expect(single?.message == #"the value of 'unit' must be a single value (write "" for empty text), found a list"#)
        let twice = "{ unit: pcs, unit: kg }"
        TransformFixture.expectError(.pipelineDuplicateName, at: 27) { _ = try TransformFixture.make("set", twice) }
    }

    @Test func renameRenamesAndLeavesValuesAlone() throws {
        let (step, fields) = try TransformFixture.bind("rename", #"{ "Item Name": name, Qty: quantity }"#,
                                                      fields: ["Item Name", "Qty", "unit"])
        #expect(fields == ["name", "quantity", "unit"])
        var record = TransformFixture.record(["Milk", "2", "l"])
        try step.apply(&record)
        #expect(record.values == [.text("Milk"), .text("2"), .text("l")])
    }

    @Test func renameCanSwapNames() throws {
        let (_, fields) = try TransformFixture.bind("rename", "{ a: b, b: a }", fields: ["a", "b", "c"])
        #expect(fields == ["b", "a", "c"])
    }

    @Test func renameErrors() {
        let missing = #"{ "Item Nmae": name }"#
        TransformFixture.expectError(.pipelineUnknownField, at: 19) {
            _ = try TransformFixture.bind("rename", missing, fields: ["Item Name", "Qty"])
        }
        let onto = "{ Qty: name }"
        let clash = TransformFixture.expectError(.pipelineDuplicateName, at: 19) {
            _ = try TransformFixture.bind("rename", onto, fields: ["name", "Qty"])
        }
        #expect(clash?.message == "cannot rename 'Qty' to 'name': a field 'name' already reaches 'rename'")
        let both = "{ a: c, b: c }"
        let same = TransformFixture.expectError(.pipelineDuplicateName, at: 19) { _ = try TransformFixture.bind("rename", both, fields: ["a", "b"]) }
        #expect(same?.message == "cannot rename 'a' to 'c': 'b' is renamed to it too")
        let empty = #"{ a: "" }"#
        TransformFixture.expectError(.pipelineInvalidName, at: 22) { _ = try TransformFixture.make("rename", empty) }
        TransformFixture.expectError(.pipelineWrongType, at: 17) { _ = try TransformFixture.make("rename", "all") }
    }
}
