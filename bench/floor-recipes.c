/*
 * The floor of the relationships benchmark (bench/compare.sh --data recipes): the job of
 * bench/pipelines/recipes-json.yaml written by hand in C on SQLite's prepared statements, with
 * nothing general about it. bench/make-recipes.py's JSON ({"recipes": [...]}, each recipe with a
 * name, servings, tags and a list of ingredients {name, amount}) is read from memory by a small
 * JSON scanner (every escape, \u surrogate pairs included; unknown keys skipped), and written in
 * the plain layout pipectl's `layout: sqlite` and the Python peer use:
 *
 *   Recipe (id, name, servings), Ingredient (id, name), Tag (id, name),
 *   RecipeIngredient (id, amount, recipe_id, ingredient_id), Recipe_tags (recipes_id, tags_id)
 *
 * Recipes, ingredients and tags are found or created by name through in-memory hash tables
 * (bench/floor-common.h); a recipe given twice keeps the first, an ingredient named twice in one
 * recipe is one RecipeIngredient. One transaction without a journal, indexes after the rows, the
 * store built beside the target and renamed into place.
 *
 *   cc -O2 -o floor-recipes bench/floor-recipes.c -lsqlite3
 *   floor-recipes [--cache-mb N] INPUT.json OUTPUT.sqlite
 *
 * Prints `recipes N ingredients N tags N uses N links N` to stderr.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FLOOR_NAME "floor-recipes"
#include "floor-common.h"

/* ---- A JSON scanner over the mapped file ---- */

typedef struct { const char *p, *end; char *scratch; size_t scratchSize; } Scanner;

static void fail(Scanner *s, const char *what) {
    char where[64];
    snprintf(where, sizeof where, "at byte %zu", (size_t)(s->end - s->p));
    die(what, where);
}

static void space(Scanner *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) s->p++;
}

static void expect(Scanner *s, char c) {
    space(s);
    if (s->p >= s->end || *s->p != c) fail(s, "unexpected JSON");
    s->p++;
}

/* The next token is `c` (consumed) or not. */
static int next(Scanner *s, char c) {
    space(s);
    if (s->p < s->end && *s->p == c) { s->p++; return 1; }
    return 0;
}

static void put(Scanner *s, size_t *n, const char *bytes, size_t count) {
    if (*n + count > s->scratchSize) {
        while (*n + count > s->scratchSize) s->scratchSize *= 2;
        s->scratch = checked(realloc(s->scratch, s->scratchSize));
    }
    memcpy(s->scratch + *n, bytes, count);
    *n += count;
}

static unsigned hex4(Scanner *s) {
    if (s->end - s->p < 4) fail(s, "short \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *s->p++;
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else fail(s, "bad \\u escape");
    }
    return v;
}

/* A string, unescaped: in the file when it has no escape, else in the scratch buffer. */
static Text string(Scanner *s) {
    expect(s, '"');
    const char *start = s->p;
    for (const char *q = start; q < s->end; q++) {
        if (*q == '"') { s->p = q + 1; return (Text){ start, (size_t)(q - start) }; }
        if (*q == '\\') break;
    }
    size_t n = 0;
    for (;;) {
        if (s->p >= s->end) fail(s, "unterminated string");
        char c = *s->p++;
        if (c == '"') return (Text){ s->scratch, n };
        if (c != '\\') { put(s, &n, &c, 1); continue; }
        if (s->p >= s->end) fail(s, "unterminated escape");
        char e = *s->p++, out;
        switch (e) {
        case '"': case '\\': case '/': out = e; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'u': {
            unsigned cp = hex4(s);
            if (cp >= 0xD800 && cp < 0xDC00 && s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u') {
                s->p += 2;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(s) - 0xDC00);
            }
            char b[4];
            size_t k;
            if (cp < 0x80) { b[0] = (char)cp; k = 1; }
            else if (cp < 0x800) { b[0] = (char)(0xC0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3F)); k = 2; }
            else if (cp < 0x10000) {
                b[0] = (char)(0xE0 | cp >> 12); b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                b[2] = (char)(0x80 | (cp & 0x3F)); k = 3;
            } else {
                b[0] = (char)(0xF0 | cp >> 18); b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F)); k = 4;
            }
            put(s, &n, b, k);
            continue;
        }
        default: fail(s, "bad escape");
        }
        put(s, &n, &out, 1);
    }
}

static int64_t integer(Scanner *s) {
    space(s);
    int negative = next(s, '-');
    int64_t v = 0;
    if (s->p >= s->end || *s->p < '0' || *s->p > '9') fail(s, "expected an integer");
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') v = v * 10 + (*s->p++ - '0');
    return negative ? -v : v;
}

static void skipValue(Scanner *s) {
    space(s);
    if (s->p >= s->end) fail(s, "unexpected end");
    char c = *s->p;
    if (c == '"') { string(s); return; }
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        s->p++;
        if (next(s, close)) return;
        do {
            if (c == '{') { string(s); expect(s, ':'); }
            skipValue(s);
        } while (next(s, ','));
        expect(s, close);
        return;
    }
    while (s->p < s->end && strchr(",]} \n\r\t", *s->p) == NULL) s->p++;  /* number, true, false, null */
}

static int isKey(Text key, const char *name) { return key.n == strlen(name) && memcmp(key.s, name, key.n) == 0; }

/* ---- The job ---- */

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *insertRecipe, *insertIngredient, *insertTag, *insertUse, *insertLink;
    Map recipes, ingredients, tags;
    int64_t nextRecipe, nextIngredient, nextTag, nextUse, links;
    char *name; size_t nameSize;  /* the recipe's name, kept while its lists are scanned */
} Job;

#include "floor-sqlite.h"

static void step(Job *job, sqlite3_stmt *statement) {
    check(job, sqlite3_step(statement), "insert");
    sqlite3_reset(statement);
}

/* The row id of `key` in a named table, inserted on first sight. */
static int64_t findOrCreate(Job *job, Map *map, sqlite3_stmt *insert, int64_t *next, Text key) {
    uint64_t h = hashBytes(key.s, key.n);
    Slot *slot = mapFind(map, key.s, key.n, h);
    if (slot->key) return slot->id;
    int64_t id = ++*next;
    sqlite3_bind_int64(insert, 1, id);
    sqlite3_bind_text(insert, 2, key.s, (int)key.n, SQLITE_STATIC);
    step(job, insert);
    mapPut(map, slot, key.s, key.n, h, id);
    return id;
}

/* One recipe object. Its name may come after its lists, so the lists are scanned twice: once to
 * find the name and servings, then to write the rows. */
static void recipe(Job *job, Scanner *s) {
    const char *start = s->p;
    Text name = { NULL, 0 };
    int64_t servings = 0;
    int hasServings = 0;
    expect(s, '{');
    if (!next(s, '}')) {
        do {
            Text key = string(s);
            expect(s, ':');
            if (isKey(key, "name")) {
                Text value = string(s);
                if (value.n > job->nameSize) { job->nameSize = value.n * 2; job->name = checked(realloc(job->name, job->nameSize)); }
                memcpy(job->name, value.s, value.n);
                name = (Text){ job->name, value.n };
            } else if (isKey(key, "servings")) {
                servings = integer(s);
                hasServings = 1;
            } else {
                skipValue(s);
            }
        } while (next(s, ','));
        expect(s, '}');
    }
    if (!name.s) die("a recipe without a name", NULL);
    uint64_t h = hashBytes(name.s, name.n);
    Slot *slot = mapFind(&job->recipes, name.s, name.n, h);
    if (slot->key) return;  /* given twice: the first wins */
    int64_t id = ++job->nextRecipe;
    sqlite3_bind_int64(job->insertRecipe, 1, id);
    sqlite3_bind_text(job->insertRecipe, 2, name.s, (int)name.n, SQLITE_STATIC);
    if (hasServings) sqlite3_bind_int64(job->insertRecipe, 3, servings);
    else sqlite3_bind_null(job->insertRecipe, 3);
    step(job, job->insertRecipe);
    mapPut(&job->recipes, slot, name.s, name.n, h, id);

    const char *end = s->p;
    s->p = start;
    expect(s, '{');
    if (!next(s, '}')) {
        do {
            Text key = string(s);
            expect(s, ':');
            if (isKey(key, "tags")) {
                expect(s, '[');
                if (next(s, ']')) continue;
                int64_t seen[64];
                int count = 0;
                do {
                    int64_t tag = findOrCreate(job, &job->tags, job->insertTag, &job->nextTag, string(s));
                    int repeated = 0;
                    for (int i = 0; i < count; i++) repeated |= seen[i] == tag;
                    if (repeated) continue;
                    if (count < 64) seen[count++] = tag;
                    sqlite3_bind_int64(job->insertLink, 1, id);
                    sqlite3_bind_int64(job->insertLink, 2, tag);
                    step(job, job->insertLink);
                    job->links++;
                } while (next(s, ','));
                expect(s, ']');
            } else if (isKey(key, "ingredients")) {
                expect(s, '[');
                if (next(s, ']')) continue;
                int64_t seen[64];
                int count = 0;
                do {
                    Text amount = { NULL, 0 };
                    char amountCopy[256];
                    int64_t ingredient = 0;
                    expect(s, '{');
                    if (!next(s, '}')) {
                        do {
                            Text field = string(s);
                            expect(s, ':');
                            if (isKey(field, "name")) {
                                ingredient = findOrCreate(job, &job->ingredients, job->insertIngredient,
                                                          &job->nextIngredient, string(s));
                            } else if (isKey(field, "amount")) {
                                Text value = string(s);
                                if (value.n > sizeof amountCopy) die("an amount over 256 bytes", NULL);
                                memcpy(amountCopy, value.s, value.n);
                                amount = (Text){ amountCopy, value.n };
                            } else {
                                skipValue(s);
                            }
                        } while (next(s, ','));
                        expect(s, '}');
                    }
                    int repeated = 0;
                    for (int i = 0; i < count; i++) repeated |= seen[i] == ingredient;
                    if (repeated) continue;
                    if (count < 64) seen[count++] = ingredient;
                    sqlite3_bind_int64(job->insertUse, 1, ++job->nextUse);
                    if (amount.s) sqlite3_bind_text(job->insertUse, 2, amount.s, (int)amount.n, SQLITE_STATIC);
                    else sqlite3_bind_null(job->insertUse, 2);
                    sqlite3_bind_int64(job->insertUse, 3, id);
                    if (ingredient) sqlite3_bind_int64(job->insertUse, 4, ingredient);
                    else sqlite3_bind_null(job->insertUse, 4);
                    step(job, job->insertUse);
                } while (next(s, ','));
                expect(s, ']');
            } else {
                skipValue(s);
            }
        } while (next(s, ','));
    }
    s->p = end;
}

int main(int argc, char **argv) {
    int cacheMB = 0, i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (i + 1 >= argc) die("usage", "floor-recipes [--cache-mb N] INPUT.json OUTPUT.sqlite");
        if (strcmp(argv[i], "--cache-mb") == 0) cacheMB = atoi(argv[i + 1]);
        else die("unknown option", argv[i]);
    }
    if (argc - i != 2) die("usage", "floor-recipes [--cache-mb N] INPUT.json OUTPUT.sqlite");
    const char *input = argv[i], *output = argv[i + 1];

    int fd = open(input, O_RDONLY);
    if (fd < 0) die("cannot open", input);
    struct stat st;
    if (fstat(fd, &st) != 0) die("cannot stat", input);
    const char *bytes = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : "";
    if (bytes == MAP_FAILED) die("cannot map", input);
    Scanner s = { bytes, bytes + st.st_size, checked(malloc(4096)), 4096 };

    char building[4096];
    snprintf(building, sizeof building, "%s.building", output);
    unlink(building);
    Job job = { 0 };
    job.name = checked(malloc(256));
    job.nameSize = 256;
    if (sqlite3_open(building, &job.db) != SQLITE_OK) die("cannot create", building);
    exec(&job, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE");
    if (cacheMB > 0) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA cache_size = -%d", cacheMB * 1024);
        exec(&job, pragma);
    }
    exec(&job,
         "CREATE TABLE Recipe (id INTEGER PRIMARY KEY, name TEXT NOT NULL, servings INTEGER);"
         "CREATE TABLE Ingredient (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
         "CREATE TABLE Tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
         "CREATE TABLE RecipeIngredient (id INTEGER PRIMARY KEY, amount TEXT,"
         " recipe_id INTEGER REFERENCES Recipe(id), ingredient_id INTEGER REFERENCES Ingredient(id));"
         "CREATE TABLE Recipe_tags (recipes_id INTEGER NOT NULL, tags_id INTEGER NOT NULL);"
         "BEGIN");
    job.insertRecipe = prepare(&job, "INSERT INTO Recipe (id, name, servings) VALUES (?, ?, ?)");
    job.insertIngredient = prepare(&job, "INSERT INTO Ingredient (id, name) VALUES (?, ?)");
    job.insertTag = prepare(&job, "INSERT INTO Tag (id, name) VALUES (?, ?)");
    job.insertUse = prepare(&job, "INSERT INTO RecipeIngredient (id, amount, recipe_id, ingredient_id) VALUES (?, ?, ?, ?)");
    job.insertLink = prepare(&job, "INSERT INTO Recipe_tags (recipes_id, tags_id) VALUES (?, ?)");
    mapInit(&job.recipes, 1 << 16);
    mapInit(&job.ingredients, 1 << 12);
    mapInit(&job.tags, 1 << 8);

    int found = 0;
    expect(&s, '{');
    if (!next(&s, '}')) {
        do {
            Text key = string(&s);
            expect(&s, ':');
            if (!isKey(key, "recipes")) { skipValue(&s); continue; }
            found = 1;
            expect(&s, '[');
            if (next(&s, ']')) continue;
            do recipe(&job, &s); while (next(&s, ','));
            expect(&s, ']');
        } while (next(&s, ','));
        expect(&s, '}');
    }
    if (!found) die("no \"recipes\" array", input);

    exec(&job,
         "CREATE UNIQUE INDEX Recipe_name ON Recipe (name);"
         "CREATE UNIQUE INDEX Ingredient_name ON Ingredient (name);"
         "CREATE UNIQUE INDEX Tag_name ON Tag (name);"
         "CREATE UNIQUE INDEX RecipeIngredient_key ON RecipeIngredient (recipe_id, ingredient_id);"
         "CREATE INDEX RecipeIngredient_ingredient ON RecipeIngredient (ingredient_id);"
         "CREATE UNIQUE INDEX Recipe_tags_key ON Recipe_tags (recipes_id, tags_id);"
         "CREATE INDEX Recipe_tags_tags ON Recipe_tags (tags_id, recipes_id);"
         "COMMIT");
    sqlite3_stmt *statements[] = { job.insertRecipe, job.insertIngredient, job.insertTag, job.insertUse, job.insertLink };
    for (size_t k = 0; k < sizeof statements / sizeof *statements; k++) sqlite3_finalize(statements[k]);
    if (sqlite3_close(job.db) != SQLITE_OK) die("cannot close", building);
    if (rename(building, output) != 0) die("cannot rename into place", output);
    fprintf(stderr, "recipes %lld ingredients %lld tags %lld uses %lld links %lld\n", (long long)job.nextRecipe,
            (long long)job.nextIngredient, (long long)job.nextTag, (long long)job.nextUse, (long long)job.links);
    return 0;
}
