import FuzzSupport
import Pipeline
import PropertyLists

/// libFuzzer's entry point: the property-list reader (XML and binary), array or dictionary root.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.withInput(data, size, suffix: "plist") { input in
        try Fuzz.drain(PropertyListReader(input: input, fields: ["name", "unit", "location.shop"], keyField: "key"))
    }
}

/// libFuzzer's driver under scripts/fuzz; a replayer of the files it is given in a plain build.
@main enum Main {
    static func main() { Fuzz.main(fuzzTestOneInput) }
}
