import Foundation

/// Where a report writer builds a report before it renames it into place: `.<name>.partial`
/// beside it. Named in one place, so that a run can register it for removal on a signal and the
/// next run can find what a killed one left.
public enum PartialFile {
    public static func url(beside url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
    }
}
