import Pipeline

/// A growable byte buffer reused for every captured string, number and key: clearing and
/// appending cost no more than a pointer move, unlike an Array's uniqueness checks.
struct ByteScratch {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    /// Frees the memory; the owner calls it once, in its `deinit`.
    func free() {
        base.deallocate()
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always) mutating func removeAll() {
        count = 0
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always) mutating func append(_ start: UnsafePointer<UInt8>, _ length: Int) {
        if count + length > capacity { grow(to: count + length) }
        (base + count).update(from: start, count: length)
        count += length
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// The bytes as a String; they are valid UTF-8, checked while scanning (`scanMultibyte`,
    /// and `scanEscape`, which refuses an unpaired surrogate), so not checked again.
    var string: String {
        UTF8Text.fromValidUTF8(UnsafeRawBufferPointer(bytes))
    }
}
