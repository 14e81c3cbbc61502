import Foundation
import Diagnostics
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("date transform")
struct TransformDateTests {
    /// Seconds between 1970-01-01 and 2001-01-01 (Core Data's reference date).
    static let referenceOffset = 978_307_200.0

    /// Runs `date` with `options` on one field `added` holding `raw`.
    static func date(_ raw: String, _ options: String) throws -> Value {
        let (step, _) = try TransformFixture.bind("date", options, fields: ["added"])
        var record = TransformFixture.record([raw])
        try step.apply(&record)
        return record.values[0]
    }

    /// `.date` for a Unix timestamp (worked out with `date -u -d ... +%s`, not with this code).
    static func unix(_ seconds: Double) -> Value { .date(seconds - referenceOffset) }

    static func options(_ format: String, _ zone: String) -> String {
        #"{ fields: added, format: "\#(format)", timezone: \#(zone) }"#
    }

    static let berlin = options("dd/MM/yyyy HH:mm", "Europe/Berlin")
    static let newYork = options("dd/MM/yyyy HH:mm", "America/New_York")

    @Test("a date shows as ISO 8601 in UTC, milliseconds only when it has them, years zero-padded")
    func displayText() {
        #expect(Value.date(0).displayText == "2001-01-01T00:00:00Z")
        #expect(Self.unix(1_705_316_400).displayText == "2024-01-15T11:00:00Z")
        #expect(Self.unix(1_705_316_400.25).displayText == "2024-01-15T11:00:00.250Z")
        #expect(Self.unix(1_705_316_400.007).displayText == "2024-01-15T11:00:00.007Z")
        #expect(Self.unix(-30_610_310_400).displayText == "0999-12-31T00:00:00Z")  // date -u -d 0999-12-31 +%s
    }

    /// One step reads a file's values one after another and keeps the instants of those it saw
    /// last: repeated values, values that take each other's places and rejected ones must give
    /// what a step that sees each value once gives.
    @Test("repeated values give the instant of their first reading, past the recent values' places")
    func repeatedValuesAsFirstSeen() throws {
        let options = Self.options("yyyy-MM-dd HH:mm", "Europe/Berlin")
        // More distinct values than places, so that values take each other's places; on day 31
        // now and then, which most months do not have; one in a clock change's gap, one over 16 bytes.
        var values: [String] = []
        var seen = Set<String>()
        for k in 0..<(RecentDates.places + RecentDates.places / 2) {
            let value = String(format: "%04d-%02d-%02d %02d:%02d", 1990 + k % 40, 1 + k % 12,
                               k % 97 == 0 ? 31 : 1 + (k / 12) % 28, (k / 7) % 24, (k / 3) % 60)
            if seen.insert(value).inserted { values.append(value) }
        }
        values += ["2024-03-31 02:30", " 2024-05-06 07:08 "]
        let (once, _) = try TransformFixture.bind("date", options, fields: ["added"])
        let (step, _) = try TransformFixture.bind("date", options, fields: ["added"])
        func read(_ raw: String, with step: any Transform) -> Value? {
            var record = TransformFixture.record([raw])
            return (try? step.apply(&record)) == nil ? nil : record.values[0]
        }
        let expected = values.map { read($0, with: once) }
        #expect(expected.contains(nil) && expected.contains { $0 != nil }, "some values rejected, most read")
        for round in 0..<3 {
            for (k, raw) in values.enumerated() {
                #expect(read(raw, with: step) == expected[k], "round \(round), value \(k): \(raw)")
            }
        }
    }

    @Test func winterAndSummerInTwoZones() throws {
        #expect(try Self.date("15/01/2024 12:00", Self.berlin) == Self.unix(1_705_316_400))  // 11:00Z, CET +1
        #expect(try Self.date("15/07/2024 12:00", Self.berlin) == Self.unix(1_721_037_600))  // 10:00Z, CEST +2
        #expect(try Self.date("15/01/2024 12:00", Self.newYork) == Self.unix(1_705_338_000))  // 17:00Z, EST -5
        #expect(try Self.date("15/07/2024 12:00", Self.newYork) == Self.unix(1_721_059_200))  // 16:00Z, EDT -4
    }

    @Test func dateWithoutTimeIsMidnightInTheZone() throws {
        let berlin = Self.options("dd/MM/yyyy", "Europe/Berlin")
        #expect(try Self.date("29/02/2024", berlin) == Self.unix(1_709_161_200))  // leap day, 2024-02-28T23:00Z
        #expect(try Self.date("01/01/2001", Self.options("dd/MM/yyyy", "UTC")) == .date(0))
    }

    @Test func justAroundClockChanges() throws {
        // Berlin: 2024-03-31 02:00 -> 03:00 and 2024-10-27 03:00 -> 02:00.
        #expect(try Self.date("31/03/2024 01:59", Self.berlin) == Self.unix(1_711_846_740))
        #expect(try Self.date("31/03/2024 03:00", Self.berlin) == Self.unix(1_711_846_800))
        #expect(try Self.date("27/10/2024 01:30", Self.berlin) == Self.unix(1_729_985_400))
        #expect(try Self.date("27/10/2024 03:30", Self.berlin) == Self.unix(1_729_996_200))
        // New York: 2024-03-10 02:00 -> 03:00 and 2024-11-03 02:00 -> 01:00.
        #expect(try Self.date("10/03/2024 01:59", Self.newYork) == Self.unix(1_710_053_940))
        #expect(try Self.date("10/03/2024 03:00", Self.newYork) == Self.unix(1_710_054_000))
        #expect(try Self.date("03/11/2024 00:30", Self.newYork) == Self.unix(1_730_608_200))
        #expect(try Self.date("03/11/2024 02:30", Self.newYork) == Self.unix(1_730_619_000))
    }

    @Test("a local time that does not exist or exists twice is rejected", arguments: [
        ("31/03/2024 02:30", berlin, "2024-03-31 02:30:00 never happens in Europe/Berlin: the clocks go forward over it (spring forward); check the value, or the time zone it was written in"),
        ("27/10/2024 02:30", berlin, "2024-10-27 02:30:00 is ambiguous in Europe/Berlin: it happens twice when the clocks go back; say which with 'fold: earlier' (the first, summer time) or 'fold: later'"),
        ("10/03/2024 02:30", newYork, "2024-03-10 02:30:00 never happens in America/New_York: the clocks go forward over it (spring forward); check the value, or the time zone it was written in"),
        ("03/11/2024 01:30", newYork, "2024-11-03 01:30:00 is ambiguous in America/New_York: it happens twice when the clocks go back; say which with 'fold: earlier' (the first, summer time) or 'fold: later'"),
    ])
    func clockChanges(raw: String, options: String, reason: String) {
        let message = TransformFixture.rejection { _ = try Self.date(raw, options) }
        #expect(message == "items.csv:2:1: rejected: date: field 'added' value \(raw.debugDescription): \(reason)")
    }

    @Test("impossible dates and times are rejected", arguments: [
        ("31/04/2024", "dd/MM/yyyy", "day 31 does not exist in April 2024"),
        ("29/02/2023", "dd/MM/yyyy", "day 29 does not exist in February 2023"),
        ("29/02/1900", "dd/MM/yyyy", "day 29 does not exist in February 1900"),
        ("00/01/2024", "dd/MM/yyyy", "day 0 does not exist in January 2024"),
        ("01/13/2024", "dd/MM/yyyy", "month 13 is not between 1 and 12"),
        ("01/01/0000", "dd/MM/yyyy", "year 0 does not exist (1 BC is followed by 1 AD)"),
        ("01/01/2024 24:00", "dd/MM/yyyy HH:mm", "hour 24 is not between 0 and 23"),
        ("01/01/2024 12:60", "dd/MM/yyyy HH:mm", "minute 60 is not between 0 and 59"),
        ("01/01/2024 12:00:60", "dd/MM/yyyy HH:mm:ss", "second 60 is not between 0 and 59"),
        ("01/01/2024 13:00 PM", "dd/MM/yyyy hh:mm a", "hour 13 is not between 1 and 12 (with AM/PM)"),
        ("Tue, 15 Jan 2024", "EEE, d MMM yyyy", "2024-01-15 is a Monday, not a Tuesday"),
    ])
    func impossible(raw: String, format: String, reason: String) {
        let message = TransformFixture.rejection { _ = try Self.date(raw, Self.options(format, "UTC")) }
        #expect(message == "items.csv:2:1: rejected: date: field 'added' value \(raw.debugDescription): \(reason)")
    }

    @Test("the whole value must match the format", arguments: [
        ("15/01/2024x", "dd/MM/yyyy", #"does not match the format "dd/MM/yyyy": unexpected "x" after the date"#),
        ("15/01/2024 ", "dd/MM/yyyy", #"does not match the format "dd/MM/yyyy": unexpected " " after the date"#),
        ("15/01/2024 12:00", "dd/MM/yyyy", #"does not match the format "dd/MM/yyyy": unexpected " 12:00" after the date"#),
        ("15.01.2024", "dd/MM/yyyy", #"does not match the format "dd/MM/yyyy": expected "/" at character 3"#),
        ("5/01/2024", "dd/MM/yyyy", #"does not match the format "dd/MM/yyyy": expected 2 digits for 'dd' at character 1"#),
        ("15/1/24", "dd/M/yyyy", #"does not match the format "dd/M/yyyy": expected 4 digits for 'yyyy' at character 6"#),
        ("2024-01-15", "dd/MM/yyyy", #"does not match the format "dd/MM/yyyy": expected "/" at character 3"#),
        ("15 Foo 2024", "d MMM yyyy", #"does not match the format "d MMM yyyy": expected a month abbreviation (Jan, Feb, ...) for 'MMM' at character 4"#),
        ("é/01/2024", "d/MM/yyyy", #"does not match the format "d/MM/yyyy": expected 1 or 2 digits for 'd' at character 1"#),
        ("15/01/2024 1:00 XM", "dd/MM/yyyy h:mm a", #"does not match the format "dd/MM/yyyy h:mm a": expected AM or PM for 'a' at character 17"#),
    ])
    func mismatch(raw: String, format: String, reason: String) {
        let message = TransformFixture.rejection { _ = try Self.date(raw, Self.options(format, "UTC")) }
        #expect(message == "items.csv:2:1: rejected: date: field 'added' value \(raw.debugDescription): \(reason)")
    }

    @Test func formatsAreTriedInOrder() throws {
        let options = #"{ fields: added, formats: ["dd/MM/yyyy", "dd.MM.yyyy HH:mm"], timezone: Europe/Berlin }"#
        #expect(try Self.date("29/02/2024", options) == Self.unix(1_709_161_200))
        #expect(try Self.date("15.01.2024 12:00", options) == Self.unix(1_705_316_400))
        // The first format that matches wins: 04/05 is 5 April with month first.
        let monthFirst = #"{ fields: added, formats: ["MM/dd/yyyy", "dd/MM/yyyy"], timezone: UTC }"#
        #expect(try Self.date("04/05/2024", monthFirst) == Self.unix(1_712_275_200))  // 2024-04-05
        #expect(try Self.date("13/04/2024", monthFirst) == Self.unix(1_712_966_400))  // 2024-04-13, month 13 fails first
        let message = TransformFixture.rejection { _ = try Self.date("2024-01-15", options) }
        #expect(message == #"items.csv:2:1: rejected: date: field 'added' value "2024-01-15": does not match any of the formats"#
                    + #" "dd/MM/yyyy", "dd.MM.yyyy HH:mm""#)
        let impossible = TransformFixture.rejection { _ = try Self.date("31.04.2024 10:00", options) }
        #expect(impossible == #"items.csv:2:1: rejected: date: field 'added' value "31.04.2024 10:00": day 31 does not exist"#
                    + #" in April 2024 (format "dd.MM.yyyy HH:mm")"#)
    }

    @Test func namesTwelveHourClockFractionsAndQuotedLiterals() throws {
        let utc = { (format: String) in Self.options(format, "UTC") }
        #expect(try Self.date("Mon, 15 Jan 2024 08:05 PM", utc("EEE, d MMM yyyy hh:mm a")) == Self.unix(1_705_349_100))
        #expect(try Self.date("monday 15 january 2024 8:05 pm", utc("EEEE d MMMM yyyy h:mm a")) == Self.unix(1_705_349_100))
        #expect(try Self.date("15 Jan 2024 12:00 AM", utc("d MMM yyyy hh:mm a")) == Self.unix(1_705_276_800))  // midnight
        #expect(try Self.date("15 Jan 2024 12:00 PM", utc("d MMM yyyy hh:mm a")) == Self.unix(1_705_320_000))  // noon
        #expect(try Self.date("2024-01-15T12:00:00.250", utc("yyyy-MM-dd'T'HH:mm:ss.SSS")) == Self.unix(1_705_320_000.25))
        #expect(try Self.date("20240115", utc("yyyyMMdd")) == Self.unix(1_705_276_800))
        #expect(try Self.date("15 o'clock 2024-01-15", utc("HH 'o''clock' yyyy-MM-dd")) == Self.unix(1_705_330_800))
    }

    @Test func twoDigitYearsUseThePivot() throws {
        let options = #"{ fields: added, format: "dd.MM.yy", pivot: 1950, timezone: Europe/Berlin }"#
        #expect(try Self.date("01.01.00", options) == Self.unix(946_681_200))  // 2000-01-01, 1999-12-31T23:00Z
        #expect(try Self.date("01.01.50", options) == Self.unix(-631_155_600))  // 1950-01-01, 1949-12-31T23:00Z
        #expect(try Self.date("01.01.49", options) == Self.unix(2_493_068_400))  // 2049-01-01, 2048-12-31T23:00Z
    }

    @Test func emptyStaysEmptyAndOtherValuesPass() throws {
        #expect(try Self.date("", Self.berlin) == .text(""))
        let (step, _) = try TransformFixture.bind("date", Self.berlin, fields: ["added"])
        var record = TransformFixture.record([.date(5)])
        try step.apply(&record)
        #expect(record.values == [.date(5)])
    }

    /// Every 61 hours 13 minutes over 50 years (so every time of day comes up), in zones with and without daylight saving time:
    /// the same instant as Foundation's calendar, except where a clock change makes the local
    /// time skipped or repeated, which Foundation silently resolves and we reject.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC"])
    func agreesWithFoundationAwayFromClockChanges(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let (step, _) = try TransformFixture.bind("date", Self.options("yyyy-MM-dd HH:mm", zoneName), fields: ["added"])
        var local = try #require(calendar.date(from: DateComponents(year: 1990, month: 1, day: 1)))
        var rejected = 0, checked = 0
        while local.timeIntervalSince1970 < 2_208_988_800 {  // 2040
            local += 61 * 3600 + 13 * 60
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: local)
            let text = String(format: "%04d-%02d-%02d %02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!)
            var record = TransformFixture.record([text])
            do {
                try step.apply(&record)
                checked += 1
                #expect(record.values == [.date(calendar.date(from: c)!.timeIntervalSinceReferenceDate)], "\(text)")
            } catch let rejection as Rejection {
                // Only a time an hour around a real clock change may be refused.
                rejected += 1
                let offsetChange = zone.secondsFromGMT(for: local + 3 * 3600) - zone.secondsFromGMT(for: local - 3 * 3600)
                #expect(offsetChange != 0, "\(rejection)")
            }
        }
        #expect(checked > 7_000)
        #expect(rejected < checked / 100)
    }

    /// Every 5 minutes of the three days around each clock change from 2019 to 2025, resolved
    /// through the cached change against the definition: each offset in force around the local
    /// time that maps it back onto itself is a solution; none is a gap, two an overlap. Dates
    /// are resolved in order, so that each day is cached by its first time. Then the same days a
    /// century before, outside the days the resolver keeps.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Tehran", "UTC"])
    func zoneResolverAgreesWithTheDefinitionAroundChanges(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        let resolver = ZoneResolver(zone: zone)
        func offset(_ instant: Int64) -> Int64 {
            Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
        }
        var changes: [Int64] = []
        var instant = Date(timeIntervalSince1970: 1_546_300_800)  // 2019-01-01
        while let next = zone.nextDaylightSavingTimeTransition(after: instant), next.timeIntervalSince1970 < 1_767_225_600 {
            changes.append(Int64(next.timeIntervalSince1970))
            instant = next
        }
        #expect(zoneName == "UTC" || zoneName == "Asia/Tehran" || changes.count >= 12)
        var gaps = 0, overlaps = 0
        let century: Int64 = 36_524 * 86_400
        for change in changes + [1_700_000_000] + changes.map({ $0 - century }) {
            var local = (change + offset(change)) / 86_400 * 86_400 - 86_400
            while local < (change + offset(change)) / 86_400 * 86_400 + 2 * 86_400 {
                let solutions = Set([offset(local - 86_400), offset(local + 86_400)]).filter { offset(local - $0) == $0 }
                let expected: ZoneResolver.Resolution = switch solutions.count {
                case 0: .gap
                case 1: .instant(local - solutions.first!)
                default: .overlap(earlier: local - solutions.max()!, later: local - solutions.min()!)
                }
                #expect(resolver.resolve(local: local) == expected, "local \(local) near \(change)")
                if expected == .gap { gaps += 1 }
                if case .overlap = expected { overlaps += 1 }
                local += 300
            }
        }
        #expect(zoneName == "UTC" || zoneName == "Asia/Tehran" || (gaps > 0 && overlaps > 0))
    }

    @Test func optionErrors() {
        let zone = #"{ fields: added, format: "dd/MM/yyyy", timezone: Europe/Berln }"#
        let unknown = TransformFixture.expectError(.pipelineUnknownTimeZone, at: 64) { _ = try TransformFixture.make("date", zone) }
        #expect(unknown?.message == "unknown time zone 'Europe/Berln'; did you mean 'Europe/Berlin'? (use an IANA name such as Europe/Berlin, or UTC)")
        #expect(TransformFixture.column("date", zone, of: "Europe/Berln") == 64)

        let noZone = #"{ fields: added, format: "dd/MM/yyyy" }"#
        let needsZone = TransformFixture.expectError(.pipelineMissingKey, at: 40) { _ = try TransformFixture.make("date", noZone) }
        #expect(needsZone?.message == #"'date' needs 'timezone', the zone the values are in (an IANA name such as"#
                    + #" Europe/Berlin, or UTC), as format "dd/MM/yyyy" has no UTC offset"#)

        let noFormat = "{ fields: added, timezone: UTC }"
        TransformFixture.expectError(.pipelineMissingKey, at: 15) { _ = try TransformFixture.make("date", noFormat) }

        let both = #"{ fields: added, format: "dd/MM/yyyy", formats: ["yyyy"], timezone: UTC }"#
        TransformFixture.expectError(.pipelineConflictingOptions, at: 63) { _ = try TransformFixture.make("date", both) }

        let letter = #"{ fields: added, format: "dd/MM/yyyy QQ", timezone: UTC }"#
        let unsupported = TransformFixture.expectError(.dateInvalidFormat, at: 40) { _ = try TransformFixture.make("date", letter) }
        #expect(unsupported?.message == #"format "dd/MM/yyyy QQ": 'QQ' is not supported (supported: yyyy, yy,"#
                    + " M, MM, MMM, MMMM, d, dd, H, HH, h, hh, a, m, mm, s, ss, S to SSSSSSSSS, EEE, EEEE, X, XX, XXX, x, xx, xxx, Z, ZZZZZ;"
                    + " quote literal letters: 'T')")

        let quote = #"{ fields: added, format: "yyyy-MM-dd'T", timezone: UTC }"#
        let open = TransformFixture.expectError(.dateInvalidFormat, at: 40) { _ = try TransformFixture.make("date", quote) }
        #expect(open?.message == #"format "yyyy-MM-dd'T": a quote opened at character 11 is not closed"#)
    }

    @Test("formats that cannot work are errors", arguments: [
        ("HH:mm", "a format needs a year, a month and a day"),
        ("dd/MM/yyy", "'yyy' is not supported: use 'yyyy' (four digits) or 'yy' (two digits, with 'pivot')"),
        ("dd/MM/yyyy MM", "'MM' repeats a field already in the format"),
        ("dd MMM yyyy MM", "'MM' repeats a field already in the format"),
        ("dd/MM/yyyy hh:mm", "'h' needs 'a' (AM/PM); use 'H' for 0-23 hours"),
        ("dd/MM/yyyy HH:mm a", "'a' (AM/PM) needs 'h' or 'hh' for the hour"),
    ])
    func badFormats(format: String, problem: String) {
        let text = Self.options(format, "UTC")
        let error = TransformFixture.expectError(.dateInvalidFormat, at: 40) { _ = try TransformFixture.make("date", text) }
        #expect(error?.message == "format \"\(format)\": \(problem)")
    }

    @Test func pivotErrors() {
        let missing = #"{ fields: added, formats: ["yyyy-MM-dd", "dd.MM.yy"], timezone: UTC }"#
        let needsPivot = TransformFixture.expectError(.pipelineMissingKey, at: 56) { _ = try TransformFixture.make("date", missing) }
        #expect(needsPivot?.message == "'yy' needs 'pivot', the first year two-digit years stand for"
                    + " (pivot: 1950 reads 00-49 as 2000-2049 and 50-99 as 1950-1999)")
        let unused = #"{ fields: added, format: "dd.MM.yyyy", pivot: 1950, timezone: UTC }"#
        TransformFixture.expectError(.pipelineConflictingOptions, at: 61) { _ = try TransformFixture.make("date", unused) }
    }
}

/// docs/pipeline-format.md's `date` examples, each run as written: the value on its right must
/// become the instant it says.
@Suite("date examples in the docs")
struct DateDocsExamplesTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/pipeline-format.md")

    @Test("every date example runs and gives the instant it says")
    func examples() throws {
        let text = try String(contentsOf: Self.docs, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "### `date`").dropFirst().first?.components(separatedBy: "\n### ").first)
        let lines = section.split(separator: "\n").filter { $0.hasPrefix("- date: ") && $0.contains(" -> ") }
        #expect(lines.count >= 10)
        var options: Set<String> = []
        for line in lines {
            let parts = line.dropFirst("- date: ".count).components(separatedBy: "# ")
            let config = parts[0].trimmingCharacters(in: .whitespaces)
            let claim = parts[1].components(separatedBy: " -> ")
            let value = String(claim[0].dropFirst().dropLast())  // without its quotes
            let step = try TransformFixture.make("date", config)
            _ = try step.bind(fields: ["added", "born"])
            let field = config.contains("[born]") ? 1 : 0
            var record = TransformFixture.record([.text(value), .text(value)])
            try step.apply(&record)
            guard case .date(let seconds) = record.values[field] else {
                Issue.record("\(line): gave \(record.values[field])")
                continue
            }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = seconds.truncatingRemainder(dividingBy: 1) == 0 ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
            #expect(formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds)) == claim[1], "\(line)")
            for option in ["pivot", "formats", "locale", "fold", "timezone"] where config.contains(option + ":") { options.insert(option) }
        }
        // Every option of the step has an example.
        #expect(options == ["pivot", "formats", "locale", "fold", "timezone"])
    }
}

@Suite("date names and offsets")
struct DateNamesAndOffsetsTests {
    func read(_ options: String, _ value: String) throws -> Value {
        let step = try TransformFixture.make("date", options)
        _ = try step.bind(fields: ["added"])
        var record = TransformFixture.record([.text(value)])
        try step.apply(&record)
        return record.values[0]
    }

    @Test("German month names and their abbreviations; English ones are not German")
    func germanNames() throws {
        let de = #"{ fields: added, format: "d MMM yyyy", locale: de, timezone: UTC }"#
        #expect(try read(de, "3 Mrz 2025") == read(de, "3 Mär 2025"))
        #expect(try read(de, "1 Okt 2025") == .date(780_969_600))  // 2025-10-01T00:00:00Z
        #expect(throws: Rejection.self) { try read(de, "1 Oct 2025") }
        #expect(throws: Rejection.self) { try read(#"{ fields: added, format: "d MMM yyyy", timezone: UTC }"#, "1 Okt 2025") }
    }

    @Test("offsets: xx never takes Z; an offset out of range or malformed rejects the value")
    func offsets() throws {
        #expect(try read(#"{ fields: added, format: "yyyy-MM-dd HH:mmxx" }"#, "2001-01-01 01:00+0100") == .date(0))
        #expect(throws: Rejection.self) { try read(#"{ fields: added, format: "yyyy-MM-dd HH:mmxx" }"#, "2001-01-01 01:00Z") }
        #expect(throws: Rejection.self) { try read(#"{ fields: added, format: "yyyy-MM-dd HH:mmXXX" }"#, "2001-01-01 01:00+0100") }
        #expect(throws: Rejection.self) { try read(#"{ fields: added, format: "yyyy-MM-dd HH:mmX" }"#, "2001-01-01 01:00+25") }
        // The offset wins over the zone.
        #expect(try read(#"{ fields: added, format: "yyyy-MM-dd HH:mmX", timezone: Asia/Tokyo }"#, "2001-01-01 00:00Z") == .date(0))
    }
}
