import Pipeline
import SourcesCSV

/// Every reader and transform a pipeline file may name.
enum Components {
    static let registry = ComponentRegistry(readers: [CSVReaderKind()])
}
