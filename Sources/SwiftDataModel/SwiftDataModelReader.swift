import Foundation
import Diagnostics
import Pipeline
import SwiftParser
import SwiftSyntax

/// A SwiftData app's model read from its Swift source: each `@Model` class becomes an entity as
/// SwiftData translates it, so that the store pipectl writes has the hashes SwiftData computes.
///
/// ```swift
/// let model = try SwiftDataModelReader.read(URL(fileURLWithPath: "Sources/Models"))  // a folder or a .swift file
/// ```
///
/// The rules, confirmed where a real SwiftData store's hashes say so (docs/coredata.md, "SwiftData"):
/// - An entity per `@Model` class, named as the class; its stored `var` and `let` properties
///   (computed ones, `static` ones and `@Transient` ones are left out).
/// - A property's type, written or taken from its initial value (`= "1"` is a String, `= UUID()`
///   a UUID): `Int`/`Int64` Integer 64, `Int32`, `Int16`, `Double`, `Float`, `Bool`, `String`,
///   `Date`, `Data` Binary, `UUID`, `URL` URI, `Decimal`; optional only when the type is `T?`.
/// - A property of a `@Model` type is a to-one, an array of one a to-many (`[T]` not optional
///   unless `[T]?`, no minimum or maximum). `@Relationship(inverse: \T.p)` pairs two; otherwise two
///   relationships between the same two entities pair up when each side has exactly one toward the
///   other, and a relationship without such a partner has no inverse.
/// - `@Attribute(.unique)` and `#Unique<T>([\.a, \.b])` are uniqueness constraints,
///   `.externalStorage` and `.preserveValueOnDeletion` the attribute flags, `hashModifier:` the
///   version hash modifier.
/// A type pipectl cannot translate yet (Codable structs, enums, arrays of values) is an error at
/// the property.
public enum SwiftDataModelReader {
    /// The model of every `@Model` class in `url`: a `.swift` file, or a folder searched for them.
    public static func read(_ url: URL) throws -> StoreModel {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw PipelineError(.io, at: Location(file: url.path), stage: "model", "no such Swift source")
        }
        var files: [URL] = [url]
        if isFolder.boolValue {
            let found = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            files = found.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
        }
        var sources: [(text: String, file: String)] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw PipelineError(.io, at: Location(file: file.path), stage: "model", "cannot read the Swift source")
            }
            sources.append((String(decoding: data, as: UTF8.self), file.path))
        }
        return try parse(sources)
    }

    /// The model of the `@Model` classes in `sources` (text and the file name for messages).
    public static func parse(_ sources: [(text: String, file: String)]) throws -> StoreModel {
        var classes: [ModelClass] = []
        for (text, file) in sources {
            let tree = Parser.parse(source: text)
            let converter = SourceLocationConverter(fileName: file, tree: tree)
            let finder = ModelClassFinder(converter: converter, file: file)
            finder.walk(tree)
            classes += finder.classes
        }
        guard !classes.isEmpty else {
            throw PipelineError(.invalidPipeline, at: Location(file: sources.first?.file ?? ""), stage: "model",
                                "no @Model class in the Swift source")
        }
        return try translate(classes)
    }

    // MARK: Translation

    private static func translate(_ classes: [ModelClass]) throws -> StoreModel {
        let names = Set(classes.map(\.name))
        var entities: [Entity] = []
        var relationships: [String: [Relationship]] = [:]
        for model in classes {
            var attributes: [Attribute] = []
            var constraints = model.uniqueConstraints
            for property in model.properties {
                let type = property.type
                if let target = type.modelName(in: names) {
                    var relationship = Relationship(name: property.name, destination: target, inverse: property.inverse,
                                                    isToMany: type.isArray, isOptional: type.isOptional,
                                                    location: property.location, deleteRule: property.deleteRule)
                    if let min = property.minCount { relationship.minCount = min }
                    if let max = property.maxCount { relationship.maxCount = max }
                    relationships[model.name, default: []].append(relationship)
                    continue
                }
                guard !type.base.isEmpty else {
                    throw PipelineError(.invalidPipeline, at: property.location, stage: "model",
                                        "\(model.name).\(property.name): write its type (`var \(property.name): String`); "
                                            + "pipectl cannot tell it from its initial value")
                }
                guard !type.isArray, let attributeType = type.attributeType else {
                    throw PipelineError(.invalidPipeline, at: property.location, stage: "model",
                                        "\(model.name).\(property.name): pipectl cannot translate the type '\(type.written)' yet "
                                            + "(it reads Int, Int64, Int32, Int16, Double, Float, Bool, String, Date, Data, UUID, URL, "
                                            + "Decimal, their optionals, and @Model classes and arrays of them)")
                }
                if property.isUnique { constraints.append([property.name]) }
                attributes.append(Attribute(name: property.name, type: attributeType, isOptional: type.isOptional,
                                            defaultValue: property.defaultValue, location: property.location,
                                            allowsExternalBinaryDataStorage: property.externalStorage,
                                            preservesValueInHistoryOnDeletion: property.preserveOnDeletion,
                                            versionHashModifier: property.hashModifier))
            }
            entities.append(Entity(name: model.name, attributes: attributes, relationships: [], uniqueKey: [],
                                   location: model.location, uniquenessConstraints: constraints))
        }
        // Inverses: declared on one side, or the only relationship each side has toward the other.
        for entity in entities {
            for index in relationships[entity.name, default: []].indices {
                let relationship = relationships[entity.name]![index]
                if let inverse = relationship.inverse {
                    guard let other = relationships[relationship.destination]?.firstIndex(where: { $0.name == inverse }) else {
                        throw PipelineError(.invalidPipeline, at: relationship.location, stage: "model",
                                            "\(entity.name).\(relationship.name): its inverse '\(inverse)' is no relationship of '\(relationship.destination)'")
                    }
                    relationships[relationship.destination]![other].inverse = relationship.name
                    continue
                }
                let toward = relationships[entity.name]!.filter { $0.destination == relationship.destination }
                let back = relationships[relationship.destination, default: []].filter { $0.destination == entity.name }
                if toward.count == 1, back.count == 1, back[0].inverse == nil || back[0].inverse == relationship.name,
                   !(entity.name == relationship.destination && back[0].name == relationship.name) {
                    relationships[entity.name]![index].inverse = back[0].name
                }
            }
        }
        entities = entities.map { entity in
            var entity = entity
            entity.relationships = relationships[entity.name] ?? []
            return entity
        }
        // SwiftData's Schema.Version, 1.0.0 unless a VersionedSchema says otherwise (both real
        // SwiftData stores of the cases have it).
        return StoreModel(entities: entities, versionIdentifiers: ["1.0.0"])
    }
}
