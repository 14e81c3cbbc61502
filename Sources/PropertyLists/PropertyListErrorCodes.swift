import Diagnostics

/// The codes of property lists: the plist reader's, and the budget's that every property list
/// pipectl decodes passes first. docs/architecture.md ("Errors") lists every code with its exit kind.
extension PipelineError.Code {
    /// The file is not a property list.
    public static let plistMalformed = Self("plist.malformed")
    /// The root is a dictionary and no `key_field` takes its keys.
    public static let plistNeedsKeyField = Self("plist.needs-key-field")
    /// The root is neither an array nor a dictionary of records.
    public static let plistNoRecords = Self("plist.no-records")
    /// A binary property list would decode into more objects or deeper nesting than pipectl allows, or is damaged.
    public static let plistOverBudget = Self("plist.over-budget")
}
