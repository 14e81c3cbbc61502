import Foundation
import Diagnostics
import Testing
@testable import PipelineFile
import Pipeline
import SourcesCSV
import SourcesJSON
import SourcesXML
import Transforms

/// Whole messages, with `file:line:col`, the source line and the caret, for each kind of mistake.
@Suite struct PipelineLoaderErrorTests {
    // MARK: YAML

    @Test func yamlSyntaxError() {
        expectLoadError(loaderBase.swapping("  Item:\n", "  Item\n"), """
            pipelines/test.yaml:7:11: error: pipeline: invalid YAML: could not find expected ':' (while scanning a simple key at line 6, column 3)
                unique: name
                      ^
            """)
    }

    @Test func duplicateKeyInABlockMapping() {
        expectLoadError(loaderBase.swapping("name: test\n", "name: test\nversion: 1\n"), """
            pipelines/test.yaml:3:1: error: pipeline: duplicate key 'version' in this mapping; the first one is on line 1
            version: 1
            ^
            """)
    }

    @Test func duplicateKeyInAFlowMapping() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, header: true, header: false }"), """
            pipelines/test.yaml:12:48: error: pipeline: duplicate key 'header' in this mapping; the first one is on line 12
                read: { csv: data/items.csv, header: true, header: false }
                                                           ^
            """)
    }

    @Test func duplicateKeyThreeTimesPointsAtTheSecond() {
        expectLoadError(loaderBase.swapping("name: test\n", "name: test\nname: again\nname: thrice\n"), """
            pipelines/test.yaml:3:1: error: pipeline: duplicate key 'name' in this mapping; the first one is on line 2
            name: again
            ^
            """)
    }

    @Test func keysEqualAsTextButNotAsYAMLAreDuplicates() {
        expectLoadError(loaderBase.swapping("attributes: { name: string,", "attributes: { 1: string, \"1\": int, name: string,"), """
            pipelines/test.yaml:8:30: error: pipeline: duplicate key '1' in this mapping; the first one is on line 8
                attributes: { 1: string, "1": int, name: string, quantity: { type: float, default: 1 } }
                                         ^
            """)
    }

    @Test func secondDocument() {
        expectLoadError(loaderBase + "\n---\nversion: 1", """
            pipelines/test.yaml:15:1: error: pipeline: a pipeline file holds one YAML document, but another one starts here
            ---
            ^
            """)
    }

    @Test func emptyFile() {
        expectLoadError("# nothing here\n", "pipelines/test.yaml:1:1: error: pipeline: the pipeline file is empty")
    }

    @Test func topLevelMustBeAMapping() {
        expectLoadError("- a\n- b\n", """
            pipelines/test.yaml:1:1: error: pipeline: 'pipeline' expects a mapping of options, found a list
            - a
            ^
            """)
    }

    // MARK: Top level

    @Test func unknownTopLevelKeyWithSuggestion() {
        expectLoadError(loaderBase + "\nreprot: { json: r.json }", """
            pipelines/test.yaml:15:1: error: pipeline: unknown key 'reprot' in 'pipeline'; did you mean 'report'? \
            (known keys: version, name, store, entities, sources, report, checks, on_reject, allow_empty)
            reprot: { json: r.json }
            ^
            """)
    }

    @Test func missingRequiredKey() {
        expectLoadError(loaderBase.swapping("name: test\n", ""), """
            pipelines/test.yaml:1:1: error: pipeline: 'pipeline' needs the key 'name' (The pipeline's name, shown in the report.)
            version: 1
            ^
            """)
    }

    @Test func versionTwo() {
        expectLoadError(loaderBase.swapping("version: 1", "version: 2"), """
            pipelines/test.yaml:1:10: error: pipeline: unsupported format version 2; this pipectl reads version 1
            version: 2
                     ^
            """)
    }

    @Test func sourcesMustBeAList() {
        expectLoadError(loaderBase.swapping("sources:\n", "sources: foo\nsources_: \n").components(separatedBy: "sources_:")[0], """
            pipelines/test.yaml:10:10: error: pipeline: 'sources' expects a list of sources, found the value "foo"
            sources: foo
                     ^
            """)
    }

    @Test func onRejectValue() {
        expectLoadError(loaderBase + "\non_reject: stop", """
            pipelines/test.yaml:15:12: error: pipeline: 'on_reject' must be one of 'continue', 'fail', not 'stop'
            on_reject: stop
                       ^
            """)
    }

    // MARK: Store

    @Test func missingModelFile() {
        guard let error = loadTestPipelineError(loaderBase.swapping("store: { path: out.sqlite }", "store: { path: out.sqlite, model: App.xcdatamodeld }")) else { return }
        #expect(error.kind == .io)
        #expect(error.location?.description == "pipelines/test.yaml:3:35")
        #expect(error.message.hasPrefix("no such model: "))
        #expect(error.message.hasSuffix("/pipelines/App.xcdatamodeld"))
    }

    @Test func entityKeysAreChecked() {
        expectLoadError(loaderBase.swapping("    unique: name", "    uniqe: name"), """
            pipelines/test.yaml:7:5: error: pipeline: unknown key 'uniqe' in 'Item'; did you mean 'unique'? \
            (known keys: unique, parent, abstract, attributes, relationships)
                uniqe: name
                ^
            """)
    }

    @Test func entitiesAreRequired() {
        let yaml = loaderBase.components(separatedBy: "entities:")[0] + "sources:" + loaderBase.components(separatedBy: "sources:")[1]
        expectLoadError(yaml, """
            pipelines/test.yaml:1:1: error: pipeline: the pipeline declares no entities: add an 'entities:' section or name the app's model in 'store.model'
            version: 1
            ^
            """)
    }

    // MARK: Sources

    @Test func misspelledReadOption() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, delimter: \";\" }"), """
            pipelines/test.yaml:12:34: error: pipeline: unknown key 'delimter' in 'read'; did you mean 'delimiter'? \
            (known keys: encoding, delimiter, header, columns)
                read: { csv: data/items.csv, delimter: ";" }
                                             ^
            """)
    }

    @Test func wrongReadOptionValue() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, header: maybe }"), """
            pipelines/test.yaml:12:42: error: pipeline: 'header' expects true or false, found the value "maybe"
                read: { csv: data/items.csv, header: maybe }
                                                     ^
            """)
    }

    @Test func readerValidationRuns() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { csv: data/items.csv, header: false }"), """
            pipelines/test.yaml:12:42: error: pipeline: header: false needs 'columns' to name the fields, e.g. columns: [name, quantity, unit]
                read: { csv: data/items.csv, header: false }
                                                     ^
            """)
    }

    @Test func unknownReaderFormat() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { cvsv: data/items.csv }"), """
            pipelines/test.yaml:12:13: error: pipeline: unknown reader format 'cvsv'; did you mean 'csv'? (formats: csv, xml, json, jsonl, plist, xlsx)
                read: { cvsv: data/items.csv }
                        ^
            """)
    }

    @Test func readWithoutFormat() {
        expectLoadError(loaderBase.swapping("read: { csv: data/items.csv }", "read: { header: true }"), """
            pipelines/test.yaml:12:11: error: pipeline: 'read' needs a key naming the format and the input file, \
            e.g. 'csv: data/items.csv' (formats: csv, xml, json, jsonl, plist, xlsx)
                read: { header: true }
                      ^
            """)
    }

    @Test func missingInputFile() {
        let missing = loaderSandbox.appendingPathComponent("pipelines/data/missing.csv").standardizedFileURL.path
        expectLoadError(loaderBase.swapping("data/items.csv", "data/missing.csv"), """
            pipelines/test.yaml:12:18: error: pipeline: no such file: \(missing)
                read: { csv: data/missing.csv }
                             ^
            """, kind: .io)
    }

    @Test func inputIsADirectory() {
        let folder = loaderSandbox.appendingPathComponent("pipelines/data").standardizedFileURL.path
        expectLoadError(loaderBase.swapping("data/items.csv", "data"), """
            pipelines/test.yaml:12:18: error: pipeline: \(folder) is a directory, not an input file
                read: { csv: data }
                             ^
            """, kind: .io)
    }

    @Test func unknownTransform() {
        expectLoadError(loaderBase.swapping("    load:\n", "    transform:\n      - trimm: all\n    load:\n"), """
            pipelines/test.yaml:14:9: error: pipeline: unknown transform 'trimm'; did you mean 'trim'? (transforms: trim, number, date, default, set, rename, split, map, uuid, template, keep, drop)
                  - trimm: all
                    ^
            """)
    }

    @Test func transformOptionsAreCheckedAtLoad() {
        expectLoadError(loaderBase.swapping("    load:\n", "    transform:\n      - number: { field: [quantity] }\n    load:\n"), """
            pipelines/test.yaml:14:19: error: pipeline: unknown key 'field' in 'number'; did you mean 'fields'? \
            (known keys: fields, decimal, grouping)
                  - number: { field: [quantity] }
                              ^
            """)
    }

    @Test func duplicateSourceName() {
        let second = "  - name: items\n    read: { csv: data/items.csv }\n    load: { Unit: { name: unit } }\n"
        expectLoadError(loaderBase + "\n" + second, """
            pipelines/test.yaml:15:11: error: pipeline: there is already a source named 'items' (line 11); source names must be unique
              - name: items
                      ^
            """)
    }

    // MARK: Loads

    @Test func unknownEntityInLoad() {
        expectLoadError(loaderBase.swapping("      Item: { name: name,", "      Iten: { name: name,"), """
            pipelines/test.yaml:14:7: error: pipeline: unknown entity 'Iten'; did you mean 'Item'? (entities: Unit, Item)
                  Iten: { name: name, unit: { Unit: { name: unit } } }
                  ^
            """)
    }

    @Test func unknownAttributeInLoad() {
        expectLoadError(loaderBase.swapping("{ name: name, unit:", "{ name: name, quantty: qty, unit:"), """
            pipelines/test.yaml:14:27: error: pipeline: entity 'Item' has no attribute 'quantty'; did you mean 'quantity'?
                  Item: { name: name, quantty: qty, unit: { Unit: { name: unit } } }
                                      ^
            """)
    }

    @Test func unknownRelationshipInLoad() {
        expectLoadError(loaderBase.swapping("unit: { Unit: { name: unit } }", "units: { Unit: { name: unit } }"), """
            pipelines/test.yaml:14:27: error: pipeline: entity 'Item' has no relationship 'units'; did you mean 'unit'?
                  Item: { name: name, units: { Unit: { name: unit } } }
                                      ^
            """)
    }

    @Test func linkTargetWithoutUniqueKey() {
        expectLoadError(loaderBase.swapping("  Unit: { unique: name, attributes", "  Unit: { attributes"), """
            pipelines/test.yaml:14:35: error: pipeline: 'Unit' has no unique key, so the record to link cannot be found: \
            give 'Unit' one with 'unique:' under 'entities'
                  Item: { name: name, unit: { Unit: { name: unit } } }
                                              ^
            """)
    }

    @Test func linkMustSetTheTargetsKey() {
        expectLoadError(loaderBase.swapping("  Unit: { unique: name, attributes: { name: string } }",
                              "  Unit: { unique: name, attributes: { name: string, symbol: string } }")
                        .swapping("{ Unit: { name: unit } }", "{ Unit: { symbol: unit } }"), """
            pipelines/test.yaml:14:35: error: pipeline: the link to 'Unit' must set its unique key: 'name' is missing
                  Item: { name: name, unit: { Unit: { symbol: unit } } }
                                              ^
            """)
    }

    @Test func linkTargetMustBeTheDestination() {
        expectLoadError(loaderBase.swapping("{ Unit: { name: unit } }", "{ Item: { name: unit } }"), """
            pipelines/test.yaml:14:35: error: pipeline: relationship 'Item.unit' leads to 'Unit', and 'Item' is not 'Unit' \
            or one of its sub-entities
                  Item: { name: name, unit: { Item: { name: unit } } }
                                              ^
            """)
    }

    @Test func abstractEntityLoaded() {
        expectLoadError(loaderBase.swapping("  Item:\n    unique: name\n", """
              Thing: { abstract: true, unique: name, attributes: { name: string } }
              Item:
                parent: Thing

            """).swapping("{ name: string, quantity:", "{ quantity:").swapping("      Item: { name: name,", "      Thing: { name: name,"), """
            pipelines/test.yaml:15:7: error: pipeline: entity 'Thing' is abstract: load one of its sub-entities (Item)
                  Thing: { name: name, unit: { Unit: { name: unit } } }
                  ^
            """)
    }

    @Test func loadedEntityMustSetItsUniqueKey() {
        expectLoadError(loaderBase.swapping("      Item: { name: name,", "      Item: { quantity: qty,"), """
            pipelines/test.yaml:14:7: error: pipeline: loading 'Item' must set its unique key: 'name' is missing
                  Item: { quantity: qty, unit: { Unit: { name: unit } } }
                  ^
            """)
    }

    @Test func relationshipNeedsALink() {
        expectLoadError(loaderBase.swapping("unit: { Unit: { name: unit } }", "unit: unit"), """
            pipelines/test.yaml:14:33: error: pipeline: relationship 'Item.unit' links a record found by its unique key: \
            write '{ Unit: { name: field } }', found the value "unit"
                  Item: { name: name, unit: unit }
                                            ^
            """)
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
            #expect(error.description == "pipelines/nope.yaml: error: pipeline: no such file")
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
