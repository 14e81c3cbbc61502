internal import CLibXML2

/// The libxml2 that XML sources are read with (see `XMLReader`).
public enum LibXML2 {
    /// libxml2's version as it reports it at run time, e.g. "20914".
    public static var version: String {
        xmlCheckVersion(LIBXML_VERSION)
        return String(cString: __xmlParserVersion().pointee!)
    }
}
