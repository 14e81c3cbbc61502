import Diagnostics
import Foundation
import Pipeline
import CoreDataFormat

/// An app's model, from what it ships: Xcode's `.xcdatamodeld` / `.xcdatamodel`, or a SwiftData
/// app's `@Model` classes (a `.swift` file or a folder of them).
public enum ModelFiles {
    public static func read(_ url: URL, schema: String? = nil) throws -> StoreModel {
        try read([url], schema: schema)
    }

    /// One model file, or a SwiftData app's sources: folders and `.swift` files, read as one model;
    /// `schema` picks one of their VersionedSchemas instead of the current one.
    public static func read(_ urls: [URL], schema: String? = nil) throws -> StoreModel {
        if urls.count == 1, ["xcdatamodeld", "xcdatamodel"].contains(urls[0].pathExtension) {
            return try CoreDataModelReader.read(urls[0])
        }
        return try SwiftDataModelTool.read(urls, schema: schema)
    }
}
