import Foundation

/// Standard output and error, unbuffered writes of whole strings.
enum Terminal {
    struct Stream {
        let handle: FileHandle
        func write(_ text: String) { handle.write(Data(text.utf8)) }
        var isTerminal: Bool { isatty(handle.fileDescriptor) != 0 }
    }
    static let standardOutput = Stream(handle: .standardOutput)
    static let standardError = Stream(handle: .standardError)

    /// `path` relative to the current directory when it lies below it, for shorter messages.
    static func display(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let path = url.standardizedFileURL.path
        let prefix = cwd.hasSuffix("/") ? cwd : cwd + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
