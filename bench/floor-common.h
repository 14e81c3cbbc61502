/*
 * What bench/floor.c and bench/floor-distinct.c share: failing, a string -> row id hash table,
 * trimming, numbers with a decimal comma, and the calendar arithmetic of their date readers. A
 * header of static functions, so that each floor stays one `cc` command; define FLOOR_NAME (the
 * program's name in messages) before including it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *detail) {
    fprintf(stderr, "%s: %s%s%s\n", FLOOR_NAME, what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void *checked(void *p) {
    if (!p) die("out of memory", NULL);
    return p;
}

/* ---- A string -> row id hash table (open addressing, strings kept in an arena) ---- */

typedef struct { uint64_t hash; const char *key; uint32_t length; int64_t id; } Slot;
typedef struct { Slot *slots; size_t mask, count; char *arena; size_t arenaUsed, arenaSize; } Map;

static uint64_t hashBytes(const char *s, size_t n) {  /* FNV-1a, then a final mix */
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

static void mapInit(Map *m, size_t capacity) {
    size_t n = 16;
    while (n < capacity * 2) n <<= 1;
    m->slots = checked(calloc(n, sizeof(Slot)));
    m->mask = n - 1;
    m->count = 0;
    m->arenaSize = 1 << 20;
    m->arena = checked(malloc(m->arenaSize));
    m->arenaUsed = 0;
}

static void mapGrow(Map *m) {
    size_t n = (m->mask + 1) * 2;
    Slot *slots = checked(calloc(n, sizeof(Slot)));
    for (size_t i = 0; i <= m->mask; i++) {
        if (!m->slots[i].key) continue;
        size_t j = m->slots[i].hash & (n - 1);
        while (slots[j].key) j = (j + 1) & (n - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->mask = n - 1;
}

/* The slot of `key`: its id when found, else an empty slot to fill with mapPut. */
static Slot *mapFind(Map *m, const char *key, size_t n, uint64_t h) {
    size_t i = h & m->mask;
    for (;;) {
        Slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->length == n && memcmp(s->key, key, n) == 0)) return s;
        i = (i + 1) & m->mask;
    }
}

static void mapPut(Map *m, Slot *s, const char *key, size_t n, uint64_t h, int64_t id) {
    if (m->arenaUsed + n > m->arenaSize) {  /* a new block; the old one stays referenced */
        m->arenaSize = n > (1 << 20) ? n : (1 << 20);
        m->arena = checked(malloc(m->arenaSize));
        m->arenaUsed = 0;
    }
    char *copy = m->arena + m->arenaUsed;
    memcpy(copy, key, n);
    m->arenaUsed += n;
    *s = (Slot){ h, copy, (uint32_t)n, id };
    if (++m->count * 2 > m->mask) mapGrow(m);
}

/* ---- Values ---- */

typedef struct { const char *s; size_t n; } Text;

static Text trim(const char *s, size_t n) {
    for (;;) {
        if (n && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')) { s++; n--; }
        else if (n >= 2 && (unsigned char)s[0] == 0xC2 && (unsigned char)s[1] == 0xA0) { s += 2; n -= 2; }
        else break;
    }
    for (;;) {
        char c = n ? s[n - 1] : 0;
        if (n && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) n--;
        else if (n >= 2 && (unsigned char)s[n - 2] == 0xC2 && (unsigned char)s[n - 1] == 0xA0) n -= 2;
        else break;
    }
    return (Text){ s, n };
}

/* "1.250,5" -> 1250.5: '.' between thousands, ',' before the decimals. Exact: the digits as one
 * integer divided by a power of ten, both exact doubles, rounds once. */
static int parseQuantity(Text t, double *out) {
    static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                                    1e13, 1e14, 1e15, 1e16, 1e17, 1e18 };
    uint64_t digits = 0;
    int count = 0, decimals = -1, sinceGroup = -1, negative = 0;
    size_t i = 0;
    if (i < t.n && t.s[i] == '-') { negative = 1; i++; }
    for (; i < t.n; i++) {
        char c = t.s[i];
        if (c >= '0' && c <= '9') {
            if (++count > 18) return 0;
            digits = digits * 10 + (uint64_t)(c - '0');
            if (decimals >= 0) decimals++;
            if (sinceGroup >= 0) sinceGroup++;
        } else if (c == '.' && decimals < 0 && count > 0 && (sinceGroup < 0 || sinceGroup == 3)) {
            sinceGroup = 0;
        } else if (c == ',' && decimals < 0 && (sinceGroup < 0 || sinceGroup == 3)) {
            decimals = 0;
            sinceGroup = -1;
        } else {
            return 0;
        }
    }
    if (count == 0 || (sinceGroup >= 0 && sinceGroup != 3)) return 0;
    double value = (double)digits / pow10[decimals < 0 ? 0 : decimals];
    *out = negative ? -value : value;
    return 1;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* The day of the last Sunday of a 31-day month (March, October). */
static int64_t lastSunday(int64_t y, unsigned m) {
    int64_t last = daysFromCivil(y, m, 31);
    int64_t weekday = (last + 4) % 7;  /* 1970-01-01 was a Thursday; 0 = Sunday */
    if (weekday < 0) weekday += 7;
    return last - weekday;
}

