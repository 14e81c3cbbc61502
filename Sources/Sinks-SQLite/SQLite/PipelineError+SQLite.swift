internal import CSQLite
import Pipeline

extension PipelineError {
    /// The one place SQLite's error state becomes a user-facing error: what we were doing, SQLite's
    /// own words, and the SQL involved, so a failure can be reproduced in the sqlite3 shell.
    ///
    /// `connection` must be the handle of the call that failed (its message is read here, before any
    /// other call can overwrite it); without one, the message for `code` is used.
    static func sqlite(_ code: Int32, connection: OpaquePointer?, _ what: String, sql: String? = nil) -> PipelineError {
        let detail: String
        if let connection, let message = sqlite3_errmsg(connection) {
            detail = String(cString: message)
        } else if let message = sqlite3_errstr(code) {
            detail = String(cString: message)
        } else {
            detail = "SQLite error \(code)"
        }
        // Out of space or failing writes are about the disk, not the SQL that happened to hit them.
        switch code & 0xFF {
        case SQLITE_FULL:
            return PipelineError(.io, stage: "sqlite",
                                 "cannot write the store: the disk is full (\(detail)); free some space or choose another store path")
        case SQLITE_IOERR:
            return PipelineError(.io, stage: "sqlite", "cannot write the store: \(detail); check the disk and the store path")
        default:
            break
        }
        var message = "\(what): \(detail)"
        if let sql { message += "; SQL: \(sql)" }
        return PipelineError(.io, stage: "sqlite", message)
    }

    /// This error, pointing at `location` unless it already points somewhere.
    func located(at location: Location?) -> PipelineError {
        guard self.location == nil, let location else { return self }
        var copy = self
        copy.location = location
        return copy
    }
}
