import ArgumentParser
import Foundation
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

    func run() throws {
        do {
            let model = try ModelFiles.read(URL(fileURLWithPath: source))
            try Terminal.standardOutput.write(xml ? CoreDataModelWriter.contents(of: model) : ModelCommand.text(model, source: source))
        } catch {
            throw fail(with: error)
        }
    }

    static func text(_ model: StoreModel, source: String) -> String {
        let hashes = CoreDataVersionHashes.hashes(for: model)
        var out = "model: \(source) (\(model.entities.count) entit\(model.entities.count == 1 ? "y" : "ies"))\n"
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            out += "\n\(entity.name)"
            if let parent = entity.parent { out += " : \(parent)" }
            if entity.isAbstract { out += " (abstract)" }
            out += "  hash \(hashes[entity.name]?.base64EncodedString() ?? "-")\n"
            for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
                var line = "  \(attribute.name): \(CoreDataModelWriter.typeName(attribute.type))"
                line += attribute.isOptional ? ", optional" : ", required"
                if let value = attribute.defaultValue { line += ", default \(value.displayText)" }
                if attribute.isTransient { line += ", transient" }
                out += line + "\n"
            }
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
}
