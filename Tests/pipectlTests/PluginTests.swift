import Foundation
import SinksSQLite
import SQLite
import Testing

/// The SwiftPM command plugin, as an app's package runs it (Examples/PantryApp).
@Suite struct PluginTests {
    @Test("swift package pipectl run, with PIPECTL_PATH naming a built pipectl: the example app package writes its store")
    func examplePackageRunsAPrebuiltPipectl() throws {
        let binary = Pipectl.productsDirectory.appendingPathComponent("pipectl")
        try runExample(environment: ["PIPECTL_PATH": binary.path])
    }

    /// The plugin builds pipectl itself inside the app's package, in release (minutes):
    /// `scripts/test-plugin` (CI) sets PIPECTL_PLUGIN_TEST=1.
    @Test("swift package pipectl run: the plugin builds pipectl in the example app package, which writes its store",
          .enabled(if: ProcessInfo.processInfo.environment["PIPECTL_PLUGIN_TEST"] == "1", "set PIPECTL_PLUGIN_TEST=1 (scripts/test-plugin does)"))
    func examplePackageBuildsPipectl() throws {
        try runExample(environment: ["PIPECTL_PATH": ""])
    }

    private func runExample(environment: [String: String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipectl-plugin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Pipectl.repository.appendingPathComponent("Examples/PantryApp"), to: folder)
        // The example names the checkout it is in; a copy names it by its full path.
        let manifest = folder.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
            .replacingOccurrences(of: #"path: "../..""#, with: "path: \"\(Pipectl.repository.path)\"")
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let run = try Pipectl.runTool("swift", ["package", "--allow-writing-to-package-directory", "pipectl", "run", "pipelines/pantry.yaml"],
                                      in: folder, environment: environment)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("checks: 4 of 4 passed"), "\(run.stdout)")
        let store = try SQLiteStore(readingAt: folder.appendingPathComponent("build/Pantry.sqlite"))
        #expect(try store.rows("SELECT ZNAME FROM ZITEM ORDER BY Z_PK") == [[.text("Rice")], [.text("Lentils")], [.text("Olive oil")], [.text("Honey")]])
        let inspect = try Pipectl.runTool("swift", ["package", "--allow-writing-to-package-directory", "pipectl", "inspect", "build/Pantry.sqlite",
                                                    "--model", "pipelines/model/Pantry.xcdatamodel"], in: folder, environment: environment)
        #expect(inspect.status == 0 && inspect.stdout.contains("match:"), "\(inspect.stdout)\n\(inspect.stderr)")
    }
}
