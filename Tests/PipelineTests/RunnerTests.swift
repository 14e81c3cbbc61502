import Foundation
import Diagnostics
import XCTest

@testable import Pipeline

/// The runner's contract with readers and sinks: records stream through one at a time, a bad
/// record is rejected whole and the run goes on, a fatal error discards the sink's work.
final class RunnerTests: XCTestCase {
    /// Reads records given in code; an entry that is a `Rejection` or `PipelineError` is thrown.
    final class ListReader: RecordReader {
        let fieldNames: [String]
        var items: [Any]
        var bytesRead: Int64 = 0
        init(fields: [String], items: [Any]) {
            fieldNames = fields
            self.items = items
        }
        func next() throws -> Record? {
            guard !items.isEmpty else { return nil }
            let item = items.removeFirst()
            if let error = item as? any Error { throw error }
            return item as? Record
        }
    }

    struct ListReaderKind: ReaderKind {
        let name = "list"
        let spec = ComponentSpec(name: "list", summary: "records given in code", options: [])
        let fields: [String]
        nonisolated(unsafe) let items: [Any]
        func makeReader(input: Input, options: Options, fields _: [String]) throws -> any RecordReader {
            ListReader(fields: fields, items: items)
        }
    }

    /// Keeps what it is given and whether it was finished (published or not) or discarded.
    final class CollectingSink: RecordSink {
        var written: [EntityRecord] = []
        var finished = false
        var published = false
        var discarded = false
        func write(_ record: inout EntityRecord, onDuplicate: DuplicatePolicy, log: ImportLog) throws -> Bool {
            written.append(record)
            log.count(.inserted, entity: record.entity)
            return true
        }
        func finish(log: ImportLog, publish: Bool) throws { (finished, published) = (true, publish) }
        func discard() { discarded = true }
    }

    let model = StoreModel(entities: [
        Entity(name: "Unit", attributes: [Attribute(name: "name", type: .string)], uniqueKey: ["name"]),
        Entity(name: "Item",
               attributes: [Attribute(name: "name", type: .string, isOptional: false),
                            Attribute(name: "quantity", type: .double),
                            Attribute(name: "count", type: .integer16, isOptional: false)],
               relationships: [Relationship(name: "unit", destination: "Unit")],
               uniqueKey: ["name"]),
    ])

    func record(_ line: Int, _ values: String...) -> Record {
        Record(values: values.map { .text($0) }, location: Location(file: "items.csv", line: line, column: 1),
               fieldPositions: values.indices.map { TextPosition(line: line, column: 1 + $0 * 4) })
    }

    func pipeline(_ items: [Any], onReject: RejectPolicy = .continue,
                  assignments: [LoadSpec.Assignment]? = nil) throws -> PipelineDefinition {
        let kind = ListReaderKind(fields: ["name", "qty", "count", "unit"], items: items)
        let load = LoadSpec(
            entity: "Item",
            assignments: assignments ?? [.init(attribute: "name", field: "name"), .init(attribute: "quantity", field: "qty"),
                                         .init(attribute: "count", field: "count")],
            links: [.init(relationship: "unit", target: LoadSpec(entity: "Unit", assignments: [.init(attribute: "name", field: "unit")]))])
        return try pipeline(kind, model: model, loads: [load], onReject: onReject)
    }

    /// One source read by `kind`, with no transforms, loading `loads`.
    func pipeline(_ kind: ListReaderKind, model: StoreModel, loads: [LoadSpec],
                  onReject: RejectPolicy = .continue) throws -> PipelineDefinition {
        let options = try Options(ConfigNode(.mapping([]), at: Location(file: "p.yaml")), spec: kind.spec)
        return PipelineDefinition(
            file: URL(fileURLWithPath: "p.yaml"), name: "test",
            store: StoreSettings(path: URL(fileURLWithPath: "/tmp/unused.sqlite")), model: model,
            sources: [SourceDefinition(name: "items",
                                       reader: ReaderConfig(kind: kind, input: Input(url: URL(fileURLWithPath: "items.csv"), displayPath: "items.csv"), options: options),
                                       transforms: [], loads: loads)],
            onReject: onReject)
    }

    func testBadValuesRejectTheRecordAndTheRunGoesOn() throws {
        let sink = CollectingSink()
        let runner = Runner(pipeline: try pipeline([
            record(2, "Milk", "1.5", "2", "l"),
            record(3, "Eggs", "six", "1", "pcs"),
            Rejection(at: Location(file: "items.csv", line: 4), stage: "csv", reason: "row has 5 fields, the header has 4"),
            record(5, "Flour", "1", "70000", "kg"),
            record(6, "", "1", "1", "kg"),
            record(7, "Salt", "", "", "g"),
            record(8, "Rice", "2", "3", ""),
        ]))
        try runner.run(into: sink)

        XCTAssertTrue(sink.finished && sink.published)
        XCTAssertFalse(sink.discarded)
        XCTAssertEqual(sink.written.map { $0.values[0] }, [.text("Milk"), .null, .text("Rice")])
        XCTAssertEqual(sink.written[0].values, [.text("Milk"), .double(1.5), .integer(2)])
        XCTAssertEqual(sink.written[0].links[0]?.values, [.text("l")])
        XCTAssertEqual(sink.written[2].links[0]?.values, [.null], "an empty related key reaches the sink, which skips it")
        XCTAssertEqual(runner.log.sources[0].read, 7)
        XCTAssertEqual(runner.log.sources[0].rejected, 4)
        // Three of the four are Item's values; the fourth never reached the load (a csv row).
        XCTAssertEqual(runner.log.entities[1].rejected, 3)
        XCTAssertEqual(runner.log.entities[0].rejected, 0)
        XCTAssertEqual(runner.log.rejections.map(\.description), [
            #"items.csv:3:5: rejected: load: field 'qty' value "six": Item.quantity (double): not a number (use the 'number' transform for decimal commas, grouping or currency signs)"#,
            "items.csv:4: rejected: csv: row has 5 fields, the header has 4",
            #"items.csv:5:9: rejected: load: field 'count' value "70000": Item.count (integer16): 70000 is out of range for integer16 (-32768...32767)"#,
            #"items.csv:7:9: rejected: load: field 'count' value "": Item.count is required and has no default, but the value is empty"#,
        ])
    }

    /// Each record carries the hash of its text key (and its linked records theirs), nil for an
    /// empty key, through enough records that the runner fills its records again.
    func testRecordsCarryTheHashOfTheirTextKey() throws {
        let count = 3_000
        let names = (0..<count).map { $0 % 3 == 0 ? "Cre\u{300}me \($0)" : "Item \($0)" }
        // Every third unit empty: the runner fills the same records again after 1,024, not a multiple of 3.
        let units = (0..<count).map { $0 % 3 == 1 ? "" : "l" }
        let sink = CollectingSink()
        try Runner(pipeline: try pipeline((0..<count).map { record($0 + 2, names[$0], "1", "1", units[$0]) })).run(into: sink)

        XCTAssertEqual(sink.written.count, count)
        var scratch: [UInt8] = []
        for (k, written) in sink.written.enumerated() {
            XCTAssertEqual(written.keyHash, TextKeyHash(of: names[k], scratch: &scratch), "record \(k)")
            XCTAssertEqual(written.links[0]?.keyHash, units[k].isEmpty ? nil : TextKeyHash(of: units[k], scratch: &scratch), "record \(k)")
        }
        XCTAssertEqual(sink.written[0].keyHash, TextKeyHash(of: "Crème 0", scratch: &scratch), "canonically equivalent text, one hash")
        XCTAssertEqual(sink.written[0].keyHash?.isCanonical, false)
        XCTAssertEqual(sink.written[1].keyHash?.isCanonical, true)
    }

    /// Text of characters below U+0300 is hashed from its own bytes; from the first combining
    /// mark on, from its NFC form; and the two meet for canonically equivalent text.
    func testTextBelowCombiningMarksIsItsOwnCanonicalForm() {
        var scratch: [UInt8] = []
        func canonical(_ text: String) -> Bool { TextKeyHash(of: text, scratch: &scratch).isCanonical }
        XCTAssertTrue(canonical("Milk 1.5 l"))
        XCTAssertTrue(canonical("Crème fraîche, Åland, Œuvre, ǅ"))  // Latin-1, Extended-A and -B
        XCTAssertTrue(canonical("\u{2FF}"))  // the last character before the combining marks
        XCTAssertTrue(canonical("a long name past eight bytes with one é near its end"))
        XCTAssertFalse(canonical("Cre\u{300}me"))  // e and a combining grave accent
        XCTAssertFalse(canonical("\u{300}"))
        XCTAssertFalse(canonical("Ωμέγα"))  // Greek: normalized, whatever its form
        XCTAssertFalse(canonical("한글"))
        XCTAssertEqual(TextKeyHash(of: "Cre\u{300}me fraîche", scratch: &scratch),
                       TextKeyHash(of: "Crème fraîche", scratch: &scratch), "one hash for canonically equivalent text")
        XCTAssertEqual(TextKeyHash(of: "Cre\u{300}me fraîche", scratch: &scratch).value,
                       TextKeyHash(of: "Crème fraîche", scratch: &scratch).value)
    }

    func testRejectsFailTheRunWhenThePipelineSaysSo() throws {
        let sink = CollectingSink()
        let runner = Runner(pipeline: try pipeline([record(2, "Milk", "1", "1", "l"), record(3, "Eggs", "x", "1", "")], onReject: .fail))
        XCTAssertThrowsError(try runner.run(into: sink)) { error in
            let error = error as! PipelineError
            XCTAssertEqual(error.kind, .rejected)
            XCTAssertEqual(error.code, .runRejected)
            XCTAssertEqual(error.location?.description, "items.csv:3:5")
            XCTAssertEqual(error.stage, "load")
        }
        XCTAssertTrue(sink.discarded)
        XCTAssertFalse(sink.finished)
    }

    func testAFatalReaderErrorDiscardsEverything() throws {
        let sink = CollectingSink()
        let fatal = PipelineError(.invalidInput, code: PipelineError.Code("csv.unterminated-quote"), at: Location(file: "items.csv", line: 3, column: 1),
                                  stage: "csv", "unterminated quoted field")
        let runner = Runner(pipeline: try pipeline([record(2, "Milk", "1", "1", "l"), fatal]))
        XCTAssertThrowsError(try runner.run(into: sink)) { error in
            // The reader's error, as it threw it.
            XCTAssertEqual((error as? PipelineError)?.code, fatal.code)
            XCTAssertEqual((error as? PipelineError)?.location, fatal.location)
        }
        XCTAssertTrue(sink.discarded)
        XCTAssertFalse(sink.finished)
    }

    // MARK: Reading on its own thread

    /// Makes `limit` records on demand and counts them, shared with the test.
    final class Counter: @unchecked Sendable {
        var made = 0
    }

    struct CountingReaderKind: ReaderKind {
        let name = "counting"
        let spec = ComponentSpec(name: "counting", summary: "numbered records made on demand", options: [])
        let limit: Int
        let counter: Counter
        func makeReader(input: Input, options: Options, fields _: [String]) throws -> any RecordReader {
            CountingReader(limit: limit, counter: counter)
        }
    }

    final class CountingReader: RecordReader {
        let fieldNames = ["name", "qty", "count", "unit"]
        let limit: Int
        let counter: Counter
        var bytesRead: Int64 { Int64(counter.made) }
        init(limit: Int, counter: Counter) {
            self.limit = limit
            self.counter = counter
        }
        func next() throws -> Record? {
            guard counter.made < limit else { return nil }
            counter.made += 1
            let line = counter.made + 1
            return Record(values: [.text("item \(line)"), .text("1"), .text("1"), .text("g")],
                          location: Location(file: "items.csv", line: line, column: 1))
        }
    }

    /// Fails with a disk-full error at its `failAt`th write.
    final class FailingSink: RecordSink {
        let failAt: Int
        var writes = 0
        var discarded = false
        init(failAt: Int) { self.failAt = failAt }
        func write(_ record: inout EntityRecord, onDuplicate: DuplicatePolicy, log: ImportLog) throws -> Bool {
            writes += 1
            if writes == failAt { throw PipelineError(.io, code: PipelineError.Code("sqlite.disk-full"), stage: "sqlite", "database or disk is full") }
            log.count(.inserted, entity: record.entity)
            return true
        }
        func finish(log: ImportLog, publish: Bool) throws {}
        func discard() { discarded = true }
    }

    func testManyRecordsKeepTheirOrderAndEveryRejection() throws {
        // Far more records than the reading thread hands over at once, with rejections by the
        // reader (every 1000th line), the load (97th) and the sink (89th) spread over them.
        var items: [Any] = [], expectedNames: [Value] = [], expectedLines: [Int] = []
        for line in 2...5001 {
            if line % 1000 == 0 {
                items.append(Rejection(at: Location(file: "items.csv", line: line), stage: "csv", reason: "row has 5 fields, the header has 4"))
                expectedLines.append(line)
            } else if line % 97 == 0 {
                items.append(record(line, "item \(line)", "1", "many", "g"))
                expectedLines.append(line)
            } else {
                items.append(record(line, "item \(line)", "1", "1", "g"))
                if line % 89 == 0 { expectedLines.append(line) } else { expectedNames.append(.text("item \(line)")) }
            }
        }
        final class RefusingSink: RecordSink {
            var written: [Value] = []
            func write(_ record: inout EntityRecord, onDuplicate: DuplicatePolicy, log: ImportLog) throws -> Bool {
                if record.entity == 1, case .text(let name)? = record.values[0],
                   let line = Int(name.dropFirst(5)), line % 89 == 0 {
                    throw Rejection(at: record.location, stage: "sqlite", reason: "refused")
                }
                if record.entity == 1 { written.append(record.values[0] ?? .null) }
                log.count(.inserted, entity: record.entity)
                return true
            }
            func finish(log: ImportLog, publish: Bool) throws {}
            func discard() {}
        }
        let sink = RefusingSink()
        let runner = Runner(pipeline: try pipeline(items))
        try runner.run(into: sink)

        XCTAssertEqual(sink.written, expectedNames)
        XCTAssertEqual(runner.log.rejections.map { $0.location.line ?? 0 }, expectedLines)
        XCTAssertEqual(runner.log.sources[0].read, 5000)
        XCTAssertEqual(runner.log.sources[0].rejected, expectedLines.count)
        XCTAssertEqual(runner.log.entities[1].inserted, expectedNames.count)
    }

    func testASinkErrorStopsTheReadingThread() throws {
        let counter = Counter()
        let kind = CountingReaderKind(limit: 1_000_000, counter: counter)
        var definition = try pipeline([])
        definition.sources[0].reader = ReaderConfig(kind: kind, input: definition.sources[0].reader.input,
                                                    options: definition.sources[0].reader.options)
        let sink = FailingSink(failAt: 3000)
        XCTAssertThrowsError(try Runner(pipeline: definition).run(into: sink)) { error in
            XCTAssertEqual((error as? PipelineError)?.code, PipelineError.Code("sqlite.disk-full"))
        }
        XCTAssertTrue(sink.discarded)
        // The reader stopped a few batches ahead of the writes, not at the end of its input, and
        // stays stopped: `run` returned only once the thread had ended.
        let made = counter.made
        XCTAssertLessThan(made, 10_000)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(counter.made, made)
    }

    func testAFatalReaderErrorAfterManyRecordsDiscardsEverything() throws {
        var items: [Any] = (2...3001).map { record($0, "item \($0)", "1", "1", "g") }
        let fatal = PipelineError(.invalidInput, code: PipelineError.Code("csv.unterminated-quote"), at: Location(file: "items.csv", line: 3002, column: 7),
                                  stage: "csv", "unterminated quoted field")
        items.append(fatal)
        items.append(record(3003, "never", "1", "1", "g"))
        let sink = CollectingSink()
        let runner = Runner(pipeline: try pipeline(items))
        XCTAssertThrowsError(try runner.run(into: sink)) { error in
            XCTAssertEqual((error as? PipelineError)?.code, fatal.code)
            XCTAssertEqual((error as? PipelineError)?.location, fatal.location)
        }
        XCTAssertEqual(sink.written.map { $0.values[0] }, (2...3001).map { .text("item \($0)") },
                       "every record before the error reached the sink, in order, and none after it")
        XCTAssertEqual(runner.log.sources[0].read, 3000)
        XCTAssertTrue(sink.discarded)
        XCTAssertFalse(sink.finished)
    }

    func testDryRunFinishesWithoutPublishing() throws {
        let sink = CollectingSink()
        try Runner(pipeline: try pipeline([record(2, "Milk", "1", "1", "l")])).run(into: sink, dryRun: true)
        XCTAssertEqual(sink.written.count, 1)
        XCTAssertTrue(sink.finished)
        XCTAssertFalse(sink.published)
    }

    func testALoadFromAMissingFieldIsAPipelineError() throws {
        let location = Location(file: "p.yaml", line: 12, column: 15)
        let sink = CollectingSink()
        let runner = Runner(pipeline: try pipeline([], assignments: [.init(attribute: "name", field: "nmae", location: location)]))
        XCTAssertThrowsError(try runner.run(into: sink)) { error in
            XCTAssertEqual((error as? PipelineError)?.code, .pipelineUnknownField)
            XCTAssertEqual((error as? PipelineError)?.location, location)
            // Only a run meets this mistake (the fields are known once the reader opens): its words are checked here.
            XCTAssertEqual((error as? PipelineError)?.message,
                           "source 'items' has no field 'nmae'; did you mean 'name'? (fields: name, qty, count, unit)")
        }
        XCTAssertTrue(sink.discarded)
    }

    func testTheModelsValidationRulesRejectRecords() throws {
        let model = StoreModel(entities: [
            Entity(name: "Item", attributes: [
                Attribute(name: "name", type: .string),
                Attribute(name: "count", type: .integer32, validation: AttributeValidation(minValue: .integer(0), maxValue: .integer(99))),
                Attribute(name: "code", type: .string, validation: AttributeValidation(minLength: 2, maxLength: 4, regularExpression: "[A-Z]+")),
            ], uniqueKey: ["name"]),
        ])
        let kind = ListReaderKind(fields: ["name", "count", "code"], items: [
            record(2, "Milk", "12", "AB"),
            record(3, "Eggs", "-1", "AB"),
            record(4, "Flour", "100", "AB"),
            record(5, "Salt", "1", "ABCDE"),
            record(6, "Rice", "1", "ab"),
            record(7, "Oats", "1", "ABx"),
            record(8, "Tea", "1", "A"),
            record(9, "Jam", "", ""),
        ])
        let pipeline = try pipeline(kind, model: model, loads: [
            LoadSpec(entity: "Item", assignments: [.init(attribute: "name", field: "name"), .init(attribute: "count", field: "count"),
                                                   .init(attribute: "code", field: "code")]),
        ])
        let sink = CollectingSink()
        let runner = Runner(pipeline: pipeline)
        try runner.run(into: sink)
        XCTAssertEqual(sink.written.map { $0.values[0] }, [.text("Milk"), .text("Jam")], "empty values are governed by 'optional', not the rules")
        XCTAssertEqual(runner.log.rejections.map { "\($0.location.line ?? 0): \($0.reason)" }, [
            "3: Item.count is below the model's minimum 0",
            "4: Item.count is above the model's maximum 99",
            "5: Item.code is 5 characters long, longer than the model's maximum 4",
            #"6: Item.code does not match the model's pattern "[A-Z]+""#,
            #"7: Item.code does not match the model's pattern "[A-Z]+""#,
            "8: Item.code is 1 character long, shorter than the model's minimum 2",
        ])
    }

    /// A field read by several loads and links reaches each of them: only its last use takes the
    /// value from the source record, through enough records that the runner refills its own.
    func testAFieldReadTwiceReachesEveryUse() throws {
        let count = 3_000
        let kind = ListReaderKind(fields: ["name", "qty", "count", "unit"], items: (0..<count).map {
            record($0 + 2, "Item \($0) with a name too long to be stored inline", "\($0).5", "\($0 % 100)", "l")
        })
        let item = LoadSpec(
            entity: "Item",
            assignments: [.init(attribute: "name", field: "name"), .init(attribute: "quantity", field: "qty"),
                          .init(attribute: "count", field: "count")],
            links: [.init(relationship: "unit", target: LoadSpec(entity: "Unit", assignments: [.init(attribute: "name", field: "name")]))])
        let unit = LoadSpec(entity: "Unit", assignments: [.init(attribute: "name", field: "name")])
        let sink = CollectingSink()
        try Runner(pipeline: try pipeline(kind, model: model, loads: [item, unit])).run(into: sink)

        XCTAssertEqual(sink.written.count, 2 * count)
        for k in 0..<count {
            let name = Value.text("Item \(k) with a name too long to be stored inline")
            let (written, unitRecord) = (sink.written[2 * k], sink.written[2 * k + 1])
            XCTAssertEqual(written.values, [name, .double(Double(k) + 0.5), .integer(Int64(k % 100))], "record \(k)")
            XCTAssertEqual(written.links[0]?.values, [name], "record \(k), the link")
            XCTAssertEqual(unitRecord.values, [name], "record \(k), the second load")
        }
    }

    /// Values already of an attribute's type move on unconverted: `takesAsIs` must agree with
    /// `convert` giving them back unchanged.
    func testValuesTakenAsTheyAreConvertToThemselves() {
        let values: [Value] = [.null, .text(""), .text("12"), .text("x"), .integer(70_000), .integer(1), .double(1.5),
                               .decimal(Decimal(string: "0.125")!), .bool(true), .date(3.5), .binary([1, 2]),
                               .binary(Array(repeating: 7, count: 16))]
        for type in AttributeType.allCases {
            for value in values where type.takesAsIs(value) {
                XCTAssertEqual(try? type.convert(value).get(), value, "\(type) takes \(value) as it is")
            }
        }
        XCTAssertTrue(AttributeType.string.takesAsIs(.text("x")))
        XCTAssertFalse(AttributeType.string.takesAsIs(.text("")), "empty text becomes null")
        XCTAssertFalse(AttributeType.integer16.takesAsIs(.integer(70_000)), "out of range for integer16")
    }

    func testFieldsUsedInFirstUseOrder() {
        let load = LoadSpec(entity: "Item", assignments: [.init(attribute: "name", field: "b"), .init(attribute: "x", field: "a")],
                            links: [.init(relationship: "unit", target: LoadSpec(entity: "Unit", assignments: [.init(attribute: "name", field: "b"), .init(attribute: "y", field: "c")]))])
        XCTAssertEqual(Runner.fieldsUsed(by: [load]), ["b", "a", "c"])
    }
}

/// `EntityRecord.keyHash` never outlives the value it was made from.
final class EntityRecordKeyHashTests: XCTestCase {
    func testAChangedValueDropsTheKeyHash() {
        var record = EntityRecord(entity: 0, values: [.text("Milk"), .double(1)], links: [], location: Location(file: "a.csv", line: 2))
        record.hashKey(at: 0)
        var scratch: [UInt8] = []
        XCTAssertEqual(record.keyHash, TextKeyHash(of: "Milk", scratch: &scratch))
        record.values[1] = .double(2)
        XCTAssertNil(record.keyHash, "any change to the values drops the hash")
        record.hashKey(at: 0)
        record.values[0] = .text("Oat milk")
        XCTAssertNil(record.keyHash)
        record.hashKey(at: 0)
        XCTAssertEqual(record.keyHash, TextKeyHash(of: "Oat milk", scratch: &scratch))
        record.values[0] = .text("")
        record.hashKey(at: 0)
        XCTAssertNil(record.keyHash, "an empty key has no hash")
    }
}
