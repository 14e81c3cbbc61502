import FuzzSupport
import Pipeline
import SourcesXML

/// libFuzzer's entry point: the XML reader, records by name at any depth, fields from attributes and child elements.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.withInput(data, size, suffix: "xml") { input in
        try Fuzz.drain(XMLReader(input: input, options: .init(record: "item", fields: ["name", "unit", "location/shop"])))
    }
}

/// libFuzzer's driver under scripts/fuzz; a replayer of the files it is given in a plain build.
@main enum Main {
    static func main() { Fuzz.main(fuzzTestOneInput) }
}
