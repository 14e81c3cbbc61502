import Foundation
import FuzzSupport
import Pipeline
import SwiftDataModel

/// libFuzzer's entry point: the `@Model` Swift source reader (`pipectl model`, and `validate`,
/// `run` and `init` with a SwiftData model) on arbitrary text: its nesting budget, then SwiftParser
/// and the translation to a store model.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.withInput(data, size, suffix: "swift") { input in
        _ = try SwiftDataModelReader.read(input.url)
    }
}

/// libFuzzer's driver under scripts/fuzz; a replayer of the files it is given in a plain build.
@main enum Main {
    static func main() { Fuzz.main(fuzzTestOneInput) }
}
