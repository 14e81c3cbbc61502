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
    public static func read(_ url: URL, schema: String? = nil) throws -> StoreModel {
        try read([url], schema: schema)
    }

    /// The model of every `@Model` class in `urls`, `.swift` files and folders, read as one
    /// source (a class may use a type another file declares); `schema` names the VersionedSchema
    /// to read where not the current one.
    public static func read(_ urls: [URL], schema: String? = nil) throws -> StoreModel {
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
            // The enumerator lists nothing under a link to a folder: it is given the folder the
            // link names, and the files are named under the path as the user gave it.
            let folder = url.resolvingSymlinksInPath()
            let prefix = folder.path.hasSuffix("/") ? folder.path : folder.path + "/"
            let found = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            let sources = found.filter { $0.pathExtension == "swift" }.map { file in
                file.path.hasPrefix(prefix) ? url.appendingPathComponent(String(file.path.dropFirst(prefix.count))) : file
            }
            guard !sources.isEmpty else {
                throw PipelineError(.invalidPipeline, code: .modelNoModelClass, at: Location(file: url.path), stage: "model",
                                    "no @Model class: the folder holds no .swift file")
            }
            files += sources.sorted { $0.path < $1.path }
        }
        var sources: [(text: String, file: String)] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw PipelineError(.io, code: .modelCannotRead, at: Location(file: file.path), stage: "model", "cannot read the Swift source")
            }
            sources.append((String(decoding: data, as: UTF8.self), file.path))
        }
        return try parse(sources, schema: schema)
    }

    /// The model of the `@Model` classes in `sources` (text and the file name for messages).
    public static func parse(_ sources: [(text: String, file: String)], schema requested: String? = nil) throws -> StoreModel {
        var classes: [ModelClass] = []
        var valueTypes: [String: ValueType] = [:]
        var schemas: [VersionedSchemaDeclaration] = []
        var schemaParts: [VersionedSchemaDeclaration] = []
        var lists: [ModelTypeList] = []
        var aliases: [TypeAlias] = []
        for (text, file) in sources {
            // Before SwiftParser, whose time doubles with each `[` and whose trees overflow the stack.
            if let tooDeep = SwiftSourceBudget.check(text, file: file) { throw tooDeep }
            let tree = Parser.parse(source: text)
            let converter = SourceLocationConverter(fileName: file, tree: tree)
            let finder = ModelClassFinder(converter: converter, file: file)
            finder.walk(tree)
            classes += finder.classes
            schemas += finder.schemas
            schemaParts += finder.schemaParts
            lists += finder.typeLists
            aliases += finder.typeAliases
            // The first declaration of a name wins: types are found by their name alone.
            for (name, type) in finder.valueTypes where valueTypes[name] == nil { valueTypes[name] = type }
        }
        guard !classes.isEmpty else {
            throw PipelineError(.invalidPipeline, code: .modelNoModelClass, at: Location(file: sources.first?.file ?? ""), stage: "model",
                                "no @Model class in the Swift source")
        }
        let merged = merge(schemas, parts: schemaParts)
        let choice = try choose(classes: classes, schemas: merged, lists: lists, aliases: aliases, requested: requested,
                                at: Location(file: sources.first?.file ?? ""))
        var chosen = try reachable(from: choice.roots, in: classes, schema: choice.schema?.name, schemaNames: Set(merged.map(\.name)))
        if choice.schema == nil {
            // Source order, as without a list: it fixes the order of the store's tables.
            chosen.sort { a, b in classes.firstIndex { $0.location == a.location }! < classes.firstIndex { $0.location == b.location }! }
        }
        let known = Set(classes.map(\.name)).union(valueTypes.keys)
        var model = try Translation(classes: chosen, valueTypes: valueTypes, declaredTypes: known).model(version: choice.version)
        model.origin = choice.origin
        return model
    }

    /// A schema's facts from its declaration and its extensions (`extension SchemaV2 { static var models ... }`).
    private static func merge(_ schemas: [VersionedSchemaDeclaration], parts: [VersionedSchemaDeclaration]) -> [VersionedSchemaDeclaration] {
        var merged: [VersionedSchemaDeclaration] = []
        for schema in schemas + parts {
            if let index = merged.firstIndex(where: { $0.name == schema.name }) {
                if merged[index].version == nil { merged[index].version = schema.version }
                if merged[index].models.isEmpty { merged[index].models = schema.models }
            } else if schemas.contains(where: { $0.name == schema.name }) {
                merged.append(schema)
            }
        }
        return merged
    }

    private struct Choice {
        /// The classes named, each with where it is named.
        var roots: [(name: String, at: Location)]
        var schema: VersionedSchemaDeclaration?
        var version: [Int]
        var origin: String
    }

    /// Which classes the store holds, as SwiftData's `Schema` decides it: the current
    /// `VersionedSchema`'s models (the one the pipeline names, else the one `Schema(versionedSchema:)` names, else the one whose
    /// classes the app's `Schema([...])` or `ModelContainer(for:)` lists, written `SchemaV1.Habit`
    /// or through `typealias Habit = SchemaV1.Habit`, else the last one the migration plan lists,
    /// else the highest version); without one, the models the app lists; without either, every
    /// `@Model` class of the source.
    private static func choose(classes: [ModelClass], schemas: [VersionedSchemaDeclaration], lists: [ModelTypeList],
                               aliases: [TypeAlias], requested: String?, at source: Location) throws -> Choice {
        let named = lists.compactMap { list in list.versionedSchema.map { (name: $0, at: list.location) } }
        let plan = lists.last { $0.kind == .migrationPlan && !$0.names.isEmpty }
        if let requested, !schemas.contains(where: { $0.name == requested }) {
            throw PipelineError(.invalidPipeline, code: .modelUnknownSchema, at: source, stage: "model",
                                "no VersionedSchema named '\(requested)' in the source"
                                    + (schemas.isEmpty ? " (it declares none)" : "; it declares " + schemas.map(\.name).sorted().joined(separator: ", ")))
        }
        // The schema whose classes the app hands its container: the container's model, whatever
        // the migration plan lists (which only migrates stores written before).
        var listed: [(schema: String, why: String)] = []
        for list in lists where list.kind != .migrationPlan {
            let what = list.kind == .schema ? "Schema" : "ModelContainer"
            for (index, name) in list.names.enumerated() {
                let qualifier = index < list.qualifiers.count ? list.qualifiers[index] : nil
                if let qualifier, schemas.contains(where: { $0.name == qualifier }) {
                    listed.append((qualifier, "the \(what) at \(list.location) lists \(qualifier).\(name)"))
                } else if qualifier == nil, let alias = aliases.last(where: { $0.name == name }), let target = alias.qualifier,
                          schemas.contains(where: { $0.name == target }) {
                    listed.append((target, "the \(what) at \(list.location) lists \(name), which the typealias at \(alias.location) "
                                        + "makes \(target).\(alias.target)"))
                }
            }
        }
        if !schemas.isEmpty {
            let schema: VersionedSchemaDeclaration
            let why: String
            if let requested, let found = schemas.first(where: { $0.name == requested }) {
                schema = found
                why = "the pipeline names it (schema: \(requested))"
            } else if let current = named.last, let found = schemas.first(where: { $0.name == current.name }) {
                schema = found
                why = "Schema(versionedSchema: \(current.name).self) at \(current.at) names it"
            } else if let first = listed.first, let found = schemas.first(where: { $0.name == first.schema }) {
                if let other = listed.first(where: { $0.schema != first.schema }) {
                    throw PipelineError(.invalidPipeline, code: .modelSchemasMixed, at: found.location, stage: "model",
                                        "the app's model lists classes of two VersionedSchemas: \(first.why), and \(other.why); "
                                            + "list the classes of one")
                }
                schema = found
                why = first.why
            } else if let plan, let last = plan.names.last, let found = schemas.first(where: { $0.name == last }) {
                schema = found
                why = "the last schema the migration plan at \(plan.location) lists"
            } else {
                schema = schemas.max { ($0.version ?? [0]).lexicographicallyPrecedes($1.version ?? [0]) }!
                why = schemas.count == 1 ? "the only VersionedSchema" : "the highest versionIdentifier of \(schemas.count) VersionedSchemas"
            }
            guard let version = schema.version else {
                throw PipelineError(.invalidPipeline, code: .modelUnreadableSchemaVersion, at: schema.location, stage: "model",
                                    "\(schema.name): pipectl cannot read its versionIdentifier; write it as Schema.Version(1, 0, 0)")
            }
            guard !schema.models.isEmpty else {
                throw PipelineError(.invalidPipeline, code: .modelUnreadableSchemaModels, at: schema.location, stage: "model",
                                    "\(schema.name): pipectl cannot tell which classes its 'models' lists; write them as [Recipe.self, Tag.self]")
            }
            let shown = version.map(String.init).joined(separator: ".")
            return Choice(roots: schema.models.map { ($0, schema.location) }, schema: schema, version: version,
                          origin: "\(schema.name), version \(shown): \(why)")
        }
        let appLists = lists.filter { $0.kind != .migrationPlan && !$0.names.isEmpty }
        if !appLists.isEmpty {
            var names: [(String, Location)] = []
            for list in appLists { for name in list.names where !names.contains(where: { $0.0 == name }) { names.append((name, list.location)) } }
            let places = appLists.map { "\($0.kind == .schema ? "Schema" : "ModelContainer") at \($0.location)" }
            return Choice(roots: names, schema: nil, version: [1, 0, 0],
                          origin: "the models " + places.joined(separator: ", ") + (appLists.count == 1 ? " lists" : " list")
                              + ", and the @Model classes they reach")
        }
        return Choice(roots: classes.map { ($0.name, $0.location) }, schema: nil, version: [1, 0, 0],
                      origin: "every @Model class of the source (it names no VersionedSchema, Schema or ModelContainer list)")
    }

    /// The classes `roots` name plus every `@Model` class their relationships reach, as SwiftData's
    /// `Schema` includes them. A name is the schema's own class, else one declared outside any
    /// schema; two classes of one name that the model would hold are an error naming both.
    private static func reachable(from roots: [(name: String, at: Location)], in classes: [ModelClass],
                                  schema: String?, schemaNames: Set<String>) throws -> [ModelClass] {
        func declared(_ name: String) throws -> ModelClass? {
            let candidates = classes.filter { $0.name == name }
            if let schema, let own = candidates.first(where: { $0.containers.contains(schema) }) { return own }
            var pool = candidates.filter { $0.containers.allSatisfy { !schemaNames.contains($0) } }
            // A class of another schema only, reused by this one.
            if pool.isEmpty, candidates.count == 1 { pool = candidates }
            if pool.count > 1 {
                throw PipelineError(.invalidPipeline, code: .modelDuplicateClassName, at: pool[1].location, stage: "model",
                                    "two @Model classes are named '\(name)' (\(pool[0].location) and here), and SwiftData names entities "
                                        + "by the class name alone; rename one, or declare each in its VersionedSchema")
            }
            return pool.first
        }
        let modelNames = Set(classes.map(\.name))
        var chosen: [ModelClass] = []
        var queue = roots.map(\.name)
        while !queue.isEmpty {
            let name = queue.removeFirst()
            guard !chosen.contains(where: { $0.name == name }) else { continue }
            guard let found = try declared(name) else {
                if let root = roots.first(where: { $0.name == name }) {
                    throw PipelineError(.invalidPipeline, code: .modelUnknownSchemaModel, at: root.at, stage: "model", "the model lists '\(name)', which is no @Model class of the source")
                }
                continue
            }
            chosen.append(found)
            queue += found.properties.map(\.type.base).filter { modelNames.contains($0) }
            if let parent = found.superclass, modelNames.contains(parent) { queue.append(parent) }
        }
        return chosen
    }
}
