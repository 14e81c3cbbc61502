/// Validation rules a model sets on an attribute; a value breaking one rejects its record.
///
/// Core Data keeps numeric and date limits as values and string and binary limits as lengths;
/// each attribute uses the pair that fits its type and leaves the other empty.
public struct AttributeValidation: Sendable, Hashable, Codable {
    /// Smallest allowed value (numbers, dates), already converted to the attribute's type.
    public var minValue: Value?
    /// Largest allowed value (numbers, dates), already converted to the attribute's type.
    public var maxValue: Value?
    /// Fewest characters (strings) or bytes (binary data).
    public var minLength: Int?
    /// Most characters (strings) or bytes (binary data).
    public var maxLength: Int?
    /// A regular expression (ICU syntax, as Core Data uses) that a string must match.
    public var regularExpression: String?

    public init(minValue: Value? = nil, maxValue: Value? = nil, minLength: Int? = nil, maxLength: Int? = nil,
                regularExpression: String? = nil) {
        self.minValue = minValue
        self.maxValue = maxValue
        self.minLength = minLength
        self.maxLength = maxLength
        self.regularExpression = regularExpression
    }

    /// `true` when the model sets no rule.
    public var isEmpty: Bool {
        minValue == nil && maxValue == nil && minLength == nil && maxLength == nil && regularExpression == nil
    }
}
