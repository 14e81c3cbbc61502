import Foundation
import Diagnostics
import Testing
@testable import PipelineFile
import Pipeline
import SourcesCSV
import SourcesJSON
import SourcesXML
import Transforms

/// `docs/pipeline-format.md` stays in step with the specs, the grocery example and real messages.
@Suite struct PipelineLoaderDocsTests {
    let docs: String
    let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
    let grocery: String

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        docs = try String(contentsOf: root.appendingPathComponent("docs/pipeline-format.md"), encoding: .utf8)
        grocery = try String(contentsOf: fixtures.appendingPathComponent("pipelines/grocery.yaml"), encoding: .utf8)
    }

    @Test(arguments: PipelineSpecs.all.map(\.name))
    func everySpecIsDocumentedAsDeclared(name: String) throws {
        let spec = try #require(PipelineSpecs.all.first { $0.name == name })
        #expect(docs.contains(spec.markdownTable), "docs/pipeline-format.md lacks the current table of '\(name)':\n\(spec.markdownTable)")
    }

    @Test func theExampleIsTheGroceryFixture() {
        #expect(docs.contains("```yaml\n" + grocery + "```\n"))
    }

    @Test func theErrorExamplesAreRealMessages() throws {
        let file = URL(fileURLWithPath: "pipelines/grocery.yaml", relativeTo: fixtures)
        func message(_ old: String, _ new: String) throws -> String {
            do {
                _ = try PipelineLoader.load(yaml: grocery.swapping(old, new), file: file, registry: loaderTestRegistry)
            } catch let error as PipelineError {
                return error.description
            }
            Issue.record("loaded without error")
            return ""
        }
        let delimiter = try message("read: { csv: data/grocery.csv, encoding: auto, delimiter: auto }",
                                    "read: { csv: data/grocery.csv, delimter: \";\" }")
        #expect(docs.contains("```\n" + delimiter + "\n```"), "\(delimiter)")
        let entity = try message("      Item:\n        name: name", "      Iten:\n        name: name")
        #expect(docs.contains("```\n" + entity + "\n```"), "\(entity)")
    }
}
