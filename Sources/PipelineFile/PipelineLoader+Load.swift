import Diagnostics
import Pipeline

extension PipelineLoader.Context {
    /// `load:`: per entity, attributes from fields and links to records found by their unique key.
    ///
    /// `load: { Item: { name: name, unit: { Unit: { name: unit } } } }`
    func loads(from node: ConfigNode, model: StoreModel) throws -> [LoadSpec] {
        guard let pairs = node.mapping else {
            throw node.error(.pipelineWrongType, "'load' expects a mapping of entity names to what each record sets, found \(node.kindDescription)")
        }
        guard !pairs.isEmpty else { throw node.error(.pipelineEmptyValue, "'load' is empty: name the entities each record loads") }
        return try pairs.map { key, value in
            let spec = try loadSpec(entityKey: key, body: value, model: model)
            if let missing = missingKey(of: spec, model: model) {
                throw key.error(.pipelineUniqueKeyNotLoaded, "loading '\(spec.entity)' must set its unique key: \(missing)")
            }
            return spec
        }
    }

    private func loadSpec(entityKey key: ConfigNode, body: ConfigNode, model: StoreModel) throws -> LoadSpec {
        let entity = try loadableEntity(key, model: model)
        guard let pairs = body.mapping else {
            throw body.error(.pipelineWrongType, "'\(entity)' expects a mapping of its attributes to record fields, found \(body.kindDescription)")
        }
        guard !pairs.isEmpty else { throw body.error(.pipelineEmptyValue, "nothing is loaded into '\(entity)': map its attributes to record fields") }
        // An enum property (a composite) loads from one field, by case name or raw value.
        let attributes = model.allAttributes(of: entity).filter { $0.composite?.composite != $0.name }.map(\.name)
            + model.allComposites(of: entity).filter(\.isEnum).map(\.name)
        let relationships = model.allRelationships(of: entity)
        var assignments: [LoadSpec.Assignment] = []
        var links: [LoadSpec.Link] = []
        for (memberKey, value) in pairs {
            guard let member = memberKey.scalar else {
                throw memberKey.error(.pipelineInvalidName, "expected an attribute or relationship name, found \(memberKey.kindDescription)")
            }
            if attributes.contains(member) {
                // `listed: { value: false }`: a constant, written out so that a bare word stays a field name.
                if let pairs = value.mapping, pairs.count == 1, pairs[0].key.scalar == "value" {
                    guard let constant = pairs[0].value.scalar else {
                        throw pairs[0].value.error(.pipelineWrongType, "'value' of '\(entity).\(member)' is one value (write \"\" for empty text), "
                                                                           + "found \(pairs[0].value.kindDescription)")
                    }
                    assignments.append(LoadSpec.Assignment(attribute: member, field: "", constant: constant,
                                                           location: pairs[0].value.location, sourceLine: pairs[0].value.sourceLine))
                    continue
                }
                if let pairs = value.mapping, pairs.contains(where: { $0.key.scalar == "each" }) {
                    assignments.append(try elementsRenamed(member, pairs: pairs, node: value, entity: entity, model: model))
                    continue
                }
                guard let field = value.scalar, !field.isEmpty else {
                    throw value.error(.pipelineWrongType, "attribute '\(entity).\(member)' takes the name of a record field, or a constant as "
                                                              + "'{ value: ... }', found \(value.kindDescription)")
                }
                assignments.append(LoadSpec.Assignment(attribute: member, field: field, location: value.location,
                                                       sourceLine: value.sourceLine))
            } else if let relationship = relationships.first(where: { $0.name == member }) {
                links.append(try link(relationship, key: memberKey, value: value, entity: entity, model: model))
            } else {
                // The value's shape tells what was meant: a mapping links, a field name assigns.
                let names = value.mapping != nil ? relationships.map(\.name) : attributes
                let what = value.mapping != nil ? "relationship" : "attribute"
                let hint = Suggestion.closest(to: member, in: names) ?? Suggestion.closest(to: member, in: attributes + relationships.map(\.name))
                throw memberKey.error(value.mapping != nil ? .pipelineUnknownRelationship : .pipelineUnknownAttribute,
                                      "entity '\(entity)' has no \(what) '\(member)'" + (hint.map { "; did you mean '\($0)'?" } ?? ""))
            }
        }
        return LoadSpec(entity: entity, assignments: assignments, links: links, location: key.location)
    }

    /// `moves: { each: attacks, moveName: name, power: damage }`: an array of structs from a list
    /// whose elements name the struct's properties otherwise (the app's own decoder renames them).
    private func elementsRenamed(_ attribute: String, pairs: [(key: ConfigNode, value: ConfigNode)], node: ConfigNode,
                                 entity: String, model: StoreModel) throws -> LoadSpec.Assignment {
        guard case .structure(let members, let typeName)? = model.allAttributes(of: entity).first(where: { $0.name == attribute })?.elementShape else {
            throw node.error(.pipelineWrongType, "'\(entity).\(attribute)' is no array of structs: `each:` with the properties' fields "
                                                     + "is for one (an array property of a SwiftData model); write the field's name")
        }
        var field = ""
        var renames: [String: String] = [:]
        for (key, value) in pairs {
            guard let name = key.scalar, let given = value.scalar, !given.isEmpty else {
                throw value.error(.pipelineWrongType, "'\(entity).\(attribute)' takes `each: <list field>` and `<property of \(typeName)>: "
                                                          + "<element field>` pairs, found \(value.kindDescription)")
            }
            if name == "each" { field = given; continue }
            guard members.contains(where: { $0.name == name }) else {
                let names = members.map(\.name)
                throw key.error(.pipelineUnknownAttribute, "\(typeName) has no property '\(name)'" + Suggestion.hint(for: name, in: names)
                                                               + " (its properties: \(names.joined(separator: ", ")))")
            }
            if let earlier = renames[given] {
                throw value.error(.pipelineDuplicateKey, "the element field '\(given)' gives \(typeName).\(earlier) already")
            }
            renames[given] = name
        }
        return LoadSpec.Assignment(attribute: attribute, field: field, elementFields: renames, location: node.location,
                                   sourceLine: node.sourceLine)
    }

    /// `relationship: { Target: { keyAttribute: field, ... } }`: find or create the target by its
    /// key; a one-to-one's target without a key is created for the record.
    private func link(_ relationship: Relationship, key: ConfigNode, value: ConfigNode, entity: String,
                      model: StoreModel) throws -> LoadSpec.Link {
        let destinationKey = model.uniqueKey(of: relationship.destination).first ?? "key"
        let form = "'{ \(relationship.destination): { \(destinationKey): field } }'"
        guard var pairs = value.mapping else {
            throw value.error(.pipelineWrongType, "relationship '\(entity).\(relationship.name)' links a record found by its unique key: write "
                                                      + "\(form), found \(value.kindDescription)")
        }
        // Beside the target, `missing:` says what a target that is not in the store does.
        var missing = MissingLinkPolicy.create
        if let index = pairs.firstIndex(where: { $0.key.scalar == "missing" }) {
            let node = pairs.remove(at: index).value
            guard let name = node.scalar, let policy = MissingLinkPolicy(rawValue: name) else {
                let names = MissingLinkPolicy.allCases.map(\.rawValue)
                throw node.error(.pipelineValueNotAllowed,
                                 "'missing' is one of \(names.joined(separator: ", ")), not '\(node.scalar ?? node.kindDescription)'"
                                     + Suggestion.hint(for: node.scalar ?? "", in: names))
            }
            missing = policy
        }
        guard pairs.count == 1, let (targetKey, targetBody) = pairs.first else {
            let extra = pairs.count > 1 ? pairs[1].key : value
            throw extra.error(pairs.count > 1 ? .pipelineUnknownKey : .pipelineEmptyValue,
                              "relationship '\(entity).\(relationship.name)' links one record: write \(form), "
                                  + "and 'missing: create | reject | skip' beside it if a target not in the store must not be created")
        }
        // Inside the target, `each:` names the list a to-many link makes one record per element of.
        var body = targetBody
        var each: String?
        if var bodyPairs = targetBody.mapping, let index = bodyPairs.firstIndex(where: { $0.key.scalar == "each" }) {
            let node = bodyPairs.remove(at: index).value
            guard relationship.isToMany else {
                throw targetBody.mapping![index].key.error(.pipelineInvalidEach, "'each' makes one linked record per element of a list, and "
                    + "'\(entity).\(relationship.name)' is a to-one relationship, which links one record")
            }
            guard let field = node.scalar, !field.isEmpty else {
                throw node.error(.pipelineWrongType, "'each' takes the name of the field that holds the list, found \(node.kindDescription)")
            }
            each = field
            body = ConfigNode(.mapping(bodyPairs), at: targetBody.location, sourceLine: targetBody.sourceLine)
        }
        // `position: order`: the element's place in its list (0, 1, 2, ...) into an attribute, as
        // SwiftData apps keep order without ordered relationships. A target with an attribute named
        // `position` loads it from a field as before.
        var position: ConfigNode?
        let targetHasPosition = targetKey.scalar.map { model.allAttributes(of: $0).contains { $0.name == "position" } } ?? false
        if !targetHasPosition, var bodyPairs = body.mapping, let index = bodyPairs.firstIndex(where: { $0.key.scalar == "position" }) {
            let positionKey = bodyPairs[index].key
            let node = bodyPairs.remove(at: index).value
            guard relationship.isToMany else {
                throw positionKey.error(.pipelineInvalidPosition, "'position' writes each linked record's place in its list, and "
                    + "'\(entity).\(relationship.name)' is a to-one relationship, which links one record")
            }
            guard node.scalar?.isEmpty == false else {
                throw node.error(.pipelineWrongType, "'position' takes the name of an integer attribute of the linked record, "
                                     + "found \(node.kindDescription)")
            }
            position = node
            body = ConfigNode(.mapping(bodyPairs), at: body.location, sourceLine: body.sourceLine)
        }
        let target = try loadableEntity(targetKey, model: model)
        guard model.lineage(of: target).contains(where: { $0.name == relationship.destination }) else {
            throw targetKey.error(.pipelineWrongDestination, "relationship '\(entity).\(relationship.name)' leads to '\(relationship.destination)', "
                                                                 + "and '\(target)' is not '\(relationship.destination)' or one of its sub-entities")
        }
        // Without a key, a target is created anew for each link: right for a record's own child
        // (one-to-one, or the to-many side of a one-to-many: its inverse is a to-one), a mistake
        // where many records share one target (its inverse is a to-many), which then could never
        // be found. A to-many without inverse is the former: each listed row holds one key of
        // the row that lists it.
        let isOwned = relationship.inverse.map { inverse in
            model.allRelationships(of: target).contains { $0.name == inverse && !$0.isToMany }
        } ?? relationship.isToMany
        guard !model.uniqueKey(of: target).isEmpty || isOwned else {
            let constraints = model.lineage(of: target).flatMap(\.uniquenessConstraints).filter { !$0.isEmpty }
            let choice = constraints.count > 1
                ? " (the model's uniqueness constraints are " + constraints.map { $0.joined(separator: "+") }.joined(separator: ", ") + ": say which)"
                : ""
            throw targetKey.error(.pipelineNoUniqueKey, "'\(target)' has no unique key, so the record to link cannot be found: "
                                                            + "give '\(target)' one with 'unique:' under 'entities'" + choice)
        }
        var spec = try loadSpec(entityKey: targetKey, body: body, model: model)
        if let position, let attribute = position.scalar {
            let integers: [AttributeType] = [.integer16, .integer32, .integer64]
            guard let found = model.allAttributes(of: target).first(where: { $0.name == attribute && $0.composite == nil }) else {
                let names = model.allAttributes(of: target).filter { integers.contains($0.type) }.map(\.name)
                throw position.error(.pipelineUnknownAttribute, "'\(target)' has no attribute '\(attribute)' to hold the position"
                                         + Suggestion.hint(for: attribute, in: names))
            }
            guard integers.contains(found.type) else {
                throw position.error(.pipelineInvalidPosition, "'position' writes a whole number, and '\(target).\(attribute)' is "
                                         + "\(found.type.rawValue); name an integer attribute")
            }
            guard !spec.assignments.contains(where: { $0.attribute == attribute }) else {
                throw position.error(.pipelineInvalidPosition, "'\(target).\(attribute)' is loaded from a field too: "
                                         + "it takes either the position or the field")
            }
            spec.assignments.append(LoadSpec.Assignment(attribute: attribute, field: LoadSpec.Link.positionField,
                                                        location: position.location, sourceLine: position.sourceLine))
        }
        if let missing = missingKey(of: spec, model: model, inverse: relationship.inverse) {
            throw targetKey.error(.pipelineUniqueKeyNotLoaded, "the link to '\(target)' must set its unique key: \(missing)")
        }
        return LoadSpec.Link(relationship: relationship.name, target: spec, missing: missing, each: each,
                             isToMany: relationship.isToMany, location: key.location, position: position?.scalar)
    }

    /// An entity records can be loaded into: declared and not abstract.
    private func loadableEntity(_ node: ConfigNode, model: StoreModel) throws -> String {
        let names = model.entities.map(\.name)
        guard let name = node.scalar, let entity = model[name] else {
            let name = node.scalar ?? ""
            throw node.error(.pipelineUnknownEntity,
                             "unknown entity '\(name)'\(Suggestion.hint(for: name, in: names)) (entities: \(names.joined(separator: ", ")))")
        }
        if let configuration = model.configuration, model.entitiesOutsideConfiguration.contains(name) {
            // Core Data keeps the table (the store's schema is the whole model's) but never reads it.
            throw node.error(.pipelineOutsideConfiguration,
                             "entity '\(name)' is not in configuration '\(configuration)': the app never reads it from this store "
                                 + "(the configuration's entities: \(model.configurationEntities.joined(separator: ", ")))")
        }
        if entity.isAbstract {
            let concrete = model.entities.filter { !$0.isAbstract && $0.name != name && model.lineage(of: $0.name).contains { $0.name == name } }
            throw node.error(.pipelineAbstractEntity, "entity '\(name)' is abstract: load one of its sub-entities"
                                                          + (concrete.isEmpty ? "" : " (\(concrete.map(\.name).joined(separator: ", ")))"))
        }
        return name
    }

    /// Which unique-key attributes the spec leaves unset, in words, or nil when it sets them all.
    /// `inverse`: the relationship back to the record that links, which that record sets.
    private func missingKey(of spec: LoadSpec, model: StoreModel, inverse: String? = nil) -> String? {
        let set = Set(spec.assignments.map(\.attribute) + spec.links.map(\.relationship) + (inverse.map { [$0] } ?? []))
        let missing = model.uniqueKey(of: spec.entity).filter { !set.contains($0) }
        guard !missing.isEmpty else { return nil }
        // A key the pipeline never wrote down is the model's: say where it comes from.
        let key = model.uniqueKey(of: spec.entity)
        let fromModel = model.lineage(of: spec.entity).contains { $0.uniquenessConstraints.contains(key) }
        return missing.map { "'\($0)'" }.joined(separator: ", ") + (missing.count == 1 ? " is missing" : " are missing")
            + (fromModel ? " (the key is the model's uniqueness constraint)" : "")
    }
}
