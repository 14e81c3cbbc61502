import Foundation
import Diagnostics
import Testing
@testable import PipelineFile
@testable import Pipeline
import SourcesCSV
import SourcesJSON
import PropertyLists
import SourcesXML
import SourcesXLSX
import Transforms

// MARK: Components

/// The components pipectl registers: the real readers and transforms, so that what the loader
/// checks here is what users' pipeline files meet.
let loaderTestRegistry = ComponentRegistry(
    readers: [CSVReaderKind(), XMLReaderKind(), JSONReaderKind(), JSONLinesReaderKind(), PropertyListReaderKind(), XLSXReaderKind()],
    transforms: StandardTransforms.all)

// MARK: Helpers

/// A folder with `pipelines/data/items.csv`, made once for all tests.
let loaderSandbox: URL = {
    let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("PipelineLoaderTests-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
    let data = root.appendingPathComponent("pipelines/data", isDirectory: true)
    try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    try? Data("name,unit\nMilk,l\n".utf8).write(to: data.appendingPathComponent("items.csv"))
    // Swift Testing has no hook after the last test: remove the folder when the test process ends.
    atexit { try? FileManager.default.removeItem(at: loaderSandbox) }
    return root
}()

/// The pipeline file as messages name it: `pipelines/test.yaml`, inside the loaderSandbox.
let loaderTestFile = URL(fileURLWithPath: "pipelines/test.yaml", relativeTo: loaderSandbox)

func loadTestPipeline(_ yaml: String) throws -> PipelineDefinition {
    try PipelineLoader.load(yaml: yaml, file: loaderTestFile, registry: loaderTestRegistry)
}

/// The error loading `yaml` gives, or nil (recorded as a test failure) when it loads.
func loadTestPipelineError(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> PipelineError? {
    do {
        _ = try loadTestPipeline(yaml)
        Issue.record("the pipeline loaded, but an error was expected", sourceLocation: sourceLocation)
    } catch let error as PipelineError {
        return error
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Asserts what code decides on: the error's code, kind and stage, and where it points. Returns
/// the error for a test that also checks the wording of a message nothing else shows users.
@discardableResult
func expectLoadError(_ yaml: String, _ code: PipelineError.Code, at location: String, kind: PipelineError.Kind = .invalidPipeline,
                     sourceLocation: SourceLocation = #_sourceLocation) -> PipelineError? {
    guard let error = loadTestPipelineError(yaml, sourceLocation: sourceLocation) else { return nil }
    #expect(error.code == code, sourceLocation: sourceLocation)
    #expect(error.location?.description == location, sourceLocation: sourceLocation)
    #expect(error.kind == kind, sourceLocation: sourceLocation)
    #expect(error.stage == "pipeline", sourceLocation: sourceLocation)
    return error
}

/// A small valid pipeline; tests change one line of it.
let loaderBase = """
    version: 1
    name: test
    store: { path: out.sqlite }
    entities:
      Unit: { unique: name, attributes: { name: string } }
      Item:
        unique: name
        attributes: { name: string, quantity: { type: float, default: 1 } }
        relationships: { unit: { to: Unit, inverse: items } }
    sources:
      - name: items
        read: { csv: data/items.csv }
        load:
          Item: { name: name, unit: { Unit: { name: unit } } }
    """

extension String {
    /// The text with `old` (which must occur) replaced by `new`.
    func swapping(_ old: String, _ new: String) -> String {
        precondition(contains(old), "test pipeline has no '\(old)'")
        return replacingOccurrences(of: old, with: new)
    }
}

// MARK: The grocery example

@Suite struct PipelineLoaderGroceryTests {
    let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    @Test func loadsTheGroceryExampleFully() throws {
        let file = fixtures.appendingPathComponent("pipelines/grocery.yaml")
        let pipeline = try PipelineLoader.load(contentsOf: file, registry: loaderTestRegistry)
        let folder = file.deletingLastPathComponent().standardizedFileURL

        #expect(pipeline.name == "grocery")
        #expect(pipeline.file == file.standardizedFileURL)
        #expect(pipeline.onReject == .continue)

        // Store: paths resolved against the pipeline's folder, metadata typed.
        #expect(pipeline.store.path == folder.appendingPathComponent("../build/grocery.sqlite").standardizedFileURL)
        #expect(pipeline.store.path.lastPathComponent == "grocery.sqlite")
        #expect(pipeline.store.layout == .sqlite)
        #expect(pipeline.store.modelPaths.isEmpty)
        #expect(pipeline.store.metadata.map(\.key) == ["DefaultDataImported"])
        #expect(pipeline.store.metadata.map(\.value) == [.bool(true)])
        #expect(pipeline.store.location?.line == 4)

        // Model: entities in file order, keys, types, defaults, relationships.
        let model = pipeline.model
        #expect(model.entities.map(\.name) == ["Unit", "LocationAtHome", "LocationAtShop", "Item"])
        #expect(model.uniqueKey(of: "Unit") == ["name"])
        #expect(model.uniqueKey(of: "LocationAtHome") == ["storedIn"])
        let item = try #require(model["Item"])
        #expect(item.uniqueKey == ["name"])
        #expect(item.location?.line == 11)
        #expect(item.location?.column == 3)
        #expect(item.attributes.map(\.name) == ["name", "quantity", "listed", "collected", "added"])
        #expect(item.attributes.map(\.type) == [.string, .float, .bool, .bool, .date])
        #expect(item.attributes.map(\.defaultValue) == [nil, .double(1), .bool(true), .bool(false), nil])
        #expect(item.attributes.map(\.isIndexed) == [true, false, false, false, false])
        #expect(item.attributes.allSatisfy { $0.isOptional })
        #expect(item.relationships.map(\.name) == ["unit", "locationAtHome", "locationAtShop"])
        #expect(item.relationships.map(\.destination) == ["Unit", "LocationAtHome", "LocationAtShop"])
        #expect(item.relationships.map(\.inverse) == ["items", "items", "items"])
        #expect(item.relationships.allSatisfy { !$0.isToMany && $0.isOptional })

        // Source: reader, input, transforms, loads.
        #expect(pipeline.sources.count == 1)
        let source = pipeline.sources[0]
        #expect(source.name == "items")
        #expect(source.onDuplicate == .keep)
        #expect(source.reader.kind.name == "csv")
        #expect(source.reader.options.string("encoding") == "auto")
        #expect(source.reader.options.string("delimiter") == "auto")
        #expect(source.reader.options.string("csv") == nil)
        let csv = folder.appendingPathComponent("data/grocery.csv").standardizedFileURL
        #expect(source.reader.input.url == csv)
        // Shown relative to the working directory when the file lies below it, else absolute.
        let shown = source.reader.input.displayPath
        #expect(URL(fileURLWithPath: shown).standardizedFileURL.path == csv.path)
        let cwd = FileManager.default.currentDirectoryPath
        #expect(shown.hasPrefix("/") == !csv.path.hasPrefix(cwd + "/"))
        #expect(shown.hasSuffix("pipelines/data/grocery.csv"))
        #expect(source.transforms.map(\.kind.name) == ["trim", "number", "date"])
        #expect(source.transforms[0].node.scalar == "all")
        #expect(source.transforms[2].node.mapping?.map(\.key.scalar) == ["fields", "format", "timezone"])

        #expect(source.loads.count == 1)
        let load = source.loads[0]
        #expect(load.entity == "Item")
        #expect(load.assignments.map(\.attribute) == ["name", "quantity", "added"])
        #expect(load.assignments.map(\.field) == ["name", "quantity", "added"])
        #expect(load.assignments[1].location?.line == 33)
        #expect(load.assignments[1].location?.column == 19)
        #expect(load.assignments[1].sourceLine == "        quantity: quantity")
        #expect(load.links.map(\.relationship) == ["unit", "locationAtHome", "locationAtShop"])
        #expect(load.links.map(\.target.entity) == ["Unit", "LocationAtHome", "LocationAtShop"])
        #expect(load.links.map { $0.target.assignments.map(\.attribute) } == [["name"], ["storedIn"], ["aisle"]])
        #expect(load.links.map { $0.target.assignments.map(\.field) } == [["unit"], ["locationathome"], ["locationatshop"]])
        #expect(load.links[0].location?.line == 35)

        // Report paths resolved too.
        #expect(pipeline.report.xlsx == folder.appendingPathComponent("../build/grocery-report.xlsx").standardizedFileURL)
        #expect(pipeline.report.json?.lastPathComponent == "grocery-report.json")

        // The fields the runner will ask the reader for.
        #expect(Runner.fieldsUsed(by: source.loads) == ["name", "quantity", "added", "unit", "locationathome", "locationatshop"])
    }

    @Test func messagesNameThePipelineFileAsGiven() throws {
        let file = URL(fileURLWithPath: "pipelines/grocery.yaml", relativeTo: fixtures)
        let pipeline = try PipelineLoader.load(contentsOf: file, registry: loaderTestRegistry)
        #expect(pipeline.model["Item"]?.location?.file == "pipelines/grocery.yaml")
        #expect(pipeline.sources[0].loads[0].assignments[0].location?.description == "pipelines/grocery.yaml:32:15")
    }

    @Test func theSmallPipelineLoads() throws {
        let pipeline = try loadTestPipeline(loaderBase)
        #expect(pipeline.sources[0].reader.input.displayPath == loaderSandbox.appendingPathComponent("pipelines/data/items.csv").standardizedFileURL.path)
        #expect(pipeline.store.path == loaderSandbox.appendingPathComponent("pipelines/out.sqlite").standardizedFileURL)
    }
}
