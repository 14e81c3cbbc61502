import Foundation

/// Turns local wall-clock times of one time zone into instants, refusing the ones that do not
/// exist (skipped when the clocks go forward) or exist twice (when they go back).
///
/// Offsets come from `TimeZone` (the system's tz database); the offset of each local day that
/// is far from any clock change is cached, so that a column of dates costs an array look-up per
/// value rather than several time-zone queries. Assumes, as every real zone does, that a zone
/// never changes its clocks twice within three days.
final class ZoneResolver {
    enum Resolution: Equatable {
        /// Seconds since 1970-01-01T00:00:00Z.
        case instant(Int64)
        /// The local time is skipped by a clock change.
        case gap
        /// The local time happens twice.
        case overlap
    }

    let zone: TimeZone
    private static let day: Int64 = 86_400
    /// Days held: 2^15 (90 years, 512 KB), so that dates spread over decades still hit.
    private static let cacheSize = 1 << 15
    /// Direct-mapped cache: local day number -> offset for the whole day, or `unstable` for days
    /// near a clock change, which are resolved exactly each time.
    private var cachedDays = [Int64](repeating: .min, count: ZoneResolver.cacheSize)
    private var cachedOffsets = [Int64](repeating: 0, count: ZoneResolver.cacheSize)
    private static let unstable = Int64.min

    init(zone: TimeZone) { self.zone = zone }

    /// The instant of local time `local` (seconds since 1970-01-01T00:00 on the local clock).
    func resolve(local: Int64) -> Resolution {
        let day = local >= 0 ? local / Self.day : (local - Self.day + 1) / Self.day
        let slot = Int(day & Int64(Self.cacheSize - 1))
        if cachedDays[slot] != day {
            // Every instant a time of this day can map to lies within 14 h of it (the largest
            // offset in use), so one offset from a day before to two after means one for the day.
            let midnight = day * Self.day
            let before = offset(at: midnight - Self.day), after = offset(at: midnight + 2 * Self.day)
            cachedDays[slot] = day
            cachedOffsets[slot] = before == after ? before : Self.unstable
        }
        let cached = cachedOffsets[slot]
        return cached != Self.unstable ? .instant(local - cached) : resolveExactly(local: local)
    }

    /// Tries the offsets in force a day before and a day after: each that maps back onto itself
    /// is a solution. None is a gap, two an overlap.
    private func resolveExactly(local: Int64) -> Resolution {
        let early = offset(at: local - Self.day), late = offset(at: local + Self.day)
        let earlyFits = offset(at: local - early) == early
        if early == late { return earlyFits ? .instant(local - early) : .gap }
        let lateFits = offset(at: local - late) == late
        switch (earlyFits, lateFits) {
        case (true, true): return .overlap
        case (true, false): return .instant(local - early)
        case (false, true): return .instant(local - late)
        case (false, false): return .gap
        }
    }

    private func offset(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }
}
