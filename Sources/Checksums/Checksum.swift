import CCrypto

/// SHA-256, SHA-512 and SHA-1 from the system's libcrypto (OpenSSL): the store's UUID, Core Data's version
/// hashes and the report's input checksums. libcrypto is a system library like the others; a
/// Swift crypto package would compile BoringSSL with pipectl (about two minutes of every clean
/// build on two cores).
public struct Checksum: ~Copyable {
    public enum Algorithm: Sendable {
        case sha256, sha512, sha1
    }

    private let context: OpaquePointer

    public init(_ algorithm: Algorithm) {
        // Allocation failure is the only way either call fails.
        guard let context = EVP_MD_CTX_new(),
              EVP_DigestInit_ex(context, Self.method(algorithm), nil) == 1 else {
            fatalError("libcrypto cannot start a digest: out of memory")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    private static func method(_ algorithm: Algorithm) -> OpaquePointer? {
        switch algorithm {
        case .sha256: EVP_sha256()
        case .sha512: EVP_sha512()
        case .sha1: EVP_sha1()
        }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The digest; the value is used up.
    public consuming func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &length)
        return Array(out.prefix(Int(length)))
    }

    /// The SHA-256 of `bytes`.
    public static func sha256(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var digest = Checksum(.sha256)
        digest.update(bytes)
        return digest.finalize()
    }

    /// The SHA-512 of `bytes`.
    public static func sha512(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var digest = Checksum(.sha512)
        digest.update(bytes)
        return digest.finalize()
    }

    /// The SHA-1 of `bytes` (name-based UUIDs, RFC 9562 version 5: not for security).
    public static func sha1(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var digest = Checksum(.sha1)
        digest.update(bytes)
        return digest.finalize()
    }
}
