import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory pipectl run pipelines/grocery.yaml`: pipectl
/// from an app's own package, on the package's files, the store written into the package.
///
/// Which pipectl: the one `PIPECTL_PATH` names (a release binary CI downloaded, Homebrew's), else
/// the package's own, built in release the first time (no swift-syntax: a few minutes). The
/// `@Model` reader, for a SwiftData app's model, is built too when the first argument is
/// `--swiftdata` (swift-syntax: about ten minutes the first time), or found beside `PIPECTL_PATH`.
@main
struct PipectlPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var arguments = arguments
        let wantsSwiftData = arguments.first == "--swiftdata"
        if wantsSwiftData { arguments.removeFirst() }
        var environment = ProcessInfo.processInfo.environment
        let tool: URL
        if let named = environment["PIPECTL_PATH"], !named.isEmpty {
            tool = URL(fileURLWithPath: named)
        } else {
            tool = try build("pipectl")
        }
        if wantsSwiftData, environment["PIPECTL_SWIFTDATA"] == nil {
            let beside = tool.deletingLastPathComponent().appendingPathComponent("pipectl-swiftdata")
            environment["PIPECTL_SWIFTDATA"] = FileManager.default.isExecutableFile(atPath: beside.path)
                ? beside.path : try build("pipectl-swiftdata").path
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.environment = environment
        // Paths in the arguments are the package's, as a developer types them in its folder.
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            Diagnostics.error("pipectl \(arguments.first ?? "") exited with \(process.terminationStatus)")
            throw PluginFailure(description: "pipectl exited with \(process.terminationStatus)")
        }
    }

    /// Builds one of pipectl's executables in release and gives its path.
    private func build(_ product: String) throws -> URL {
        let result = try packageManager.build(.product(product), parameters: .init(configuration: .release, logging: .concise))
        guard result.succeeded, let built = result.builtArtifacts.first(where: { $0.kind == .executable }) else {
            Diagnostics.error(result.logText)
            throw PluginFailure(description: "building \(product) failed")
        }
        return built.url
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    var description: String
}
