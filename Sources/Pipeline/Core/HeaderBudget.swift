import Diagnostics

/// What a header row may name, in every reader that has one (a CSV's first row, a sheet's
/// header row), and what a field may be named in the others (a JSON object's keys, an XML
/// element's or attribute's name), and so in `pipectl init`, which drafts a pipeline from those
/// names: a 64 MB header row took `init` 27 s, matching every name against every attribute.
public enum HeaderBudget {
    /// Columns a header may name: Excel's widest sheet (XFD).
    public static let maxColumns = 16_384
    /// Bytes of UTF-8 in one column's name: far above any field name an export writes.
    public static let maxNameBytes = 1_024

    /// The message for a name other than a header row's: `what` is "the key that starts here".
    public static func nameTooLong(_ what: String) -> String {
        "\(what) is longer than the \(maxNameBytes.grouped) bytes pipectl reads as a field name"
    }

    /// The message for column `column` (`3`, or a sheet's `C`) whose name is `bytes` long.
    /// `delimited`: a CSV's, where a wrong delimiter makes a row one long name.
    public static func nameTooLong(column: String, bytes: Int, delimited: Bool = false) -> String {
        "column \(column) of the header row has a name of \(bytes.grouped) bytes, more than the \(maxNameBytes.grouped) "
            + "pipectl reads as a field name (is the first row the header\(delimited ? ", and the delimiter right" : "")?)"
    }
}
