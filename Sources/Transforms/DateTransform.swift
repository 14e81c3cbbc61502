import Foundation
import Diagnostics
import Pipeline

/// `date`: reads dates and times in the export's format and time zone, and hands them on as
/// `.date` (seconds since 2001-01-01T00:00:00Z).
///
/// ```yaml
/// - date: { fields: [added], format: "dd/MM/yyyy", timezone: Europe/Berlin }
/// - date: { fields: [added], formats: ["dd/MM/yyyy", "dd.MM.yyyy HH:mm"], timezone: UTC }
/// - date: { fields: [born], format: "dd.MM.yy", pivot: 1930, timezone: Europe/Zurich }
/// ```
/// Formats are tried in order; the whole value must match one. A day that does not exist
/// (31/04), and a local time that a clock change skips, reject the record; one it repeats does
/// too unless `fold` picks the earlier or the later. A value with a UTC offset (`XXX`) needs no
/// time zone. A date without a time is midnight in the zone. Empty text stays empty. See
/// `DatePattern` for the pattern letters; anything outside them is an error in the pipeline file.
public struct DateTransform: TransformKind {
    public var name: String { "date" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "date",
            summary: "Reads dates and times written in the given format and time zone into dates (seconds since"
                + " 2001-01-01T00:00:00Z). Pattern letters: yyyy, yy, M, MM, MMM, MMMM (English month names), d, dd,"
                + " H, HH, h, hh with a (AM/PM), m, mm, s, ss, S to SSSSSSSSS (fraction), EEE, EEEE (weekday,"
                + " checked), XXX, XX, X, xxx, xx, x, Z, ZZZZZ (UTC offsets); quote literal letters ('T'). The whole value"
                + " must match; an impossible date or a local time skipped by a clock change rejects the record, and one"
                + " repeated by it too unless `fold` says which.",
            options: [
                OptionSpec("fields", .stringOrList, required: true, "The fields holding dates."),
                OptionSpec("format", .string, "The format of the values, e.g. `dd/MM/yyyy HH:mm` (this or `formats`)."),
                OptionSpec("formats", .stringList, "Formats tried in order; the first that matches is used (this or `format`)."),
                OptionSpec("timezone", .string, default: "none: required unless every format has a UTC offset",
                           "The time zone the values are in: an IANA name such as `Europe/Berlin`, or `UTC`."),
                OptionSpec("fold", .oneOf(["reject", "earlier", "later"]), default: "reject",
                           "A local time that happens twice when the clocks go back: rejected, or the first or the second of the two."),
                OptionSpec("locale", .oneOf(["en", "de"]), default: "en",
                           "The language of month and weekday names (`MMM`, `MMMM`, `EEE`, `EEEE`): English, or German (`März`, `Mrz`, `Okt`)."),
                OptionSpec("pivot", .integer, default: "none: required with `yy`",
                           "The first year that two-digit years (`yy`) stand for: with 1950, 00-49 are 2000-2049 and"
                               + " 50-99 are 1950-1999. Fixed rather than relative to today, so that runs are reproducible."),
            ])
    }

    public init() {}

    public func make(_ node: ConfigNode) throws -> any Transform {
        let options = try Options(node, spec: spec)
        let fields = try FieldReference.list(options.node("fields") ?? node, option: "fields", stage: name)

        let formatNodes: [ConfigNode]
        switch (options.node("format"), options.node("formats")) {
        case (let single?, nil): formatNodes = [single]
        case (nil, let list?):
            guard let items = list.sequence, !items.isEmpty else { throw list.error(.pipelineEmptyValue, "'formats' lists no formats", stage: name) }
            formatNodes = items
        case (_?, let list?): throw list.error(.pipelineConflictingOptions, "use either 'format' or 'formats', not both", stage: name)
        case (nil, nil): throw node.error(.pipelineMissingKey, "'date' needs 'format' (or 'formats', a list tried in order)", stage: name)
        }
        var patterns: [DatePattern] = []
        for formatNode in formatNodes {
            do {
                patterns.append(try DatePattern(formatNode.scalar ?? ""))
            } catch {
                throw formatNode.error(.dateInvalidFormat, "format \(UTF8Text.quoted(formatNode.scalar ?? "")): \(error.message)", stage: name)
            }
        }

        if let pivotNode = options.node("pivot"), let pivot = options.integer("pivot") {
            guard patterns.contains(where: \.hasTwoDigitYear) else {
                throw pivotNode.error(.pipelineConflictingOptions,
                                      "'pivot' is only used with two-digit years ('yy'), and no format has them", stage: name)
            }
            guard (1...9900).contains(pivot) else {
                throw pivotNode.error(.pipelineValueOutOfRange, "'pivot' must be a year between 1 and 9900", stage: name)
            }
            for k in patterns.indices { patterns[k].pivot = pivot }
        } else if let k = patterns.firstIndex(where: \.hasTwoDigitYear) {
            throw formatNodes[k].error(.pipelineMissingKey,
                "'yy' needs 'pivot', the first year two-digit years stand for (pivot: 1950 reads 00-49 as 2000-2049"
                    + " and 50-99 as 1950-1999)", stage: name)
        }

        if let locale = options.string("locale"), let language = DatePattern.Language(rawValue: locale) {
            for k in patterns.indices { patterns[k].language = language }
        }
        let fold: Step.Fold = switch options.string("fold") { case "earlier": .earlier; case "later": .later; default: .reject }

        let zoneNode = options.node("timezone") ?? node
        let zoneName = options.string("timezone") ?? ""
        if options.node("timezone") == nil {
            // Values that say their own offset need no zone; any other format does.
            if let k = patterns.firstIndex(where: { !$0.hasOffset }) {
                throw formatNodes[k].error(.pipelineMissingKey,
                                           "'date' needs 'timezone', the zone the values are in (an IANA name such as Europe/Berlin,"
                                               + " or UTC), as format \"\(patterns[k].source)\" has no UTC offset", stage: name)
            }
            return Step(fields: fields, patterns: patterns, zone: TimeZone(identifier: "UTC")!, zoneName: "UTC", fold: fold)
        }
        guard let zone = TimeZone(identifier: zoneName) else {
            let known = TimeZone.knownTimeZoneIdentifiers + ["UTC"]
            throw zoneNode.error(.pipelineUnknownTimeZone, "unknown time zone '\(zoneName)'\(Suggestion.hint(for: zoneName, in: known))"
                                                               + " (use an IANA name such as Europe/Berlin, or UTC)", stage: name)
        }
        return Step(fields: fields, patterns: patterns, zone: zone, zoneName: zoneName, fold: fold)
    }

    /// A configured `date` step.
    public final class Step: Transform {
        let references: [FieldReference]
        let patterns: [DatePattern]
        let zoneName: String
        /// A local time the clocks go back over: which of its two instants, if either.
        enum Fold { case reject, earlier, later }
        let fold: Fold
        private let resolver: ZoneResolver
        private var indexes: [Int] = []

        init(fields: [FieldReference], patterns: [DatePattern], zone: TimeZone, zoneName: String, fold: Fold = .reject) {
            self.references = fields
            self.patterns = patterns
            self.zoneName = zoneName
            self.fold = fold
            self.resolver = ZoneResolver(zone: zone)
        }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try references.map { try $0.index(in: fields, stage: "date") }
            return fields
        }

        /// The instants of the values seen last: exports repeat their dates (a day's rows), and a
        /// value found here skips its pattern and the zone's rules. Only successes are kept.
        // Unchecked: a step belongs to one source and runs on one thread; the run-time
        // exclusivity checks were two calls a value.
        @exclusivity(unchecked) private var recent = RecentDates()

        public func apply(_ record: inout Record) throws {
            for (k, i) in indexes.enumerated() where i < record.values.count {
                guard case .text(let text) = record.values[i], !text.isEmpty else { continue }
                let key = RecentDates.key(text)
                if let key, let seconds = recent[key] {
                    record.values[i] = .date(seconds)
                    continue
                }
                switch parse(text) {
                case .success(let seconds):
                    if let key { recent[key] = seconds }
                    record.values[i] = .date(seconds)
                case .failure(let failure):
                    throw Rejection(at: record.location(ofField: i), stage: "date", field: references[k].name,
                                    rawValue: text, reason: describe(failure, in: text))
                }
            }
        }

        enum Failure: Error {
            /// No format matches (why is worked out again only when the message is made).
            case noMatch
            case gap(DatePattern.LocalDateTime)
            case overlap(DatePattern.LocalDateTime)
        }

        /// Seconds since 2001 for `text`, trying each format in order.
        func parse(_ text: String) -> Result<Double, Failure> {
            UTF8Text.withBytes(text) { bytes in
                for pattern in patterns {
                    switch pattern.match(bytes) {
                    case .success(let local):
                        let days = Int64(DatePattern.days(year: local.year, month: local.month, day: local.day))
                        let seconds = days * 86_400 + Int64(local.hour * 3600 + local.minute * 60 + local.second)
                        // An offset in the value says the instant itself; no zone is asked.
                        if let offset = local.offset { return .success(Double(seconds - Int64(offset) - 978_307_200) + local.fraction) }
                        switch resolver.resolve(local: seconds) {
                        case .instant(let unix): return .success(Double(unix - 978_307_200) + local.fraction)
                        case .gap: return .failure(.gap(local))
                        case .overlap(let earlier, let later):
                            switch fold {
                            case .reject: return .failure(.overlap(local))
                            case .earlier: return .success(Double(earlier - 978_307_200) + local.fraction)
                            case .later: return .success(Double(later - 978_307_200) + local.fraction)
                            }
                        }
                    case .failure:
                        continue
                    }
                }
                return .failure(.noMatch)
            }
        }

        func describe(_ failure: Failure, in text: String) -> String {
            switch failure {
            case .gap(let local):
                return "\(DatePattern.isoDateTime(local)) never happens in \(zoneName): the clocks go forward over it (spring forward);"
                    + " check the value, or the time zone it was written in"
            case .overlap(let local):
                return "\(DatePattern.isoDateTime(local)) is ambiguous in \(zoneName): it happens twice when the clocks go back;"
                    + " say which with 'fold: earlier' (the first, summer time) or 'fold: later'"
            case .noMatch:
                let failures = UTF8Text.withBytes(text) { bytes in
                    patterns.map { pattern -> DatePattern.Failure? in
                        if case .failure(let failure) = pattern.match(bytes) { return failure }
                        return nil
                    }
                }
                if patterns.count == 1, let only = failures[0] { return patterns[0].describe(only, in: text) }
                // A value with the shape of a format but an impossible field says more than "no match".
                for (pattern, failure) in zip(patterns, failures) {
                    guard let failure else { continue }
                    if case .mismatch = failure { continue }
                    return pattern.describe(failure, in: text) + " (format \"\(pattern.source)\")"
                }
                return "does not match any of the formats " + patterns.map { "\"\($0.source)\"" }.joined(separator: ", ")
            }
        }
    }
}
