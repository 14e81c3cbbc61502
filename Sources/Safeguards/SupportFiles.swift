import Foundation

/// Files that belong beside a store and change with it (Core Data's external data): written to
/// `StoreFile.supportStaging`, they go into `folder` as the store is published.
public struct SupportFiles: Sendable {
    /// Where the files belong (`.Store_SUPPORT/_EXTERNAL_DATA` beside the store).
    public var folder: URL
    /// Every file the new store refers to.
    public var names: Set<String>

    public init(folder: URL, names: Set<String>) {
        self.folder = folder
        self.names = names
    }
}
