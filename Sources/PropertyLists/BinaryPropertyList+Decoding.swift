import Foundation

extension BinaryPropertyList {
    /// Reads a property list (binary, XML or OpenStep) with `PropertyListSerialization`.
    ///
    /// Booleans stay booleans and reals stay reals, on Linux and Darwin alike (Foundation hands
    /// both back as `NSNumber` on Darwin). Throws when `data` is not a property list, or a binary
    /// one beyond `PropertyListBudget` (which Foundation would expand without bound), its root's
    /// width included: what is read this way is Core Data's metadata, not a file of records.
    public static func decode(_ data: Data) throws -> Object {
        if let overrun = data.withUnsafeBytes({ PropertyListBudget.overrun(in: $0, boundedRoot: true) }) {
            throw BudgetError(description: "the binary property list \(overrun)")
        }
        let root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        return object(from: root)
    }

    /// A binary property list that would decode into more than the budget allows.
    public struct BudgetError: Error, CustomStringConvertible {
        public var description: String
    }

    private static func object(from value: Any) -> Object {
        // Checked before NSNumber: Linux hands booleans back as Bool, which also casts to NSNumber.
        if type(of: value) == Bool.self, let bool = value as? Bool { return .bool(bool) }
        switch value {
        case let string as String:
            return .string(string)
        case let number as NSNumber:
            // objCType "c" is how both Foundations mark a boolean NSNumber (CFBoolean on Darwin).
            switch String(cString: number.objCType) {
            case "c": return .bool(number.boolValue)
            case "f", "d": return .real(number.doubleValue)
            default: return .integer(number.int64Value)
            }
        case let data as Data:
            return .data(Array(data))
        case let date as Date:
            return .date(date.timeIntervalSinceReferenceDate)
        case let array as [Any]:
            return .array(array.map(object(from:)))
        case let dictionary as [String: Any]:
            return .dictionary(dictionary.mapValues(object(from:)))
        default:
            // Only keyed archives hold anything else (UIDs); show it rather than fail.
            return .string(String(describing: value))
        }
    }
}
