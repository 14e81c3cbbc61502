import Foundation

/// Warnings a reader gives about its input that do not stop the run (a key given twice in one
/// JSON object), listed with the run's summary as `file:line:col: warning: stage: ...`.
///
/// Shared by the copies of the `Input` it belongs to: the reader adds from the reading thread,
/// the summary reads once the run is over.
public final class InputWarnings: @unchecked Sendable {
    public struct Warning: Sendable {
        public var location: Location
        public var stage: String
        public var message: String
        /// What a warning given once for many places counts (`cells`), and how many there were.
        public var counted: String?
        public var count = 1
        public init(location: Location, stage: String, message: String, counted: String? = nil) {
            self.location = location
            self.stage = stage
            self.message = message
            self.counted = counted
        }

        /// The message, with the count of a warning given for many places: `... (3 cells, the first here)`.
        public var text: String {
            guard let counted, count > 1 else { return message }
            return message + " (\(count) \(counted), the first here)"
        }
    }

    /// Warnings kept in full; the rest are counted.
    public static let kept = 100

    private let lock = NSLock()
    private var list: [Warning] = []
    private var total = 0
    /// Where in `list` the warning of each kind given `once` is.
    private var once: [String: Int] = [:]

    public init() {}

    public func add(_ warning: Warning) {
        lock.lock()
        defer { lock.unlock() }
        total += 1
        if list.count < InputWarnings.kept { list.append(warning) }
    }

    /// Adds the warning the first time one of `kind` is given for this input; after that counts it
    /// there: a warning a file earns on every row is told once, where it is first earned, with how
    /// many there were. `warning` is made the first time only.
    public func add(_ warning: @autoclosure () -> Warning, once kind: String) {
        lock.lock()
        defer { lock.unlock() }
        if let index = once[kind] {
            list[index].count += 1
            return
        }
        total += 1
        guard list.count < InputWarnings.kept else { return }
        once[kind] = list.count
        list.append(warning())
    }

    /// The first `kept` warnings, in the order given, and how many there were in all.
    public var snapshot: (warnings: [Warning], total: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (list, total)
    }
}
