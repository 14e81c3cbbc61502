import Foundation

/// Why a file operation failed, in words a message can end with: "permission denied", "no space
/// left on device". Foundation's own text says neither the path nor the reason on Linux ("The
/// operation could not be completed. (NSCocoaErrorDomain error 512.)").
public enum SystemErrorWords {
    /// `errno` in words: the C library's text, lowercased to continue a sentence.
    public static func words(errno code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    /// What `error` says went wrong: the POSIX error under a Foundation one, else the meaning of
    /// its Cocoa code, else its own description.
    public static func words(for error: any Error) -> String {
        if let code = posixCode(of: error as NSError) { return words(errno: code) }
        if let cocoa = error as? CocoaError, let known = words(cocoa.code) { return known }
        return error.localizedDescription
    }

    private static func posixCode(of error: NSError) -> Int32? {
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        guard let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError else { return nil }
        return posixCode(of: underlying)
    }

    private static func words(_ code: CocoaError.Code) -> String? {
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: words(errno: ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: words(errno: EACCES)
        case .fileWriteOutOfSpace: words(errno: ENOSPC)
        case .fileWriteVolumeReadOnly: words(errno: EROFS)
        case .fileWriteFileExists: words(errno: EEXIST)
        case .fileReadTooLarge: words(errno: EFBIG)
        case .fileReadInvalidFileName, .fileWriteInvalidFileName: "the name is not a valid file name"
        case .fileReadCorruptFile: "the file is damaged"
        case .fileReadUnknownStringEncoding, .fileReadInapplicableStringEncoding: "its text is not in the expected encoding"
        default: nil
        }
    }
}
