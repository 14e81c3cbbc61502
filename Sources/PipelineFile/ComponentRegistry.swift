import Foundation
import Pipeline

/// The readers and transforms a pipeline file may name, and the model-file reader: each comes
/// from its own module, and pipectl registers them all.
public struct ComponentRegistry: Sendable {
    public var readers: [any ReaderKind]
    public var transforms: [any TransformKind]
    /// Reads the app's model from its files for `store.model:` (one model file, or a SwiftData app's
    /// sources, with the VersionedSchema `store.schema:` names, if any); the Core Data support
    /// registers it, as Pipeline itself parses no model files.
    public var modelReader: (@Sendable (_ files: [URL], _ schema: String?) throws -> StoreModel)?

    public init(readers: [any ReaderKind], transforms: [any TransformKind],
                modelReader: (@Sendable (_ files: [URL], _ schema: String?) throws -> StoreModel)? = nil) {
        self.readers = readers
        self.transforms = transforms
        self.modelReader = modelReader
    }

    public func reader(named name: String) -> (any ReaderKind)? { readers.first { $0.name == name } }
    public func transform(named name: String) -> (any TransformKind)? { transforms.first { $0.name == name } }
}
