import Diagnostics
import Foundation
import Pipeline
import SwiftDataModel

// pipectl-swiftdata SOURCE...: a SwiftData app's model read from its `@Model` classes (a folder of
// .swift files, or files), answered as JSON on standard output for pipectl, which calls it.
//
// It is an executable of its own so that pipectl builds without swift-syntax (about ten minutes of
// a clean release build on two cores): docs/architecture.md, "Build".

var arguments = Array(CommandLine.arguments.dropFirst())
var schema: String?
if arguments.count >= 2, arguments[0] == "--schema" {
    schema = arguments[1]
    arguments.removeFirst(2)
}
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print("""
        usage: pipectl-swiftdata [--schema NAME] SOURCE...
        Reads a SwiftData app's @Model classes (folders and .swift files) and writes the model as JSON;
        --schema takes it from that VersionedSchema instead of the current one.
        pipectl calls it when a pipeline's `model:` (or --model) is Swift source; `pipectl model SOURCE`
        shows the model in words.
        """)
    exit(arguments.isEmpty ? 64 : 0)
}

let answer: ModelReaderAnswer
do {
    answer = .model(try SwiftDataModelReader.read(arguments.map { URL(fileURLWithPath: $0) }, schema: schema))
} catch let error as PipelineError {
    answer = .failure(error)
} catch {
    answer = .failure(PipelineError(.io, code: .modelReaderFailed, stage: "model", "\(error)"))
}
let encoder = JSONEncoder()
encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
do {
    FileHandle.standardOutput.write(try encoder.encode(answer))
} catch {
    FileHandle.standardError.write(Data("pipectl-swiftdata: cannot write the model: \(error)\n".utf8))
    exit(70)
}
