import Foundation
import Pipeline

/// A model as Xcode's `.xcdatamodel/contents` XML, which `CoreDataModelReader` reads back to the
/// same hashes: for `pipectl model --xml`, so a team sees what pipectl understood from their
/// SwiftData source, in the form Xcode shows, and can diff it in review.
public enum CoreDataModelWriter {
    public static func contents(of model: StoreModel) -> String {
        var out = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        let identifier = model.versionIdentifiers.first ?? ""
        out += #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift" userDefinedModelVersionIdentifier=\#(quoted(identifier))>"# + "\n"
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            var head = [("name", entity.name), ("representedClassName", entity.name)]
            if let parent = entity.parent { head.append(("parentEntity", parent)) }
            if entity.isAbstract { head.append(("isAbstract", "YES")) }
            if let modifier = entity.versionHashModifier { head.append(("versionHashModifier", modifier)) }
            head.append(("syncable", "YES"))
            out += "    <entity \(attributes(head))>\n"
            for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
                var pairs = [("name", attribute.name)]
                if attribute.isOptional { pairs.append(("optional", "YES")) }
                if attribute.isTransient { pairs.append(("transient", "YES")) }
                pairs.append(("attributeType", typeName(attribute.type)))
                if let value = attribute.defaultValue { pairs.append(("defaultValueString", value.displayText)) }
                if attribute.isIndexed { pairs.append(("indexed", "YES")) }
                if attribute.allowsExternalBinaryDataStorage { pairs.append(("allowsExternalBinaryDataStorage", "YES")) }
                if attribute.preservesValueInHistoryOnDeletion { pairs.append(("preserveAfterDeletion", "YES")) }
                if let modifier = attribute.versionHashModifier { pairs.append(("versionHashModifier", modifier)) }
                out += "        <attribute \(attributes(pairs))/>\n"
            }
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
                var pairs = [("name", relationship.name)]
                if relationship.isOptional { pairs.append(("optional", "YES")) }
                if relationship.isTransient { pairs.append(("transient", "YES")) }
                if relationship.isToMany {
                    pairs.append(("toMany", "YES"))
                    if relationship.minCount > 0 { pairs.append(("minCount", String(relationship.minCount))) }
                    if relationship.maxCount > 0 { pairs.append(("maxCount", String(relationship.maxCount))) }
                } else {
                    if relationship.minCount > 0 { pairs.append(("minCount", String(relationship.minCount))) }
                    pairs.append(("maxCount", "1"))
                }
                pairs.append(("deletionRule", ruleName(relationship.deleteRule)))
                if relationship.isOrdered { pairs.append(("ordered", "YES")) }
                pairs.append(("destinationEntity", relationship.destination))
                if let inverse = relationship.inverse { pairs += [("inverseName", inverse), ("inverseEntity", relationship.destination)] }
                if let modifier = relationship.versionHashModifier { pairs.append(("versionHashModifier", modifier)) }
                out += "        <relationship \(attributes(pairs))/>\n"
            }
            let constraints = entity.uniquenessConstraints.filter { !$0.isEmpty }
            if !constraints.isEmpty {
                out += "        <uniquenessConstraints>\n"
                for constraint in constraints {
                    out += "            <uniquenessConstraint>\n"
                    for name in constraint { out += "                <constraint value=\(quoted(name))/>\n" }
                    out += "            </uniquenessConstraint>\n"
                }
                out += "        </uniquenessConstraints>\n"
            }
            out += "    </entity>\n"
        }
        return out + "</model>\n"
    }

    public static func typeName(_ type: AttributeType) -> String {
        CoreDataModelReader.attributeTypes.first { $0.value == type }?.key ?? type.rawValue
    }

    public static func ruleName(_ rule: Relationship.DeleteRule) -> String {
        CoreDataModelReader.deleteRules.first { $0.value == rule }?.key ?? "Nullify"
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0)=\(quoted($0.1))" }.joined(separator: " ")
    }

    private static func quoted(_ value: String) -> String {
        var out = "\""
        for character in value {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
