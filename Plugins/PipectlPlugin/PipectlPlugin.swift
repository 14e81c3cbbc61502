import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory pipectl run pipelines/grocery.yaml`: pipectl
/// from an app's own package, on the package's files, the store written into the package.
@main
struct PipectlPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "pipectl")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        // Paths in the arguments are the package's, as a developer types them in its folder.
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            Diagnostics.error("pipectl \(arguments.first ?? "") exited with \(process.terminationStatus)")
            throw PluginFailure(status: process.terminationStatus)
        }
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "pipectl exited with \(status)" }
}
