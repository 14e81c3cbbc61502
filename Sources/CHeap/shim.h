// glibc's malloc settings, which Swift's Glibc module does not expose (<malloc.h>): a header, no
// library to link. Elsewhere (macOS, musl) the call does nothing.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Serves every block of `bytes` or more from a mapping of its own, given back when it is freed.
// Setting it also stops glibc from raising the threshold as large blocks are freed.
static inline void pipectl_fixed_mmap_threshold(int bytes) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
#endif
}
