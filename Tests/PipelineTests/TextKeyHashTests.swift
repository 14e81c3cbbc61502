import Pipeline
import Testing

@Suite("text key hashes")
struct TextKeyHashTests {
    /// The one-pass hash and check gives what the hash and the check give apart, for keys of
    /// every length up to five words with bytes on both sides of 0xCC in every place (the check
    /// is done eight bytes at a time, the last bytes of a key apart).
    @Test func hashIfCanonicalIsTheHashOfACanonicalKey() {
        let fillers: [UInt8] = [0x41, 0x7A, 0x20, 0xC3, 0xA9, 0x80, 0xBF]
        let probes: [UInt8] = [0x7F, 0xCB, 0xCC, 0xCD, 0xE2, 0xF0, 0xFF]
        var canonical = 0, other = 0
        for length in 0...40 {
            let filler = (0..<length).map { fillers[$0 % fillers.count] }
            for place in [nil] + Array(0..<length) as [Int?] {
                for probe in place == nil ? [UInt8(0)] : probes {
                    var key = filler
                    if let place { key[place] = probe }
                    key.withUnsafeBufferPointer { bytes in
                        let isCanonical = TextKeyHash.isCanonical(bytes)
                        let result = TextKeyHash.hashIfCanonical(bytes)
                        #expect(result == (isCanonical ? TextKeyHash.hash(bytes) : nil), "\(key)")
                        if isCanonical { canonical += 1 } else { other += 1 }
                    }
                }
            }
        }
        #expect(canonical > 1000 && other > 1000)
    }

    /// A key's hash and canonical bytes are those of its NFC form, whichever form it is given in.
    @Test func equivalentKeysHashAlike() {
        var scratch: [UInt8] = []
        let composed = TextKeyHash(of: "Cr\u{E8}me fra\u{EE}che, entière et légère", scratch: &scratch)
        let decomposed = TextKeyHash(of: "Cre\u{300}me frai\u{302}che, entière et légère", scratch: &scratch)
        #expect(composed == decomposed)
        #expect(composed.isCanonical && !decomposed.isCanonical)
        let short = TextKeyHash(of: "Cre\u{300}me", scratch: &scratch)
        #expect(short == TextKeyHash(of: "Cr\u{E8}me", scratch: &scratch))
        #expect(short.withInlineBytes { Array($0) } == Array("Cr\u{E8}me".utf8))
    }
}
