import Foundation
import Diagnostics
import Pipeline
import PipelineFile
import SourcesXML
import Testing

/// `read: { xml: ..., record: ..., fields: [...] }` as a pipeline file writes it.
@Suite struct XMLReaderKindTests {
    /// The options of a `read:` mapping, checked as the pipeline loader checks them.
    static func options(_ yaml: String) throws -> Options {
        let node = try #require(try ConfigNode.parse(yaml: yaml, file: "pipeline.yaml"))
        let kind = XMLReaderKind()
        var spec = kind.spec
        spec.name = "read"
        let options = try Options(node, spec: spec, stage: "pipeline", ignoring: [kind.name])
        try kind.validate(options)
        return options
    }

    static func failure(_ yaml: String) -> PipelineError? {
        do {
            _ = try options(yaml)
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }

    @Test func fieldsDefaultToTheNamesTheLoadsUse() throws {
        let input = try XMLTest.file("grocery.xml", "<items><item name=\"Milk\" unit=\"l\"/></items>")
        let kind = XMLReaderKind()
        #expect(kind.name == "xml")
        let reader = try kind.makeReader(input: input, options: try Self.options("{ xml: g.xml, record: items/item }"),
                                         fields: ["unit", "name"])
        #expect(reader.fieldNames == ["unit", "name"])
        #expect(try reader.next()?.values == [.text("l"), .text("Milk")])
        #expect(try reader.next() == nil)
        #expect(reader.bytesRead == 43)  // the whole file
    }

    @Test func fieldsGivenInThePipeline() throws {
        let input = try XMLTest.file("grocery.xml", "<items><item name=\"Milk\"><price><eur>1.20</eur></price></item></items>")
        let options = try Self.options("{ xml: g.xml, record: item, fields: [name, price/eur] }")
        let reader = try XMLReaderKind().makeReader(input: input, options: options, fields: ["name"])
        #expect(reader.fieldNames == ["name", "price/eur"])
        #expect(try reader.next()?.values == [.text("Milk"), .text("1.20")])
    }

    @Test func optionsAreChecked() {
        expectError(Self.failure("{ xml: g.xml }"), .pipelineMissingKey, at: "pipeline.yaml:1:1")
        expectError(Self.failure("{ xml: g.xml, record: items//item }"), .xmlInvalidPath, at: "pipeline.yaml:1:23")
        expectError(Self.failure("{ xml: g.xml, record: item, fields: [name, name] }"), .pipelineDuplicateName, at: "pipeline.yaml:1:44")
        let field = Self.failure("{ xml: g.xml, record: item, fields: [a/, b] }")
        expectError(field, .xmlInvalidPath, at: "pipeline.yaml:1:38")
        #expect(field?.message == "'a/' is not a field name: use an attribute or element name, or a path of child elements such as 'details/price'")
        expectError(Self.failure("{ xml: g.xml, recrod: item }"), .pipelineUnknownKey, at: "pipeline.yaml:1:15")
    }
}
