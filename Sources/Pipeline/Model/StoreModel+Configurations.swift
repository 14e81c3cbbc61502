import Diagnostics

extension StoreModel {
    /// Why a model has no such configuration: a code and words for the user, placed by the caller
    /// at the `configuration:` that asked.
    public struct ConfigurationFailure: Error, Sendable {
        public var code: PipelineError.Code
        public var message: String
    }

    /// The model as a store added with configuration `name` holds it: every entity stays (Core
    /// Data lays out such a store as the whole model's: all tables, `Z_ENT` numbers, Z_PRIMARYKEY
    /// rows and version hashes; docs/coredata.md, "Configuration stores", says on what evidence),
    /// and the entities the configuration leaves out are marked, so that loading one is refused:
    /// the app never looks for them in this store.
    public func configured(as name: String) throws(ConfigurationFailure) -> StoreModel {
        guard let chosen = configurations.first(where: { $0.name == name }) else {
            let names = configurations.map(\.name)
            let message = names.isEmpty
                ? "the model declares no configurations, so there is no '\(name)'; leave 'configuration' out for a store of the whole model"
                : "the model has no configuration '\(name)'\(Suggestion.hint(for: name, in: names)) (configurations: "
                    + names.joined(separator: ", ") + "; leave 'configuration' out for the whole model)"
            throw ConfigurationFailure(code: .pipelineUnknownConfiguration, message: message)
        }
        let members = Set(chosen.entities)
        var configured = self
        configured.configuration = name
        configured.entitiesOutsideConfiguration = entities.map(\.name).filter { !members.contains($0) }
        return configured
    }

    /// The entities of the configuration in force, in model order; all of them without one.
    public var configurationEntities: [String] {
        let outside = Set(entitiesOutsideConfiguration)
        return entities.map(\.name).filter { !outside.contains($0) }
    }
}
