/// `trim`: removes leading and trailing whitespace from text values, the stray tabs, line breaks,
/// non-breaking and zero-width spaces that spreadsheet exports leave behind.
///
/// ```yaml
/// - trim: all                        # every field
/// - trim: [name, unit]               # these fields
/// - trim: { fields: [name, unit] }
/// ```
/// Inner whitespace is kept; values other than text are left alone; a value is never rejected.
public struct TrimTransform: TransformKind {
    public var name: String { "trim" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "trim",
            summary: "Removes leading and trailing whitespace (spaces, tabs, line breaks, no-break and other Unicode"
                + " spaces, zero-width spaces, a stray byte order mark) from text values; inner whitespace stays."
                + " Shorthands: `trim: all`, `trim: [name, unit]`.",
            options: [
                OptionSpec("fields", .stringOrList, required: true, "The fields to trim, or `all`."),
            ])
    }

    public init() {}

    public func make(_ node: ConfigNode) throws -> any Transform {
        if node.mapping == nil {
            guard node.scalar != nil || node.sequence != nil else {
                throw node.error("'trim' expects `all`, a list of fields or { fields: [...] }, found \(node.kindDescription)",
                                 stage: name)
            }
            return Step(try FieldSelection.parse(node, option: "trim", stage: name))
        }
        let options = try Options(node, spec: spec)
        return Step(try FieldSelection.parse(options.node("fields") ?? node, option: "fields", stage: name))
    }

    /// A configured `trim` step.
    public final class Step: Transform {
        let selection: FieldSelection
        private var indexes: [Int] = []

        init(_ selection: FieldSelection) { self.selection = selection }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try selection.indexes(in: fields, stage: "trim")
            return fields
        }

        /// The fields it trims, once bound; the same names reach it as leave it.
        public var fieldIndexes: [Int] { indexes }

        public func apply(_ record: inout Record) throws {
            for i in indexes where i < record.values.count {
                guard case .text(let text) = record.values[i], let trimmed = TrimTransform.trimmed(text) else { continue }
                record.values[i] = .text(trimmed)
            }
        }
    }

    /// The range of `bytes` (UTF-8) that is left once trimmed.
    @inline(__always)
    public static func trimmedRange(of bytes: UnsafeRawBufferPointer) -> Range<Int> {
        let utf8 = bytes.assumingMemoryBound(to: UInt8.self)
        guard let first = utf8.first, let last = utf8.last else { return 0..<0 }
        if (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) { return 0..<utf8.count }
        return UTF8Text.trimmedRange(utf8, from: 0, to: utf8.count)
    }

    /// UTF-8 `bytes` as text, trimmed as this transform trims: for the readers that trim while
    /// reading (`RecordReader.trimWhileReading`), which then make each value once.
    @inline(__always)
    public static func trimmedText(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[trimmedRange(of: bytes)]), as: UTF8.self)
    }

    /// `text` without leading and trailing whitespace, or nil when there is nothing to trim (the
    /// common case, which then costs a look at the first and last byte and makes no new string).

    public static func trimmed(_ text: String) -> String? {
        UTF8Text.withBytes(text) { bytes -> String? in
            guard let first = bytes.first, let last = bytes.last else { return nil }
            // ASCII that is not blank at both ends: nothing to trim (0x21...0x7E are the visible ASCII).
            if (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) { return nil }
            let range = UTF8Text.trimmedRange(bytes, from: 0, to: bytes.count)
            if range.count == bytes.count { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
    }
}
