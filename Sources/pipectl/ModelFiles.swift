import Foundation
import Pipeline
import CoreDataFormat
import SwiftDataModel

/// An app's model, from what it ships: Xcode's `.xcdatamodeld` / `.xcdatamodel`, or a SwiftData
/// app's `@Model` classes (a `.swift` file or a folder of them).
enum ModelFiles {
    static func read(_ url: URL) throws -> StoreModel {
        switch url.pathExtension {
        case "xcdatamodeld", "xcdatamodel": try CoreDataModelReader.read(url)
        default: try SwiftDataModelReader.read(url)
        }
    }
}
