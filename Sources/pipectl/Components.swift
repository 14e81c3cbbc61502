import Pipeline
import SinksSQLite
import SourcesCSV

/// Every reader and transform a pipeline file may name, and the model-file reader.
enum Components {
    static let registry = ComponentRegistry(
        readers: [CSVReaderKind()],
        modelReader: { try CoreDataModelReader.read($0) })
}
