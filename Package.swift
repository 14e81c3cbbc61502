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
//   SQLite, CoreDataFormat -> Pipeline -> Foundation. Pipeline imports no C library and no Yams;
//   each C library is imported by one module only (CSQLite by SQLite, CLibXML2 by SourcesXML, ...).
import PackageDescription

let package = Package(
    name: "pipectl",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "pipectl", targets: ["pipectl"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        // The import report and the store tools, for Swift code that runs pipelines itself (docs/report.md).
        .library(name: "ReportsXLSX", targets: ["ReportsXLSX"]),
        .library(name: "StoreTools", targets: ["StoreTools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
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
        // A compiler builtin (prefetch) Swift does not expose: a header, no library.
        .systemLibrary(name: "CPrefetch", path: "Sources/CPrefetch"),

        .target(name: "Pipeline"),
        // What guards a run against its environment: signals, hostile inputs' budgets.
        .target(name: "Safeguards", dependencies: ["Pipeline"]),
        .target(name: "Transforms", dependencies: ["Pipeline"]),
        .target(
            name: "PipelineFile",
            dependencies: ["Pipeline", .product(name: "Yams", package: "Yams")]),
        .target(name: "SourcesCSV", dependencies: ["Pipeline", "CCSV"], path: "Sources/Sources-CSV"),
        .target(name: "SourcesXML", dependencies: ["Pipeline", "CLibXML2"], path: "Sources/Sources-XML"),
        .target(name: "SourcesJSON", dependencies: ["Pipeline", "Safeguards"], path: "Sources/Sources-JSON"),
        .target(name: "SQLite", dependencies: ["Pipeline", "CSQLite"]),
        .target(
            name: "CoreDataFormat",
            dependencies: ["Pipeline", "Safeguards", .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "SinksSQLite",
            dependencies: ["Pipeline", "SQLite", "CoreDataFormat", "CPrefetch", "Safeguards"],
            path: "Sources/Sinks-SQLite"),
        .target(name: "StoreTools", dependencies: ["Pipeline", "SQLite", "CoreDataFormat", "SinksSQLite", "ReportsXLSX"]),
        .target(
            name: "ReportsXLSX",
            dependencies: ["Pipeline", "CXLSXWriter", .product(name: "Crypto", package: "swift-crypto")],
            path: "Sources/Reports-XLSX"),
        .executableTarget(
            name: "pipectl",
            dependencies: [
                "Pipeline", "PipelineFile", "Transforms", "SourcesCSV", "SourcesXML", "SourcesJSON", "CoreDataFormat",
                "SinksSQLite", "StoreTools", "ReportsXLSX", "Safeguards",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),

        // libFuzzer targets for scripts/fuzz (Fuzz/): built with -sanitize=fuzzer -DFUZZING there; a plain
        // build makes them small replayers of the files named on their command line.
        .target(name: "FuzzSupport", dependencies: ["Pipeline"], path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzCSV", dependencies: ["FuzzSupport", "Pipeline", "SourcesCSV"], path: "Fuzz/FuzzCSV"),
        .executableTarget(name: "FuzzXML", dependencies: ["FuzzSupport", "Pipeline", "SourcesXML"], path: "Fuzz/FuzzXML"),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport", "Pipeline", "SourcesJSON"], path: "Fuzz/FuzzJSON"),
        .executableTarget(name: "FuzzPlist", dependencies: ["FuzzSupport", "Pipeline", "SourcesJSON"], path: "Fuzz/FuzzPlist"),
        .executableTarget(
            name: "FuzzPipeline",
            dependencies: ["FuzzSupport", "Pipeline", "PipelineFile", "Transforms", "SourcesCSV", "SourcesXML", "SourcesJSON"],
            path: "Fuzz/FuzzPipeline"),

        .testTarget(name: "PipelineTests", dependencies: ["Pipeline"]),
        .testTarget(name: "TransformsTests", dependencies: ["Transforms", "Pipeline", "PipelineFile"]),
        .testTarget(
            name: "PipelineFileTests",
            dependencies: ["PipelineFile", "Pipeline", "Transforms", "SourcesCSV", "SourcesXML", "SourcesJSON"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "SourcesCSVTests", dependencies: ["SourcesCSV", "Pipeline"], resources: [.copy("Fixtures")]),
        // The sink, the Core Data format and the store tools share the Core Data cases and one test target.
        .testTarget(name: "SinksSQLiteTests", dependencies: ["SinksSQLite", "CoreDataFormat", "StoreTools", "SQLite", "Pipeline"]),
        .testTarget(
            name: "ExtrasTests", dependencies: ["SourcesCSV", "SourcesXML", "SourcesJSON", "ReportsXLSX", "Pipeline", "PipelineFile"]),
        .testTarget(
            name: "pipectlTests", dependencies: ["pipectl", "SinksSQLite", "CoreDataFormat", "Pipeline", "ReportsXLSX"],
            exclude: ["Fixtures", "Snapshots"]),
    ],
    swiftLanguageModes: [.v6]
)
