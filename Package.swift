// swift-tools-version:6.0
//
// pipectl: declarative pipelines from spreadsheet exports into SQLite and Core Data stores.
//
// Settings in one place:
// - Swift 6 language mode everywhere (strict concurrency).
// - Each C library is a system-library target (`Sources/C<Lib>`: module.modulemap + shim.h only)
//   with an apt and a brew provider, so `swift build` names the package to install when missing.
// - Dependencies point one way (docs/architecture.md has the picture): pipectl -> the loader
//   (PipelineFile), readers (Sources*), Transforms, the sink (SinksSQLite), StoreTools, reports ->
//   SQLite, CoreDataFormat -> Pipeline, Safeguards -> Diagnostics -> Foundation. Pipeline imports no
//   C library and no Yams; each C library is imported by one module only (CSQLite by SQLite, ...),
//   except CLibXML2, by SourcesXML and SourcesXLSX: a workbook's sheets and shared strings are XML
//   too, parsed with the same libxml2 settings and worded by SourcesXML's error trap, so that they
//   are refused for the same reasons and in the same words as an XML file.
import PackageDescription

let package = Package(
    name: "pipectl",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "pipectl", targets: ["pipectl"]),
        // The `@Model` reader, which pipectl runs for a SwiftData app's model: swift-syntax is built
        // for it alone (docs/architecture.md, "Build").
        .executable(name: "pipectl-swiftdata", targets: ["pipectl-swiftdata"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        // A pipeline run exactly as `pipectl run` does it, for Swift code (a test, a tool, a build script).
        .library(name: "PipelineRun", targets: ["PipelineRun"]),
        // The import report and the store tools, for Swift code that runs pipelines itself (docs/report.md).
        .library(name: "ReportsXLSX", targets: ["ReportsXLSX"]),
        .library(name: "StoreTools", targets: ["StoreTools"]),
        // `swift package pipectl run pipelines/grocery.yaml` from an app's own package.
        .plugin(name: "PipectlPlugin", targets: ["PipectlPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
    ],
    targets: [
        // C libraries. libcsv ships no pkg-config file: its module map links "csv" directly.
        .systemLibrary(
            name: "CCSV", path: "Sources/CCSV",
            providers: [.apt(["libcsv-dev"]), .brew(["libcsv"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(
            name: "CXLSXWriter", path: "Sources/CXLSXWriter", pkgConfig: "xlsxwriter",
            providers: [.apt(["libxlsxwriter-dev"]), .brew(["libxlsxwriter"])]),
        // SHA-256 and SHA-1 (Checksums): the system's libcrypto, not a crypto package built with pipectl.
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // A compiler builtin (prefetch) Swift does not expose: a header, no library.
        .systemLibrary(name: "CPrefetch", path: "Sources/CPrefetch"),
        // glibc's malloc settings (<malloc.h>), for the command's own process: a header, no library.
        .systemLibrary(name: "CHeap", path: "Sources/CHeap"),

        // How pipectl speaks to its user: locations in input files, errors, rejections, warnings.
        .target(name: "Diagnostics"),
        .target(name: "Checksums", dependencies: ["CCrypto"]),
        // What guards a run against its environment: signals, hostile inputs' budgets, other runs
        // on the same store, a store replaced only once the new one is complete, and temporary
        // files that go however the run ends.
        .target(name: "Safeguards", dependencies: ["Diagnostics"]),
        .target(name: "Pipeline", dependencies: ["Diagnostics", "Safeguards"]),
        .target(name: "Transforms", dependencies: ["Diagnostics", "Pipeline", "Checksums"]),
        .target(
            name: "PipelineFile",
            dependencies: ["Diagnostics", "Pipeline", .product(name: "Yams", package: "Yams")]),
        .target(name: "SourcesCSV", dependencies: ["Diagnostics", "Pipeline", "CCSV"], path: "Sources/Sources-CSV"),
        .target(name: "SourcesXML", dependencies: ["Diagnostics", "Pipeline", "Safeguards", "CLibXML2"], path: "Sources/Sources-XML"),
        // .xlsx workbooks: XML parts in a zip archive (ZIPFoundation, see XLSXWorkbook), parsed with libxml2
        // and worded with SourcesXML's error trap (`package`, not public API).
        .target(name: "SourcesXLSX", dependencies: ["Diagnostics", "Pipeline", "SourcesXML", "CLibXML2",
                                                    .product(name: "ZIPFoundation", package: "ZIPFoundation")],
                path: "Sources/Sources-XLSX"),
        .target(name: "SourcesJSON", dependencies: ["Diagnostics", "Pipeline"], path: "Sources/Sources-JSON"),
        // Property lists in one place: the budget every plist pipectl decodes passes first (a binary plist's
        // shared references would expand without bound in Foundation), the plist reader, and the binary
        // plist writer and decoder of Core Data's metadata.
        .target(name: "PropertyLists", dependencies: ["Diagnostics", "Pipeline"]),
        .target(name: "SQLite", dependencies: ["Diagnostics", "Pipeline", "CSQLite"]),
        .target(
            name: "CoreDataFormat",
            dependencies: ["Diagnostics", "Pipeline", "PropertyLists", "Checksums"]),
        // A SwiftData app's model read from its `@Model` classes (swift-syntax), as SwiftData translates them.
        .target(
            name: "SwiftDataModel",
            dependencies: ["Diagnostics", "Pipeline", "CoreDataFormat", .product(name: "SwiftSyntax", package: "swift-syntax"),
                           .product(name: "SwiftParser", package: "swift-syntax")]),
        .target(
            name: "SinksSQLite",
            dependencies: ["Diagnostics", "Pipeline", "SQLite", "CoreDataFormat", "CPrefetch", "Safeguards"],
            path: "Sources/Sinks-SQLite"),
        .target(
            name: "StoreTools",
            dependencies: ["Diagnostics", "Pipeline", "SQLite", "CoreDataFormat", "PropertyLists", "SinksSQLite", "ReportsXLSX", "Safeguards"]),
        .target(
            name: "ReportsXLSX",
            dependencies: ["Diagnostics", "Pipeline", "CXLSXWriter", "Checksums"],
            path: "Sources/Reports-XLSX"),
        // What `pipectl run` does, as a library: load, lock, build, check, report, publish.
        .target(
            name: "PipelineRun",
            dependencies: ["Diagnostics", "Pipeline", "PipelineFile", "Transforms", "SourcesCSV", "SourcesXML", "SourcesXLSX", "SourcesJSON",
                           "PropertyLists", "CoreDataFormat", "SinksSQLite", "StoreTools", "ReportsXLSX", "Safeguards", "Checksums"]),
        .executableTarget(
            name: "pipectl",
            dependencies: [
                "Diagnostics", "Pipeline", "PipelineRun", "PipelineFile", "Transforms", "SourcesCSV", "SourcesXML", "SourcesXLSX", "SourcesJSON",
                "PropertyLists", "CoreDataFormat", "SinksSQLite", "StoreTools", "ReportsXLSX", "Safeguards",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "Checksums", "CHeap",
            ]),
        .executableTarget(name: "pipectl-swiftdata", dependencies: ["Diagnostics", "Pipeline", "SwiftDataModel"]),

        // libFuzzer targets for scripts/fuzz (Fuzz/): built with -sanitize=fuzzer -DFUZZING there; a plain
        // build makes them small replayers of the files named on their command line.
        .target(name: "FuzzSupport", dependencies: ["Diagnostics", "Pipeline"], path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzCSV", dependencies: ["FuzzSupport", "Diagnostics", "Pipeline", "SourcesCSV"], path: "Fuzz/FuzzCSV"),
        .executableTarget(name: "FuzzXML", dependencies: ["FuzzSupport", "Diagnostics", "Pipeline", "SourcesXML"], path: "Fuzz/FuzzXML"),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport", "Diagnostics", "Pipeline", "SourcesJSON"], path: "Fuzz/FuzzJSON"),
        .executableTarget(name: "FuzzPlist", dependencies: ["FuzzSupport", "Diagnostics", "Pipeline", "PropertyLists"], path: "Fuzz/FuzzPlist"),
        .executableTarget(name: "FuzzXLSX", dependencies: ["FuzzSupport", "Diagnostics", "Pipeline", "SourcesXLSX",
                                                           .product(name: "ZIPFoundation", package: "ZIPFoundation")], path: "Fuzz/FuzzXLSX"),
        .executableTarget(
            name: "FuzzPipeline",
            dependencies: ["FuzzSupport", "Diagnostics", "Pipeline", "PipelineFile", "Transforms", "SourcesCSV", "SourcesXML", "SourcesXLSX",
                           "SourcesJSON", "PropertyLists"],
            path: "Fuzz/FuzzPipeline"),
        .executableTarget(name: "FuzzModel", dependencies: ["FuzzSupport", "Diagnostics", "Pipeline", "SwiftDataModel"], path: "Fuzz/FuzzModel"),

        .plugin(
            name: "PipectlPlugin",
            capability: .command(
                intent: .custom(verb: "pipectl", description: "Run pipectl (run, init, inspect, check, ...) on the package's files"),
                permissions: [.writeToPackageDirectory(reason: "pipectl writes the store and its reports into the package")])),

        .testTarget(name: "PipelineTests", dependencies: ["Diagnostics", "Pipeline"]),
        .testTarget(name: "TransformsTests", dependencies: ["Transforms", "Diagnostics", "Pipeline", "PipelineFile"]),
        .testTarget(
            name: "PipelineFileTests",
            dependencies: ["PipelineFile", "Diagnostics", "Pipeline", "Transforms", "SourcesCSV", "SourcesXML", "SourcesXLSX", "SourcesJSON",
                           "PropertyLists", .product(name: "Yams", package: "Yams")],
            resources: [.copy("Fixtures")]),
        // What several test targets share: where their helpers write input files.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "SourcesCSVTests", dependencies: ["SourcesCSV", "Diagnostics", "Pipeline", "TestSupport"], resources: [.copy("Fixtures")]),
        // The sink, the Core Data format and the store tools share the Core Data cases and one test target.
        .testTarget(
            name: "SinksSQLiteTests",
            dependencies: ["SinksSQLite", "CoreDataFormat", "PropertyLists", "StoreTools", "SQLite", "Diagnostics", "Pipeline", "Safeguards",
                           "SwiftDataModel"]),
        .testTarget(
            name: "ExtrasTests", dependencies: ["SourcesCSV", "SourcesXML", "SourcesXLSX", "SourcesJSON", "PropertyLists", "ReportsXLSX", "Diagnostics",
                                                "Pipeline", "PipelineFile", "CXLSXWriter", "TestSupport",
                                                .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "pipectlTests", dependencies: ["pipectl", "PipelineRun", "SinksSQLite", "SQLite", "CoreDataFormat", "Diagnostics", "Pipeline", "ReportsXLSX", "Safeguards",
                                               "CXLSXWriter"],
            exclude: ["Fixtures", "Snapshots"]),
    ],
    swiftLanguageModes: [.v6]
)
