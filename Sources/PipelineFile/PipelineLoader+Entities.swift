import Diagnostics
import Pipeline

extension PipelineLoader.Context {
    /// An entity as written, with the nodes that checks across entities point at.
    struct EntityDraft {
        var entity: Entity
        var key: ConfigNode
        var parent: ConfigNode?
        var unique: [ConfigNode]
        /// Parallel to `entity.attributes`.
        var attributeKeys: [ConfigNode]
        /// Parallel to `entity.relationships`: the name and the destination as written.
        var relationshipNodes: [(key: ConfigNode, destination: ConfigNode)]
    }

    /// `entities:`: the model, in file order, checked as a whole (parents, keys, destinations).
    func storeModel(from node: ConfigNode) throws -> StoreModel {
        guard let pairs = node.mapping else {
            throw node.error(.pipelineWrongType, "'entities' expects a mapping of entity names to entities, found \(node.kindDescription)")
        }
        guard !pairs.isEmpty else { throw node.error(.pipelineEmptyValue, "'entities' is empty: declare at least one entity") }
        let drafts = try pairs.map { try entityDraft(key: $0.key, value: $0.value) }
        let model = StoreModel(entities: drafts.map(\.entity))
        try checkParents(drafts, model: model)
        for draft in drafts {
            try checkLineage(draft, model: model)
            try checkUniqueKey(draft, model: model)
            try checkDestinations(draft, model: model)
        }
        return model
    }

    private func entityDraft(key: ConfigNode, value: ConfigNode) throws -> EntityDraft {
        let name = try identifier(key, what: "entity name")
        let options = try Options(value, spec: PipelineSpecs.entity.named(name), stage: "pipeline")

        var unique: [ConfigNode] = []
        if let node = options.node("unique") {
            unique = node.sequence ?? [node]
            guard !unique.isEmpty else { throw node.error(.pipelineEmptyValue, "'unique' needs at least one attribute") }
        }

        var attributes: [Attribute] = []
        var attributeKeys: [ConfigNode] = []
        if let node = options.node("attributes") {
            for (key, value) in node.mapping ?? [] {
                attributes.append(try attribute(key: key, value: value, entity: name))
                attributeKeys.append(key)
            }
        }

        var relationships: [Relationship] = []
        var relationshipNodes: [(key: ConfigNode, destination: ConfigNode)] = []
        if let node = options.node("relationships") {
            for (key, value) in node.mapping ?? [] {
                let (relationship, destination) = try relationship(key: key, value: value, entity: name)
                if attributes.contains(where: { $0.name == relationship.name }) {
                    throw key.error(.pipelineDuplicateName,
                                    "'\(relationship.name)' is declared both as an attribute and as a relationship of '\(name)'")
                }
                relationships.append(relationship)
                relationshipNodes.append((key, destination))
            }
        }

        let entity = Entity(name: name, parent: options.string("parent"), isAbstract: options.bool("abstract") ?? false,
                            attributes: attributes, relationships: relationships,
                            uniqueKey: unique.compactMap(\.scalar), location: key.location)
        return EntityDraft(entity: entity, key: key, parent: options.node("parent"), unique: unique,
                           attributeKeys: attributeKeys, relationshipNodes: relationshipNodes)
    }

    /// `name: type` or `name: { type:, default:, indexed:, optional: }`.
    private func attribute(key: ConfigNode, value: ConfigNode, entity: String) throws -> Attribute {
        let name = try identifier(key, what: "attribute name")
        var options: Options?
        let typeNode: ConfigNode
        if value.scalar != nil {
            typeNode = value
        } else if value.mapping != nil {
            let checked = try Options(value, spec: PipelineSpecs.attribute.named("\(entity).\(name)"), stage: "pipeline")
            typeNode = try checked.required("type")
            options = checked
        } else {
            throw value.error(.pipelineWrongType,
                              "attribute '\(entity).\(name)' expects a type name or a mapping with 'type:', found \(value.kindDescription)")
        }

        let spelling = typeNode.scalar ?? ""
        guard let type = AttributeType(spelling: spelling) else {
            let names = AttributeType.spellings.map(\.0)
            throw typeNode.error(.pipelineUnknownType,
                                 "unknown type '\(spelling)'\(Suggestion.hint(for: spelling, in: names)) (types: \(names.joined(separator: ", ")))")
        }

        var defaultValue: Value?
        if let node = options?.node("default") {
            defaultValue = try self.defaultValue(node, type: type, attribute: "\(entity).\(name)")
        }
        return Attribute(name: name, type: type, isOptional: options?.bool("optional") ?? true, defaultValue: defaultValue,
                         isIndexed: options?.bool("indexed") ?? false, location: key.location)
    }

    private func defaultValue(_ node: ConfigNode, type: AttributeType, attribute: String) throws -> Value {
        guard let text = node.scalar else {
            throw node.error(.pipelineWrongType, "'default' of \(attribute) expects a single value, found \(node.kindDescription)")
        }
        switch type.convert(.text(text)) {
        case .success(.null):
            throw node.error(.pipelineEmptyValue, "'default' of \(attribute) (\(type.rawValue)) must not be empty")
        case .success(let value):
            return value
        case .failure(let failure):
            // The conversion's advice is about transforms, which do not apply to a default.
            let reason = failure.reason.components(separatedBy: " (use ").first ?? failure.reason
            throw node.error(.pipelineValueDoesNotFit, "default '\(text)' does not fit \(attribute) (\(type.rawValue)): \(reason)")
        }
    }

    /// `name: Entity` or `name: { to:, inverse:, optional: }`; to-one only.
    private func relationship(key: ConfigNode, value: ConfigNode, entity: String) throws -> (Relationship, ConfigNode) {
        let name = try identifier(key, what: "relationship name")
        if value.scalar != nil {
            return (Relationship(name: name, destination: value.scalar ?? "", location: key.location), value)
        }
        guard let pairs = value.mapping else {
            throw value.error(.pipelineWrongType,
                              "relationship '\(entity).\(name)' expects an entity name or a mapping with 'to:', found \(value.kindDescription)")
        }
        if let toMany = pairs.first(where: { ["to_many", "many", "ordered"].contains($0.key.scalar ?? "") }) {
            throw toMany.key.error(.pipelineUnsupportedToMany,
                "to-many relationships ('\(toMany.key.scalar ?? "")') are not supported yet; declare the to-one side "
                    + "on the other entity and name this side as its 'inverse'")
        }
        let options = try Options(value, spec: PipelineSpecs.relationship.named("\(entity).\(name)"), stage: "pipeline")
        let destination = try options.required("to")
        var inverse: String?
        if let node = options.node("inverse") { inverse = try identifier(node, what: "inverse relationship name") }
        let relationship = Relationship(name: name, destination: destination.scalar ?? "", inverse: inverse,
                                        isOptional: options.bool("optional") ?? true, location: key.location)
        return (relationship, destination)
    }

    // MARK: Checks across entities

    private func checkParents(_ drafts: [EntityDraft], model: StoreModel) throws {
        let names = drafts.map(\.entity.name)
        for draft in drafts {
            guard let node = draft.parent, let parent = draft.entity.parent else { continue }
            guard model[parent] != nil else {
                throw node.error(.pipelineUnknownEntity, "unknown parent entity '\(parent)'\(Suggestion.hint(for: parent, in: names))"
                                                             + " (entities: \(names.joined(separator: ", ")))")
            }
        }
        // The first entity in file order that lies on a cycle reports it.
        for draft in drafts {
            guard let node = draft.parent else { continue }
            var chain = [draft.entity.name]
            var current = draft.entity.parent
            while let name = current, !chain.contains(name) {
                chain.append(name)
                current = model[name]?.parent
            }
            if current == draft.entity.name {
                throw node.error(.pipelineInheritanceCycle, "entity '\(draft.entity.name)' inherits from itself: "
                                                                + (chain + [draft.entity.name]).joined(separator: " -> "))
            }
        }
    }

    /// No attribute or relationship name twice along the lineage.
    private func checkLineage(_ draft: EntityDraft, model: StoreModel) throws {
        guard draft.entity.parent != nil else { return }
        var inherited: [String: String] = [:]
        for ancestor in model.lineage(of: draft.entity.name).dropLast() {
            for attribute in ancestor.attributes { inherited[attribute.name] = ancestor.name }
            for relationship in ancestor.relationships { inherited[relationship.name] = ancestor.name }
        }
        let own = draft.attributeKeys + draft.relationshipNodes.map(\.key)
        for key in own {
            if let name = key.scalar, let ancestor = inherited[name] {
                throw key.error(.pipelineDuplicateName, "'\(name)' is already declared by '\(ancestor)', which '\(draft.entity.name)' inherits from")
            }
        }
    }

    private func checkUniqueKey(_ draft: EntityDraft, model: StoreModel) throws {
        let attributes = model.allAttributes(of: draft.entity.name).map(\.name)
        let relationships = model.allRelationships(of: draft.entity.name)
        var seen: Set<String> = []
        for node in draft.unique {
            guard let name = node.scalar else {
                throw node.error(.pipelineWrongType, "'unique' expects attribute names, found \(node.kindDescription)")
            }
            // A to-one relationship may be part of a key (a join entity's: recipe and ingredient):
            // the record it links to identifies it.
            if let relationship = relationships.first(where: { $0.name == name }) {
                if relationship.isToMany || relationship.isTransient {
                    throw node.error(.pipelineInvalidUniqueKey, "unique keys are made of attributes and to-one relationships, and '\(name)' is a "
                                                                    + (relationship.isToMany ? "to-many" : "transient") + " relationship of '\(draft.entity.name)'")
                }
                guard seen.insert(name).inserted else { throw node.error(.pipelineDuplicateName, "'\(name)' appears twice in the unique key") }
                continue
            }
            guard attributes.contains(name) else {
                throw node.error(.pipelineUnknownAttribute,
                                 "unique key '\(name)' is not an attribute or to-one relationship of '\(draft.entity.name)'"
                                     + Suggestion.hint(for: name, in: attributes)
                                     + (attributes.isEmpty ? "" : " (attributes: \(attributes.joined(separator: ", ")))"))
            }
            guard seen.insert(name).inserted else { throw node.error(.pipelineDuplicateName, "'\(name)' appears twice in the unique key") }
        }
    }

    private func checkDestinations(_ draft: EntityDraft, model: StoreModel) throws {
        for (relationship, nodes) in zip(draft.entity.relationships, draft.relationshipNodes) {
            guard !relationship.destination.isEmpty, model[relationship.destination] != nil else {
                // Listed only here: made for every entity, the list made checking them quadratic.
                let names = model.entities.map(\.name)
                throw nodes.destination.error(.pipelineUnknownEntity,
                    "relationship '\(draft.entity.name).\(relationship.name)' points to unknown entity '\(relationship.destination)'"
                        + Suggestion.hint(for: relationship.destination, in: names)
                        + " (entities: \(names.joined(separator: ", ")))")
            }
        }
    }

    /// A name that becomes a table, column or model name: a letter or `_`, then letters, digits, `_`.
    func identifier(_ node: ConfigNode, what: String) throws -> String {
        guard let name = node.scalar else {
            throw node.error(.pipelineInvalidName, "\(what)s must be plain names, found \(node.kindDescription)")
        }
        guard PipelineLoader.Context.isIdentifier(name) else {
            throw node.error(.pipelineInvalidName, "'\(name)' is not a valid \(what): use letters, digits and '_', starting with a letter or '_'")
        }
        return name
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        func isLetter(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F }
        return isLetter(first) && name.utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}
