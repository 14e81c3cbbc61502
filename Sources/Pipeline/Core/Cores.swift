import Foundation

/// The cores this process may use at once: the machine's, less what `taskset`, a cpuset or a CPU
/// quota (a container's `--cpus`, a CI runner's cgroup) leaves it.
///
/// Foundation's `activeProcessorCount` counts the machine's online cores on Linux, whatever the
/// process is allowed, so a run held to one core would still start SQLite's sorter helpers,
/// which then take turns with the thread they help (docs/benchmarks.md has the cost). On macOS
/// a process cannot be held to fewer cores, and the count is Foundation's.
public enum Cores {
    public static let usable: Int = {
        let online = ProcessInfo.processInfo.activeProcessorCount
        #if os(Linux)
        var cores = online
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }),
           let allowed = countList(line.dropFirst("Cpus_allowed_list:".count)) {
            cores = min(cores, allowed)
        }
        if let quota = cgroupQuota() { cores = min(cores, quota) }
        return max(1, cores)
        #else
        return max(1, online)
        #endif
    }()

    /// How many CPUs a list such as `0-3,8,10-11` names; nil if it is not one.
    static func countList<S: StringProtocol>(_ list: S) -> Int? {
        var count = 0
        for part in list.split(separator: ",") {
            let bounds = part.trimmingCharacters(in: .whitespaces).split(separator: "-")
            guard let low = bounds.first.flatMap({ Int($0) }) else { return nil }
            let high = bounds.count == 2 ? Int(bounds[1]) : low
            guard let high, bounds.count <= 2, high >= low else { return nil }
            count += high - low + 1
        }
        return count > 0 ? count : nil
    }

    /// Whole cores of a CPU quota, rounded up: cgroup v2's `cpu.max` (`200000 100000`, or
    /// `max 100000` for none), else cgroup v1's `cpu.cfs_quota_us` over `cpu.cfs_period_us`.
    /// Read where a container sees its own cgroup, at the root of the hierarchy.
    static func cgroupQuota() -> Int? {
        func read(_ path: String) -> String? {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let max = read("/sys/fs/cgroup/cpu.max") {
            return quota(max.split(separator: " ").first.map(String.init), max.split(separator: " ").dropFirst().first.map(String.init))
        }
        return quota(read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), read("/sys/fs/cgroup/cpu/cpu.cfs_period_us"))
    }

    static func quota(_ quota: String?, _ period: String?) -> Int? {
        guard let quota = quota.flatMap({ Int($0) }), let period = period.flatMap({ Int($0) }), quota > 0, period > 0 else { return nil }
        return (quota + period - 1) / period
    }
}
