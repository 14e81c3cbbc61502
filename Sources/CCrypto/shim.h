// OpenSSL's libcrypto, for its SHA-256, SHA-512 and SHA-1 only (hardware-accelerated where the CPU has it).
#include <openssl/evp.h>
