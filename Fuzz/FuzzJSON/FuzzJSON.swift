import FuzzSupport
import Pipeline
import SourcesJSON

/// libFuzzer's entry point: the same bytes through the JSON reader (top-level array, then a
/// records path) and the JSON Lines reader, which share the streaming parser.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let fields = ["name", "unit", "location.shop"]
    _ = Fuzz.withInput(data, size, suffix: "json") { input in
        try Fuzz.drain(JSONReader(input: input, fields: fields))
    }
    _ = Fuzz.withInput(data, size, suffix: "json") { input in
        try Fuzz.drain(JSONReader(input: input, fields: fields, records: "items"))
    }
    return Fuzz.withInput(data, size, suffix: "jsonl") { input in
        try Fuzz.drain(JSONLinesReader(input: input, fields: fields))
    }
}

/// libFuzzer's driver under scripts/fuzz; a replayer of the files it is given in a plain build.
@main enum Main {
    static func main() { Fuzz.main(fuzzTestOneInput) }
}
