import ArgumentParser
import Foundation
import PipelineRun
import Pipeline
import CoreDataFormat

/// `pipectl model SOURCE`: the model pipectl reads from an app's model file or SwiftData source.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show the model pipectl reads from a Core Data model or a SwiftData app's @Model source.",
        discussion: "Entities with their version hashes, attributes with types, relationships with inverses, "
            + "uniqueness constraints; --xml prints it as Xcode's model file (contents), to diff in review.")

    @Argument(help: "An .xcdatamodeld, an .xcdatamodel, or a SwiftData app's @Model source (.swift file or folder).",
              completion: .file(extensions: ["xcdatamodeld", "xcdatamodel", "swift"]))
    var source: String

    @Flag(help: "Print the model as Xcode's .xcdatamodel/contents XML.")
    var xml = false

    @Option(help: ArgumentHelp("A SwiftData source's VersionedSchema to read instead of the current one.", valueName: "name"))
    var schema: String?

    func run() throws {
        do {
            let model = try ModelFiles.read(URL(fileURLWithPath: source), schema: schema)
            try Terminal.standardOutput.write(xml ? CoreDataModelWriter.contents(of: model) : ModelCommand.text(model, source: source))
        } catch {
            throw fail(with: error)
        }
    }

    static func text(_ model: StoreModel, source: String) -> String {
        let hashes = CoreDataVersionHashes.hashes(for: model)
        var out = "model: \(source) (\(model.entities.count) entit\(model.entities.count == 1 ? "y" : "ies"))\n"
        if let origin = model.origin { out += "read: \(origin)\n" }
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            out += "\n\(entity.name)"
            if let parent = entity.parent { out += " : \(parent)" }
            if entity.isAbstract { out += " (abstract)" }
            out += "  hash \(hashes[entity.name]?.base64EncodedString() ?? "-")\n"
            var lines: [(name: String, text: String)] = entity.attributes.filter { $0.composite == nil }.map { attribute in
                var line = "  \(attribute.name): \(CoreDataModelWriter.typeName(attribute.type))"
                if case .structure(let members, let name)? = attribute.elementShape {
                    line += " (an array of struct \(name): " + members.map { "\($0.name) \($0.written)" }.joined(separator: ", ") + ")"
                } else if let element = attribute.arrayElement {
                    line += element == .transformable ? " (an array of structs)" : " (an array of \(CoreDataModelWriter.typeName(element)))"
                }
                line += attribute.isOptional ? ", optional" : ", required"
                if attribute.arrayElement != nil, attribute.defaultValue != nil {
                    line += ", default []"
                } else if attribute.defaultValue == .text("") {
                    line += ", default \"\""
                } else if let value = attribute.defaultValue {
                    line += ", default \(value.displayText)"
                }
                if attribute.isTransient { line += ", transient" }
                // Said because it changes what the store holds: a marker byte, and large values in files.
                if attribute.allowsExternalBinaryDataStorage { line += ", external storage allowed" }
                return (attribute.name, line + "\n")
            }
            for composite in entity.composites {
                lines.append((composite.name, Self.text(composite, elements: entity.attributes.filter { $0.composite?.composite == composite.name })))
            }
            out += lines.sorted { $0.name < $1.name }.map(\.text).joined()
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
                var line = "  \(relationship.name): \(relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one") "
                    + relationship.destination
                line += relationship.inverse.map { ", inverse \($0)" } ?? ", no inverse"
                line += relationship.isOptional ? ", optional" : ", required"
                line += ", \(CoreDataModelWriter.ruleName(relationship.deleteRule).lowercased())"
                out += line + "\n"
            }
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                out += "  unique: \(constraint.joined(separator: ", "))\n"
            }
        }
        return out
    }

    /// `format: enum Format, raw values hardcover, paperback, ebook = e-book, required, default paperback`,
    /// `publisher: struct Publisher, optional` and its elements below, each with its column's name.
    static func text(_ composite: CompositeAttribute, elements: [Attribute]) -> String {
        var line = "  \(composite.name): "
        switch composite.kind {
        case .structure:
            line += "struct \(composite.typeName)"
        case .rawValue(let cases):
            line += "enum \(composite.typeName), raw values "
                + cases.map { $0.name == $0.rawValue ? $0.name : "\($0.name) = \($0.rawValue)" }.joined(separator: ", ")
        case .caseName(let cases):
            line += "enum \(composite.typeName), a column per case: " + cases.joined(separator: ", ")
        }
        line += composite.isOptional ? ", optional" : ", required"
        if case .rawValue = composite.kind, let value = elements.first?.defaultValue {
            line += ", default \(value.displayText)"
        } else if case .caseName = composite.kind, let chosen = elements.first(where: { $0.defaultValue != nil }) {
            line += ", default \(chosen.composite?.element ?? "")"
        }
        line += "\n"
        if case .structure = composite.kind {
            for element in elements {
                line += "    .\(element.composite?.element ?? element.name): \(CoreDataModelWriter.typeName(element.type))\n"
            }
        }
        return line
    }
}
