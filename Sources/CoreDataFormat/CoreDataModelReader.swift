import Foundation
import Diagnostics
import Pipeline
import PropertyLists
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads an app's Core Data model (`.xcdatamodeld` or `.xcdatamodel`) into a `StoreModel`.
///
/// ```swift
/// let model = try CoreDataModelReader.read(URL(fileURLWithPath: "Model/Grocery.xcdatamodeld"))
/// ```
/// Only the XML `contents` format (Xcode 4 and later) is read; nothing external is ever fetched.
/// Errors point into the `contents` file: `Grocery.xcdatamodel/contents:12:9: error: model: ...`.
public enum CoreDataModelReader {
    /// Reads a model folder: a versioned `.xcdatamodeld` (its current version), a single
    /// `.xcdatamodel`, or a `contents` file itself.
    public static func read(_ url: URL) throws -> StoreModel {
        let contents = try contentsURL(for: url)
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw PipelineError(.io, code: .modelCannotRead, at: Location(file: contents.path), stage: "model",
                                "cannot read the model file: \(SystemErrorWords.words(for: error))")
        }
        return try parse(data, file: contents.path)
    }

    /// Parses the XML of a `.xcdatamodel/contents` file; `file` is the path used in messages.
    public static func parse(_ data: Data, file: String) throws -> StoreModel {
        let parser = XMLParser(data: data)
        // The model format has no entities or DTDs; never resolve anything outside the file.
        parser.shouldResolveExternalEntities = false
        let builder = ModelXMLBuilder(file: file, parser: parser)
        parser.delegate = builder
        let ok = parser.parse()
        if let error = builder.error { throw error }
        // Foundation on Linux reports success after libxml2 recovered from an error: check both.
        guard ok, parser.parserError == nil else {
            throw PipelineError(.invalidPipeline, code: .modelMalformed,
                                at: Location(file: file, line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1)),
                                stage: "model", "the model file is not well-formed XML")
        }
        return try builder.finish()
    }

    /// The `contents` file of the model version to read.
    static func contentsURL(for url: URL) throws -> URL {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PipelineError(.io, code: .modelNotFound, at: Location(file: url.path), stage: "model", "no model at this path")
        }
        guard isDirectory.boolValue else { return url }
        switch url.pathExtension {
        case "xcdatamodel":
            return url.appendingPathComponent("contents")
        case "xcdatamodeld":
            return try currentVersion(in: url).appendingPathComponent("contents")
        default:
            throw PipelineError(.invalidPipeline, code: .modelNotAModel, at: Location(file: url.path), stage: "model",
                                "expected a .xcdatamodeld or .xcdatamodel folder")
        }
    }

    /// The version `.xccurrentversion` names, else the only version there is.
    static func currentVersion(in bundle: URL) throws -> URL {
        let marker = bundle.appendingPathComponent(".xccurrentversion")
        if let data = try? Data(contentsOf: marker) {
            if let overrun = data.withUnsafeBytes(PropertyListBudget.overrun(in:)) {
                throw PipelineError(.invalidPipeline, code: .plistOverBudget, at: Location(file: marker.path), stage: "model",
                                    "the binary property list \(overrun)")
            }
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil)
            guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String, !name.isEmpty else {
                throw PipelineError(.invalidPipeline, code: .modelNoCurrentVersion, at: Location(file: marker.path), stage: "model",
                                    "no _XCCurrentVersionName in this property list")
            }
            let version = bundle.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: version.appendingPathComponent("contents").path) else {
                throw PipelineError(.invalidPipeline, code: .modelMissingVersion, at: Location(file: marker.path), stage: "model",
                                    "the current version '\(name)' has no contents file in \(bundle.lastPathComponent)")
            }
            return version
        }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? [])
            .filter { $0.hasSuffix(".xcdatamodel") }.sorted()
        guard versions.count == 1, let only = versions.first else {
            throw PipelineError(.invalidPipeline, code: .modelNoCurrentVersion, at: Location(file: bundle.path), stage: "model",
                                versions.isEmpty ? "no .xcdatamodel version in this model"
                                : "\(versions.count) versions (\(versions.joined(separator: ", "))) and no .xccurrentversion naming the current one")
        }
        return bundle.appendingPathComponent(only)
    }

    /// The model file's attributeType strings.
    static let attributeTypes: [String: AttributeType] = [
        "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64,
        "Decimal": .decimal, "Double": .double, "Float": .float, "String": .string,
        "Boolean": .bool, "Date": .date, "Binary": .binary, "UUID": .uuid, "URI": .uri,
        "Transformable": .transformable,
    ]

    static let deleteRules: [String: Relationship.DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]
}

/// Collects entities from the parser's callbacks; the first error stops the parse.
private final class ModelXMLBuilder: NSObject, XMLParserDelegate {
    let file: String
    unowned let parser: XMLParser
    private(set) var error: PipelineError?

    private var versionIdentifiers: [String] = []
    private var entities: [Entity] = []
    private var entity: Entity?
    private var constraint: [String]?
    private var fetchIndex: FetchIndex?
    private var configurations: [ModelConfiguration] = []
    /// A `<configuration>` being read, until its end tag.
    private var configuration: ModelConfiguration?
    /// The `<compositeAttribute>`s being read, outermost first (a composite may hold composites):
    /// each composite's index in `compositeTree`, and what its user info says.
    private var openComposites: [(index: Int, isEnum: Bool, cases: [String]?)] = []
    /// An entity property's composites, outermost first, and their elements in document order by
    /// composite path; the elements are named once every composite's kind is known.
    private var compositeTree: (composites: [CompositeAttribute], elements: [(path: String, attribute: Attribute)]) = ([], [])

    init(file: String, parser: XMLParser) {
        self.file = file
        self.parser = parser
    }

    private var here: Location {
        Location(file: file, line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1))
    }

    private func fail(_ code: PipelineError.Code, _ message: String, at location: Location? = nil) {
        guard error == nil else { return }
        error = PipelineError(.invalidPipeline, code: code, at: location ?? here, stage: "model", message)
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        guard error == nil else { return }
        switch name {
        case "model":
            // Present (even empty) means one identifier; Core Data writes [""] for an empty one.
            if let identifier = attributes["userDefinedModelVersionIdentifier"] { versionIdentifiers = [identifier] }
        case "entity":
            guard let entityName = nonEmpty(attributes["name"], "an entity has no name") else { return }
            entity = Entity(name: entityName, parent: attributes["parentEntity"],
                            isAbstract: attributes["isAbstract"] == "YES", location: here,
                            versionHashModifier: attributes["versionHashModifier"])
        case "compositeAttribute" where entity != nil:
            guard let compositeName = nonEmpty(attributes["name"], "entity '\(entity?.name ?? "")': a composite attribute has no name")
            else { return }
            // Each level lengthens the names of the levels inside it: a bound keeps them short.
            guard openComposites.count < 16 else {
                return fail(.modelMalformed, "entity '\(entity?.name ?? "")': composite attributes nested more than 16 deep")
            }
            let path = openComposites.last.map { compositeTree.composites[$0.index].name + "." + compositeName } ?? compositeName
            openComposites.append((compositeTree.composites.count, false, nil))
            compositeTree.composites.append(CompositeAttribute(name: path, kind: .structure, isOptional: attributes["optional"] == "YES",
                                                               typeName: compositeName, defaultValue: attributes["defaultValueString"],
                                                               location: here))
        case "entry" where !openComposites.isEmpty:
            // SwiftData marks an enum's composite; an enum without raw values lists its cases.
            let open = openComposites.count - 1
            if attributes["key"] == "EnumType" { openComposites[open].isEnum = attributes["value"] == "true" }
            if attributes["key"] == "enum", let list = attributes["value"] {
                openComposites[open].cases = list.split(separator: ",").map {
                    $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]\" "))
                }
            }
        case "attribute" where entity != nil:
            startAttribute(attributes)
        case "relationship" where entity != nil:
            startRelationship(attributes)
        case "uniquenessConstraint" where entity != nil:
            constraint = []
        case "constraint" where constraint != nil:
            if let value = nonEmpty(attributes["value"], "a uniqueness constraint names no property") { constraint?.append(value) }
        case "fetchIndex" where entity != nil:
            guard let indexName = nonEmpty(attributes["name"], "a fetch index has no name") else { return }
            fetchIndex = FetchIndex(name: indexName, elements: [], location: here)
        case "configuration" where entity == nil:
            guard let configurationName = nonEmpty(attributes["name"], "a configuration has no name") else { return }
            configuration = ModelConfiguration(name: configurationName, entities: [], location: here)
        case "memberEntity" where configuration != nil:
            guard let member = nonEmpty(attributes["name"], "configuration '\(configuration?.name ?? "")': a memberEntity has no name")
            else { return }
            configuration?.entities.append(member)
        case "fetchIndexElement" where fetchIndex != nil:
            guard let property = nonEmpty(attributes["property"], "a fetch index element names no property") else { return }
            if let type = attributes["type"], type != "Binary" {
                // R-tree indexes need Core Data's own SQLite module; we cannot build them.
                return fail(.modelUnsupportedIndex, "fetch index '\(fetchIndex?.name ?? "")' uses a \(type) index element; only Binary is supported")
            }
            fetchIndex?.elements.append(.init(property: property, isAscending: attributes["order"] != "descending"))
        default:
            break
        }
    }

    /// The location says where; error codes differ between platforms, so they are not shown.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        fail(.modelMalformed, "the model file is not well-formed XML")
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard error == nil else { return }
        switch name {
        case "entity":
            if let entity { entities.append(entity) }
            entity = nil
        case "compositeAttribute":
            guard let (index, isEnum, cases) = openComposites.popLast() else { return }
            if isEnum, let cases {
                compositeTree.composites[index].kind = .caseName(cases: cases)
            } else if isEnum {
                compositeTree.composites[index].kind = .rawValue(cases: [])
            }
            guard openComposites.isEmpty else { return }
            // An enum with raw values has one element, named as the property (or path) it is.
            let kinds = Dictionary(compositeTree.composites.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
            for (path, var element) in compositeTree.elements {
                let elementName = element.name
                element.name = kinds[path] == .rawValue(cases: []) ? path : path + "." + elementName
                element.composite = CompositePart(composite: path, element: elementName)
                entity?.attributes.append(element)
            }
            entity?.composites += compositeTree.composites
            compositeTree = ([], [])
        case "uniquenessConstraint":
            if let constraint, !constraint.isEmpty { entity?.uniquenessConstraints.append(constraint) }
            constraint = nil
        case "fetchIndex":
            if let fetchIndex { entity?.fetchIndexes.append(fetchIndex) }
            fetchIndex = nil
        case "configuration":
            if let configuration { configurations.append(configuration) }
            configuration = nil
        default:
            break
        }
    }

    private func nonEmpty(_ value: String?, _ message: String) -> String? {
        guard let value, !value.isEmpty else {
            fail(.modelMissingValue, message)
            return nil
        }
        return value
    }

    private func startAttribute(_ xml: [String: String]) {
        let owner = entity?.name ?? ""
        guard let name = nonEmpty(xml["name"], "entity '\(owner)': an attribute has no name") else { return }
        let isTransient = xml["transient"] == "YES"
        let typeName = xml["attributeType"] ?? ""
        // A transient attribute has neither column nor hash. One of a type pipectl stores nothing of
        // (Undefined, which Xcode writes as no attributeType at all; Object ID) has nothing to keep.
        if isTransient && CoreDataModelReader.attributeTypes[typeName] == nil { return }
        guard let type = CoreDataModelReader.attributeTypes[typeName] else {
            let known = CoreDataModelReader.attributeTypes.keys.sorted().joined(separator: ", ")
            return fail(.modelUnknownType, "attribute '\(owner).\(name)' has an unknown attributeType \"\(typeName)\" (expected one of: \(known))")
        }
        let location = here
        var attribute = Attribute(
            name: name, type: type, isOptional: xml["optional"] == "YES", isIndexed: xml["indexed"] == "YES",
            location: location, isTransient: isTransient,
            allowsExternalBinaryDataStorage: xml["allowsExternalBinaryDataStorage"] == "YES",
            preservesValueInHistoryOnDeletion: xml["preserveAfterDeletion"] == "YES",
            versionHashModifier: xml["versionHashModifier"],
            derivationExpression: xml["derived"] == "YES" ? xml["derivationExpression"] : nil)

        if type == .date, let interval = xml["defaultDateTimeInterval"] {
            guard let seconds = Double(interval) else {
                return fail(.modelInvalidDefault, "attribute '\(owner).\(name)': defaultDateTimeInterval \"\(interval)\" is not a number")
            }
            attribute.defaultValue = .date(seconds)
        } else if type == .transformable, xml["customClassName"]?.hasPrefix("[") == true, xml["defaultValueString"] == "[]" {
            attribute.defaultValue = .binary(KeyedArchive.archive(json: Array("[]".utf8)))
        } else if let text = xml["defaultValueString"] {
            switch type.convertDefault(.text(text)) {
            case .success(let value): attribute.defaultValue = value
            case .failure(let failure):
                return fail(.modelInvalidDefault, "attribute '\(owner).\(name)': default value \"\(text)\" is \(failure.reason)")
            }
        }
        attribute.validation = validation(xml, type: type, owner: owner, name: name)
        // `[String]`: a SwiftData array property, as `pipectl model --xml` writes it.
        if type == .transformable, let custom = xml["customClassName"], custom.hasPrefix("["), custom.hasSuffix("]") {
            let element = String(custom.dropFirst().dropLast())
            attribute.arrayElement = AttributeType.allCases.first { CoreDataModelWriter.arrayElementName($0) == element } ?? .transformable
        }
        if let open = openComposites.last {
            compositeTree.elements.append((compositeTree.composites[open.index].name, attribute))
        } else {
            entity?.attributes.append(attribute)
        }
    }

    /// Min/max mean lengths for strings and binary data, values for numbers and dates.
    private func validation(_ xml: [String: String], type: AttributeType, owner: String, name: String) -> AttributeValidation {
        var rules = AttributeValidation(regularExpression: xml["regularExpressionString"])
        switch type {
        case .string, .binary, .transformable, .uri:
            rules.minLength = xml["minValueString"].flatMap { Int($0) }
            rules.maxLength = xml["maxValueString"].flatMap { Int($0) }
        case .date:
            rules.minValue = xml["minDateTimeInterval"].flatMap(Double.init).map(Value.date)
            rules.maxValue = xml["maxDateTimeInterval"].flatMap(Double.init).map(Value.date)
        default:
            for (key, isMin) in [("minValueString", true), ("maxValueString", false)] {
                guard let text = xml[key] else { continue }
                guard case .success(let value) = type.convert(.text(text)), value != .null else {
                    fail(.modelInvalidValidation, "attribute '\(owner).\(name)': \(key) \"\(text)\" is not a \(type.rawValue) value")
                    return rules
                }
                if isMin { rules.minValue = value } else { rules.maxValue = value }
            }
        }
        return rules
    }

    private func startRelationship(_ xml: [String: String]) {
        let owner = entity?.name ?? ""
        guard let name = nonEmpty(xml["name"], "entity '\(owner)': a relationship has no name"),
              let destination = nonEmpty(xml["destinationEntity"], "relationship '\(owner).\(name)' has no destinationEntity")
        else { return }
        let isToMany = xml["toMany"] == "YES"
        var counts: [Int?] = []
        for key in ["minCount", "maxCount"] {
            guard let text = xml[key] else { counts.append(nil); continue }
            guard let count = Int(text), count >= 0 else {
                return fail(.modelInvalidCount, "relationship '\(owner).\(name)': \(key) \"\(text)\" is not a count")
            }
            counts.append(count)
        }
        var rule = Relationship.DeleteRule.nullify
        if let text = xml["deletionRule"] {
            guard let known = CoreDataModelReader.deleteRules[text] else {
                return fail(.modelUnknownDeleteRule, "relationship '\(owner).\(name)' has an unknown deletionRule \"\(text)\"")
            }
            rule = known
        }
        entity?.relationships.append(Relationship(
            name: name, destination: destination, inverse: xml["inverseName"], isToMany: isToMany,
            isOrdered: xml["ordered"] == "YES", isOptional: xml["optional"] == "YES", location: here,
            minCount: counts[0] ?? 0,
            // A to-one holds at most one object whatever the file says; a to-many without maxCount is unbounded.
            maxCount: isToMany ? (counts[1] ?? 0) : 1,
            deleteRule: rule, versionHashModifier: xml["versionHashModifier"], isTransient: xml["transient"] == "YES"))
    }

    /// Checks what refers to other entities once all are known.
    func finish() throws -> StoreModel {
        var model = StoreModel(entities: entities, versionIdentifiers: versionIdentifiers)
        model.configurations = configurations
        var seen = Set<String>()
        for entity in entities {
            guard seen.insert(entity.name).inserted else {
                throw located(entity.location, .modelDuplicateEntity, "entity '\(entity.name)' is declared twice")
            }
            if let parent = entity.parent {
                guard model[parent] != nil else {
                    throw located(entity.location, .modelUnknownEntity, "entity '\(entity.name)' has an unknown parentEntity '\(parent)'")
                }
                if model.lineage(of: entity.name).first?.parent != nil {
                    throw located(entity.location, .modelInheritanceCycle, "entity '\(entity.name)' inherits from itself through '\(parent)'")
                }
            }
            for relationship in entity.relationships {
                let label = "relationship '\(entity.name).\(relationship.name)'"
                guard let destination = model[relationship.destination] else {
                    throw located(relationship.location, .modelUnknownEntity, "\(label) leads to an unknown entity '\(relationship.destination)'")
                }
                if let inverse = relationship.inverse,
                   !model.allRelationships(of: destination.name).contains(where: { $0.name == inverse }) {
                    throw located(relationship.location, .modelUnknownInverse,
                                  "\(label): its inverse '\(inverse)' is not a relationship of '\(destination.name)'")
                }
            }
        }
        var configurationNames = Set<String>()
        for configuration in configurations {
            guard configurationNames.insert(configuration.name).inserted else {
                throw located(configuration.location, .modelDuplicateConfiguration, "configuration '\(configuration.name)' is declared twice")
            }
            for member in configuration.entities where model[member] == nil {
                throw located(configuration.location, .modelUnknownEntity,
                              "configuration '\(configuration.name)' lists an unknown entity '\(member)'"
                                  + Suggestion.hint(for: member, in: entities.map(\.name)))
            }
        }
        return model
    }

    private func located(_ location: Location?, _ code: PipelineError.Code, _ message: String) -> PipelineError {
        PipelineError(.invalidPipeline, code: code, at: location ?? Location(file: file), stage: "model", message)
    }
}
