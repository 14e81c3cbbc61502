internal import CXLSXWriter

/// The libxlsxwriter that reports are written with (the report itself arrives with the report issue).
public enum LibXLSXWriter {
    /// libxlsxwriter's version as it reports it at run time, e.g. "1.1.4".
    public static var version: String { String(cString: lxw_version()) }
}
