import Pipeline
import StoreTools

/// `inspect --model`: the model's path as given, the comparison with it, and the configuration
/// the store is checked as. A configuration's store has the whole model's schema (docs/coredata.md,
/// "Configuration stores"): what tells it apart is where its rows are.
struct ModelCheck {
    let path: String
    let comparison: StoreModelComparison
    /// `--configuration`: its name and entities.
    var configuration: (name: String, entities: [String])?
    /// With `--configuration`: entities it leaves out that hold rows, with their counts. The app
    /// reads those entities from another store, so these rows would never be seen.
    var rowsOutside: [(entity: String, rows: Int64)] = []
    /// Without `--configuration`, on a store that matches the model: the model's configurations
    /// that hold every row of the store (and leave some entity out), so that a configuration's
    /// store is named for what it is.
    var holdingConfigurations: [String] = []

    var matches: Bool { comparison.matches && rowsOutside.isEmpty }

    init(path: String, comparison: StoreModelComparison, model: StoreModel, inspection: StoreInspection) {
        self.path = path
        self.comparison = comparison
        let rows = Dictionary(inspection.entities.map { ($0.name, $0.rows ?? 0) }, uniquingKeysWith: +)
        if let name = model.configuration {
            configuration = (name, model.configurationEntities)
            rowsOutside = model.entitiesOutsideConfiguration.compactMap { entity in
                rows[entity].flatMap { $0 > 0 ? (entity, $0) : nil }
            }
        } else if comparison.matches {
            let filled = Set(rows.filter { $0.value > 0 }.keys)
            let all = Set(model.entities.map(\.name))
            holdingConfigurations = filled.isEmpty ? [] : model.configurations.filter { configuration in
                let members = Set(configuration.entities)
                return filled.isSubset(of: members) && !all.isSubset(of: members)
            }.map(\.name)
        }
    }
}
