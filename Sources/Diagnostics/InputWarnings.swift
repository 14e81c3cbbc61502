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
        public init(location: Location, stage: String, message: String) {
            self.location = location
            self.stage = stage
            self.message = message
        }
    }

    /// Warnings kept in full; the rest are counted.
    public static let kept = 100

    private let lock = NSLock()
    private var list: [Warning] = []
    private var total = 0

    public init() {}

    public func add(_ warning: Warning) {
        lock.lock()
        defer { lock.unlock() }
        total += 1
        if list.count < InputWarnings.kept { list.append(warning) }
    }

    /// The first `kept` warnings, in the order given, and how many there were in all.
    public var snapshot: (warnings: [Warning], total: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (list, total)
    }
}
