import Diagnostics
import Pipeline

extension PipelineError {
    /// A SQLite failure as users see it: what pipectl was doing, SQLite's own words and the SQL.
    /// A full disk and failing writes are about the disk, not the SQL that happened to hit them.
    /// Its code follows SQLite's result code.
    public init(_ error: SQLiteError) {
        switch error.code {
        case .full:
            self.init(.io, code: .sqliteDiskFull, stage: "sqlite",
                      "cannot write the store: the disk is full (\(error.message)); free some space or choose another store path")
        case .notAuthorized:
            // The store tools read tables only (SQLiteConnection.refuseViews): the store is not as pipectl reads it.
            self.init(.invalidInput, code: .sqliteViewRefused, stage: "sqlite",
                      "\(error.message): pipectl reads only a store's tables and runs none of its views; SQL: \(error.sql ?? "")")
        case .ioError:
            self.init(.io, code: .sqliteIOError, stage: "sqlite", "cannot write the store: \(error.message); check the disk and the store path")
        default:
            self.init(.io, code: Self.sqliteCode(of: error), stage: "sqlite", error.description)
        }
    }

    /// The code of a SQLite failure the sink words as SQLite does.
    private static func sqliteCode(of error: SQLiteError) -> Code {
        switch error.code {
        case .cannotOpen: return .sqliteCannotOpen
        case .notADatabase, .corrupt: return .sqliteNotADatabase
        case .busy, .locked: return .sqliteBusy
        case .constraint: return .sqliteConstraint
        default: return .sqliteFailed
        }
    }

    /// `error` as users see it: a SQLite failure as a `PipelineError`, pointing at `location`
    /// unless it already points somewhere; any other error as it is. The one conversion, at the
    /// entry points of the sink and the store tools.
    public static func converting(_ error: any Error, at location: Location? = nil) -> any Error {
        var converted = (error as? SQLiteError).map(PipelineError.init) ?? error
        if let pipelineError = converted as? PipelineError, pipelineError.location == nil, let location {
            var copy = pipelineError
            copy.location = location
            converted = copy
        }
        return converted
    }
}
