import Diagnostics

extension StoreModel {
    /// Why a model cannot be narrowed to a configuration: a code and words for the user, placed
    /// by the caller at the `configuration:` that asked.
    public struct ConfigurationFailure: Error, Sendable {
        public var code: PipelineError.Code
        public var message: String
    }

    /// The model as a store added with configuration `name` holds it: only the configuration's
    /// entities, so that tables, `Z_ENT` numbers, Z_PRIMARYKEY and the version hashes are theirs
    /// alone (docs/coredata.md, "Configuration stores", says which of these a real store confirms).
    ///
    /// Refuses a configuration that splits an inheritance hierarchy or the two ends of a
    /// relationship: Core Data keeps no relationship between two stores, and how it would lay out
    /// half a hierarchy no real store shows.
    public func restricted(to name: String) throws(ConfigurationFailure) -> StoreModel {
        guard let chosen = configurations.first(where: { $0.name == name }) else {
            let names = configurations.map(\.name)
            let message = names.isEmpty
                ? "the model declares no configurations, so there is no '\(name)'; leave 'configuration' out for a store of the whole model"
                : "the model has no configuration '\(name)'\(Suggestion.hint(for: name, in: names)) (configurations: "
                    + names.joined(separator: ", ") + "; leave 'configuration' out for the whole model)"
            throw ConfigurationFailure(code: .pipelineUnknownConfiguration, message: message)
        }
        let members = Set(chosen.entities)
        for entity in entities where members.contains(entity.name) {
            if let parent = entity.parent, !members.contains(parent) {
                throw split(name, "holds '\(entity.name)' but not its parent '\(parent)'")
            }
            if let sub = entities.first(where: { $0.parent == entity.name && !members.contains($0.name) }) {
                throw split(name, "holds '\(entity.name)' but not its sub-entity '\(sub.name)'")
            }
            for relationship in entity.relationships where !relationship.isTransient && !members.contains(relationship.destination) {
                throw ConfigurationFailure(
                    code: .pipelineConfigurationSplit,
                    message: "configuration '\(name)': relationship '\(entity.name).\(relationship.name)' leads to '\(relationship.destination)', "
                        + "which the configuration leaves out; Core Data keeps no relationship between two stores "
                        + "(link by an identifier attribute instead, or add '\(relationship.destination)' to '\(name)')")
            }
        }
        var narrowed = StoreModel(entities: entities.filter { members.contains($0.name) }, versionIdentifiers: versionIdentifiers)
        narrowed.frameworkVersion = frameworkVersion
        narrowed.origin = origin
        narrowed.configurations = configurations
        narrowed.configuration = name
        narrowed.entitiesOutsideConfiguration = entities.map(\.name).filter { !members.contains($0) }
        return narrowed
    }

    private func split(_ name: String, _ what: String) -> ConfigurationFailure {
        ConfigurationFailure(code: .pipelineConfigurationSplit,
                             message: "configuration '\(name)' \(what): pipectl writes an inheritance hierarchy whole, "
                                 + "in one store (no real store shows how Core Data would split one)")
    }
}
