import Foundation

/// Reads parts of an .xlsx (a zip) with `unzip -p` (scripts/setup installs it).
struct Workbook {
    let url: URL
    init(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { throw CocoaError(.fileNoSuchFile) }
        self.url = url
    }

    func part(_ name: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["unzip", "-p", url.path, name]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
        return String(decoding: data, as: UTF8.self)
    }

    func sheet(_ number: Int) throws -> String { try part("xl/worksheets/sheet\(number).xml") }

    func sheetNames() throws -> [String] {
        let xml = try part("xl/workbook.xml")
        return xml.components(separatedBy: "<sheet name=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }
}
