import Pipeline

/// JSON and property-list readers arrive with the readers issue; this names the formats so that
/// a pipeline file asking for them gets a clear message instead of "unknown format".
public enum JSONFormats {
    public static let plannedFormats = ["json", "jsonl", "plist"]
}
