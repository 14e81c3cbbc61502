import Foundation
import Diagnostics
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

/// Builds transform steps from pipeline-file text and records from CSV-like rows, so that tests
/// read like the pipelines they stand for and assert codes at real positions.
enum TransformFixture {
    static let file = "pipeline.yaml"
    /// The line of the pipeline file that the transform is written on.
    static let line = 12

    /// The node of `- kind: text` as the pipeline loader hands it to the kind. `text` is YAML flow
    /// style on one line: `{ fields: [a, b], decimal: "," }`, `[a, b]`, `all`.
    static func node(_ kind: String, _ text: String) -> ConfigNode {
        let prefix = "      - \(kind): "
        var parser = FlowParser(scalars: Array(text.unicodeScalars), column: prefix.count, sourceLine: prefix + text)
        return parser.value()
    }

    static func kind(_ name: String) -> any TransformKind {
        StandardTransforms.all.first { $0.name == name }!
    }

    static func make(_ kind: String, _ text: String) throws -> any Transform {
        try self.kind(kind).make(node(kind, text))
    }

    /// A step bound to `fields`, and the field names it hands on.
    static func bind(_ kind: String, _ text: String, fields: [String]) throws -> (step: any Transform, fields: [String]) {
        let step = try make(kind, text)
        return (step, try step.bind(fields: fields))
    }

    /// A record of text values on line 2 of `items.csv`, each field at its CSV column.
    static func record(_ values: [Value]) -> Record {
        var column = 1
        var positions: [TextPosition] = []
        for value in values {
            positions.append(TextPosition(line: 2, column: column))
            column += value.displayText.count + 1
        }
        return Record(values: values, location: Location(file: "items.csv", line: 2), fieldPositions: positions)
    }

    static func record(_ texts: [String]) -> Record { record(texts.map { Value.text($0) }) }

    /// The pipeline error `body` throws.
    static func pipelineError(_ body: () throws -> Void) -> PipelineError? {
        do {
            try body()
            return nil
        } catch let error as PipelineError {
            #expect(error.kind == .invalidPipeline)
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    /// Checks the code of the error `body` throws and the column of the fixture's line it points
    /// at; returns the error for a test that also checks the wording of a message no other test
    /// shows users.
    @discardableResult
    static func expectError(_ code: PipelineError.Code, at column: Int, sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws -> Void) -> PipelineError? {
        let error = pipelineError(body)
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.location?.description == "pipeline.yaml:12:\(column)", sourceLocation: sourceLocation)
        return error
    }

    /// The rejection `body` throws, as the report shows it.
    static func rejection(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let rejection as Rejection {
            return rejection.description
        } catch {
            return "unexpected \(error)"
        }
    }

    /// The column of the `occurrence`th `needle` on the fixture's line for `- kind: text`.
    static func column(_ kind: String, _ text: String, of needle: String, occurrence: Int = 1) -> Int {
        let line = "      - \(kind): \(text)"
        var searchStart = line.startIndex
        var found = line.startIndex
        for _ in 0..<occurrence {
            found = line.range(of: needle, range: searchStart..<line.endIndex)!.lowerBound
            searchStart = line.index(after: found)
        }
        return line.distance(from: line.startIndex, to: found) + 1
    }

    /// A one-line subset of YAML flow style: mappings, sequences, plain and double-quoted scalars.
    struct FlowParser {
        let scalars: [Unicode.Scalar]
        /// Columns before the text on its line.
        let column: Int
        let sourceLine: String
        var i = 0

        init(scalars: [Unicode.Scalar], column: Int, sourceLine: String) {
            self.scalars = scalars
            self.column = column
            self.sourceLine = sourceLine
        }

        mutating func skipSpaces() { while i < scalars.count, scalars[i] == " " { i += 1 } }

        func peek() -> Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

        mutating func value() -> ConfigNode {
            skipSpaces()
            let location = Location(file: TransformFixture.file, line: TransformFixture.line, column: column + i + 1)
            func node(_ content: ConfigNode.Content, quoted: Bool = false) -> ConfigNode {
                ConfigNode(content, at: location, sourceLine: sourceLine, isQuoted: quoted)
            }
            switch peek() {
            case "{":
                i += 1
                var pairs: [(key: ConfigNode, value: ConfigNode)] = []
                while true {
                    skipSpaces()
                    if peek() == "}" { i += 1; break }
                    let key = value()
                    skipSpaces()
                    if peek() == ":" { i += 1 }
                    pairs.append((key, value()))
                    skipSpaces()
                    if peek() == "," { i += 1 }
                }
                return node(.mapping(pairs))
            case "[":
                i += 1
                var items: [ConfigNode] = []
                while true {
                    skipSpaces()
                    if peek() == "]" { i += 1; break }
                    items.append(value())
                    skipSpaces()
                    if peek() == "," { i += 1 }
                }
                return node(.sequence(items))
            case "\"":
                i += 1
                var text = String.UnicodeScalarView()
                while let c = peek(), c != "\"" {
                    if c == "\\", i + 1 < scalars.count { i += 1 }
                    text.append(scalars[i])
                    i += 1
                }
                i += 1
                return node(.scalar(String(text)), quoted: true)
            case nil:
                return node(.null)
            default:
                let start = i
                while let c = peek(), !",]}".unicodeScalars.contains(c),
                      !(c == ":" && (i + 1 == scalars.count || scalars[i + 1] == " ")) {
                    i += 1
                }
                var text = String(String.UnicodeScalarView(scalars[start..<i]))
                while text.hasSuffix(" ") { text.removeLast() }
                return text == "~" || text == "null" ? node(.null) : node(.scalar(text))
            }
        }
    }
}

@Suite("Transform registry")
struct TransformRegistryTests {
    @Test func listsEveryStandardTransformInDocumentationOrder() {
        #expect(StandardTransforms.all.map(\.name) == ["trim", "number", "date", "default", "set", "rename", "split", "map", "uuid", "template", "file", "keep", "drop"])
        for kind in StandardTransforms.all {
            #expect(kind.spec.name == kind.name)
            #expect(!kind.spec.summary.isEmpty)
        }
        let registry = ComponentRegistry(readers: [], transforms: StandardTransforms.all)
        #expect(registry.transform(named: "date")?.name == "date")
        #expect(registry.transform(named: "dates") == nil)
    }

    @Test func unknownOptionKeyIsAnErrorWithASuggestion() {
        let text = #"{ fields: [quantity], decimals: "," }"#
        #expect(TransformFixture.column("number", text, of: "decimals") == 39)
        TransformFixture.expectError(.pipelineUnknownKey, at: 39) { _ = try TransformFixture.make("number", text) }
    }

    @Test func fieldThatDoesNotReachTheStepIsAnErrorAtTheOptionWithASuggestion() {
        let text = #"{ fields: [name, qantity], decimal: "," }"#
        #expect(TransformFixture.column("number", text, of: "qantity") == 34)
        let error = TransformFixture.expectError(.pipelineUnknownField, at: 34) {
            _ = try TransformFixture.bind("number", text, fields: ["name", "quantity", "unit"])
        }
        #expect(error?.message == "no field 'qantity' reaches 'number'; did you mean 'quantity'? (fields: name, quantity, unit)")
    }

    @Test func fieldWithNothingCloseGetsNoSuggestion() {
        let error = TransformFixture.expectError(.pipelineUnknownField, at: 16) {
            _ = try TransformFixture.bind("trim", "[price]", fields: ["name", "unit"])
        }
        #expect(error?.message.contains("did you mean") == false)
    }

    @Test func fieldListedTwiceIsAnError() {
        let text = "{ fields: [price, price] }"
        #expect(TransformFixture.column("number", text, of: "price", occurrence: 2) == 35)
        TransformFixture.expectError(.pipelineDuplicateName, at: 35) { _ = try TransformFixture.make("number", text) }
    }

    @Test func missingRequiredKeyIsAnError() {
        let text = #"{ decimal: "," }"#
        TransformFixture.expectError(.pipelineMissingKey, at: 17) { _ = try TransformFixture.make("number", text) }
    }

    @Test func stepsChainFieldNames() throws {
        var fields = ["Item Name", "Qty", "unit"]
        let steps = try [
            ("rename", #"{ "Item Name": name, Qty: quantity }"#),
            ("trim", "all"),
            ("default", "{ unit: pcs, listed: \"true\" }"),
            ("number", #"{ fields: quantity, decimal: "," }"#),
        ].map { try TransformFixture.make($0.0, $0.1) }
        for step in steps { fields = try step.bind(fields: fields) }
        #expect(fields == ["name", "quantity", "unit", "listed"])

        var record = TransformFixture.record([" Milk\t", "1.234,5 ", ""])
        for step in steps { try step.apply(&record) }
        #expect(record.values == [.text("Milk"), .text("1234.5"), .text("pcs"), .text("true")])
    }
}
