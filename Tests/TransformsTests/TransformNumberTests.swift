import Foundation
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("number transform")
struct TransformNumberTests {
    /// Runs `number` with `options` on one field `quantity` holding `raw`.
    static func number(_ raw: String, _ options: String) throws -> Value {
        let (step, _) = try TransformFixture.bind("number", options, fields: ["quantity"])
        var record = TransformFixture.record([raw])
        try step.apply(&record)
        return record.values[0]
    }

    static let comma = #"{ fields: quantity, decimal: "," }"#
    static let point = "{ fields: quantity }"

    @Test("decimal comma, grouping point", arguments: [
        ("3", "3"),
        ("1,5", "1.5"),
        ("1.234,5", "1234.5"),
        ("1.234.567,891", "1234567.891"),
        ("-1.234,50", "-1234.5"),
        ("+12", "12"),
        ("−12,5", "-12.5"),  // U+2212 minus sign
        ("0,125", "0.125"),
        (",5", "0.5"),
        ("007", "7"),
        ("1,000", "1"),
        ("-0,00", "0"),
        ("1 234,5", "1234.5"),
        ("1\u{00A0}234,5", "1234.5"),
        ("1\u{202F}234\u{202F}567", "1234567"),
        ("1'234,5", "1234.5"),
        (" 12,5\t", "12.5"),
    ])
    func decimalComma(raw: String, canonical: String) throws {
        #expect(try Self.number(raw, Self.comma) == .text(canonical))
    }

    @Test("decimal point, grouping comma", arguments: [
        ("1.5", "1.5"),
        ("1,234.5", "1234.5"),
        ("1'234.50", "1234.5"),  // Swiss
        ("1’234.50", "1234.5"),
        ("12 345 678.9", "12345678.9"),
        ("0.1", "0.1"),
        ("100", "100"),
        ("1.", "1"),
    ])
    func decimalPoint(raw: String, canonical: String) throws {
        #expect(try Self.number(raw, Self.point) == .text(canonical))
    }

    @Test("currency before or after, with or without a space", arguments: [
        ("$1,234.50", "1234.5"),
        ("$ 12", "12"),
        ("12$", "12"),
        ("-$12.50", "-12.5"),
        ("$-12.50", "-12.5"),
        ("£7.99", "7.99"),
        ("¥1,000", "1000"),
        ("USD 12.5", "12.5"),
        ("12.5USD", "12.5"),
        ("CHF 1'234.50", "1234.5"),
        ("1'234.50 CHF", "1234.5"),
        ("₹1,234", "1234"),
    ])
    func currency(raw: String, canonical: String) throws {
        #expect(try Self.number(raw, Self.point) == .text(canonical))
    }

    @Test func euroWithDecimalComma() throws {
        #expect(try Self.number("1.234,56 €", Self.comma) == .text("1234.56"))
        #expect(try Self.number("€1.234,56", Self.comma) == .text("1234.56"))
        #expect(try Self.number("€ -12,50", Self.comma) == .text("-12.5"))
        #expect(try Self.number("12,50EUR", Self.comma) == .text("12.5"))
    }

    @Test("accounting negatives", arguments: [("(12.50)", "-12.5"), ("($1,234.50)", "-1234.5"), ("( 12 )", "-12"), ("(0)", "0")])
    func accounting(raw: String, canonical: String) throws {
        #expect(try Self.number(raw, Self.point) == .text(canonical))
    }

    @Test("percent moves the decimal point exactly", arguments: [
        ("12,5 %", "0.125"),
        ("12,5%", "0.125"),
        ("0,5 %", "0.005"),
        ("100 %", "1"),
        ("250%", "2.5"),
        ("-3%", "-0.03"),
        ("0,1 %", "0.001"),
        ("1.234,5 %", "12.345"),
    ])
    func percent(raw: String, canonical: String) throws {
        #expect(try Self.number(raw, Self.comma) == .text(canonical))
    }

    @Test func percentIsExactOnceConverted() throws {
        let value = try Self.number("12,5 %", Self.comma)
        #expect(try AttributeType.decimal.convert(value).get() == (.decimal(Decimal(string: "0.125")!)))
        #expect(try AttributeType.double.convert(value).get() == (.double(0.125)))
        // 0.1 % is 0.001 exactly as a decimal, not 0.1 / 100 in binary floating point.
        let tiny = try Self.number("0,1 %", Self.comma)
        #expect(try AttributeType.decimal.convert(tiny).get() == (.decimal(Decimal(string: "0.001")!)))
        #expect(try AttributeType.double.convert(tiny).get() == (.double(0.001)))
    }

    @Test func canonicalTextConvertsToEveryNumericType() throws {
        let whole = try Self.number("1.234", Self.comma)
        #expect(try AttributeType.integer64.convert(whole).get() == (.integer(1234)))
        #expect(try AttributeType.integer16.convert(whole).get() == (.integer(1234)))
        let negative = try Self.number("(1.234,50)", Self.comma)
        #expect(try AttributeType.decimal.convert(negative).get() == (.decimal(Decimal(string: "-1234.5")!)))
        #expect(try AttributeType.double.convert(negative).get() == (.double(-1234.5)))
    }

    /// `plainDecimal` stands in for `Double(s)` on the number transform's output: it must give
    /// the same double, bit for bit, or nil and leave the text to `Double(s)`.
    @Test func plainDecimalsParseAsDoubleDoes() {
        var edge = ["0", "-0", "0.0", "-0.000", "00012", "1.", ".5", "-", "", "1..2", "1.2.3", "-.5", "+1", "1e5",
                    "9007199254740992", "9007199254740993", "0.1", "0.3", "123456789012345.6", "1234567890123456789",
                    "12345678901234567890", "0.0000000000000000000001", "0.00000000000000000000001", "1.7976931348623157"]
        // A fixed sequence of random decimals: signs, 1 to 20 digits, a point anywhere.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            let digits = (0..<(1 + next(20))).map { _ in Character(String(next(10))) }
            var text = String(digits)
            if next(3) > 0 { text.insert(".", at: text.index(text.startIndex, offsetBy: next(text.count + 1))) }
            edge.append(next(4) == 0 ? "-" + text : text)
        }
        var fast = 0
        for text in edge {
            guard let value = AttributeType.plainDecimal(text) else { continue }
            fast += 1
            #expect(value.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
        #expect(fast > 10_000, "most short decimals take the fast path")
        #expect(AttributeType.plainDecimal("9007199254740993") == nil, "past 2^53: left to Double(s)")
        #expect(AttributeType.plainDecimal("1.") == nil && AttributeType.plainDecimal(".5") == nil && AttributeType.plainDecimal("+1") == nil)
        #expect(AttributeType.plainDecimal("-0")?.sign == .minus)
    }

    @Test("plain text converts to a double only as digits, a sign, a point and an exponent")
    func plainTextToDouble() {
        for (text, expected) in [("42", 42.0), ("-1.5", -1.5), ("+.5", 0.5), ("1e5", 1e5), ("1.5E-3", 0.0015), ("2e+2", 200)] {
            #expect((try? AttributeType.double.convert(.text(text)).get()) == .double(expected), "\(text)")
        }
        for text in ["1-5", "5-", "1e5-", "--1", "nan", "inf", "0x1p3", "1,5", ".", "-", "e5"] {
            #expect((try? AttributeType.double.convert(.text(text)).get()) == nil, "\(text)")
        }
    }

    @Test func emptyStaysEmptyAndBlankBecomesEmpty() throws {
        #expect(try Self.number("", Self.comma) == .text(""))
        #expect(try Self.number(" \u{00A0}", Self.comma) == .text(""))
    }

    @Test func leavesValuesOtherThanTextAlone() throws {
        let (step, _) = try TransformFixture.bind("number", "{ fields: [a, b, c] }", fields: ["a", "b", "c"])
        var record = TransformFixture.record([.null, .integer(3), .double(1.5)])
        try step.apply(&record)
        #expect(record.values == [.null, .integer(3), .double(1.5)])
    }

    @Test func canonicalInputNeedsNoNewString() throws {
        let format = NumberFormat()
        #expect(try format.canonical("-1234.5") == nil)
        #expect(try format.canonical("0.125") == nil)
        #expect(try format.canonical("") == nil)
        #expect(try format.canonical("1,234") == "1234")
    }

    /// Plain digits (an optional `-`, one decimal separator between digits) are read in one pass
    /// of their own: every such value of up to four and three digits, leading and trailing zeros
    /// included, gives the canonical form worked out here, and the same as the whole parse gives
    /// for it with a space in front (which that pass leaves to the whole parse).
    @Test("plain digits read in one pass as the whole parse reads them", arguments: [UInt8(ascii: ","), UInt8(ascii: ".")])
    func plainDigits(decimal: UInt8) throws {
        let format = NumberFormat(decimal: decimal)
        let separator = Character(Unicode.Scalar(decimal))
        let integers = ["0", "00", "7", "07", "10", "100", "1000", "0120", "9999"]
        let fractions = [nil, "0", "00", "5", "50", "05", "125", "001"]
        var checked = 0
        for sign in ["", "-"] {
            for integer in integers {
                for fraction in fractions {
                    let text = sign + integer + (fraction.map { String(separator) + $0 } ?? "")
                    var whole = String(integer.drop { $0 == "0" })
                    if whole.isEmpty { whole = "0" }
                    var part = fraction ?? ""
                    while part.hasSuffix("0") { part.removeLast() }
                    let isZero = whole == "0" && part.isEmpty
                    let expected = (sign == "-" && !isZero ? "-" : "") + whole + (part.isEmpty ? "" : "." + part)
                    let fast = try format.canonical(text)
                    #expect((fast ?? text) == expected, "\(text)")
                    #expect(fast == nil ? text == expected : true, "\(text)")
                    #expect(try format.canonical(" " + text) == expected, "\(text) behind a space")
                    checked += 1
                }
            }
        }
        #expect(checked == 144)
    }

    @Test("rejects what is not a number, with the reason", arguments: [
        ("1,2,3", #"{ fields: quantity, decimal: "," }"#, "more than one decimal separator ','"),
        ("12.34,5", #"{ fields: quantity, decimal: "," }"#, "grouping separator '.' must separate groups of three digits"),
        ("1.5", #"{ fields: quantity, decimal: "," }"#, "grouping separator '.' must separate groups of three digits"),
        ("1.2345", #"{ fields: quantity, decimal: "," }"#, "grouping separator '.' must separate groups of three digits"),
        ("1234.567", #"{ fields: quantity, decimal: "," }"#, "grouping separator '.' must separate groups of three digits"),
        (".123", #"{ fields: quantity, decimal: "," }"#, "grouping separator '.' must separate groups of three digits"),
        ("1,234.5", #"{ fields: quantity, decimal: "," }"#, "grouping separator '.' after the decimal separator"),
        ("1.234 567", #"{ fields: quantity, decimal: "," }"#, "mixed grouping separators '.' and U+0020"),
        ("12 kg", #"{ fields: quantity, decimal: "," }"#, "unexpected 'k'"),
        ("1e5", #"{ fields: quantity, decimal: "," }"#, "unexpected 'e'"),
        ("abc", #"{ fields: quantity, decimal: "," }"#, "unexpected 'a'"),
        ("12 PCS", #"{ fields: quantity, decimal: "," }"#, "unexpected 'P'"),
        ("12-", #"{ fields: quantity, decimal: "," }"#, "unexpected '-'"),
        ("--5", #"{ fields: quantity, decimal: "," }"#, "more than one sign"),
        ("(-5)", #"{ fields: quantity, decimal: "," }"#, "more than one sign"),
        ("(12", #"{ fields: quantity, decimal: "," }"#, "unbalanced parenthesis"),
        ("$12 €", #"{ fields: quantity, decimal: "," }"#, "more than one currency"),
        ("5 %%", #"{ fields: quantity, decimal: "," }"#, "more than one '%'"),
        ("€", #"{ fields: quantity, decimal: "," }"#, "no digits"),
        ("-", #"{ fields: quantity, decimal: "," }"#, "no digits"),
        ("1,5", "{ fields: quantity }", "grouping separator ',' must separate groups of three digits"),
        ("1.2.3", "{ fields: quantity }", "more than one decimal separator '.'"),
    ])
    func rejects(raw: String, options: String, detail: String) {
        let decimal = options.contains(#"",""#) ? "','" : "'.'"
        let grouping = decimal == "','" ? "'.'" : "','"
        let message = TransformFixture.rejection { _ = try Self.number(raw, options) }
        #expect(message == "items.csv:2:1: rejected: number: field 'quantity' value \(raw.debugDescription):"
                    + " not a number with decimal \(decimal) and grouping \(grouping): \(detail)")
    }

    @Test func rejectionPointsAtTheField() throws {
        let (step, _) = try TransformFixture.bind("number", Self.comma.replacingOccurrences(of: "quantity", with: "[price, quantity]"),
                                                  fields: ["name", "price", "quantity"])
        var record = TransformFixture.record(["Milk", "1,5", "1,2,3"])
        let message = TransformFixture.rejection { try step.apply(&record) }
        #expect(message == #"items.csv:2:10: rejected: number: field 'quantity' value "1,2,3": not a number with"#
                    + " decimal ',' and grouping '.': more than one decimal separator ','")
    }

    @Test func explicitGrouping() throws {
        #expect(try Self.number("1 234,5", #"{ fields: quantity, decimal: ",", grouping: " " }"#) == .text("1234.5"))
        #expect(try Self.number("1'234.5", #"{ fields: quantity, grouping: "'" }"#) == .text("1234.5"))
        let message = TransformFixture.rejection { _ = try Self.number("1,234.5", #"{ fields: quantity, grouping: "'" }"#) }
        #expect(message == #"items.csv:2:1: rejected: number: field 'quantity' value "1,234.5": not a number with decimal '.'"#
                    + " and grouping ''': unexpected ','")
    }

    @Test func shorthandUsesTheDefaultFormat() throws {
        let (step, _) = try TransformFixture.bind("number", "[price, quantity]", fields: ["price", "quantity"])
        var record = TransformFixture.record(["$1,234.50", "(3)"])
        try step.apply(&record)
        #expect(record.values == [.text("1234.5"), .text("-3")])
    }

    @Test func optionErrors() {
        let same = #"{ fields: quantity, decimal: ",", grouping: "," }"#
        let error = TransformFixture.expectError(.pipelineConflictingOptions, at: 61) { _ = try TransformFixture.make("number", same) }
        #expect(error?.message == "'grouping' must differ from 'decimal' (both are ',')")
        #expect(TransformFixture.column("number", same, of: #"",""#, occurrence: 2) == 61)
        let bad = #"{ fields: quantity, decimal: ";" }"#
        TransformFixture.expectError(.pipelineValueNotAllowed, at: 46) { _ = try TransformFixture.make("number", bad) }
        TransformFixture.expectError(.pipelineEmptyValue, at: 27) { _ = try TransformFixture.make("number", "{ fields: [] }") }
    }
}
