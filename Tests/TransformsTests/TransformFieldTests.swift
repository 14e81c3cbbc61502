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
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.make("default", "[unit]") }
                    == "pipeline.yaml:12:18: error: default: 'default' expects a mapping of field names to values, e.g. { unit: pcs },"
                    + " found a list" + TransformFixture.caret("default", "[unit]", at: 18))
        let list = "{ unit: [pcs, kg] }"
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.make("set", list) }
                    == #"pipeline.yaml:12:22: error: set: the value of 'unit' must be a single value (write "" for empty text),"#
                    + " found a list" + TransformFixture.caret("set", list, at: 22))
        let twice = "{ unit: pcs, unit: kg }"
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.make("set", twice) }
                    == "pipeline.yaml:12:27: error: set: field 'unit' is listed twice" + TransformFixture.caret("set", twice, at: 27))
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
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.bind("rename", missing, fields: ["Item Name", "Qty"]) }
                    == "pipeline.yaml:12:19: error: rename: no field 'Item Nmae' reaches 'rename'; did you mean 'Item Name'?"
                    + " (fields: Item Name, Qty)" + TransformFixture.caret("rename", missing, at: 19))
        let onto = "{ Qty: name }"
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.bind("rename", onto, fields: ["name", "Qty"]) }
                    == "pipeline.yaml:12:19: error: rename: cannot rename 'Qty' to 'name': a field 'name' already reaches 'rename'"
                    + TransformFixture.caret("rename", onto, at: 19))
        let both = "{ a: c, b: c }"
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.bind("rename", both, fields: ["a", "b"]) }
                    == "pipeline.yaml:12:19: error: rename: cannot rename 'a' to 'c': 'b' is renamed to it too"
                    + TransformFixture.caret("rename", both, at: 19))
        let empty = #"{ a: "" }"#
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.make("rename", empty) }
                    == #"pipeline.yaml:12:22: error: rename: the new name of 'a' must be a field name, found the value """#
                    + TransformFixture.caret("rename", empty, at: 22))
        #expect(TransformFixture.pipelineError { _ = try TransformFixture.make("rename", "all") }
                    == #"pipeline.yaml:12:17: error: rename: 'rename' expects a mapping of old field names to new ones, e.g. { "Item Name": name },"#
                    + #" found the value "all""# + TransformFixture.caret("rename", "all", at: 17))
    }
}
