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
            // Plain attributes and composites in name order; a composite's elements in theirs.
            var blocks: [(name: String, xml: String)] = entity.attributes.filter { $0.composite == nil }.map {
                ($0.name, "        " + attributeElement($0, named: $0.name) + "\n")
            }
            for composite in entity.composites where composite.parent == nil {
                blocks.append((composite.name, compositeElement(composite, of: entity, indent: "        ")))
            }
            for block in blocks.sorted(by: { $0.name < $1.name }) { out += block.xml }
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
            for index in entity.fetchIndexes {
                out += "        <fetchIndex name=\(quoted(index.name))>\n"
                for element in index.elements {
                    out += "            <fetchIndexElement property=\(quoted(element.property)) type=\"Binary\" order=\(quoted(element.isAscending ? "ascending" : "descending"))/>\n"
                }
                out += "        </fetchIndex>\n"
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
        // After the entities, as Xcode writes them.
        for configuration in model.configurations {
            out += "    <configuration name=\(quoted(configuration.name))>\n"
            for member in configuration.entities { out += "        <memberEntity name=\(quoted(member))/>\n" }
            out += "    </configuration>\n"
        }
        return out + "</model>\n"
    }

    private static func attributeElement(_ attribute: Attribute, named name: String) -> String {
        var pairs = [("name", name)]
        if attribute.isOptional { pairs.append(("optional", "YES")) }
        if attribute.isTransient { pairs.append(("transient", "YES")) }
        pairs.append(("attributeType", typeName(attribute.type)))
        // A default held as bytes (an archived empty array) has no text form in the file.
        if attribute.arrayElement != nil, attribute.defaultValue != nil {
            pairs.append(("defaultValueString", "[]"))  // the only default an array property gets
        } else if let value = attribute.defaultValue {
            switch value {
            case .binary: break
            // As Xcode writes them: a Boolean as YES or NO, a date as seconds since 2001.
            case .bool(let flag): pairs.append(("defaultValueString", flag ? "YES" : "NO"))
            case .date(let seconds): pairs.append(("defaultDateTimeInterval", Value.double(seconds).displayText))
            default: pairs.append(("defaultValueString", value.displayText))
            }
        }
        if attribute.type == .transformable { pairs.append(("valueTransformerName", "NSSecureUnarchiveFromData")) }
        // A SwiftData array property's element type, which the reader takes back from it.
        if let element = attribute.arrayElement {
            pairs.append(("customClassName", "[\(element == .transformable ? "Struct" : arrayElementName(element))]"))
        }
        if attribute.isIndexed { pairs.append(("indexed", "YES")) }
        if attribute.allowsExternalBinaryDataStorage { pairs.append(("allowsExternalBinaryDataStorage", "YES")) }
        if attribute.preservesValueInHistoryOnDeletion { pairs.append(("preserveAfterDeletion", "YES")) }
        if let modifier = attribute.versionHashModifier { pairs.append(("versionHashModifier", modifier)) }
        return "<attribute \(attributes(pairs))/>"
    }

    /// A composite attribute as the model SwiftData builds holds it (its elements inside, an
    /// enum marked in its user info); Xcode's own file form for composites is not confirmed.
    private static func compositeElement(_ composite: CompositeAttribute, of entity: Entity, indent: String) -> String {
        var pairs = [("name", composite.elementName)]
        if composite.isOptional { pairs.append(("optional", "YES")) }
        pairs.append(("attributeType", "Composite"))
        if let value = composite.defaultValue { pairs.append(("defaultValueString", value)) }
        var out = indent + "<compositeAttribute \(attributes(pairs))>\n"
        let inner = indent + "    "
        switch composite.kind {
        case .structure:
            break
        case .rawValue:
            out += inner + "<userInfo>\n" + inner + "    <entry key=\"EnumType\" value=\"true\"/>\n" + inner + "</userInfo>\n"
        case .caseName(let cases):
            let list = "[" + cases.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
            out += inner + "<userInfo>\n" + inner + "    <entry key=\"EnumType\" value=\"true\"/>\n"
                + inner + "    <entry key=\"enum\" value=\(quoted(list))/>\n" + inner + "</userInfo>\n"
        }
        // Elements in declaration order, a composite inside this one where its first element is.
        var written: Set<String> = []
        for element in entity.attributes {
            guard let part = element.composite else { continue }
            if part.composite == composite.name {
                out += inner + attributeElement(element, named: part.element) + "\n"
            } else if part.composite.hasPrefix(composite.name + ".") {
                let rest = part.composite.dropFirst(composite.name.count + 1)
                let child = composite.name + "." + (rest.split(separator: ".").first.map(String.init) ?? String(rest))
                guard written.insert(child).inserted, let nested = entity.composites.first(where: { $0.name == child }) else { continue }
                out += compositeElement(nested, of: entity, indent: inner)
            }
        }
        return out + indent + "</compositeAttribute>\n"
    }

    /// The Swift name of an array element type (`[String]`, `[UUID]`).
    static func arrayElementName(_ type: AttributeType) -> String {
        switch type {
        case .string: "String"
        case .integer16: "Int16"
        case .integer32: "Int32"
        case .integer64: "Int"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .bool: "Bool"
        case .date: "Date"
        case .binary: "Data"
        case .uuid: "UUID"
        case .uri: "URL"
        case .transformable: "Struct"
        }
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
