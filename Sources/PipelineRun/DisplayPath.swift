import Foundation

/// Paths as messages and reports show them.
public enum DisplayPath {
    /// `url` relative to the current directory when it lies below it, for shorter messages and
    /// reports that compare across machines.
    public static func of(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let path = url.standardizedFileURL.path
        let prefix = cwd.hasSuffix("/") ? cwd : cwd + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
