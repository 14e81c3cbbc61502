/// One value at a fixed address for the life of its owner, freed with it: for state that a C
/// library's callback reaches through a context pointer (libcsv, libxml2), and for state changed
/// on every record, where a class's stored property pays a run-time exclusivity check on every
/// access. The one way pipectl keeps a single value in memory of its own.
///
/// ```swift
/// let assembler = Pinned(RecordAssembler(...))
/// assembler.pointee.trim(fields: [0])          // in place, no copy
/// csv_parse(parser, bytes, count, onField, onRow, assembler.context)
/// ```
public struct Pinned<Value>: ~Copyable {
    /// Where the value lives; valid while this `Pinned` is.
    public let pointer: UnsafeMutablePointer<Value>

    public init(_ value: consuming Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// The value, read and changed where it lies.
    public var pointee: Value {
        unsafeAddress { UnsafePointer(pointer) }
        nonmutating unsafeMutableAddress { pointer }
    }

    /// The address as a C callback's context.
    public var context: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }
}
