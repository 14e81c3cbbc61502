import Foundation
import Diagnostics
import Testing
@testable import Transforms
@testable import Pipeline

/// `split`: elements as before, and a record's lists within `Fields.maxListValues` (a 58 MB CSV
/// row once gave 29M elements and 2.1 GB).
@Suite struct TransformSplitTests {
    @Test func elementsAreTrimmedAndEmptyOnesDropped() throws {
        let (step, _) = try TransformFixture.bind("split", #"{ fields: tags, separator: "; " }"#, fields: ["name", "tags"])
        var record = TransformFixture.record(["Milk", " vegan;  quick; ; é; \u{A0}dairy; "])
        try step.apply(&record)
        #expect(record.values[1] == .list([.text("vegan"), .text("quick"), .text("é"), .text("dairy")]))
        var empty = TransformFixture.record([.text("Eggs"), .null])
        try step.apply(&empty)
        #expect(empty.values[1] == .list([]))
        var multi = TransformFixture.record(["Tea", "a→b→→c"])
        let (arrow, _) = try TransformFixture.bind("split", #"{ fields: tags, separator: "→" }"#, fields: ["name", "tags"])
        try arrow.apply(&multi)
        #expect(multi.values[1] == .list([.text("a"), .text("b"), .text("c")]))
    }

    @Test func aRecordsListsHoldAtMostAMillionValues() throws {
        let (step, _) = try TransformFixture.bind("split", "{ fields: [a, b] }", fields: ["a", "b"])
        let half = String(repeating: "x,", count: 500_000)
        var within = TransformFixture.record([half, half])
        try step.apply(&within)
        #expect(within.values.map(\.elements.count) == [500_000, 500_000])
        var over = TransformFixture.record([half, half + "x"])
        let error = try #require(throws: PipelineError.self) { try step.apply(&over) }
        #expect(error.description == "items.csv:2: error: split: the lists of one record hold more than 1,000,000 values "
            + #"(field 'b' cut at ","), more than pipectl reads"#)
        #expect(error.kind == .invalidInput)
        #expect(error.code == .inputTooManyListValues)
    }
}
