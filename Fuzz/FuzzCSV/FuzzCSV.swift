import FuzzSupport
import Pipeline
import SourcesCSV

/// libFuzzer's entry point: the CSV reader with every option on auto, as most pipelines use it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.withInput(data, size, suffix: "csv") { input in
        try Fuzz.drain(CSVReader(input: input))
    }
}

/// libFuzzer's driver under scripts/fuzz; a replayer of the files it is given in a plain build.
@main enum Main {
    static func main() { Fuzz.main(fuzzTestOneInput) }
}
