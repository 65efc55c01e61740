/*
** tpch_gen.c -- the TPC-H data generator (interface and contract in tpch_gen.h).
**
** Written from the text of the TPC-H specification, clause 4.2 (not from dbgen's code). The
** pieces, in file order:
**
**   - the random numbers: a counter-based generator (splitmix64's mixer over a counter) seeded
**     by (stream, index), where a stream is a table or one of its column groups and the index a
**     row, so that any row is computed without the rows before it. Uniform integers in [lo, hi]
**     come from a 64x64->128 bit multiply (no modulo, no floating point);
**   - the word lists of clause 4.2.2.13 and the pseudo-text grammar of clause 4.2.2.14, which
**     fill a text pool once per process; a "text string [min, max]" is a substring of the pool at
**     a random offset with a random length in [min, max] (clause 4.2.2.10);
**   - one row function per table (clause 4.2.3), ORDERS and LINEITEM sharing the per-order and
**     per-line draws so that o_orderstatus and o_totalprice follow from the lines;
**   - the .tbl formatter and writer.
**
** The byte output is part of the contract (tests/datasets/test_tpch.c pins checksums): changing
** the order of draws, a word list or the pool changes every table's bytes.
*/
#include "tpch_gen.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------------------------ */
/* Random numbers                                                                             */
/* ------------------------------------------------------------------------------------------ */

#define GAMMA 0x9E3779B97F4A7C15ull

/* splitmix64's finalizer: a bijection on 64 bits that mixes every input bit into every output. */
static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct rng {
    uint64_t s;
} rng;

/* The streams: each table and each independent column group has its own. Their numbers are part
** of the output's definition: never renumber them. */
enum {
    STREAM_POOL = 1,
    STREAM_REGION,
    STREAM_NATION,
    STREAM_SUPPLIER,
    STREAM_SUPPLIER_SPECIAL, /* which suppliers' comments hold "Customer ... Complaints" */
    STREAM_CUSTOMER,
    STREAM_PART,
    STREAM_PARTSUPP,
    STREAM_ORDER,
    STREAM_LINE,
};

/* rng_for returns the generator for row `index` of `stream`. Distinct (stream, index) pairs start
** at unrelated points of the 2^64 cycle, so their few dozen draws never overlap in practice. */
static inline rng rng_for(uint64_t stream, uint64_t index) {
    rng r = {mix64(index ^ mix64(stream * 0xD6E8FEB86659FD93ull + 0x2545F4914F6CDD1Dull))};
    return r;
}

static inline uint64_t rng_next(rng *r) {
    r->s += GAMMA;
    return mix64(r->s);
}

/* rng_range returns a uniform integer in [lo, hi] (lo <= hi). The multiply-shift maps the 64 bit
** draw onto the range with a bias below 2^-40 for the ranges used here. */
static inline int64_t rng_range(rng *r, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(((unsigned __int128)rng_next(r) * span) >> 64);
}

/* ------------------------------------------------------------------------------------------ */
/* Word lists (clause 4.2.2.13) and the text grammar (clause 4.2.2.14)                        */
/* ------------------------------------------------------------------------------------------ */

typedef struct weighted {
    const char *word;
    int weight;
} weighted;

static const weighted NOUNS[] = {
    {"packages", 40},     {"requests", 40},     {"accounts", 40},      {"deposits", 40},
    {"foxes", 20},        {"ideas", 20},        {"theodolites", 20},   {"pinto beans", 20},
    {"instructions", 20}, {"dependencies", 10}, {"excuses", 10},       {"platelets", 10},
    {"asymptotes", 10},   {"courts", 5},        {"dolphins", 5},       {"multipliers", 1},
    {"sauternes", 1},     {"warthogs", 1},      {"frets", 1},          {"dinos", 1},
    {"attainments", 1},   {"somas", 1},         {"Tiresias", 1},       {"patterns", 1},
    {"forges", 1},        {"braids", 1},        {"hockey players", 1}, {"frays", 1},
    {"warhorses", 1},     {"dugouts", 1},       {"notornis", 1},       {"epitaphs", 1},
    {"pearls", 1},        {"tithes", 1},        {"waters", 1},         {"orbits", 1},
    {"gifts", 1},         {"sheaves", 1},       {"depths", 1},         {"sentiments", 1},
    {"decoys", 1},        {"realms", 1},        {"pains", 1},          {"grouches", 1},
    {"escapades", 1},
};

static const weighted VERBS[] = {
    {"sleep", 20},  {"wake", 20},  {"are", 20},    {"cajole", 20}, {"haggle", 20},   {"nag", 10},
    {"use", 10},    {"boost", 10}, {"affix", 5},   {"detect", 5},  {"integrate", 5}, {"maintain", 1},
    {"nod", 1},     {"was", 1},    {"lose", 1},    {"sublate", 1}, {"solve", 1},     {"thrash", 1},
    {"promise", 1}, {"engage", 1}, {"hinder", 1},  {"print", 1},   {"x-ray", 1},     {"breach", 1},
    {"eat", 1},     {"grow", 1},   {"impress", 1}, {"mold", 1},    {"poach", 1},     {"serve", 1},
    {"run", 1},     {"dazzle", 1}, {"snooze", 1},  {"doze", 1},    {"unwind", 1},    {"kindle", 1},
    {"play", 1},    {"hang", 1},   {"believe", 1}, {"doubt", 1},
};

static const weighted ADJECTIVES[] = {
    {"special", 20}, {"pending", 20},  {"unusual", 20}, {"express", 20}, {"furious", 1}, {"sly", 1},
    {"careful", 1},  {"blithe", 1},    {"quick", 1},    {"fluffy", 1},   {"slow", 1},    {"quiet", 1},
    {"ruthless", 1}, {"thin", 1},      {"close", 1},    {"dogged", 1},   {"daring", 1},  {"brave", 1},
    {"stealthy", 1}, {"permanent", 1}, {"enticing", 1}, {"idle", 1},     {"busy", 1},    {"regular", 50},
    {"final", 40},   {"ironic", 40},   {"even", 30},    {"bold", 20},    {"silent", 10},
};

static const weighted ADVERBS[] = {
    {"sometimes", 1},  {"always", 1},     {"never", 1},      {"furiously", 50},  {"slyly", 50},
    {"carefully", 50}, {"blithely", 40},  {"quickly", 30},   {"fluffily", 20},   {"slowly", 1},
    {"quietly", 1},    {"ruthlessly", 1}, {"thinly", 1},     {"closely", 1},     {"doggedly", 1},
    {"daringly", 1},   {"bravely", 1},    {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
    {"idly", 1},       {"busily", 1},     {"regularly", 1},  {"finally", 1},     {"ironically", 1},
    {"evenly", 1},     {"boldly", 1},     {"silently", 1},
};

static const weighted PREPOSITIONS[] = {
    {"about", 50},
    {"above", 50},
    {"according to", 50},
    {"across", 50},
    {"after", 50},
    {"against", 40},
    {"along", 40},
    {"alongside of", 30},
    {"among", 30},
    {"around", 20},
    {"at", 10},
    {"atop", 1},
    {"before", 1},
    {"behind", 1},
    {"beneath", 1},
    {"beside", 1},
    {"besides", 1},
    {"between", 1},
    {"beyond", 1},
    {"by", 1},
    {"despite", 1},
    {"during", 1},
    {"except", 1},
    {"for", 1},
    {"from", 1},
    {"in place of", 1},
    {"inside", 1},
    {"instead of", 1},
    {"into", 1},
    {"near", 1},
    {"of", 1},
    {"on", 1},
    {"outside", 1},
    {"over", 1},
    {"past", 1},
    {"since", 1},
    {"through", 1},
    {"throughout", 1},
    {"to", 1},
    {"toward", 1},
    {"under", 1},
    {"until", 1},
    {"up", 1},
    {"upon", 1},
    {"without", 1},
    {"with", 1},
    {"within", 1},
};

static const weighted AUXILIARIES[] = {
    {"do", 1},
    {"may", 1},
    {"might", 1},
    {"shall", 1},
    {"will", 1},
    {"would", 1},
    {"can", 1},
    {"could", 1},
    {"should", 1},
    {"ought to", 1},
    {"must", 1},
    {"will have to", 1},
    {"shall have to", 1},
    {"could have to", 1},
    {"should have to", 1},
    {"must have to", 1},
    {"need to", 1},
    {"try to", 1},
};

static const weighted TERMINATORS[] = {
    {".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1},
};

/* The grammar's productions with their weights, each a string of symbols. A sentence is made of
** N (a noun phrase), V (a verb phrase), P (a prepositional phrase: "preposition the
** noun-phrase") and T (a terminator); a noun phrase of N (noun), J (adjective) and D (adverb),
** where "," puts a comma after the word before it; a verb phrase of V (verb), X (auxiliary) and
** D (adverb). */
static const weighted SENTENCES[] = {
    {"NVT", 3}, {"NVPT", 3}, {"NVNT", 3}, {"NPVNT", 1}, {"NPVPT", 1},
};
static const weighted NOUN_PHRASES[] = {
    {"N", 10},
    {"JN", 20},
    {"J,JN", 10},
    {"DJN", 50},
};
static const weighted VERB_PHRASES[] = {
    {"V", 30},
    {"XV", 1},
    {"VD", 40},
    {"XVD", 1},
};

/* A weighted list prepared for picking: the words with their lengths and a table of
** total-weight entries, so a pick is one uniform draw and one lookup. */
typedef struct pick_list {
    const weighted *items;
    uint8_t *lens;
    uint8_t *table;
    int total;
} pick_list;

static int pick_list_init(pick_list *p, const weighted *items, size_t n) {
    p->items = items;
    p->total = 0;
    for (size_t i = 0; i < n; i++)
        p->total += items[i].weight;
    p->lens = malloc(n);
    p->table = malloc((size_t)p->total);
    if (p->lens == NULL || p->table == NULL) return STRATA_NOMEM;
    int at = 0;
    for (size_t i = 0; i < n; i++) {
        p->lens[i] = (uint8_t)strlen(items[i].word);
        for (int w = 0; w < items[i].weight; w++)
            p->table[at++] = (uint8_t)i;
    }
    return STRATA_OK;
}

static inline int pick(const pick_list *p, rng *r) { return p->table[rng_range(r, 0, p->total - 1)]; }

/* ------------------------------------------------------------------------------------------ */
/* The other lists of clause 4.2.2.13 and 4.2.3                                               */
/* ------------------------------------------------------------------------------------------ */

/* P_NAME's 92 words (clause 4.2.3). */
static const char *const COLORS[] = {
    "almond",    "antique",    "aquamarine", "azure",     "beige",     "bisque",     "black",     "blanched",
    "blue",      "blush",      "brown",      "burlywood", "burnished", "chartreuse", "chiffon",   "chocolate",
    "coral",     "cornflower", "cornsilk",   "cream",     "cyan",      "dark",       "deep",      "dim",
    "dodger",    "drab",       "firebrick",  "floral",    "forest",    "frosted",    "gainsboro", "ghost",
    "goldenrod", "green",      "grey",       "honeydew",  "hot",       "indian",     "ivory",     "khaki",
    "lace",      "lavender",   "lawn",       "lemon",     "light",     "lime",       "linen",     "magenta",
    "maroon",    "medium",     "metallic",   "midnight",  "mint",      "misty",      "moccasin",  "navajo",
    "navy",      "olive",      "orange",     "orchid",    "pale",      "papaya",     "peach",     "peru",
    "pink",      "plum",       "powder",     "puff",      "purple",    "red",        "rose",      "rosy",
    "royal",     "saddle",     "salmon",     "sandy",     "seashell",  "sienna",     "sky",       "slate",
    "smoke",     "snow",       "spring",     "steel",     "tan",       "thistle",    "tomato",    "turquoise",
    "violet",    "wheat",      "white",      "yellow",
};
#define COLOR_COUNT ((int)(sizeof COLORS / sizeof COLORS[0]))
_Static_assert(sizeof COLORS / sizeof COLORS[0] == 92, "the spec lists 92 P_NAME words");

static const char *const TYPE_S1[] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
static const char *const TYPE_S2[] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
static const char *const TYPE_S3[] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
static const char *const CONTAINER_S1[] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
static const char *const CONTAINER_S2[] = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
#define TYPE_COUNT 150
#define CONTAINER_COUNT 40

static const char *const SEGMENTS[] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
static const char *const PRIORITIES[] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
static const char *const INSTRUCTIONS[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
static const char *const MODES[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

static const struct {
    const char *name;
    int region;
} NATIONS[25] = {
    {"ALGERIA", 0},      {"ARGENTINA", 1},  {"BRAZIL", 1},  {"CANADA", 1},         {"EGYPT", 4},
    {"ETHIOPIA", 0},     {"FRANCE", 3},     {"GERMANY", 3}, {"INDIA", 2},          {"INDONESIA", 2},
    {"IRAN", 4},         {"IRAQ", 4},       {"JAPAN", 2},   {"JORDAN", 4},         {"KENYA", 0},
    {"MOROCCO", 0},      {"MOZAMBIQUE", 0}, {"PERU", 1},    {"CHINA", 2},          {"ROMANIA", 3},
    {"SAUDI ARABIA", 4}, {"VIETNAM", 2},    {"RUSSIA", 3},  {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
};
static const char *const REGIONS[5] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

/* The characters of a "random v-string" (clause 4.2.2.7 asks for at least 64 distinct ones). */
static const char VSTRING_CHARS[65] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.";

static tpch_str str_of(const char *s) { return (tpch_str){s, (uint32_t)strlen(s)}; }

/* ------------------------------------------------------------------------------------------ */
/* Shared, read-only state: the text pool and the prepared tables, built once per process     */
/* ------------------------------------------------------------------------------------------ */

/* The pool's size. The spec's pool is 300 MB; a smaller one keeps the first generator of a
** process quick (it is built in ~0.1 s) while a comment's 16M possible offsets keep comments
** distinct. Changing it changes every comment. */
#define TEXT_POOL_SIZE (16 * 1024 * 1024)

static struct {
    int status; /* STRATA_OK once built */
    char *pool;
    char types[TYPE_COUNT][26];
    uint8_t type_len[TYPE_COUNT];
    char containers[CONTAINER_COUNT][11];
    uint8_t container_len[CONTAINER_COUNT];
    uint8_t color_len[COLOR_COUNT];
    char dates[TPCH_ENDDATE - TPCH_STARTDATE + 1][10];
} shared;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

void tpch_format_date(int32_t day, char buf[10]) {
    /* Civil date from a day count (the proleptic Gregorian calendar in 400-year eras). */
    int64_t z = (int64_t)day + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) y++;
    if (y < 0) y = 0;
    if (y > 9999) y = 9999;
    buf[0] = (char)('0' + y / 1000);
    buf[1] = (char)('0' + y / 100 % 10);
    buf[2] = (char)('0' + y / 10 % 10);
    buf[3] = (char)('0' + y % 10);
    buf[4] = '-';
    buf[5] = (char)('0' + m / 10);
    buf[6] = (char)('0' + m % 10);
    buf[7] = '-';
    buf[8] = (char)('0' + d / 10);
    buf[9] = (char)('0' + d % 10);
}

typedef struct grammar {
    pick_list noun, verb, adjective, adverb, preposition, auxiliary, terminator;
    pick_list sentence, noun_phrase, verb_phrase;
} grammar;

static inline char *put_word(char *p, const pick_list *l, rng *r) {
    int i = pick(l, r);
    memcpy(p, l->items[i].word, l->lens[i]);
    p += l->lens[i];
    *p++ = ' ';
    return p;
}

static char *put_noun_phrase(char *p, const grammar *g, rng *r) {
    for (const char *s = g->noun_phrase.items[pick(&g->noun_phrase, r)].word; *s; s++) {
        switch (*s) {
        case 'N': p = put_word(p, &g->noun, r); break;
        case 'J': p = put_word(p, &g->adjective, r); break;
        case 'D': p = put_word(p, &g->adverb, r); break;
        case ',':
            p[-1] = ',';
            *p++ = ' ';
            break;
        }
    }
    return p;
}

static char *put_verb_phrase(char *p, const grammar *g, rng *r) {
    for (const char *s = g->verb_phrase.items[pick(&g->verb_phrase, r)].word; *s; s++) {
        switch (*s) {
        case 'V': p = put_word(p, &g->verb, r); break;
        case 'X': p = put_word(p, &g->auxiliary, r); break;
        case 'D': p = put_word(p, &g->adverb, r); break;
        }
    }
    return p;
}

/* put_sentence appends one sentence and a space: words separated by one space, the terminator
** right after the last word. At most ~200 bytes. */
static char *put_sentence(char *p, const grammar *g, rng *r) {
    for (const char *s = g->sentence.items[pick(&g->sentence, r)].word; *s; s++) {
        switch (*s) {
        case 'N': p = put_noun_phrase(p, g, r); break;
        case 'V': p = put_verb_phrase(p, g, r); break;
        case 'P':
            p = put_word(p, &g->preposition, r);
            memcpy(p, "the ", 4);
            p = put_noun_phrase(p + 4, g, r);
            break;
        case 'T': {
            int i = pick(&g->terminator, r);
            p--; /* the terminator follows the last word without a space */
            memcpy(p, g->terminator.items[i].word, g->terminator.lens[i]);
            p += g->terminator.lens[i];
            *p++ = ' ';
            break;
        }
        }
    }
    return p;
}

#define LIST_INIT(list, array) pick_list_init(&(list), (array), sizeof(array) / sizeof((array)[0]))

static void grammar_free(grammar *g) {
    pick_list *lists[] = {&g->noun,      &g->verb,       &g->adjective, &g->adverb,      &g->preposition,
                          &g->auxiliary, &g->terminator, &g->sentence,  &g->noun_phrase, &g->verb_phrase};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        free(lists[i]->lens);
        free(lists[i]->table);
    }
}

static void shared_build(void) {
    grammar g;
    memset(&g, 0, sizeof g);
    shared.status = STRATA_NOMEM;
    if (LIST_INIT(g.noun, NOUNS) || LIST_INIT(g.verb, VERBS) || LIST_INIT(g.adjective, ADJECTIVES) ||
        LIST_INIT(g.adverb, ADVERBS) || LIST_INIT(g.preposition, PREPOSITIONS) ||
        LIST_INIT(g.auxiliary, AUXILIARIES) || LIST_INIT(g.terminator, TERMINATORS) ||
        LIST_INIT(g.sentence, SENTENCES) || LIST_INIT(g.noun_phrase, NOUN_PHRASES) ||
        LIST_INIT(g.verb_phrase, VERB_PHRASES))
        goto done;
    /* The pool is one text of whole sentences, cut at TEXT_POOL_SIZE; 512 bytes of slack take
    ** the sentence that crosses the end. */
    char *pool = malloc(TEXT_POOL_SIZE + 512);
    if (pool == NULL) goto done;
    rng r = rng_for(STREAM_POOL, 0);
    char *p = pool, *end = pool + TEXT_POOL_SIZE;
    while (p < end)
        p = put_sentence(p, &g, &r);
    shared.pool = pool;

    for (int i = 0; i < TYPE_COUNT; i++) {
        int n = snprintf(shared.types[i], sizeof shared.types[i], "%s %s %s", TYPE_S1[i / 25],
                         TYPE_S2[i / 5 % 5], TYPE_S3[i % 5]);
        shared.type_len[i] = (uint8_t)n;
    }
    for (int i = 0; i < CONTAINER_COUNT; i++) {
        int n = snprintf(shared.containers[i], sizeof shared.containers[i], "%s %s", CONTAINER_S1[i / 8],
                         CONTAINER_S2[i % 8]);
        shared.container_len[i] = (uint8_t)n;
    }
    for (int i = 0; i < COLOR_COUNT; i++)
        shared.color_len[i] = (uint8_t)strlen(COLORS[i]);
    for (int d = TPCH_STARTDATE; d <= TPCH_ENDDATE; d++)
        tpch_format_date(d, shared.dates[d - TPCH_STARTDATE]);
    shared.status = STRATA_OK;
done:
    grammar_free(&g);
}

static int shared_ready(void) {
    pthread_once(&shared_once, shared_build);
    return shared.status;
}

/* text_string returns a "text string [min, max]" of clause 4.2.2.10: a substring of the pool of
** a random length in [min, max] at a random offset. */
static inline tpch_str text_string(rng *r, int min, int max) {
    int64_t len = rng_range(r, min, max);
    int64_t off = rng_range(r, 0, TEXT_POOL_SIZE - len);
    return (tpch_str){shared.pool + off, (uint32_t)len};
}

/* ------------------------------------------------------------------------------------------ */
/* Scale                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* The counts of one scale factor. SF is kept as units of 1/10,000 so that every count is an
** exact integer: SF 0.01 is 100 units, SF 1 is 10,000. */
typedef struct scale {
    int64_t units;
    int64_t suppliers, customers, parts, orders, clerks;
    int64_t special_each;  /* suppliers with "Customer ... Complaints" (and as many "Recommends") */
    int64_t special_block; /* suppliers per block holding one special comment */
} scale;

int tpch_sf_valid(double sf) { return sf == sf && sf >= TPCH_SF_MIN - 1e-9 && sf <= TPCH_SF_MAX; }

int tpch_sf_parse(const char *text, double *sf) {
    char *end;
    *sf = strtod(text, &end);
    return *end == '\0' && end != text && tpch_sf_valid(*sf);
}

char *tpch_read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    long n;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL) {
        if (fread(text, 1, (size_t)n, f) == (size_t)n) {
            text[n] = '\0';
        } else {
            free(text);
            text = NULL;
            errno = EIO;
        }
    }
    fclose(f);
    return text;
}

static int scale_of(double sf, scale *s) {
    if (!tpch_sf_valid(sf)) return STRATA_MISUSE;
    s->units = llround(sf * 10000.0);
    s->suppliers = s->units;      /* SF * 10,000 */
    s->customers = s->units * 15; /* SF * 150,000 */
    s->parts = s->units * 20;     /* SF * 200,000 */
    s->orders = s->units * 150;   /* SF * 1,500,000 */
    s->clerks = s->units / 10;    /* SF * 1,000 */
    if (s->clerks < 1) s->clerks = 1;
    s->special_each = s->units / 2000; /* SF * 5 */
    if (s->special_each < 1) s->special_each = 1;
    s->special_block = s->suppliers / (2 * s->special_each);
    return STRATA_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Small formatters into scratch buffers                                                      */
/* ------------------------------------------------------------------------------------------ */

static inline char *put_u64(char *p, uint64_t v) {
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

static inline char *put_i64(char *p, int64_t v) {
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

/* put_padded writes v with at least `width` digits, zeros in front. */
static inline char *put_padded(char *p, uint64_t v, int width) {
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n < width)
        tmp[n++] = '0';
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

/* put_cents writes a count of hundredths as a decimal with two digits after the point. */
static inline char *put_cents(char *p, int64_t cents) {
    uint64_t a = (uint64_t)cents;
    if (cents < 0) {
        *p++ = '-';
        a = (uint64_t)0 - a;
    }
    p = put_u64(p, a / 100);
    *p++ = '.';
    *p++ = (char)('0' + a % 100 / 10);
    *p++ = (char)('0' + a % 10);
    return p;
}

static inline char *put_date(char *p, int32_t day) {
    if (day >= TPCH_STARTDATE && day <= TPCH_ENDDATE)
        memcpy(p, shared.dates[day - TPCH_STARTDATE], 10);
    else
        tpch_format_date(day, p);
    return p + 10;
}

/* A name "Prefix#" followed by the key in at least 9 digits (clause 4.2.3). */
static tpch_str make_name(char *buf, const char *prefix, size_t prefix_len, int64_t key) {
    memcpy(buf, prefix, prefix_len);
    char *e = put_padded(buf + prefix_len, (uint64_t)key, 9);
    return (tpch_str){buf, (uint32_t)(e - buf)};
}

/* A "random v-string [min, max]" (clause 4.2.2.7): uniform length, characters from 64. */
static tpch_str make_vstring(char *buf, rng *r, int min, int max) {
    int len = (int)rng_range(r, min, max);
    uint64_t bits = 0;
    for (int i = 0; i < len; i++) {
        if (i % 10 == 0) bits = rng_next(r);
        buf[i] = VSTRING_CHARS[bits & 63];
        bits >>= 6;
    }
    return (tpch_str){buf, (uint32_t)len};
}

/* A phone number (clause 4.2.2.9): country code nationkey + 10, then 3, 3 and 4 digits. */
static tpch_str make_phone(char *buf, rng *r, int64_t nationkey) {
    char *p = put_u64(buf, (uint64_t)(nationkey + 10));
    *p++ = '-';
    p = put_u64(p, (uint64_t)rng_range(r, 100, 999));
    *p++ = '-';
    p = put_u64(p, (uint64_t)rng_range(r, 100, 999));
    *p++ = '-';
    p = put_u64(p, (uint64_t)rng_range(r, 1000, 9999));
    return (tpch_str){buf, (uint32_t)(p - buf)};
}

/* ------------------------------------------------------------------------------------------ */
/* The generator                                                                              */
/* ------------------------------------------------------------------------------------------ */

/* The numeric part of one line, shared by ORDERS (status, total price) and LINEITEM. */
typedef struct line_values {
    int64_t partkey, suppkey, quantity, extendedprice, discount, tax;
    int32_t shipdate, commitdate, receiptdate;
    char returnflag, linestatus;
    int instruct, mode;
    tpch_str comment;
} line_values;

/* The per-order draws: the number of lines comes first so that counting LINEITEM's rows reads
** one draw per order. */
typedef struct order_values {
    int64_t index, orderkey;
    int nlines;
    int32_t orderdate;
    line_values lines[7];
} order_values;

struct tpch_gen {
    tpch_table table;
    scale sc;
    int64_t next_unit, end_unit;
    int64_t rows_done;
    order_values order; /* LINEITEM: the order whose lines are being returned */
    int next_line;
    char name[32], address[48], phone[24], mfgr[24], brand[16], clerk[32], pname[64];
    char comment[TPCH_LINE_MAX];
};

/* P_RETAILPRICE in cents (clause 4.2.3): (90000 + ((key/10) mod 20001) + 100 * (key mod 1000)) / 100
** dollars. */
static inline int64_t retail_cents(int64_t partkey) {
    return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

/* The i-th supplier (i in 0..3) of a part (clause 4.2.3, PS_SUPPKEY and L_SUPPKEY). */
static inline int64_t part_supplier(int64_t partkey, int64_t i, int64_t s) {
    return (partkey + i * (s / 4 + (partkey - 1) / s)) % s + 1;
}

/* O_ORDERKEY of the order at index i: the first 8 keys of every 32 (clause 4.2.3). */
static inline int64_t order_key(int64_t i) { return (i / 8) * 32 + i % 8 + 1; }

static inline int order_line_count(int64_t index) {
    rng r = rng_for(STREAM_ORDER, (uint64_t)index);
    return (int)rng_range(&r, 1, 7);
}

/* gen_order_lines draws an order's line count, date and lines (with comments when
** with_comments); leaves *r at the order's remaining draws (customer, priority, clerk, comment). */
static void gen_order_lines(const scale *sc, int64_t index, order_values *o, rng *r, int with_comments) {
    *r = rng_for(STREAM_ORDER, (uint64_t)index);
    o->index = index;
    o->orderkey = order_key(index);
    o->nlines = (int)rng_range(r, 1, 7);
    o->orderdate = (int32_t)rng_range(r, TPCH_STARTDATE, TPCH_ENDDATE - 151);
    for (int j = 0; j < o->nlines; j++) {
        line_values *l = &o->lines[j];
        rng lr = rng_for(STREAM_LINE, (uint64_t)index * 8 + (uint64_t)j);
        l->partkey = rng_range(&lr, 1, sc->parts);
        l->suppkey = part_supplier(l->partkey, rng_range(&lr, 0, 3), sc->suppliers);
        l->quantity = rng_range(&lr, 1, 50);
        l->extendedprice = l->quantity * retail_cents(l->partkey);
        l->discount = rng_range(&lr, 0, 10);
        l->tax = rng_range(&lr, 0, 8);
        l->shipdate = o->orderdate + (int32_t)rng_range(&lr, 1, 121);
        l->commitdate = o->orderdate + (int32_t)rng_range(&lr, 30, 90);
        l->receiptdate = l->shipdate + (int32_t)rng_range(&lr, 1, 30);
        int r_or_a = (int)rng_range(&lr, 0, 1);
        l->returnflag = l->receiptdate <= TPCH_CURRENTDATE ? (r_or_a ? 'R' : 'A') : 'N';
        l->linestatus = l->shipdate > TPCH_CURRENTDATE ? 'O' : 'F';
        l->instruct = (int)rng_range(&lr, 0, 3);
        l->mode = (int)rng_range(&lr, 0, 6);
        if (with_comments) l->comment = text_string(&lr, 10, 43);
    }
}

static void row_region(tpch_gen *g, int64_t i, tpch_region *row) {
    (void)g;
    rng r = rng_for(STREAM_REGION, (uint64_t)i);
    row->regionkey = i;
    row->name = str_of(REGIONS[i]);
    row->comment = text_string(&r, 31, 115);
}

static void row_nation(tpch_gen *g, int64_t i, tpch_nation *row) {
    (void)g;
    rng r = rng_for(STREAM_NATION, (uint64_t)i);
    row->nationkey = i;
    row->name = str_of(NATIONS[i].name);
    row->regionkey = NATIONS[i].region;
    row->comment = text_string(&r, 31, 114);
}

/* The supplier comments that hold "Customer ... Complaints" or "Customer ... Recommends": the
** suppliers are cut into 2 * special_each blocks and one supplier at a random position of each
** block gets one, Complaints in even blocks, Recommends in odd ones, so the count is exact and a
** supplier's comment depends on its block only. */
static void supplier_special(tpch_gen *g, int64_t i, tpch_supplier *row) {
    int64_t block = i / g->sc.special_block;
    if (block >= 2 * g->sc.special_each) return;
    rng r = rng_for(STREAM_SUPPLIER_SPECIAL, (uint64_t)block);
    if (i % g->sc.special_block != rng_range(&r, 0, g->sc.special_block - 1)) return;
    const char *word = block % 2 == 0 ? "Complaints" : "Recommends";
    uint32_t len = row->comment.len; /* >= 25 */
    memcpy(g->comment, row->comment.ptr, len);
    int64_t gap = rng_range(&r, 0, len - 18);
    int64_t at = rng_range(&r, 0, len - 18 - gap);
    memcpy(g->comment + at, "Customer", 8);
    memcpy(g->comment + at + 8 + gap, word, 10);
    row->comment = (tpch_str){g->comment, len};
}

static void row_supplier(tpch_gen *g, int64_t i, tpch_supplier *row) {
    rng r = rng_for(STREAM_SUPPLIER, (uint64_t)i);
    row->suppkey = i + 1;
    row->name = make_name(g->name, "Supplier#", 9, row->suppkey);
    row->address = make_vstring(g->address, &r, 10, 40);
    row->nationkey = rng_range(&r, 0, 24);
    row->phone = make_phone(g->phone, &r, row->nationkey);
    row->acctbal = rng_range(&r, -99999, 999999);
    row->comment = text_string(&r, 25, 100);
    supplier_special(g, i, row);
}

static void row_customer(tpch_gen *g, int64_t i, tpch_customer *row) {
    rng r = rng_for(STREAM_CUSTOMER, (uint64_t)i);
    row->custkey = i + 1;
    row->name = make_name(g->name, "Customer#", 9, row->custkey);
    row->address = make_vstring(g->address, &r, 10, 40);
    row->nationkey = rng_range(&r, 0, 24);
    row->phone = make_phone(g->phone, &r, row->nationkey);
    row->acctbal = rng_range(&r, -99999, 999999);
    row->mktsegment = str_of(SEGMENTS[rng_range(&r, 0, 4)]);
    row->comment = text_string(&r, 29, 116);
}

static void row_part(tpch_gen *g, int64_t i, tpch_part *row) {
    rng r = rng_for(STREAM_PART, (uint64_t)i);
    row->partkey = i + 1;
    /* Five distinct words of the 92, separated by single spaces. */
    int chosen[5];
    char *p = g->pname;
    for (int k = 0; k < 5; k++) {
        int c, dup;
        do {
            c = (int)rng_range(&r, 0, COLOR_COUNT - 1);
            dup = 0;
            for (int m = 0; m < k; m++)
                dup |= chosen[m] == c;
        } while (dup);
        chosen[k] = c;
        if (k > 0) *p++ = ' ';
        memcpy(p, COLORS[c], shared.color_len[c]);
        p += shared.color_len[c];
    }
    row->name = (tpch_str){g->pname, (uint32_t)(p - g->pname)};
    int m = (int)rng_range(&r, 1, 5), n = (int)rng_range(&r, 1, 5);
    memcpy(g->mfgr, "Manufacturer#", 13);
    g->mfgr[13] = (char)('0' + m);
    row->mfgr = (tpch_str){g->mfgr, 14};
    memcpy(g->brand, "Brand#", 6);
    g->brand[6] = (char)('0' + m);
    g->brand[7] = (char)('0' + n);
    row->brand = (tpch_str){g->brand, 8};
    int t = (int)rng_range(&r, 0, TYPE_COUNT - 1);
    row->type = (tpch_str){shared.types[t], shared.type_len[t]};
    row->size = rng_range(&r, 1, 50);
    int c = (int)rng_range(&r, 0, CONTAINER_COUNT - 1);
    row->container = (tpch_str){shared.containers[c], shared.container_len[c]};
    row->retailprice = retail_cents(row->partkey);
    row->comment = text_string(&r, 5, 22);
}

static void row_partsupp(tpch_gen *g, int64_t i, tpch_partsupp *row) {
    rng r = rng_for(STREAM_PARTSUPP, (uint64_t)i);
    row->partkey = i / 4 + 1;
    row->suppkey = part_supplier(row->partkey, i % 4, g->sc.suppliers);
    row->availqty = rng_range(&r, 1, 9999);
    row->supplycost = rng_range(&r, 100, 100000);
    row->comment = text_string(&r, 49, 198);
}

static void row_orders(tpch_gen *g, int64_t i, tpch_orders *row) {
    rng r;
    order_values *o = &g->order;
    gen_order_lines(&g->sc, i, o, &r, 0);
    /* O_CUSTKEY: uniform over the customers whose key is not a multiple of 3; the j-th of them is
    ** 3 * (j / 2) + j % 2 + 1. */
    int64_t eligible = g->sc.customers - g->sc.customers / 3;
    int64_t j = rng_range(&r, 0, eligible - 1);
    row->orderkey = o->orderkey;
    row->custkey = 3 * (j / 2) + j % 2 + 1;
    /* O_TOTALPRICE = sum(L_EXTENDEDPRICE * (1 + L_TAX) * (1 - L_DISCOUNT)), summed exactly (in
    ** 10^-6 cents) and rounded half up to the cent once. */
    int64_t exact = 0;
    int f = 0, open = 0;
    for (int k = 0; k < o->nlines; k++) {
        const line_values *l = &o->lines[k];
        exact += l->extendedprice * (100 + l->tax) * (100 - l->discount);
        if (l->linestatus == 'F')
            f++;
        else
            open++;
    }
    row->totalprice = (exact + 5000) / 10000;
    row->orderstatus = open == 0 ? 'F' : f == 0 ? 'O' : 'P';
    row->orderdate = o->orderdate;
    row->orderpriority = str_of(PRIORITIES[rng_range(&r, 0, 4)]);
    row->clerk = make_name(g->clerk, "Clerk#", 6, rng_range(&r, 1, g->sc.clerks));
    row->shippriority = 0;
    row->comment = text_string(&r, 19, 78);
}

static void row_lineitem(tpch_gen *g, tpch_lineitem *row) {
    const order_values *o = &g->order;
    const line_values *l = &o->lines[g->next_line];
    row->orderkey = o->orderkey;
    row->partkey = l->partkey;
    row->suppkey = l->suppkey;
    row->linenumber = g->next_line + 1;
    row->quantity = l->quantity * 100;
    row->extendedprice = l->extendedprice;
    row->discount = l->discount;
    row->tax = l->tax;
    row->returnflag = l->returnflag;
    row->linestatus = l->linestatus;
    row->shipdate = l->shipdate;
    row->commitdate = l->commitdate;
    row->receiptdate = l->receiptdate;
    row->shipinstruct = str_of(INSTRUCTIONS[l->instruct]);
    row->shipmode = str_of(MODES[l->mode]);
    row->comment = l->comment;
}

/* ------------------------------------------------------------------------------------------ */
/* Tables                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static const char *const TABLE_NAMES[TPCH_TABLE_COUNT] = {
    "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
};
static const int TABLE_COLUMNS[TPCH_TABLE_COUNT] = {3, 4, 7, 8, 9, 5, 9, 16};

const char *tpch_table_name(tpch_table table) {
    return (unsigned)table < TPCH_TABLE_COUNT ? TABLE_NAMES[table] : NULL;
}

int tpch_table_from_name(const char *name, tpch_table *table) {
    if (name == NULL) return STRATA_NOTFOUND;
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        if (strcasecmp(name, TABLE_NAMES[t]) == 0) {
            *table = (tpch_table)t;
            return STRATA_OK;
        }
    }
    return STRATA_NOTFOUND;
}

int tpch_table_columns(tpch_table table) {
    return (unsigned)table < TPCH_TABLE_COUNT ? TABLE_COLUMNS[table] : 0;
}

int64_t tpch_table_units(tpch_table table, double sf) {
    scale sc;
    if ((unsigned)table >= TPCH_TABLE_COUNT || scale_of(sf, &sc) != STRATA_OK) return -1;
    switch (table) {
    case TPCH_REGION: return 5;
    case TPCH_NATION: return 25;
    case TPCH_SUPPLIER: return sc.suppliers;
    case TPCH_CUSTOMER: return sc.customers;
    case TPCH_PART: return sc.parts;
    case TPCH_PARTSUPP: return sc.parts * 4;
    case TPCH_ORDERS:
    case TPCH_LINEITEM: return sc.orders;
    default: return -1;
    }
}

int64_t tpch_table_rows(tpch_table table, double sf) {
    int64_t units = tpch_table_units(table, sf);
    if (table != TPCH_LINEITEM || units < 0) return units;
    int64_t rows = 0;
    for (int64_t i = 0; i < units; i++)
        rows += order_line_count(i);
    return rows;
}

int tpch_gen_open_range(tpch_gen **out, tpch_table table, double sf, int64_t first, int64_t count) {
    if (out == NULL) return STRATA_MISUSE;
    *out = NULL;
    int64_t units = tpch_table_units(table, sf);
    if (units < 0 || first < 0 || count < 0) return STRATA_MISUSE;
    int rc = shared_ready();
    if (rc != STRATA_OK) return rc;
    tpch_gen *g = calloc(1, sizeof *g);
    if (g == NULL) return STRATA_NOMEM;
    g->table = table;
    scale_of(sf, &g->sc);
    g->next_unit = first < units ? first : units;
    g->end_unit = count < units - g->next_unit ? g->next_unit + count : units;
    g->next_line = 0;
    g->order.nlines = 0;
    *out = g;
    return STRATA_OK;
}

int tpch_gen_open(tpch_gen **out, tpch_table table, double sf) {
    return tpch_gen_open_range(out, table, sf, 0, INT64_MAX);
}

int tpch_gen_next(tpch_gen *g, tpch_row *row) {
    if (g->table == TPCH_LINEITEM) {
        if (g->next_line >= g->order.nlines) {
            if (g->next_unit >= g->end_unit) return STRATA_DONE;
            rng r;
            gen_order_lines(&g->sc, g->next_unit++, &g->order, &r, 1);
            g->next_line = 0;
        }
        row_lineitem(g, &row->lineitem);
        g->next_line++;
        g->rows_done++;
        return STRATA_ROW;
    }
    if (g->next_unit >= g->end_unit) return STRATA_DONE;
    int64_t i = g->next_unit++;
    switch (g->table) {
    case TPCH_REGION: row_region(g, i, &row->region); break;
    case TPCH_NATION: row_nation(g, i, &row->nation); break;
    case TPCH_SUPPLIER: row_supplier(g, i, &row->supplier); break;
    case TPCH_CUSTOMER: row_customer(g, i, &row->customer); break;
    case TPCH_PART: row_part(g, i, &row->part); break;
    case TPCH_PARTSUPP: row_partsupp(g, i, &row->partsupp); break;
    case TPCH_ORDERS: row_orders(g, i, &row->orders); break;
    default: return STRATA_DONE;
    }
    g->rows_done++;
    return STRATA_ROW;
}

int64_t tpch_gen_rows_done(const tpch_gen *g) { return g->rows_done; }

void tpch_gen_close(tpch_gen *g) { free(g); }

/* ------------------------------------------------------------------------------------------ */
/* .tbl text                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* Each field is written followed by '|'. Numbers take at most 21 bytes, dates 10. */
#define FIELD_INT(p, v) (p = put_i64(p, v), *p++ = '|')
#define FIELD_CENTS(p, v) (p = put_cents(p, v), *p++ = '|')
#define FIELD_DATE(p, v) (p = put_date(p, v), *p++ = '|')
#define FIELD_STR(p, s) (memcpy(p, (s).ptr, (s).len), p += (s).len, *p++ = '|')
#define FIELD_CHAR(p, c) (*p++ = (c), *p++ = '|')

size_t tpch_format_row(tpch_table table, const tpch_row *row, char *buf, size_t cap) {
    /* A bound of the line's length: 24 bytes for every field plus the strings. */
    size_t strings;
    switch (table) {
    case TPCH_REGION: strings = row->region.name.len + row->region.comment.len; break;
    case TPCH_NATION: strings = row->nation.name.len + row->nation.comment.len; break;
    case TPCH_SUPPLIER: {
        const tpch_supplier *s = &row->supplier;
        strings = (size_t)s->name.len + s->address.len + s->phone.len + s->comment.len;
        break;
    }
    case TPCH_CUSTOMER: {
        const tpch_customer *c = &row->customer;
        strings = (size_t)c->name.len + c->address.len + c->phone.len + c->mktsegment.len + c->comment.len;
        break;
    }
    case TPCH_PART: {
        const tpch_part *p = &row->part;
        strings = (size_t)p->name.len + p->mfgr.len + p->brand.len + p->type.len + p->container.len +
                  p->comment.len;
        break;
    }
    case TPCH_PARTSUPP: strings = row->partsupp.comment.len; break;
    case TPCH_ORDERS: {
        const tpch_orders *o = &row->orders;
        strings = (size_t)o->orderpriority.len + o->clerk.len + o->comment.len;
        break;
    }
    case TPCH_LINEITEM: {
        const tpch_lineitem *l = &row->lineitem;
        strings = (size_t)l->shipinstruct.len + l->shipmode.len + l->comment.len;
        break;
    }
    default: return 0;
    }
    if (strings + 24 * (size_t)TABLE_COLUMNS[table] + 1 > cap) return 0;

    char *p = buf;
    switch (table) {
    case TPCH_REGION:
        FIELD_INT(p, row->region.regionkey);
        FIELD_STR(p, row->region.name);
        FIELD_STR(p, row->region.comment);
        break;
    case TPCH_NATION:
        FIELD_INT(p, row->nation.nationkey);
        FIELD_STR(p, row->nation.name);
        FIELD_INT(p, row->nation.regionkey);
        FIELD_STR(p, row->nation.comment);
        break;
    case TPCH_SUPPLIER: {
        const tpch_supplier *s = &row->supplier;
        FIELD_INT(p, s->suppkey);
        FIELD_STR(p, s->name);
        FIELD_STR(p, s->address);
        FIELD_INT(p, s->nationkey);
        FIELD_STR(p, s->phone);
        FIELD_CENTS(p, s->acctbal);
        FIELD_STR(p, s->comment);
        break;
    }
    case TPCH_CUSTOMER: {
        const tpch_customer *c = &row->customer;
        FIELD_INT(p, c->custkey);
        FIELD_STR(p, c->name);
        FIELD_STR(p, c->address);
        FIELD_INT(p, c->nationkey);
        FIELD_STR(p, c->phone);
        FIELD_CENTS(p, c->acctbal);
        FIELD_STR(p, c->mktsegment);
        FIELD_STR(p, c->comment);
        break;
    }
    case TPCH_PART: {
        const tpch_part *t = &row->part;
        FIELD_INT(p, t->partkey);
        FIELD_STR(p, t->name);
        FIELD_STR(p, t->mfgr);
        FIELD_STR(p, t->brand);
        FIELD_STR(p, t->type);
        FIELD_INT(p, t->size);
        FIELD_STR(p, t->container);
        FIELD_CENTS(p, t->retailprice);
        FIELD_STR(p, t->comment);
        break;
    }
    case TPCH_PARTSUPP: {
        const tpch_partsupp *s = &row->partsupp;
        FIELD_INT(p, s->partkey);
        FIELD_INT(p, s->suppkey);
        FIELD_INT(p, s->availqty);
        FIELD_CENTS(p, s->supplycost);
        FIELD_STR(p, s->comment);
        break;
    }
    case TPCH_ORDERS: {
        const tpch_orders *o = &row->orders;
        FIELD_INT(p, o->orderkey);
        FIELD_INT(p, o->custkey);
        FIELD_CHAR(p, o->orderstatus);
        FIELD_CENTS(p, o->totalprice);
        FIELD_DATE(p, o->orderdate);
        FIELD_STR(p, o->orderpriority);
        FIELD_STR(p, o->clerk);
        FIELD_INT(p, o->shippriority);
        FIELD_STR(p, o->comment);
        break;
    }
    case TPCH_LINEITEM: {
        const tpch_lineitem *l = &row->lineitem;
        FIELD_INT(p, l->orderkey);
        FIELD_INT(p, l->partkey);
        FIELD_INT(p, l->suppkey);
        FIELD_INT(p, l->linenumber);
        FIELD_CENTS(p, l->quantity);
        FIELD_CENTS(p, l->extendedprice);
        FIELD_CENTS(p, l->discount);
        FIELD_CENTS(p, l->tax);
        FIELD_CHAR(p, l->returnflag);
        FIELD_CHAR(p, l->linestatus);
        FIELD_DATE(p, l->shipdate);
        FIELD_DATE(p, l->commitdate);
        FIELD_DATE(p, l->receiptdate);
        FIELD_STR(p, l->shipinstruct);
        FIELD_STR(p, l->shipmode);
        FIELD_STR(p, l->comment);
        break;
    }
    default: return 0;
    }
    *p++ = '\n';
    return (size_t)(p - buf);
}

#define WRITE_BUFFER (1 << 20)

int tpch_write_tbl_range(tpch_table table, double sf, int64_t first, int64_t count, FILE *out,
                         int64_t *rows) {
    if (rows != NULL) *rows = 0;
    if (out == NULL) return STRATA_MISUSE;
    tpch_gen *g;
    int rc = tpch_gen_open_range(&g, table, sf, first, count);
    if (rc != STRATA_OK) return rc;
    char *buf = malloc(WRITE_BUFFER + TPCH_LINE_MAX);
    if (buf == NULL) {
        tpch_gen_close(g);
        return STRATA_NOMEM;
    }
    size_t used = 0;
    tpch_row row;
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        used += tpch_format_row(table, &row, buf + used, TPCH_LINE_MAX);
        if (used >= WRITE_BUFFER) {
            if (fwrite(buf, 1, used, out) != used) {
                rc = STRATA_IOERR;
                break;
            }
            used = 0;
        }
    }
    if (rc == STRATA_OK && used > 0 && fwrite(buf, 1, used, out) != used) rc = STRATA_IOERR;
    if (rows != NULL) *rows = tpch_gen_rows_done(g);
    free(buf);
    tpch_gen_close(g);
    return rc;
}

int tpch_write_tbl(tpch_table table, double sf, FILE *out, int64_t *rows) {
    return tpch_write_tbl_range(table, sf, 0, INT64_MAX, out, rows);
}
