import Foundation
import Diagnostics
import Pipeline

/// Reads the records of an XML or binary property list, parsed by Foundation.
///
/// The root is an array of dictionaries (locations `[3]`), or a dictionary of dictionaries whose
/// keys become the field `keyField` (locations are the keys, in sorted order). Property lists
/// are small by nature, so the file is read whole. Values keep their types: strings `.text`,
/// integers `.integer`, reals `.double`, booleans `.bool`, dates `.date`, data `.binary`; a field
/// `a.b` reaches into nested dictionaries and a missing key gives `.null`.
///
/// ```swift
/// let reader = try PropertyListReader(input: input, fields: ["name", "quantity"], keyField: "name")
/// ```
public final class PropertyListReader: RecordReader {
    public let input: Input
    /// The fields asked for, with `keyField` added when it is not among them.
    public let fieldNames: [String]
    public private(set) var bytesRead: Int64 = 0

    /// Each field's keys, resolved once.
    private let paths: [[String]]
    private let keySlot: Int?
    /// The records and where they are, in order.
    private var entries: [(path: String, key: String?, value: Any)] = []
    private var index = 0

    public init(input: Input, fields: [String], keyField: String? = nil) throws {
        self.input = input
        func fail(_ code: PipelineError.Code, _ message: String) -> PipelineError {
            PipelineError(.invalidInput, code: code, at: Location(file: input.displayPath), stage: "plist", message)
        }
        let (root, size) = try PropertyListReader.decode(input)
        bytesRead = Int64(size)

        var names: [String] = []
        for name in fields where !names.contains(name) { names.append(name) }
        if let keyField, !names.contains(keyField) { names.append(keyField) }
        fieldNames = names
        paths = names.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        keySlot = keyField.flatMap { names.firstIndex(of: $0) }

        if let array = root as? [Any] {
            entries = array.enumerated().map { (path: "[\($0.offset)]", key: nil, value: $0.element) }
        } else if let dictionary = root as? [String: Any] {
            guard keyField != nil else {
                throw fail(.plistNeedsKeyField, "the root is a dictionary: set 'key_field:' to the field that receives each entry's key "
                                                + "(such as key_field: name), or make the root an array of dictionaries")
            }
            entries = dictionary.keys.sorted().map { (path: $0, key: $0, value: dictionary[$0] as Any) }
        } else {
            throw fail(.plistNoRecords, "the root is \(PropertyListReader.kind(of: root)), not an array or dictionary of records")
        }
    }

    /// The file's root object and its size in bytes, decoded by Foundation once `PropertyListBudget`
    /// has passed it.
    static func decode(_ input: Input) throws -> (root: Any, size: Int) {
        func fail(_ code: PipelineError.Code, _ message: String) -> PipelineError {
            PipelineError(.invalidInput, code: code, at: Location(file: input.displayPath), stage: "plist", message)
        }
        let data: Data
        do {
            data = try Data(contentsOf: input.url)
        } catch {
            throw PipelineError(.io, code: .inputCannotRead, at: Location(file: input.displayPath), stage: "plist",
                                "cannot read the file: \(SystemErrorWords.words(for: error))")
        }
        guard !data.isEmpty else { throw fail(.inputEmpty, "the file is empty") }
        // Before Foundation: it would copy shared objects once per reference, without bound.
        if let overrun = data.withUnsafeBytes(PropertyListBudget.overrun(in:)) {
            throw fail(.plistOverBudget, "the binary property list \(overrun)")
        }
        do {
            return (try PropertyListSerialization.propertyList(from: data, options: [], format: nil), data.count)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            // Foundation falls back to the text formats when a binary plist is corrupt, and its
            // reason then speaks of text: say what the file is first.
            if data.starts(with: Array("bplist".utf8)) {
                // Foundation's reason then speaks of text ("Unexpected character b at line 1"): no help.
                throw fail(.plistMalformed, "not a valid property list: the file starts like a binary property list but "
                                            + (PropertyListReader.binaryDamage(in: data) ?? "is corrupt or truncated"))
            }
            throw fail(.plistMalformed, "not a valid property list: \(reason)")
        }
    }

    /// What is wrong with a binary property list's trailer or offset table, where that is the damage.
    static func binaryDamage(in data: Data) -> String? {
        let bytes = [UInt8](data)
        // "bplist00", at least one object, and the 32-byte trailer.
        guard bytes.count >= 8 + 1 + 32 else { return "is too short to be one (\(bytes.count) bytes): truncated?" }
        func integer(_ at: Int, _ width: Int) -> Int? {
            guard width >= 1, width <= 8, at >= 0, at + width <= bytes.count else { return nil }
            let value = bytes[at..<at + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return value > UInt64(Int.max) ? nil : Int(value)
        }
        let trailer = bytes.count - 32
        let offsetWidth = Int(bytes[trailer + 6]), referenceWidth = Int(bytes[trailer + 7])
        guard let objects = integer(trailer + 8, 8), let top = integer(trailer + 16, 8),
              let table = integer(trailer + 24, 8) else { return "has a trailer with impossible numbers: truncated?" }
        guard (1...8).contains(offsetWidth), (1...8).contains(referenceWidth) else {
            return "has a trailer with impossible sizes: truncated or damaged?"
        }
        guard objects > 0, top < objects else { return "names an object outside its \(objects) objects as its root" }
        guard table >= 8, objects <= (trailer - table) / offsetWidth else {
            return "has its offset table past the end of the file (\(bytes.count) bytes): truncated?"
        }
        for index in 0..<objects {
            guard let offset = integer(table + index * offsetWidth, offsetWidth), offset >= 8, offset < table else {
                return "has object \(index) at an offset outside the file's objects: damaged?"
            }
        }
        return nil
    }

    /// The next record; throws `Rejection` for an entry that is not a dictionary or a field that
    /// holds a dictionary.
    public func next() throws -> Record? {
        guard index < entries.count else { return nil }
        let entry = entries[index]
        index += 1
        let location = Location(file: input.displayPath, path: entry.path)
        guard let dictionary = entry.value as? [String: Any] else {
            throw Rejection(at: location, stage: "plist",
                            reason: "the entry is \(PropertyListReader.kind(of: entry.value)), not a dictionary")
        }
        var values = [Value](repeating: .null, count: fieldNames.count)
        for (slot, path) in paths.enumerated() {
            if slot == keySlot, let key = entry.key {
                values[slot] = .text(key)
                continue
            }
            var current: Any? = dictionary
            for (depth, part) in path.enumerated() {
                guard let object = current else { break }
                guard let parent = object as? [String: Any] else {
                    throw Rejection(at: location, stage: "plist", field: fieldNames[slot],
                                    reason: "'\(path[..<depth].joined(separator: "."))' is "
                                        + "\(PropertyListReader.kind(of: object)), not a dictionary")
                }
                current = parent[part]
            }
            guard let found = current else { continue }
            // An array is a list (for a to-many link), its dictionaries each element's fields.
            if let array = found as? [Any] {
                var budget = Fields.maxListValues
                var elements: [Value] = []
                elements.reserveCapacity(array.count)
                do throws(Overrun) {
                    for element in array { elements.append(try PropertyListReader.tree(element, budget: &budget)) }
                    values[slot] = .list(elements)
                } catch {
                    throw overBudget(error, at: location, field: fieldNames[slot])
                }
                continue
            }
            if let string = found as? String, string.utf8.count > Self.maxTextBytes {
                throw overBudget(.textTooLong(string.utf8.count), at: location, field: fieldNames[slot])
            }
            guard let value = PropertyListReader.value(of: found) else {
                throw Rejection(at: location, stage: "plist", field: fieldNames[slot],
                                reason: "the value is \(PropertyListReader.kind(of: found)); name a field inside it")
            }
            values[slot] = value
        }
        return Record(values: values, location: location)
    }

    /// The longest string read, in bytes of UTF-8: as a JSON string or a CSV field.
    static let maxTextBytes = 8 << 20

    /// What goes past a budget in one field's tree.
    enum Overrun: Error {
        case listValues
        case keys(Int)
        case textTooLong(Int)
    }

    /// Any plist object as a `Value`: arrays as lists, dictionaries as fields in key order.
    /// `budget` counts the values the record's lists may hold (`Fields.maxListValues`); an
    /// element has at most `Fields.maxNames` keys, a string at most `maxTextBytes`.
    static func tree(_ object: Any, budget: inout Int) throws(Overrun) -> Value {
        budget -= 1
        guard budget >= 0 else { throw .listValues }
        if let array = object as? [Any] {
            var elements: [Value] = []
            elements.reserveCapacity(array.count)
            for element in array { elements.append(try tree(element, budget: &budget)) }
            return .list(elements)
        }
        if let dictionary = object as? [String: Any] {
            guard dictionary.count <= Fields.maxNames else { throw .keys(dictionary.count) }
            let keys = dictionary.keys.sorted()
            var values: [Value] = []
            values.reserveCapacity(keys.count)
            for key in keys { values.append(try tree(dictionary[key]!, budget: &budget)) }
            return .object(Fields(names: keys, values: values))
        }
        if let string = object as? String, string.utf8.count > maxTextBytes { throw .textTooLong(string.utf8.count) }
        return value(of: object) ?? .null
    }

    private func overBudget(_ overrun: Overrun, at location: Location, field: String) -> PipelineError {
        switch overrun {
        case .listValues:
            PipelineError(.invalidInput, code: .inputTooManyListValues, at: location, stage: "plist",
                          "the lists in '\(field)' hold more than \(Fields.maxListValues.grouped) values in one record, more than pipectl reads")
        case .keys(let count):
            PipelineError(.invalidInput, code: .inputTooManyKeys, at: location, stage: "plist",
                          "a dictionary in '\(field)' has \(count.grouped) keys, more than the \(Fields.maxNames.grouped) pipectl reads")
        case .textTooLong(let length):
            PipelineError(.invalidInput, code: .plistOverBudget, at: location, stage: "plist",
                          "a string in '\(field)' of \(length.grouped) bytes, longer than the \(Self.maxTextBytes >> 20) MB pipectl reads")
        }
    }

    /// A plist scalar as a `Value`; nil for arrays and dictionaries.
    static func value(of object: Any) -> Value? {
        switch object {
        case let string as String: return .text(string)
        case let date as Date: return .date(date.timeIntervalSinceReferenceDate)
        case let data as Data: return .binary([UInt8](data))
        default: break
        }
        // Linux's Foundation gives booleans as Swift Bool; Darwin's as an NSNumber of type "c".
        // An integer NSNumber also casts to Bool, so the exact type decides, not `as? Bool`.
        if type(of: object) == Bool.self, let bool = object as? Bool { return .bool(bool) }
        if let number = object as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "f", "d": return .double(number.doubleValue)
            case "Q", "L", "I":
                return number.uint64Value > UInt64(Int64.max) ? .double(number.doubleValue) : .integer(number.int64Value)
            default: return .integer(number.int64Value)
            }
        }
        return nil
    }

    static func kind(of object: Any) -> String {
        switch object {
        case is [Any]: return "an array"
        case is [String: Any]: return "a dictionary"
        case is String: return "a string"
        case is Date: return "a date"
        case is Data: return "data"
        default:
            if case .bool? = value(of: object) { return "a boolean" }
            return "a number"
        }
    }
}
