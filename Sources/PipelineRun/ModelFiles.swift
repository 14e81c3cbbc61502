import Diagnostics
import Foundation
import Pipeline
import CoreDataFormat

/// An app's model, from what it ships: Xcode's `.xcdatamodeld` / `.xcdatamodel`, or a SwiftData
/// app's `@Model` classes (a `.swift` file or a folder of them).
public enum ModelFiles {
    public static func read(_ url: URL) throws -> StoreModel {
        try read([url])
    }

    /// One model file, or a SwiftData app's sources: folders and `.swift` files, read as one model.
    public static func read(_ urls: [URL]) throws -> StoreModel {
        if urls.count == 1, ["xcdatamodeld", "xcdatamodel"].contains(urls[0].pathExtension) {
            return try CoreDataModelReader.read(urls[0])
        }
        return try SwiftDataModelTool.read(urls)
    }
}
