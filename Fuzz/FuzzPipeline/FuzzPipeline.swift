import Foundation
import FuzzSupport
import Pipeline
import PipelineFile
import SourcesCSV
import SourcesJSON
import PropertyLists
import SourcesXML
import SourcesXLSX
import Transforms

/// The components a pipeline file may name (the Core Data model reader aside: `model:` paths are
/// checked for existence, which is all the loader does with them before a run).
let registry = ComponentRegistry(
    readers: [CSVReaderKind(), XMLReaderKind(), JSONReaderKind(), JSONLinesReaderKind(), PropertyListReaderKind(), XLSXReaderKind()],
    transforms: StandardTransforms.all)

/// libFuzzer's entry point: the pipeline-file loader on arbitrary text, in a folder of its own so
/// that paths in the file resolve against it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.withInput(data, size, suffix: "yaml") { input in
        _ = try PipelineLoader.load(contentsOf: input.url, registry: registry)
    }
}

/// libFuzzer's driver under scripts/fuzz; a replayer of the files it is given in a plain build.
@main enum Main {
    static func main() { Fuzz.main(fuzzTestOneInput) }
}
