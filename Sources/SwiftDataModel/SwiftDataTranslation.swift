import CoreDataFormat
import Diagnostics
import Pipeline

/// SwiftData's translation of `@Model` classes into a Core Data model, as far as real stores
/// show it (docs/coredata.md, "SwiftData").
struct Translation {
    let classes: [ModelClass]
    let valueTypes: [String: ValueType]
    /// Every class, struct and enum the source declares, in or out of the model.
    var declaredTypes: Set<String> = []

    func model(version: [Int]) throws -> StoreModel {
        let names = Set(classes.map(\.name))
        var entities: [Entity] = []
        var relationships: [String: [Relationship]] = [:]
        for model in classes {
            var entity = Entity(name: model.name, location: model.location, uniquenessConstraints: model.uniqueConstraints)
            if let parent = model.superclass, names.contains(parent) { entity.parent = parent }
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
                if property.isUnique { entity.uniquenessConstraints.append([property.name]) }
                try add(property, of: model, to: &entity)
            }
            // #Index: fetch indexes named as SwiftData names them (confirmed: swiftdata-metacocktails).
            entity.fetchIndexes = model.indexes.map { properties in
                FetchIndex(name: "SwiftDataIndexOnBinary" + properties.joined(), elements: properties.map { .init(property: $0) },
                           location: model.location)
            }
            entities.append(entity)
        }
        try pairInverses(&relationships, entities: entities)
        entities = entities.map { entity in
            var entity = entity
            entity.relationships = relationships[entity.name] ?? []
            return entity
        }
        var model = StoreModel(entities: entities, versionIdentifiers: [version.map(String.init).joined(separator: ".")])
        model.frameworkVersion = CoreDataMetadata.swiftDataFrameworkVersion
        return model
    }

    private func fail(_ model: ModelClass, _ property: ModelClass.Property, _ code: PipelineError.Code, _ message: String) -> PipelineError {
        PipelineError(.invalidPipeline, code: code, at: property.location, stage: "model", "\(model.name).\(property.name): \(message)")
    }

    /// A stored property that is no relationship: an attribute, or a composite's elements.
    private func add(_ property: ModelClass.Property, of model: ModelClass, to entity: inout Entity) throws {
        let type = property.type
        guard !type.base.isEmpty else {
            throw fail(model, property, .modelUntypedProperty,
                       "write its type (`var \(property.name): String`); pipectl cannot tell it from its initial value")
        }
        func attribute(_ name: String, _ attributeType: AttributeType, optional: Bool, part: CompositePart? = nil,
                       defaultValue: Value? = nil) -> Attribute {
            Attribute(name: name, type: attributeType, isOptional: optional, defaultValue: defaultValue,
                      location: property.location, isTransient: property.isEphemeral,
                      allowsExternalBinaryDataStorage: property.externalStorage,
                      preservesValueInHistoryOnDeletion: property.preserveOnDeletion,
                      versionHashModifier: property.hashModifier, composite: part)
        }
        // An array of values: a Transformable attribute holding it archived (confirmed for [Data]
        // by swiftdata-cheftime).
        if type.isArray {
            guard type.attributeType != nil || valueTypes[type.base] != nil else { throw untranslatable(model, property) }
            // `= []` is the archived empty array in each new row, as SwiftData writes it.
            var array = attribute(property.name, .transformable, optional: type.isOptional,
                                  defaultValue: property.isEmptyArray ? .binary(KeyedArchive.archive(json: Array("[]".utf8))) : nil)
            // Elements as JSONEncoder writes them: a raw-value enum as its raw value.
            switch valueTypes[type.base] {
            case .enumeration(let rawType?, _, _): array.arrayElement = PropertyType(written: rawType, base: rawType).attributeType
            case .some: array.arrayElement = .transformable
            case nil: array.arrayElement = type.attributeType
            }
            // Enums and structs: each loaded element checked against the type and written as its Codable does.
            array.elementShape = elementShape(of: type.base)
            entity.attributes.append(array)
            return
        }
        if let attributeType = type.attributeType {
            // The initial value as the attribute's type holds it (`= false` is the Boolean NO, stored
            // as 0), as SwiftData records it in the model: never the text it is written as.
            var initial: Value?
            if let written = property.defaultValue {
                switch attributeType.convertDefault(written) {
                case .success(let value): initial = value
                case .failure(let failure):
                    throw fail(model, property, .modelInitialValueMismatch, "its initial value \(written.displayText) does not fit \(type.written): \(failure.reason)")
                }
            }
            entity.attributes.append(attribute(property.name, attributeType, optional: type.isOptional, defaultValue: initial))
            return
        }
        guard let valueType = valueTypes[type.base] else { throw untranslatable(model, property) }
        // A composite: its elements are optional whatever the Swift type says (confirmed by both
        // SwiftData stores of the cases).
        switch valueType {
        case .structure(let members):
            var composite = CompositeAttribute(name: property.name, kind: .structure, isOptional: type.isOptional,
                                               typeName: type.base, defaultValue: property.hasInitialValue ? "{}" : nil,
                                               location: property.location)
            composite.location = property.location
            for member in members {
                let memberType: AttributeType
                if member.type.isArray {
                    // Arrays inside a struct are Binary elements holding JSON (swiftdata-metacocktails).
                    memberType = .binary
                } else if let plain = member.type.attributeType {
                    memberType = plain
                } else {
                    throw fail(model, property, .modelUntranslatableType,
                               "pipectl cannot translate '\(member.name): \(member.type.written)' of '\(type.base)' yet "
                                   + "(it reads plain types and arrays in a struct)")
                }
                entity.attributes.append(attribute(property.name + "." + member.name, memberType, optional: true,
                                                   part: CompositePart(composite: property.name, element: member.name)))
            }
            entity.composites.append(composite)
        case .enumeration(let rawType, let cases, _):
            if let payload = cases.first(where: \.hasPayload) {
                throw fail(model, property, .modelUntranslatableType,
                           "pipectl cannot translate '\(type.base)' yet: its case '\(payload.name)' has associated values")
            }
            // `= .paperback` fills the enum's columns of each new row that gives no value.
            let initial = cases.first { $0.name == property.initialCase }
            if let rawType {
                let elementType = PropertyType(written: rawType, base: rawType).attributeType ?? .string
                entity.composites.append(CompositeAttribute(
                    name: property.name, kind: .rawValue(cases: cases.map { .init($0.name, rawValue: $0.rawValue ?? $0.name) }),
                    isOptional: type.isOptional, typeName: type.base, location: property.location))
                let raw = initial.map { Value.text($0.rawValue ?? $0.name) }
                entity.attributes.append(attribute(property.name, elementType, optional: true,
                                                   part: CompositePart(composite: property.name, element: property.name),
                                                   defaultValue: raw.flatMap { try? elementType.convert($0).get() }))
            } else {
                entity.composites.append(CompositeAttribute(name: property.name, kind: .caseName(cases: cases.map(\.name)),
                                                            isOptional: type.isOptional, typeName: type.base,
                                                            location: property.location))
                for item in cases {
                    entity.attributes.append(attribute(property.name + "." + item.name, .string, optional: true,
                                                       part: CompositePart(composite: property.name, element: item.name),
                                                       defaultValue: item.name == initial?.name ? .text(item.name) : nil))
                }
            }
        }
    }

    /// How the app's synthesized Codable writes a value of the enum or struct `base` (nil for a
    /// plain type): an enum with raw values as its raw value, one without as `{"case":{}}`, a
    /// struct as an object whose non-optional properties its decoder requires.
    private func elementShape(of base: String, depth: Int = 0) -> ElementShape? {
        // A struct that holds itself through an array would recurse without end.
        guard depth < 32 else { return .asGiven }
        switch valueTypes[base] {
        case .enumeration(let rawType, let cases, _):
            guard !cases.contains(where: \.hasPayload) else { return .asGiven }
            if let rawType {
                return .enumeration(.rawValue(cases: cases.map { .init($0.name, rawValue: $0.rawValue ?? $0.name) }),
                                    rawType: PropertyType(written: rawType, base: rawType).attributeType ?? .string, typeName: base)
            }
            return .enumeration(.caseName(cases: cases.map(\.name)), rawType: nil, typeName: base)
        case .structure(let members):
            return .structure(members.map { member in
                var shape = elementShape(of: member.type.base, depth: depth + 1) ?? member.type.attributeType.map(ElementShape.plain) ?? .asGiven
                if member.type.isArray { shape = .array(shape) }
                return ElementShape.Member(name: member.name, shape: shape, isOptional: member.type.isOptional, written: member.type.written)
            }, typeName: base)
        case nil:
            return nil
        }
    }

    private func untranslatable(_ model: ModelClass, _ property: ModelClass.Property) -> PipelineError {
        if !declaredTypes.contains(property.type.base) {
            return fail(model, property, .modelUndeclaredType, "the type '\(property.type.base)' is declared in no file of the model's source; "
                            + "add the file that declares it to the model's files (a struct or enum is read from its declaration)")
        }
        return fail(model, property, .modelUntranslatableType, "pipectl cannot translate the type '\(property.type.written)' yet "
                        + "(it reads Int, Int64, Int32, Int16, Double, Float, Bool, String, Date, Data, UUID, URL, Decimal, "
                        + "their optionals and arrays, structs and enums declared in the source, and @Model classes and arrays of them)")
    }

    /// Inverses: declared on one side, or the only relationship each side has toward the other.
    private func pairInverses(_ relationships: inout [String: [Relationship]], entities: [Entity]) throws {
        for entity in entities {
            for index in relationships[entity.name, default: []].indices {
                let relationship = relationships[entity.name]![index]
                if let inverse = relationship.inverse {
                    guard let other = relationships[relationship.destination]?.firstIndex(where: { $0.name == inverse }) else {
                        throw PipelineError(.invalidPipeline, code: .modelUnknownInverse, at: relationship.location, stage: "model",
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
    }
}
