import Foundation
import Diagnostics
import Testing
@testable import PipelineFile
import Pipeline
import SourcesCSV
import SourcesJSON
import SourcesXML
import Transforms

/// Each kind of mistake: its code and where it points; the wording of the messages no bad-input case shows.
@Suite struct PipelineLoaderErrorTests {
    // MARK: YAML

    @Test func yamlSyntaxError() {
        expectLoadError(loaderBase.swapping("  Item:\n", "  Item\n"), .pipelineInvalidYAML, at: "pipelines/test.yaml:7:11")
    }

    @Test func duplicateKeyInABlockMapping() {
        let error = expectLoadError(loaderBase.swapping("name: test\n", "name: test\nversion: 1\n"),
            .pipelineDuplicateKey, at: "pipelines/test.yaml:3:1")
        #expect(error?.message == "duplicate key 'version' in this mapping; the first one is on line 1")
    }

    @Test func duplicateKeyInAFlowMapping() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, header: true, header: false }"),
            .pipelineDuplicateKey, at: "pipelines/test.yaml:12:48")
    }

    @Test func duplicateKeyThreeTimesPointsAtTheSecond() {
        expectLoadError(loaderBase.swapping("name: test\n", "name: test\nname: again\nname: thrice\n"),
            .pipelineDuplicateKey, at: "pipelines/test.yaml:3:1")
    }

    @Test func keysEqualAsTextButNotAsYAMLAreDuplicates() {
        expectLoadError(loaderBase.swapping("attributes: { name: string,", "attributes: { 1: string, \"1\": int, name: string,"),
            .pipelineDuplicateKey, at: "pipelines/test.yaml:8:30")
    }

    @Test func secondDocument() {
        let error = expectLoadError(loaderBase + "\n---\nversion: 1", .pipelineInvalidYAML, at: "pipelines/test.yaml:15:1")
        #expect(error?.message == "a pipeline file holds one YAML document, but another one starts here")
    }

    @Test func emptyFile() {
        expectLoadError("# nothing here\n", .pipelineEmptyFile, at: "pipelines/test.yaml:1:1")
    }

    @Test func topLevelMustBeAMapping() {
        expectLoadError("- a\n- b\n", .pipelineWrongType, at: "pipelines/test.yaml:1:1")
    }

    // MARK: Top level

    @Test func unknownTopLevelKeyWithSuggestion() {
        expectLoadError(loaderBase + "\nreprot: { json: r.json }", .pipelineUnknownKey, at: "pipelines/test.yaml:15:1")
    }

    @Test func missingRequiredKey() {
        let error = expectLoadError(loaderBase.swapping("name: test\n", ""), .pipelineMissingKey, at: "pipelines/test.yaml:1:1")
        #expect(error?.message == "'pipeline' needs the key 'name' (The pipeline's name, shown in the report.)")
    }

    @Test func versionTwo() {
        let error = expectLoadError(loaderBase.swapping("version: 1", "version: 2"),
            .pipelineUnsupportedVersion, at: "pipelines/test.yaml:1:10")
        #expect(error?.message == "unsupported format version 2; this pipectl reads version 1")
    }

    @Test func sourcesMustBeAList() {
        let error = expectLoadError(loaderBase.swapping("sources:\n", "sources: foo\nsources_: \n").components(separatedBy: "sources_:")[0],
            .pipelineWrongType, at: "pipelines/test.yaml:10:10")
        #expect(error?.message == #"'sources' expects a list of sources, found the value "foo""#)
    }

    @Test func onRejectValue() {
        let error = expectLoadError(loaderBase + "\non_reject: stop", .pipelineValueNotAllowed, at: "pipelines/test.yaml:15:12")
        #expect(error?.message == "'on_reject' must be one of 'continue', 'fail', not 'stop'")
    }

    // MARK: Store

    @Test func missingModelFile() {
        guard let error = loadTestPipelineError(loaderBase.swapping("store: { path: out.sqlite }", "store: { path: out.sqlite, model: App.xcdatamodeld }")) else { return }
        #expect(error.kind == .io)
        #expect(error.code == .modelNotFound)
        #expect(error.location?.description == "pipelines/test.yaml:3:35")
        #expect(error.message.hasSuffix("/pipelines/App.xcdatamodeld"))
    }

    @Test func entityKeysAreChecked() {
        expectLoadError(loaderBase.swapping("    unique: name", "    uniqe: name"),
            .pipelineUnknownKey, at: "pipelines/test.yaml:7:5")
    }

    @Test func entitiesAreRequired() {
        let yaml = loaderBase.components(separatedBy: "entities:")[0] + "sources:" + loaderBase.components(separatedBy: "sources:")[1]
        let error = expectLoadError(yaml, .pipelineNoEntities, at: "pipelines/test.yaml:1:1")
        #expect(error?.message == "the pipeline declares no entities: add an 'entities:' section or name the app's model in 'store.model'")
    }

    // MARK: Sources

    @Test func misspelledReadOption() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, delimter: \";\" }"),
            .pipelineUnknownKey, at: "pipelines/test.yaml:12:34")
    }

    @Test func wrongReadOptionValue() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, header: maybe }"),
            .pipelineWrongType, at: "pipelines/test.yaml:12:42")
    }

    @Test func readerValidationRuns() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, header: false }"),
            .pipelineMissingKey, at: "pipelines/test.yaml:12:42")
    }

    @Test func unknownReaderFormat() {
        let error = expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { cvsv: data/items.csv }"),
            .pipelineUnknownFormat, at: "pipelines/test.yaml:12:13")
        #expect(error?.message == "unknown reader format 'cvsv'; did you mean 'csv'? (formats: csv, xml, json, jsonl, plist, xlsx)")
    }

    @Test func readWithoutFormat() {
        let error = expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { header: true }"),
            .pipelineMissingKey, at: "pipelines/test.yaml:12:11")
        #expect(error?.message == "'read' needs a key naming the format and the input file, e.g. 'csv: data/items.csv' (formats: csv, xml, json, jsonl, plist, xlsx)")
    }

    @Test func missingInputFile() {
        expectLoadError(loaderBase.swapping("data/items.csv", "data/missing.csv"),
            .inputNotFound, at: "pipelines/test.yaml:12:18", kind: .io)
    }

    @Test func inputIsADirectory() {
        expectLoadError(loaderBase.swapping("data/items.csv", "data"),
            .inputIsAFolder, at: "pipelines/test.yaml:12:18", kind: .io)
    }

    @Test func unknownTransform() {
        let error = expectLoadError(loaderBase.swapping("    load:\n", "    transform:\n      - trimm: all\n    load:\n"),
            .pipelineUnknownTransform, at: "pipelines/test.yaml:14:9")
        #expect(error?.message == "unknown transform 'trimm'; did you mean 'trim'? (transforms: trim, number, date, default, set, rename, split, map, uuid, template, file, keep, drop)")
    }

    @Test func transformOptionsAreCheckedAtLoad() {
        expectLoadError(loaderBase.swapping("    load:\n", "    transform:\n      - number: { field: [quantity] }\n    load:\n"),
            .pipelineUnknownKey, at: "pipelines/test.yaml:14:19")
    }

    @Test func duplicateSourceName() {
        let second = "  - name: items\n    read: { csv: data/items.csv }\n    load: { Unit: { name: unit } }\n"
        let error = expectLoadError(loaderBase + "\n" + second, .pipelineDuplicateName, at: "pipelines/test.yaml:15:11")
        #expect(error?.message == "there is already a source named 'items' (line 11); source names must be unique")
    }

    // MARK: Loads

    @Test func unknownEntityInLoad() {
        let error = expectLoadError(loaderBase.swapping("      Item: { name: name,", "      Iten: { name: name,"),
            .pipelineUnknownEntity, at: "pipelines/test.yaml:14:7")
        #expect(error?.message == "unknown entity 'Iten'; did you mean 'Item'? (entities: Unit, Item)")
    }

    @Test func unknownAttributeInLoad() {
        let error = expectLoadError(loaderBase.swapping("{ name: name, unit:", "{ name: name, quantty: qty, unit:"),
            .pipelineUnknownAttribute, at: "pipelines/test.yaml:14:27")
        #expect(error?.message == "entity 'Item' has no attribute 'quantty'; did you mean 'quantity'?")
    }

    @Test func unknownRelationshipInLoad() {
        expectLoadError(loaderBase.swapping("unit: { Unit: { name: unit } }", "units: { Unit: { name: unit } }"),
            .pipelineUnknownRelationship, at: "pipelines/test.yaml:14:27")
    }

    @Test func linkTargetWithoutUniqueKey() {
        let error = expectLoadError(loaderBase.swapping("  Unit: { unique: name, attributes", "  Unit: { attributes"),
            .pipelineNoUniqueKey, at: "pipelines/test.yaml:14:35")
        #expect(error?.message == "'Unit' has no unique key, so the record to link cannot be found: give 'Unit' one with 'unique:' under 'entities'")
    }

    @Test func linkMustSetTheTargetsKey() {
        let error = expectLoadError(loaderBase.swapping("  Unit: { unique: name, attributes: { name: string } }",
                              "  Unit: { unique: name, attributes: { name: string, symbol: string } }")
                        .swapping("{ Unit: { name: unit } }", "{ Unit: { symbol: unit } }"), .pipelineUniqueKeyNotLoaded, at: "pipelines/test.yaml:14:35")
        #expect(error?.message == "the link to 'Unit' must set its unique key: 'name' is missing")
    }

    @Test func linkTargetMustBeTheDestination() {
        let error = expectLoadError(loaderBase.swapping("{ Unit: { name: unit } }", "{ Item: { name: unit } }"),
            .pipelineWrongDestination, at: "pipelines/test.yaml:14:35")
        #expect(error?.message == "relationship 'Item.unit' leads to 'Unit', and 'Item' is not 'Unit' or one of its sub-entities")
    }

    @Test func abstractEntityLoaded() {
        let error = expectLoadError(loaderBase.swapping("  Item:\n    unique: name\n", """
              Thing: { abstract: true, unique: name, attributes: { name: string } }
              Item:
                parent: Thing

            """).swapping("{ name: string, quantity:", "{ quantity:").swapping("      Item: { name: name,", "      Thing: { name: name,"),
            .pipelineAbstractEntity, at: "pipelines/test.yaml:15:7")
        #expect(error?.message == "entity 'Thing' is abstract: load one of its sub-entities (Item)")
    }

    @Test func loadedEntityMustSetItsUniqueKey() {
        expectLoadError(loaderBase.swapping("      Item: { name: name,", "      Item: { quantity: qty,"),
            .pipelineUniqueKeyNotLoaded, at: "pipelines/test.yaml:14:7")
    }

    @Test func relationshipNeedsALink() {
        let error = expectLoadError(loaderBase.swapping("unit: { Unit: { name: unit } }", "unit: unit"),
            .pipelineWrongType, at: "pipelines/test.yaml:14:33")
        #expect(error?.message == #"relationship 'Item.unit' links a record found by its unique key: write '{ Unit: { name: field } }', found the value "unit""#)
    }

    @Test func subEntitiesInheritKeysAndAttributes() throws {
        let pipeline = try loadTestPipeline(loaderBase.swapping("  Item:\n", """
              Place: { abstract: true, unique: label, attributes: { label: string } }
              Shelf: { parent: Place, attributes: { height: int32 } }
              Item:

            """).swapping("{ unit: { to: Unit, inverse: items } }", "{ unit: { to: Unit, inverse: items }, place: Place }")
            .swapping("unit: { Unit: { name: unit } } }", "unit: { Unit: { name: unit } }, place: { Shelf: { label: shelf } } }"))
        let load = pipeline.sources[0].loads[0]
        #expect(load.links.map(\.target.entity) == ["Unit", "Shelf"])
        #expect(pipeline.model.uniqueKey(of: "Shelf") == ["label"])
        #expect(pipeline.model.allAttributes(of: "Shelf").map(\.name) == ["label", "height"])
    }

    // MARK: Files

    @Test func missingPipelineFile() {
        let file = URL(fileURLWithPath: "pipelines/nope.yaml", relativeTo: loaderSandbox)
        do {
            _ = try PipelineLoader.load(contentsOf: file, registry: loaderTestRegistry)
            Issue.record("a missing pipeline file loaded")
        } catch let error as PipelineError {
            #expect(error.code == .pipelineNotFound)
            #expect(error.location?.description == "pipelines/nope.yaml")
            #expect(error.kind == .io)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

/// Odd inputs fail with a pipeline error at a position; none crashes or loads.
@Suite struct PipelineLoaderOddInputTests {
    static let cases: [String] = [
        "version: 1\n",
        "just text",
        "[1, 2]",
        "~",
        loaderBase.swapping("version: 1", "version: [1]"),
        loaderBase.swapping("version: 1", "version: 1.0"),
        loaderBase.swapping("name: test", "name: \"\""),
        loaderBase.swapping("name: test", "name:"),
        loaderBase.swapping("store: { path: out.sqlite }", "store: { path: \"\" }"),
        loaderBase.swapping("store: { path: out.sqlite }", "store: out.sqlite"),
        loaderBase.swapping("store: { path: out.sqlite }", "store: { path: out.sqlite, metadata: { A: [1] } }"),
        loaderBase.swapping("store: { path: out.sqlite }", "store: { path: out.sqlite, metadata: [a] }"),
        loaderBase.swapping("store: { path: out.sqlite }", "store: { path: out.sqlite, layout: mysql }"),
        loaderBase.swapping("entities:\n", "entities: {}\nx:\n"),
        loaderBase.swapping("  Unit: {", "  [Unit]: {"),
        loaderBase.swapping("  Unit: {", "  Unit: ~\n  U2: {"),
        loaderBase.swapping("unique: name, attributes", "unique: [], attributes"),
        loaderBase.swapping("unique: name, attributes", "unique: [name, name], attributes"),
        loaderBase.swapping("unique: name, attributes", "unique: [[name]], attributes"),
        loaderBase.swapping("{ name: string } }", "{ name: ~ } }"),
        loaderBase.swapping("{ name: string } }", "{ name: [string] } }"),
        loaderBase.swapping("{ name: string } }", "{ name: { type: string, default: [] } } }"),
        loaderBase.swapping("{ name: string } }", "{ name: { type: string, indexed: maybe } } }"),
        loaderBase.swapping("{ name: string } }", "{ name: { default: x } } }"),
        loaderBase.swapping("{ name: string } }", "{ name: string, 9lives: int } }"),
        loaderBase.swapping("default: 1", "default: ~"),
        loaderBase.swapping("type: float, default: 1", "type: int16, default: 70000"),
        loaderBase.swapping("type: float, default: 1", "type: binary, default: abc"),
        loaderBase.swapping("{ unit: { to: Unit, inverse: items } }", "{ unit: ~ }"),
        loaderBase.swapping("{ unit: { to: Unit, inverse: items } }", "{ unit: { to: Unit, inverse: \"my items\" } }"),
        loaderBase.swapping("{ unit: { to: Unit, inverse: items } }", "{ name: Unit }"),
        loaderBase.swapping("{ unit: { to: Unit, inverse: items } }", "{ unit: { inverse: items } }"),
        loaderBase.swapping("  Item:\n", "  Item:\n    parent: Item\n"),
        loaderBase.swapping("sources:\n", "sources: []\nx:\n"),
        loaderBase.swapping("sources:\n", "sources:\n  - just a string\nx:\n"),
        loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, csv: other.csv }"),
        loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: ~ }"),
        loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: [data/items.csv] }"),
        loaderBase.swapping("read: { csv: data/items.csv }", "read: {}"),
        loaderBase.swapping("read: { csv: data/items.csv }", "read: csv"),
        loaderBase.swapping("    load:\n", "    transform: trim\n    load:\n"),
        loaderBase.swapping("    load:\n", "    transform:\n      - trim\n    load:\n"),
        loaderBase.swapping("    load:\n", "    transform:\n      - { trim: all, number: {} }\n    load:\n"),
        loaderBase.swapping("    load:\n", "    transform:\n      - number: { decimal: \",\" }\n    load:\n"),
        loaderBase.swapping("    load:\n      Item: { name: name, unit: { Unit: { name: unit } } }", "    load: {}"),
        loaderBase.swapping("    load:\n      Item: { name: name, unit: { Unit: { name: unit } } }", "    load: Item"),
        loaderBase.swapping("{ name: name, unit:", "{ name: ~, unit:"),
        loaderBase.swapping("{ name: name, unit:", "{ name: [a], unit:"),
        loaderBase.swapping("{ name: name, unit:", "{ [name]: name, unit:"),
        loaderBase.swapping("Item: { name: name, unit: { Unit: { name: unit } } }", "Item: {}"),
        loaderBase.swapping("Item: { name: name, unit: { Unit: { name: unit } } }", "Item: ~"),
        loaderBase.swapping("{ Unit: { name: unit } }", "{ Unit: { name: unit }, Item: { name: x } }"),
        loaderBase.swapping("{ Unit: { name: unit } }", "{ Nope: { name: unit } }"),
        loaderBase.swapping("{ Unit: { name: unit } }", "{ Unit: ~ }"),
        loaderBase.swapping("{ Unit: { name: unit } }", "{ Unit: { name: unit, unit: { Unit: { name: x } } } }"),
        loaderBase + "\nreport: { xlsx: \"\" }",
        loaderBase + "\nreport: { pdf: r.pdf }",
        loaderBase + "\n\u{1}",
        loaderBase + "\nextra: &a [*a]",
        loaderBase + "\nname: *undefined",
        loaderBase + "\n---\nversion: 1",
        "version: 1\n\tname: x\n",
        "version: \"unterminated\n",
    ]

    @Test(arguments: Array(cases.indices))
    func failsWithAPositionedError(index: Int) {
        guard let error = loadTestPipelineError(Self.cases[index]) else { return }
        #expect(error.kind == .invalidPipeline, "\(error)")
        #expect(error.location?.file == "pipelines/test.yaml", "\(error)")
        #expect(error.location?.line != nil, "\(error)")
        #expect(!error.message.isEmpty)
    }
}
