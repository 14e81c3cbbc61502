import Diagnostics
import Pipeline

/// Bounds what a binary property list becomes once decoded, checked on its bytes before
/// Foundation decodes it.
///
/// Objects in a binary property list refer to each other by number, so one small array can be
/// referred to many times: Foundation's decoder shares it, but handing it to Swift copies it once
/// per reference. An array of 16 references to an array of 16 references ... (26 levels, 600
/// bytes) asks for 16^26 objects and ends in "failed to allocate". Here every object's size with
/// its references followed is counted once (each object remembers its count), so the check costs
/// one pass over the references, whatever they would expand to.
public enum PropertyListBudget {
    /// Objects the decoded property list may have, references followed: a plist of 500,000
    /// records of ten fields stays below.
    public static let maxObjects = 10_000_000
    /// Arrays and dictionaries inside each other, as JSON's limit.
    public static let maxDepth = 512
    /// Bytes of strings and data the decoded property list may hold, references followed: one
    /// 4 MB string referred to 600 times is one object per reference but 2.4 GB once decoded.
    public static let maxBytes = 512 << 20

    /// What is wrong with `bytes` as a binary property list of bounded size, in words that follow
    /// "the binary property list ..."; nil when it is within the budget, or when its trailer cannot
    /// be read (Foundation then says what is wrong). A damaged object reachable from the root is
    /// told here: Foundation reads some damage its own way and may then expand without bound.
    public static func overrun(in bytes: UnsafeRawBufferPointer) -> String? {
        overrun(in: bytes, boundedRoot: false)
    }

    /// `boundedRoot`: the root's own width is bounded too (Core Data's metadata, a dictionary of
    /// tens of keys), not only that of what it holds (a file's records can be many).
    public static func overrun(in bytes: UnsafeRawBufferPointer, boundedRoot: Bool) -> String? {
        guard let layout = Layout(bytes) else { return nil }
        var walk = Walk(layout: layout, widthFromDepth: boundedRoot ? 1 : 2)
        return walk.check()
    }

    /// The trailer's numbers, checked to lie inside the file.
    struct Layout {
        let bytes: UnsafeRawBufferPointer
        let offsetWidth: Int
        let referenceWidth: Int
        let objectCount: Int
        let top: Int
        let table: Int

        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= 8 + 1 + 32, bytes.starts(with: "bplist0".utf8) else { return nil }
            self.bytes = bytes
            let trailer = bytes.count - 32
            offsetWidth = Int(bytes[trailer + 6])
            referenceWidth = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetWidth), (1...8).contains(referenceWidth),
                  let objects = Layout.integer(bytes, trailer + 8, 8), let top = Layout.integer(bytes, trailer + 16, 8),
                  let table = Layout.integer(bytes, trailer + 24, 8),
                  objects > 0, top < objects, table >= 8, table <= trailer,
                  objects <= (trailer - table) / offsetWidth else { return nil }
            objectCount = objects
            self.top = top
            self.table = table
        }

        static func integer(_ bytes: UnsafeRawBufferPointer, _ at: Int, _ width: Int) -> Int? {
            guard width >= 1, width <= 8, at >= 0, at <= bytes.count - width else { return nil }
            var value: UInt64 = 0
            for i in at..<at + width { value = value << 8 | UInt64(bytes[i]) }
            return value > UInt64(Int.max) ? nil : Int(value)
        }

        func offset(of object: Int) -> Int? {
            guard let offset = Layout.integer(bytes, table + object * offsetWidth, offsetWidth), offset >= 8,
                  offset < table else { return nil }
            return offset
        }

        /// The objects an array, set or dictionary at `offset` refers to (a dictionary's keys,
        /// then its values); empty for other objects; nil where the object runs past the table.
        func references(at offset: Int) -> (start: Int, count: Int)? {
            let marker = bytes[offset]
            let kind = marker >> 4
            guard kind == 0xA || kind == 0xC || kind == 0xD else { return (0, 0) }
            var count = Int(marker & 0x0F)
            var start = offset + 1
            if count == 0x0F {
                // The count follows as an integer object: 0x1n, then 2^n bytes.
                guard start < table, bytes[start] >> 4 == 0x1 else { return nil }
                let width = 1 << Int(bytes[start] & 0x0F)
                guard width <= 8, let value = Layout.integer(bytes, start + 1, width) else { return nil }
                count = value
                start += 1 + width
            }
            if kind == 0xD {
                guard count <= Int.max / 2 else { return nil }
                count *= 2
            }
            guard count <= (table - start) / referenceWidth else { return nil }
            return (start, count)
        }

        /// The bytes a string or data object at `offset` decodes to (UTF-16 strings at two a unit);
        /// 0 for other objects, nil where its length cannot be read.
        func payloadBytes(at offset: Int) -> Int? {
            let marker = bytes[offset]
            let kind = marker >> 4
            guard kind == 0x4 || kind == 0x5 || kind == 0x6 else { return 0 }
            var count = Int(marker & 0x0F)
            if count == 0x0F {
                let start = offset + 1
                guard start < table, bytes[start] >> 4 == 0x1 else { return nil }
                let width = 1 << Int(bytes[start] & 0x0F)
                guard width <= 8, let value = Layout.integer(bytes, start + 1, width) else { return nil }
                count = value
            }
            return kind == 0x6 ? count.multipliedReportingOverflow(by: 2).partialValue : count
        }

        func reference(_ start: Int, _ index: Int) -> Int? {
            Layout.integer(bytes, start + index * referenceWidth, referenceWidth)
        }
    }

    /// A depth-first count from the root, each object counted once.
    struct Walk {
        let layout: Layout
        /// Per object: 0 not seen, -1 being counted (on the current path), else 1 + its objects
        /// with references followed.
        var sizes: [Int]
        /// Per object counted: how deep its arrays and dictionaries go below it.
        var heights: [Int32]
        /// Per object counted: the bytes of strings and data in it, references followed.
        var payloads: [Int]

        /// The depth from which arrays and dictionaries are held to `checkWidth` (the root's is 1).
        let widthFromDepth: Int

        init(layout: Layout, widthFromDepth: Int) {
            self.layout = layout
            self.widthFromDepth = widthFromDepth
            sizes = Array(repeating: 0, count: layout.objectCount)
            heights = Array(repeating: 0, count: layout.objectCount)
            payloads = Array(repeating: 0, count: layout.objectCount)
        }

        enum Stop: Error {
            case overrun(String)
            /// A damaged object or a cycle, in words that follow "is damaged: ".
            case damaged(String)
        }

        mutating func check() -> String? {
            do throws(Stop) {
                _ = try size(of: layout.top, depth: 1)
                if payloads[layout.top] > PropertyListBudget.maxBytes {
                    throw Stop.overrun("decodes into more than \((PropertyListBudget.maxBytes >> 20).grouped) MB of strings and data, "
                                       + "more than pipectl reads (it refers to the same ones over and over)")
                }
                return nil
            } catch {
                switch error {
                case .overrun(let reason): return reason
                case .damaged(let reason): return "is damaged: " + reason
                }
            }
        }

        /// The object's size with references followed; `depth` counts the containers down to it.
        mutating func size(of object: Int, depth: Int) throws(Stop) -> Int {
            guard object < sizes.count else { throw .damaged("it refers to object \(object), and it has \(sizes.count) objects") }
            if sizes[object] > 0 {
                try checkDepth(depth + Int(heights[object]))
                return sizes[object]
            }
            guard sizes[object] == 0 else { throw .damaged("object \(object) contains itself") }
            guard let offset = layout.offset(of: object) else { throw .damaged("object \(object) lies outside the file's objects") }
            guard let (start, count) = layout.references(at: offset) else {
                throw .damaged("object \(object) has a length that runs past the file's objects")
            }
            if depth >= widthFromDepth { try checkWidth(of: object, at: offset, references: count) }
            sizes[object] = -1
            var total = 1
            var height = 0
            guard let own = layout.payloadBytes(at: offset) else {
                throw .damaged("object \(object) has a length that runs past the file's objects")
            }
            var payload = min(own, PropertyListBudget.maxBytes + 1)
            if count > 0 {
                try checkDepth(depth + 1)
                for i in 0..<count {
                    guard let child = layout.reference(start, i) else {
                        throw .damaged("object \(object) has a reference that runs past the file's objects")
                    }
                    total += try size(of: child, depth: depth + 1)
                    if total > PropertyListBudget.maxObjects {
                        throw .overrun("decodes into more than \(PropertyListBudget.maxObjects.grouped) objects, more than "
                                       + "pipectl reads (it refers to the same objects over and over: object \(object) "
                                       + "alone stands for more)")
                    }
                    height = max(height, Int(heights[child]) + 1)
                    // Capped past the budget: the sum of many references cannot overflow.
                    payload = min(payload + payloads[child], PropertyListBudget.maxBytes + 1)
                }
            }
            payloads[object] = payload
            sizes[object] = total
            heights[object] = Int32(height)
            return total
        }

        /// Below the root (the records, or Core Data's metadata), an array holds at most a
        /// record's list values and a dictionary as many keys as a header row has columns: one
        /// list of 9M references to one string is 9M objects, within `maxObjects`, and Foundation
        /// took 8 s and 900 MB to decode it before the reader counted its values.
        private func checkWidth(of object: Int, at offset: Int, references: Int) throws(Stop) {
            let kind = layout.bytes[offset] >> 4
            if kind == 0xA || kind == 0xC, references > Fields.maxListValues {
                throw .overrun("has an array of \(references.grouped) values (object \(object)), more than the "
                               + "\(Fields.maxListValues.grouped) pipectl reads in one list")
            }
            if kind == 0xD, references / 2 > HeaderBudget.maxColumns {
                throw .overrun("has a dictionary of \((references / 2).grouped) keys (object \(object)), more than the "
                               + "\(HeaderBudget.maxColumns.grouped) pipectl reads in one")
            }
        }

        private func checkDepth(_ depth: Int) throws(Stop) {
            if depth > PropertyListBudget.maxDepth {
                throw .overrun("has arrays or dictionaries nested more than \(PropertyListBudget.maxDepth) levels deep")
            }
        }
    }
}
