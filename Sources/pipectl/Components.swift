import Pipeline
import SinksSQLite
import SourcesCSV
import SourcesJSON
import SourcesXML

/// Every reader and transform a pipeline file may name, and the model-file reader.
enum Components {
    static let registry = ComponentRegistry(
        readers: [CSVReaderKind(), XMLReaderKind(), JSONReaderKind(), JSONLinesReaderKind(), PropertyListReaderKind()],
        modelReader: { try CoreDataModelReader.read($0) })
}
