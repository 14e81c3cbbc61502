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
        // SwiftData stores of the cases). A struct's struct or enum property is a composite
        // inside it, its columns named by their own elements as the outer ones are (Core Data
        // documents nested composites; no real store shows their columns yet).
        func composite(at path: String, of base: String, _ valueType: ValueType, optional: Bool, initialCase: String?,
                       hasInitialValue: Bool, depth: Int) throws {
            let element = path.split(separator: ".").last.map(String.init) ?? path
            switch valueType {
            case .structure(let members):
                entity.composites.append(CompositeAttribute(name: path, kind: .structure, isOptional: optional, typeName: base,
                                                            defaultValue: hasInitialValue ? "{}" : nil, location: property.location))
                for member in members {
                    let part = CompositePart(composite: path, element: member.name)
                    if member.type.isArray {
                        // Arrays inside a struct are Binary elements holding JSON (swiftdata-metacocktails).
                        entity.attributes.append(attribute(path + "." + member.name, .binary, optional: true, part: part))
                    } else if let plain = member.type.attributeType {
                        entity.attributes.append(attribute(path + "." + member.name, plain, optional: true, part: part))
                    } else if let nested = valueTypes[member.type.base] {
                        // Swift refuses a struct that holds itself; a source that does anyway is not followed.
                        guard depth < 16 else {
                            throw fail(model, property, .modelUntranslatableType,
                                       "'\(base)' holds structs \(depth) levels deep ('\(path)'); pipectl reads 16 levels at most")
                        }
                        // Required only where every struct around it is.
                        try composite(at: path + "." + member.name, of: member.type.base, nested, optional: optional || member.type.isOptional,
                                      initialCase: nil, hasInitialValue: false, depth: depth + 1)
                    } else if !declaredTypes.contains(member.type.base) {
                        throw fail(model, property, .modelUndeclaredType,
                                   "the type '\(member.type.base)' of '\(base).\(member.name)' is declared in no file of the model's source; "
                                       + "add the file that declares it to the model's files")
                    } else {
                        throw fail(model, property, .modelUntranslatableType,
                                   "pipectl cannot translate '\(member.name): \(member.type.written)' of '\(base)' yet "
                                       + "(it reads plain types, arrays, structs and enums in a struct)")
                    }
                }
            case .enumeration(let rawType, let cases, _):
                if let payload = cases.first(where: \.hasPayload) {
                    throw fail(model, property, .modelUntranslatableType,
                               "pipectl cannot translate '\(base)' yet: its case '\(payload.name)' has associated values")
                }
                // `= .paperback` fills the enum's columns of each new row that gives no value.
                let initial = cases.first { $0.name == initialCase }
                if let rawType {
                    let elementType = PropertyType(written: rawType, base: rawType).attributeType ?? .string
                    entity.composites.append(CompositeAttribute(
                        name: path, kind: .rawValue(cases: cases.map { .init($0.name, rawValue: $0.rawValue ?? $0.name) }),
                        isOptional: optional, typeName: base, location: property.location))
                    let raw = initial.map { Value.text($0.rawValue ?? $0.name) }
                    entity.attributes.append(attribute(path, elementType, optional: true,
                                                       part: CompositePart(composite: path, element: element),
                                                       defaultValue: raw.flatMap { try? elementType.convert($0).get() }))
                } else {
                    entity.composites.append(CompositeAttribute(name: path, kind: .caseName(cases: cases.map(\.name)),
                                                                isOptional: optional, typeName: base, location: property.location))
                    for item in cases {
                        entity.attributes.append(attribute(path + "." + item.name, .string, optional: true,
                                                           part: CompositePart(composite: path, element: item.name),
                                                           defaultValue: item.name == initial?.name ? .text(item.name) : nil))
                    }
                }
            }
        }
        try composite(at: property.name, of: type.base, valueType, optional: type.isOptional, initialCase: property.initialCase,
                      hasInitialValue: property.hasInitialValue, depth: 0)
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
