import Foundation

extension AttributeValidation {
    /// The rules ready to check values: the regular expression compiled once.
    public struct Checker: @unchecked Sendable {
        // NSRegularExpression is immutable and documented thread-safe, hence @unchecked.
        let rules: AttributeValidation
        let regex: NSRegularExpression?

        /// Throws (as a reason) when the model's regular expression does not compile.
        public init(_ rules: AttributeValidation) throws(ConversionFailure) {
            self.rules = rules
            if let pattern = rules.regularExpression {
                do {
                    regex = try NSRegularExpression(pattern: pattern)
                } catch {
                    throw ConversionFailure("the model's regular expression \(pattern.debugDescription) does not compile")
                }
            } else {
                regex = nil
            }
        }

        /// Why `value` breaks a rule, or nil when it keeps them all (and for `.null`, which the
        /// optional flag governs).
        public func violation(of value: Value) -> String? {
            switch value {
            case .null:
                return nil
            case .text(let text):
                // Core Data measures strings as NSString does: in UTF-16 code units.
                if let reason = checkLength(text.utf16.count, unit: "characters") { return reason }
                if let regex {
                    let range = NSRange(text.startIndex..., in: text)
                    let match = regex.firstMatch(in: text, options: [.anchored], range: range)
                    // Core Data's rule is MATCHES: the whole string, not a part of it.
                    if match?.range != range {
                        return "does not match the model's pattern \(regex.pattern.debugDescription)"
                    }
                }
                return nil
            case .binary(let bytes):
                return checkLength(bytes.count, unit: "bytes")
            default:
                guard let number = AttributeValidation.number(value) else { return nil }
                if let min = rules.minValue.flatMap(AttributeValidation.number), number < min {
                    return "is below the model's minimum \(rules.minValue!.displayText)"
                }
                if let max = rules.maxValue.flatMap(AttributeValidation.number), number > max {
                    return "is above the model's maximum \(rules.maxValue!.displayText)"
                }
                return nil
            }
        }

        private func checkLength(_ length: Int, unit: String) -> String? {
            let size = "\(length) \(length == 1 ? String(unit.dropLast()) : unit) long"
            if let min = rules.minLength, length < min { return "is \(size), shorter than the model's minimum \(min)" }
            if let max = rules.maxLength, length > max { return "is \(size), longer than the model's maximum \(max)" }
            return nil
        }
    }

    /// Numbers and dates on one scale for comparing with limits.
    static func number(_ value: Value) -> Double? {
        switch value {
        case .integer(let i): return Double(i)
        case .double(let d), .date(let d): return d
        case .decimal(let d): return Double(d.description)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }
}
