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
        try read([url])
    }

    /// The model of every `@Model` class in `urls`, `.swift` files and folders, read as one
    /// source (a class may use a type another file declares).
    public static func read(_ urls: [URL]) throws -> StoreModel {
        var files: [URL] = []
        for url in urls {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                throw PipelineError(.io, code: .modelNotFound, at: Location(file: url.path), stage: "model", "no such Swift source")
            }
            guard isFolder.boolValue else {
                files.append(url)
                continue
            }
            let found = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            files += found.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
        }
        var sources: [(text: String, file: String)] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw PipelineError(.io, code: .modelCannotRead, at: Location(file: file.path), stage: "model", "cannot read the Swift source")
            }
            sources.append((String(decoding: data, as: UTF8.self), file.path))
        }
        return try parse(sources)
    }

    /// The model of the `@Model` classes in `sources` (text and the file name for messages).
    public static func parse(_ sources: [(text: String, file: String)]) throws -> StoreModel {
        var classes: [ModelClass] = []
        var valueTypes: [String: ValueType] = [:]
        var schemas: [VersionedSchemaDeclaration] = []
        for (text, file) in sources {
            let tree = Parser.parse(source: text)
            let converter = SourceLocationConverter(fileName: file, tree: tree)
            let finder = ModelClassFinder(converter: converter, file: file)
            finder.walk(tree)
            classes += finder.classes
            schemas += finder.schemas
            // The first declaration of a name wins: types are found by their name alone.
            for (name, type) in finder.valueTypes where valueTypes[name] == nil { valueTypes[name] = type }
        }
        guard !classes.isEmpty else {
            throw PipelineError(.invalidPipeline, code: .modelNoModelClass, at: Location(file: sources.first?.file ?? ""), stage: "model",
                                "no @Model class in the Swift source")
        }
        var version = [1, 0, 0]
        // With versioned schemas, the model is the newest version's classes.
        if let newest = schemas.max(by: { $0.version.lexicographicallyPrecedes($1.version) }) {
            version = newest.version
            classes = try listed(in: newest, from: classes)
        }
        return try Translation(classes: classes, valueTypes: valueTypes).model(version: version)
    }

    /// The classes a `VersionedSchema` lists: those declared in it, else those declared outside any.
    private static func listed(in schema: VersionedSchemaDeclaration, from classes: [ModelClass]) throws -> [ModelClass] {
        guard !schema.models.isEmpty else {
            throw PipelineError(.invalidPipeline, code: .modelUnreadableSchemaModels, at: schema.location, stage: "model",
                                "\(schema.name): pipectl cannot tell which classes its 'models' lists; write them as [Recipe.self, Tag.self]")
        }
        return try schema.models.map { name in
            if let own = classes.first(where: { $0.name == name && $0.schema == schema.name }) { return own }
            if let outside = classes.first(where: { $0.name == name && $0.schema == nil }) { return outside }
            throw PipelineError(.invalidPipeline, code: .modelUnknownSchemaModel, at: schema.location, stage: "model",
                                "\(schema.name) lists '\(name)', which is no @Model class of the source")
        }
    }
}
