import Diagnostics

/// Characters a number may be written with, wherever one is read: a JSON number, an xlsx number
/// cell, text the `number` transform reads, and text converted to an Integer, Double, Float or
/// Decimal attribute (from CSV, XML, a plist string). A 900,000-digit number was stored verbatim.
public enum NumberBudget {
    public static let maxLength = 1_024

    /// `a number of 2,000 characters, more than the 1,024 pipectl reads`.
    public static func tooLong(_ length: Int) -> String {
        "a number of \(length.grouped) characters, more than the \(maxLength.grouped) pipectl reads"
    }
}
