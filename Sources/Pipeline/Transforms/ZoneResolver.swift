import Foundation

/// Turns local wall-clock times of one time zone into instants, refusing the ones that do not
/// exist (skipped when the clocks go forward) or exist twice (when they go back).
///
/// Offsets come from `TimeZone` (the system's tz database) and are cached per local day: the
/// offset of a day far from any clock change, and for a day near one, the instant of the change
/// with the offsets before and after it. A column of dates then costs an array look-up per value
/// rather than several time-zone queries (a day near a change comes up every half year).
/// Assumes, as every real zone does, that a zone never changes its clocks twice within three days;
/// a day where it does is resolved from `TimeZone` each time.
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
    /// Days held: 2^15 (90 years, 1 MB), so that dates spread over decades still hit.
    private static let cacheSize = 1 << 15
    /// Direct-mapped cache of days, by local day number.
    private var cache = [CachedDay](repeating: CachedDay(day: .min, offset: 0, change: 0, offsetAfter: 0),
                                    count: ZoneResolver.cacheSize)

    /// One local day: the offset in force at the start of the window around it (a day before
    /// it), and the instant the offset changes within the window with the offset after it, or
    /// `noChange` for a day far from any change.
    private struct CachedDay {
        var day: Int64
        var offset: Int64
        var change: Int64
        var offsetAfter: Int64
    }

    private static let noChange = Int64.max
    /// The offset changes more than once around the day.
    private static let irregular = Int64.min

    init(zone: TimeZone) { self.zone = zone }

    /// The instant of local time `local` (seconds since 1970-01-01T00:00 on the local clock).
    func resolve(local: Int64) -> Resolution {
        let day = local >= 0 ? local / Self.day : (local - Self.day + 1) / Self.day
        let slot = Int(day & Int64(Self.cacheSize - 1))
        if cache[slot].day != day { cache[slot] = cachedDay(day) }
        let cached = cache[slot]
        if cached.change == Self.noChange { return .instant(local - cached.offset) }
        if cached.change == Self.irregular { return resolveExactly(local: local) }
        // Each offset that puts the local time on its own side of the change is a solution.
        let early = local - cached.offset, late = local - cached.offsetAfter
        switch (early < cached.change, late >= cached.change) {
        case (true, true): return .overlap
        case (true, false): return .instant(early)
        case (false, true): return .instant(late)
        case (false, false): return .gap
        }
    }

    /// Every instant a time of `day` can map to lies within 14 h of it (the largest offset in
    /// use), so within the window from a day before it to two days after: one offset at both
    /// ends is one offset for the day, and where there are two, bisection finds the change to
    /// the second.
    private func cachedDay(_ day: Int64) -> CachedDay {
        var low = day * Self.day - Self.day, high = day * Self.day + 2 * Self.day
        let before = offset(at: low), after = offset(at: high)
        var cached = CachedDay(day: day, offset: before, change: Self.noChange, offsetAfter: after)
        guard before != after else { return cached }
        // offset(at: low) == before and offset(at: high) == after throughout.
        while high - low > 1 {
            let middle = low + (high - low) / 2
            let found = offset(at: middle)
            if found == before {
                low = middle
            } else if found == after {
                high = middle
            } else {
                cached.change = Self.irregular
                return cached
            }
        }
        cached.change = high
        return cached
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
