// A compiler builtin Swift does not expose: no library to link.

// Asks the processor to start loading the cache line at `address`, for a read soon: the key
// index looks a record's key up a few records ahead, so that its miss overlaps other work.
static inline void pipectl_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
