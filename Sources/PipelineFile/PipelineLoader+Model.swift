import Foundation
import Diagnostics
import Pipeline

extension PipelineLoader.Context {
    /// The app's model file, through the registered model reader.
    func readModel(_ urls: [URL], schema: String?, at store: ConfigNode?) throws -> StoreModel {
        guard let reader = registry.modelReader else {
            throw (store ?? ConfigNode(.null, at: Location(file: shownFile))).error(.pipelineModelFilesUnsupported,
                "this pipectl cannot read model files ('store.model'); declare the entities under 'entities:' instead")
        }
        do {
            return try reader(urls, schema)
        } catch var error as PipelineError {
            // Readers name files by absolute path; messages name them as the user sees them.
            if let file = error.location?.file, file.hasPrefix("/") {
                error.location?.file = PipelineLoader.Context.relative(file, to: currentDirectory)
            }
            throw error
        }
    }

    /// `entities:` on top of an app's model: what a Core Data model cannot say (unique keys for
    /// find-or-create), and attributes restated to check that the pipeline and the model agree.
    ///
    /// Everything else comes from the model file; saying it again here would be a second place
    /// to keep in step, so it is refused with a pointer to the model.
    func storeModel(from node: ConfigNode?, on base: StoreModel) throws -> StoreModel {
        var model = try keyed(from: node, on: base)
        // The model's own uniqueness constraint is the key an entity is found by, where the
        // pipeline names none and the model has exactly one (of several, which is the key is the
        // pipeline's choice, so it must say).
        for entity in model.entities where model.uniqueKey(of: entity.name).isEmpty {
            let constraints = model.lineage(of: entity.name).flatMap(\.uniquenessConstraints).filter { !$0.isEmpty }
            if constraints.count == 1 { model.setUniqueKey(constraints[0], of: entity.name) }
        }
        return model
    }

    private func keyed(from node: ConfigNode?, on base: StoreModel) throws -> StoreModel {
        guard let node else { return base }
        guard let pairs = node.mapping else {
            throw node.error(.pipelineWrongType, "'entities' expects a mapping of entity names to entities, found \(node.kindDescription)")
        }
        var model = base
        let names = base.entities.map(\.name)
        for (key, value) in pairs {
            let name = try identifier(key, what: "entity name")
            guard base[name] != nil else {
                throw key.error(.pipelineUnknownEntity, "the model has no entity '\(name)'\(Suggestion.hint(for: name, in: names))"
                                                            + " (entities: \(names.joined(separator: ", ")))")
            }
            let options = try Options(value, spec: PipelineSpecs.entity.named(name), stage: "pipeline")
            for owned in ["parent", "abstract", "relationships"] {
                if let ownedKey = options.keyNode(owned) {
                    throw ownedKey.error(.pipelineOwnedByModel,
                                         "'\(owned)' of '\(name)' comes from the model file; change it there (here only 'unique' and 'attributes' to check)")
                }
            }
            if let attributes = options.node("attributes") {
                try checkAttributes(attributes, of: name, against: base)
            }
            if let unique = options.node("unique") {
                let keyNodes = unique.sequence ?? [unique]
                guard !keyNodes.isEmpty else { throw unique.error(.pipelineEmptyValue, "'unique' needs at least one attribute") }
                let attributes = base.allAttributes(of: name).map(\.name)
                // A to-one relationship may be part of a key (a join entity's `recipe, ingredient`).
                let toOnes = base.allRelationships(of: name).filter { !$0.isToMany && !$0.isTransient }.map(\.name)
                var key: [String] = []
                for keyNode in keyNodes {
                    guard let attribute = keyNode.scalar, attributes.contains(attribute) || toOnes.contains(attribute) else {
                        let given = keyNode.scalar ?? keyNode.kindDescription
                        if base.allRelationships(of: name).contains(where: { $0.name == given }) {
                            throw keyNode.error(.pipelineInvalidUniqueKey,
                                                "unique keys are made of attributes and to-one relationships, and '\(given)' is a "
                                                    + "to-many relationship of '\(name)' in the model")
                        }
                        throw keyNode.error(.pipelineUnknownAttribute,
                                            "unique key '\(given)' is not an attribute or to-one relationship of '\(name)' in the model"
                                                + Suggestion.hint(for: given, in: attributes)
                                                + " (attributes: \(attributes.joined(separator: ", ")))")
                    }
                    guard !key.contains(attribute) else {
                        throw keyNode.error(.pipelineDuplicateName, "'\(attribute)' appears twice in the unique key")
                    }
                    key.append(attribute)
                }
                model.setUniqueKey(key, of: name)
            }
        }
        return model
    }

    /// Attributes restated in the pipeline must exist in the model with the same type.
    private func checkAttributes(_ node: ConfigNode, of entity: String, against model: StoreModel) throws {
        guard let pairs = node.mapping else {
            throw node.error(.pipelineWrongType, "'attributes' expects a mapping of attribute names to types, found \(node.kindDescription)")
        }
        let attributes = model.allAttributes(of: entity)
        for (key, value) in pairs {
            let name = key.scalar ?? ""
            guard let attribute = attributes.first(where: { $0.name == name }) else {
                throw key.error(.pipelineUnknownAttribute, "the model's '\(entity)' has no attribute '\(name)'"
                                                               + Suggestion.hint(for: name, in: attributes.map(\.name))
                                                               + " (attributes: \(attributes.map(\.name).joined(separator: ", ")))")
            }
            var typeNode = value
            if value.mapping != nil {
                let options = try Options(value, spec: PipelineSpecs.attribute.named("\(entity).\(name)"), stage: "pipeline")
                for owned in ["default", "indexed", "optional"] {
                    if let ownedKey = options.keyNode(owned) {
                        throw ownedKey.error(.pipelineOwnedByModel, "'\(owned)' of \(entity).\(name) comes from the model file; change it there")
                    }
                }
                typeNode = try options.required("type")
            }
            let spelling = typeNode.scalar ?? ""
            guard let type = AttributeType(spelling: spelling) else {
                let names = AttributeType.spellings.map(\.0)
                throw typeNode.error(.pipelineUnknownType, "unknown type '\(spelling)'\(Suggestion.hint(for: spelling, in: names))")
            }
            guard type == attribute.type else {
                throw typeNode.error(.pipelineTypeMismatch, "\(entity).\(name) is \(attribute.type.rawValue) in the model, not \(type.rawValue)")
            }
        }
    }
}
