import PipelineFile
import SinksSQLite
import CoreDataFormat
import StoreTools
import SourcesCSV
import SourcesJSON
import PropertyLists
import SourcesXML
import SourcesXLSX
import Transforms

/// Every reader and transform a pipeline file may name, and the model-file reader.
public enum Components {
    public static let registry = ComponentRegistry(
        readers: [CSVReaderKind(), XMLReaderKind(), JSONReaderKind(), JSONLinesReaderKind(), PropertyListReaderKind(), XLSXReaderKind()],
        transforms: StandardTransforms.all,
        modelReader: { try ModelFiles.read($0, schema: $1) })
}
