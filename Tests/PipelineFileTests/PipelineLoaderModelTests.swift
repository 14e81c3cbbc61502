import Foundation
import Diagnostics
import Testing
@testable import PipelineFile
import Pipeline
import SourcesCSV
import SourcesJSON
import SourcesXML
import Transforms

/// `store.model:` takes the entities from the app's model; `entities:` then adds unique keys and
/// restates attributes only to check that the pipeline and the model agree.
@Suite struct PipelineLoaderModelTests {
    /// The model an app's model file would give (the model-file reader is tested in SinksSQLite).
    static let appModel = StoreModel(entities: [
        Entity(name: "Item", attributes: [
            Attribute(name: "name", type: .string),
            Attribute(name: "quantity", type: .float, defaultValue: .double(1)),
            Attribute(name: "count", type: .integer16, validation: AttributeValidation(minValue: .integer(0), maxValue: .integer(99))),
            Attribute(name: "code", type: .string, validation: AttributeValidation(maxLength: 4, regularExpression: "[A-Z]+")),
        ], relationships: [Relationship(name: "unit", destination: "Unit", inverse: "items")]),
        Entity(name: "Unit", attributes: [Attribute(name: "name", type: .string)],
               relationships: [Relationship(name: "items", destination: "Item", inverse: "unit", isToMany: true)]),
    ])

    static let registry: ComponentRegistry = {
        var registry = loaderTestRegistry
        registry.modelReader = { _, _ in appModel }
        return registry
    }()

    static let base = """
        version: 1
        name: test
        store: { path: out.sqlite, layout: coredata, model: Grocery.xcdatamodeld }
        entities:
          Unit: { unique: name }
          Item: { unique: name, attributes: { quantity: float } }
        sources:
          - name: items
            read: { csv: data/items.csv }
            load:
              Item: { name: name, unit: { Unit: { name: unit } } }
        """

    init() throws {
        let model = loaderSandbox.appendingPathComponent("pipelines/Grocery.xcdatamodeld/Grocery.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
    }

    func load(_ yaml: String) throws -> PipelineDefinition {
        try PipelineLoader.load(yaml: yaml, file: loaderTestFile, registry: Self.registry)
    }

    func error(_ yaml: String) -> PipelineError? {
        do { _ = try load(yaml) } catch let error as PipelineError { return error } catch { Issue.record("unexpected error: \(error)") }
        return nil
    }

    @Test func entitiesComeFromTheModelWithThePipelinesKeys() throws {
        let pipeline = try load(Self.base)
        #expect(pipeline.store.layout == .coredata)
        #expect(pipeline.store.modelPaths.map(\.lastPathComponent) == ["Grocery.xcdatamodeld"])
        #expect(pipeline.model.entities.map(\.name) == ["Item", "Unit"])
        #expect(pipeline.model.uniqueKey(of: "Item") == ["name"])
        #expect(pipeline.model.uniqueKey(of: "Unit") == ["name"])
        #expect(pipeline.model["Unit"]?.relationships.first?.isToMany == true)
    }

    @Test func withoutEntitiesTheModelIsTakenAsItIs() throws {
        let yaml = Self.base.swapping("entities:\n  Unit: { unique: name }\n  Item: { unique: name, attributes: { quantity: float } }\n", "")
        // Find-or-create needs a unique key, which only the pipeline can give.
        #expect(error(yaml)?.code == .pipelineNoUniqueKey)
    }

    @Test func mismatchesAreErrorsAtTheirLocation() {
        let entity = error(Self.base.swapping("  Unit: { unique: name }", "  Unti: { unique: name }"))
        #expect(entity?.code == .pipelineUnknownEntity)
        #expect(entity?.location?.description == "pipelines/test.yaml:5:3")
        let type = error(Self.base.swapping("attributes: { quantity: float }", "attributes: { quantity: double }"))
        #expect(type?.code == .pipelineTypeMismatch)
        #expect(type?.location?.description == "pipelines/test.yaml:6:49")
        #expect(type?.message == "Item.quantity is float in the model, not double")
        let attribute = error(Self.base.swapping("attributes: { quantity: float }", "attributes: { amount: float }"))
        #expect(attribute?.code == .pipelineUnknownAttribute)
        #expect(attribute?.location?.description == "pipelines/test.yaml:6:39")
        let owned = error(Self.base.swapping("attributes: { quantity: float }", "attributes: { quantity: { type: float, default: 2 } }"))
        #expect(owned?.code == .pipelineOwnedByModel)
        #expect(owned?.location?.description == "pipelines/test.yaml:6:64")
        #expect(owned?.message == "'default' of Item.quantity comes from the model file; change it there")
        let key = error(Self.base.swapping("  Unit: { unique: name }", "  Unit: { unique: nme }"))
        #expect(key?.code == .pipelineUnknownAttribute)
        #expect(key?.location?.description == "pipelines/test.yaml:5:19")
    }

    @Test func withoutAModelReaderModelFilesAreRefused() throws {
        let error = #expect(throws: PipelineError.self) {
            try PipelineLoader.load(yaml: Self.base, file: loaderTestFile, registry: loaderTestRegistry)
        }
        #expect(error?.code == .pipelineModelFilesUnsupported)
    }
}
