import Foundation
import Pipeline

/// Turns local wall-clock times of one time zone into instants, refusing the ones that do not
/// exist (skipped when the clocks go forward) or exist twice (when they go back).
///
/// Offsets come from `TimeZone` (the system's tz database) and are kept per local day: the
/// offset of a day far from any clock change, and for a day near one, the instant of the change
/// with the offsets before and after it. A column of dates then costs a look-up in a small table
/// per value rather than several time-zone queries. Assumes, as every real zone does, that a zone
/// never changes its clocks twice within three days; a day where it does is resolved from
/// `TimeZone` each time.
final class ZoneResolver {
    enum Resolution: Equatable {
        /// Seconds since 1970-01-01T00:00:00Z.
        case instant(Int64)
        /// The local time is skipped by a clock change.
        case gap
        /// The local time happens twice: first at `earlier`, then again at `later`.
        case overlap(earlier: Int64, later: Int64)
    }

    let zone: TimeZone
    private static let day: Int64 = 86_400
    /// Days kept: 2^15 (about 90 years) from `firstDay`, which puts the first date resolved in
    /// the middle. A day outside is worked out each time.
    private static let span = 1 << 15
    // Unchecked: a resolver belongs to one transform, run on one thread, and each date
    // reads these; run-time exclusivity checks cost more than the lookup itself.
    @exclusivity(unchecked) private var firstDay: Int64?
    /// For each day of the span, 0 until it is first seen, then 1 + its entry in `kinds`. Two
    /// bytes a day, so that the table (64 KB) stays in the processor's cache among the records
    /// streaming through: spread over decades, days of 32 bytes each missed it on most values.
    @exclusivity(unchecked) private var dayKinds = [UInt16](repeating: 0, count: ZoneResolver.span)
    /// The days' offsets: one entry per offset for the days far from a change, one per day near one.
    @exclusivity(unchecked) private var kinds: [CachedDay] = []
    private var stableKinds: [Int64: UInt16] = [:]

    /// The offset in force at the start of the window around a day (a day before it), and the
    /// instant the offset changes within the window with the offset after it, or `noChange`.
    private struct CachedDay {
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
        let first = firstDay ?? { firstDay = day - Int64(Self.span / 2); return firstDay! }()
        let cached: CachedDay
        if day >= first, day - first < Int64(Self.span) {
            let index = Int(day - first)
            if dayKinds[index] == 0 { dayKinds[index] = kind(of: cachedDay(day)) }
            cached = kinds[Int(dayKinds[index]) - 1]
        } else {
            cached = cachedDay(day)
        }
        if cached.change == Self.noChange { return .instant(local - cached.offset) }
        if cached.change == Self.irregular { return resolveExactly(local: local) }
        // Each offset that puts the local time on its own side of the change is a solution.
        let early = local - cached.offset, late = local - cached.offsetAfter
        switch (early < cached.change, late >= cached.change) {
        case (true, true): return .overlap(earlier: min(early, late), later: max(early, late))
        case (true, false): return .instant(early)
        case (false, true): return .instant(late)
        case (false, false): return .gap
        }
    }

    /// 1 + the entry of `kinds` for a day: days far from a change share one per offset. A day
    /// adds at most one entry, so the span's days never run out of numbers.
    private func kind(of cached: CachedDay) -> UInt16 {
        if cached.change == Self.noChange, let kind = stableKinds[cached.offset] { return kind }
        kinds.append(cached)
        let kind = UInt16(kinds.count)
        if cached.change == Self.noChange { stableKinds[cached.offset] = kind }
        return kind
    }

    /// Every instant a time of `day` can map to lies within 14 h of it (the largest offset in
    /// use), so within the window from a day before it to two days after: one offset at both
    /// ends is one offset for the day, and where there are two, bisection finds the change to
    /// the second.
    private func cachedDay(_ day: Int64) -> CachedDay {
        var low = day * Self.day - Self.day, high = day * Self.day + 2 * Self.day
        let before = offset(at: low), after = offset(at: high)
        var cached = CachedDay(offset: before, change: Self.noChange, offsetAfter: after)
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
        case (true, true): return .overlap(earlier: min(local - early, local - late), later: max(local - early, local - late))
        case (true, false): return .instant(local - early)
        case (false, true): return .instant(local - late)
        case (false, false): return .gap
        }
    }

    private func offset(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }
}
