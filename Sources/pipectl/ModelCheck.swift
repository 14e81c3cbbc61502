import Pipeline
import StoreTools

/// `inspect --model`: the model's path as given, the comparison with it, and which configuration
/// the comparison was made for.
struct ModelCheck {
    let path: String
    let comparison: StoreModelComparison
    /// `--configuration`: the store was compared with this configuration's entities only.
    var configuration: String?
    /// Without `--configuration`, on a store that does not match the whole model: the model's
    /// configurations it does match, so that a configuration's store is named for what it is.
    var matchingConfigurations: [String] = []

    /// The configurations of `model` whose store `inspection` is (hashes and Z_PRIMARYKEY match).
    static func configurations(of model: StoreModel, matching inspection: StoreInspection) -> [String] {
        model.configurations.compactMap { configuration in
            guard let narrowed = try? model.restricted(to: configuration.name) else { return nil }
            return StoreModelComparison(store: inspection, model: narrowed).matches ? configuration.name : nil
        }
    }
}
