/*
** compare.c -- the benchmark regression gate: bench/compare OLD.json NEW.json.
**
** Reads two raw result files of the benchmark harness (bench/results/harness-*.json), checks
** that they measured the same workloads on the same machine, recomputes every median from the
** raw samples (summaries a file may carry are never read) and compares strata's figures:
**
**   time   regressed when the median rose more than 30 % AND by more than 0.5 µs per unit of
**          work ("units" of the metric); improved on the mirror image;
**   rate   regressed when the median fell more than 30 % AND an operation (1e6 / rate µs) got
**          more than 0.5 µs slower; improved on the mirror image;
**   memory, size   a change of more than 30 % either way is a note.
**
** A strata workload that reports an error in NEW but not in OLD fails the gate too. The other
** engines are checked for comparable settings but never gate.
**
** Output: a Markdown table and a one-line verdict on stdout; problems on stderr, prefixed
** "bench/compare: ". Exit status 0: no regression; 1: a strata regression; 2: usage error,
** unreadable or malformed input, or reports that are not comparable.
**
** Not library code: it uses bench_common.c (summaries, number formatting) and cJSON only.
*/
#include "bench_common.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define WORSE_RATIO 1.3     /* a change of more than 30 % ... */
#define BETTER_RATIO 0.7    /* (30 % the other way) */
#define MIN_DELTA_US 0.5    /* ... and of more than 0.5 µs per unit of work */
#define SAME_MEMORY_GIB 0.5 /* memory sizes closer than this are the same machine */

enum { EXIT_OK = 0, EXIT_REGRESSION = 1, EXIT_INVALID = 2 };

typedef enum metric_kind { KIND_TIME, KIND_RATE, KIND_MEMORY, KIND_SIZE, KIND_OTHER } metric_kind;

/* One entry of "metrics" with strata's figures for it. The strings live in the report's cJSON
** tree; values is owned by the metric. */
typedef struct metric {
    const char *id, *label, *unit, *workload;
    metric_kind kind;
    double units; /* units of work a time figure covers (NAN for the other kinds) */
    double to_us; /* a time figure times to_us is in µs (1 for the other kinds) */
    double *values;
    int n;
    summary s; /* of values, computed once every sample is read */
} metric;

/* An error a strata sample recorded for a workload (strings in the cJSON tree). */
typedef struct failure {
    const char *workload, *message;
} failure;

typedef struct report {
    const char *path, *role; /* the path as given; "OLD" or "NEW" */
    char *text;
    cJSON *root;
    const cJSON *environment, *config, *sizes, *engines;
    metric *metrics;
    int n_metrics;
    failure *failures;
    int n_failures;
    int n_samples, n_strata; /* all samples; those of strata */
} report;

/* ---- messages ------------------------------------------------------------------------------ */

/* invalid prints "bench/compare: <path> (<role>): <message>" on stderr and returns -1. */
static int invalid(const report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int invalid(const report *r, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "bench/compare: %s (%s): ", r->path, r->role);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

/* differ prints one reason why the reports are not comparable and returns 1 (to count them). */
static int differ(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int differ(const char *fmt, ...) {
    va_list ap;
    fputs("bench/compare: not comparable: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* ---- typed access to the JSON tree ---------------------------------------------------------- */

typedef enum json_type { JSON_STRING, JSON_NUMBER, JSON_BOOL, JSON_OBJECT, JSON_ARRAY } json_type;
static const char *const json_type_name[] = {"a string", "a number", "true or false", "an object",
                                             "an array"};

static const char *type_of(const cJSON *item) {
    if (cJSON_IsNull(item)) return "null";
    if (cJSON_IsBool(item)) return "a boolean";
    if (cJSON_IsNumber(item)) return "a number";
    if (cJSON_IsString(item)) return "a string";
    if (cJSON_IsArray(item)) return "an array";
    if (cJSON_IsObject(item)) return "an object";
    return "not a JSON value";
}

static int has_type(const cJSON *item, json_type t) {
    switch (t) {
    case JSON_STRING: return cJSON_IsString(item) && item->valuestring != NULL;
    case JSON_NUMBER: return cJSON_IsNumber(item);
    case JSON_BOOL: return cJSON_IsBool(item);
    case JSON_OBJECT: return cJSON_IsObject(item);
    case JSON_ARRAY: return cJSON_IsArray(item);
    }
    return 0;
}

/* check returns item when it has type t (a number must also be finite); otherwise it reports
** "<where>.<key> is <type>, expected <type>" and returns NULL. */
static const cJSON *check(const report *r, const cJSON *item, const char *where, const char *key,
                          json_type t) {
    const char *dot = *where ? "." : "";
    if (!has_type(item, t)) {
        invalid(r, "%s%s%s is %s, expected %s", where, dot, key, type_of(item), json_type_name[t]);
        return NULL;
    }
    if (t == JSON_NUMBER && !isfinite(item->valuedouble)) {
        invalid(r, "%s%s%s is not a finite number", where, dot, key);
        return NULL;
    }
    return item;
}

/* get returns member key of obj (named where in messages) when it exists with type t; otherwise
** it reports the problem and returns NULL. */
static const cJSON *get(const report *r, const cJSON *obj, const char *where, const char *key, json_type t) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (item == NULL) {
        invalid(r, "%s%s%s is missing", where, *where ? "." : "", key);
        return NULL;
    }
    return check(r, item, where, key, t);
}

/* text returns the string member key of obj, or NULL when it is absent or not a string (for
** fields that are only shown, never checked). */
static const char *text(const cJSON *obj, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

static int is_integer(double v) { return isfinite(v) && v == floor(v); }

/* find_engine returns the entry of config.engines named name, or NULL. */
static const cJSON *find_engine(const cJSON *engines, const char *name) {
    const cJSON *e;
    cJSON_ArrayForEach(e, engines) {
        const char *n = text(e, "name");
        if (n && strcmp(n, name) == 0) return e;
    }
    return NULL;
}

static metric *find_metric(const report *r, const char *id) {
    for (int i = 0; i < r->n_metrics; i++)
        if (strcmp(r->metrics[i].id, id) == 0) return &r->metrics[i];
    return NULL;
}

/* ---- loading one report --------------------------------------------------------------------- */

/* read_text reads the whole file into r->text (NUL-terminated); -1 with a message on failure. */
static int read_text(report *r) {
    FILE *f = fopen(r->path, "rb");
    if (f == NULL) return invalid(r, "cannot open: %s", strerror(errno));
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (ferror(f) || feof(f)) break;
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) free(buf);
        buf = bigger;
        cap *= 2;
    }
    int read_error = ferror(f) ? errno : 0;
    fclose(f);
    if (buf == NULL) return invalid(r, "out of memory reading the file");
    buf[len] = '\0';
    r->text = buf;
    if (read_error) return invalid(r, "cannot read: %s", strerror(read_error));
    if (strlen(buf) != len) return invalid(r, "not JSON: a NUL byte at offset %zu", strlen(buf));
    if (buf[strspn(buf, " \t\r\n")] == '\0') return invalid(r, "not JSON: the file is empty");
    return 0;
}

/* parse parses r->text into r->root and checks that it is a harness result. */
static int parse(report *r) {
    const char *end = NULL;
    r->root = cJSON_ParseWithOpts(r->text, &end, 1);
    if (r->root == NULL) {
        int line = 1, column = 1;
        for (const char *p = r->text; end && p < end && *p; p++, column++)
            if (*p == '\n') line++, column = 0;
        return invalid(r, "not JSON: syntax error at line %d, column %d", line, column);
    }
    if (!cJSON_IsObject(r->root)) return invalid(r, "not a harness result: the JSON is not an object");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(r->root, "benchmark");
    if (b == NULL) return invalid(r, "not a harness result: no \"benchmark\" member");
    if (!cJSON_IsString(b) || b->valuestring == NULL)
        return invalid(r, "not a harness result: \"benchmark\" is %s, expected \"harness\"", type_of(b));
    if (strcmp(b->valuestring, "harness") != 0)
        return invalid(r, "not a harness result: \"benchmark\" is \"%s\", expected \"harness\"",
                       b->valuestring);
    return 0;
}

static int load_environment(report *r) {
    r->environment = get(r, r->root, "", "environment", JSON_OBJECT);
    if (r->environment == NULL) return -1;
    const cJSON *cores = get(r, r->environment, "environment", "cores", JSON_NUMBER);
    const cJSON *mem = get(r, r->environment, "environment", "mem_gib", JSON_NUMBER);
    if (!get(r, r->environment, "environment", "cpu", JSON_STRING) || !cores || !mem) return -1;
    if (!is_integer(cores->valuedouble) || cores->valuedouble < 1)
        return invalid(r, "environment.cores is %g, expected a positive integer", cores->valuedouble);
    if (mem->valuedouble < 0) return invalid(r, "environment.mem_gib is negative");
    return 0;
}

static int load_config(report *r) {
    r->config = get(r, r->root, "", "config", JSON_OBJECT);
    if (r->config == NULL || !get(r, r->config, "config", "quick", JSON_BOOL)) return -1;
    r->sizes = get(r, r->config, "config", "sizes", JSON_OBJECT);
    r->engines = get(r, r->config, "config", "engines", JSON_ARRAY);
    if (r->sizes == NULL || r->engines == NULL) return -1;
    const cJSON *size;
    cJSON_ArrayForEach(size, r->sizes) {
        if (!check(r, size, "config.sizes", size->string, JSON_NUMBER)) return -1;
        if (!is_integer(size->valuedouble))
            return invalid(r, "config.sizes.%s is %g, expected an integer", size->string, size->valuedouble);
    }
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, r->engines) {
        char where[64];
        snprintf(where, sizeof where, "config.engines[%d]", i++);
        if (!check(r, e, "", where, JSON_OBJECT)) return -1;
        if (!get(r, e, where, "name", JSON_STRING) || !get(r, e, where, "settings", JSON_STRING) ||
            !get(r, e, where, "crash_safe", JSON_BOOL))
            return -1;
    }
    if (find_engine(r->engines, "strata") == NULL)
        return invalid(r, "config.engines has no \"strata\" engine");
    return 0;
}

static const struct {
    const char *name;
    double to_us;
} time_units[] = {{"s", 1e6}, {"ms", 1e3}, {"µs", 1}, {"us", 1}, {"ns", 1e-3}};

static const struct {
    const char *name;
    metric_kind kind;
} kinds[] = {{"time", KIND_TIME}, {"rate", KIND_RATE}, {"memory", KIND_MEMORY}, {"size", KIND_SIZE}};

/* load_metric fills m from metrics[i] (the entry e). */
static int load_metric(report *r, const cJSON *e, int i, metric *m) {
    char where[64];
    snprintf(where, sizeof where, "metrics[%d]", i);
    if (!check(r, e, "", where, JSON_OBJECT)) return -1;
    const cJSON *id = get(r, e, where, "id", JSON_STRING), *kind = get(r, e, where, "kind", JSON_STRING);
    if (id == NULL || kind == NULL) return -1;
    *m = (metric){.id = id->valuestring, .kind = KIND_OTHER, .units = NAN, .to_us = 1};
    if (find_metric(r, m->id)) return invalid(r, "%s: metric id \"%s\" appears twice", where, m->id);
    m->label = text(e, "label") ? text(e, "label") : m->id;
    m->workload = text(e, "workload");
    m->unit = text(e, "unit");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(kind->valuestring, kinds[k].name) == 0) m->kind = kinds[k].kind;
    if (m->kind == KIND_TIME) {
        const cJSON *unit = get(r, e, where, "unit", JSON_STRING),
                    *units = get(r, e, where, "units", JSON_NUMBER);
        if (unit == NULL || units == NULL) return -1;
        m->to_us = 0;
        for (size_t k = 0; k < sizeof time_units / sizeof time_units[0]; k++)
            if (strcmp(unit->valuestring, time_units[k].name) == 0) m->to_us = time_units[k].to_us;
        if (m->to_us == 0)
            return invalid(r, "%s (%s): time unit \"%s\", expected s, ms, µs or ns", where, m->id,
                           unit->valuestring);
        if (units->valuedouble <= 0)
            return invalid(r, "%s (%s): units is %g, expected a positive count", where, m->id,
                           units->valuedouble);
        m->units = units->valuedouble;
    }
    return 0;
}

static int load_metrics(report *r) {
    const cJSON *metrics = get(r, r->root, "", "metrics", JSON_ARRAY);
    const cJSON *samples = get(r, r->root, "", "samples", JSON_ARRAY);
    if (metrics == NULL || samples == NULL) return -1;
    int n = cJSON_GetArraySize(metrics);
    r->n_samples = cJSON_GetArraySize(samples);
    r->metrics = calloc((size_t)n + 1, sizeof *r->metrics);
    if (r->metrics == NULL) return invalid(r, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, metrics) {
        metric *m = &r->metrics[r->n_metrics];
        if (load_metric(r, e, r->n_metrics, m) != 0) return -1;
        r->n_metrics++;
        if (m->kind != KIND_OTHER) {
            m->values = malloc(((size_t)r->n_samples + 1) * sizeof *m->values);
            if (m->values == NULL) return invalid(r, "out of memory");
        }
    }
    return 0;
}

/* load_errors records the errors of a strata sample (errors is its "errors" member). */
static int load_errors(report *r, const cJSON *errors, const char *where) {
    const cJSON *e;
    cJSON_ArrayForEach(e, errors) {
        if (!check(r, e, where, e->string, JSON_STRING)) return -1;
        failure *more = realloc(r->failures, ((size_t)r->n_failures + 1) * sizeof *more);
        if (more == NULL) return invalid(r, "out of memory");
        r->failures = more;
        r->failures[r->n_failures++] = (failure){e->string, e->valuestring};
    }
    return 0;
}

/* load_samples checks every sample and keeps strata's figures of the compared kinds. */
static int load_samples(report *r) {
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(r->root, "samples"), *s;
    if (r->n_samples == 0) return invalid(r, "samples is empty");
    int i = 0;
    cJSON_ArrayForEach(s, samples) {
        char where[64], in_metrics[80], in_errors[80];
        snprintf(where, sizeof where, "samples[%d]", i++);
        if (!check(r, s, "", where, JSON_OBJECT)) return -1;
        const cJSON *engine = get(r, s, where, "engine", JSON_STRING);
        if (engine == NULL) return -1;
        int is_strata = strcmp(engine->valuestring, "strata") == 0;
        r->n_strata += is_strata;
        const cJSON *figures = cJSON_GetObjectItemCaseSensitive(s, "metrics");
        const cJSON *errors = cJSON_GetObjectItemCaseSensitive(s, "errors");
        snprintf(in_metrics, sizeof in_metrics, "%s.metrics", where);
        snprintf(in_errors, sizeof in_errors, "%s.errors", where);
        if (figures && !check(r, figures, where, "metrics", JSON_OBJECT)) return -1;
        if (errors && !check(r, errors, where, "errors", JSON_OBJECT)) return -1;
        if (errors && is_strata && load_errors(r, errors, in_errors) != 0) return -1;
        const cJSON *v;
        cJSON_ArrayForEach(v, figures) {
            metric *m = find_metric(r, v->string);
            if (m == NULL || m->kind == KIND_OTHER) continue; /* checksums, info, undeclared */
            if (!check(r, v, in_metrics, v->string, JSON_NUMBER)) return -1;
            if (v->valuedouble < 0) return invalid(r, "%s.%s is negative", in_metrics, v->string);
            if (is_strata) m->values[m->n++] = v->valuedouble;
        }
    }
    if (r->n_strata == 0) return invalid(r, "no strata samples");
    for (int k = 0; k < r->n_metrics; k++)
        r->metrics[k].s = summary_of(r->metrics[k].values, r->metrics[k].n);
    return 0;
}

/* load reads, parses and checks the report at r->path; on failure it has printed why. */
static int load(report *r) {
    if (read_text(r) != 0 || parse(r) != 0) return -1;
    if (load_environment(r) != 0 || load_config(r) != 0 || load_metrics(r) != 0) return -1;
    return load_samples(r);
}

static void report_free(report *r) {
    for (int i = 0; i < r->n_metrics; i++)
        free(r->metrics[i].values);
    free(r->metrics);
    free(r->failures);
    cJSON_Delete(r->root);
    free(r->text);
}

/* ---- comparability -------------------------------------------------------------------------- */

static double number(const cJSON *obj, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key)->valuedouble; /* checked by load */
}

/* count_differences prints every reason why a and b are not comparable and returns how many. */
static int count_differences(const report *a, const report *b) {
    int n = 0;
    const char *cpu_a = text(a->environment, "cpu"), *cpu_b = text(b->environment, "cpu");
    if (strcmp(cpu_a, cpu_b) != 0) n += differ("environment.cpu: \"%s\" in OLD, \"%s\" in NEW", cpu_a, cpu_b);
    double cores_a = number(a->environment, "cores"), cores_b = number(b->environment, "cores");
    if (cores_a != cores_b) n += differ("environment.cores: %g in OLD, %g in NEW", cores_a, cores_b);
    double mem_a = number(a->environment, "mem_gib"), mem_b = number(b->environment, "mem_gib");
    if (fabs(mem_a - mem_b) >= SAME_MEMORY_GIB)
        n += differ("environment.mem_gib: %g in OLD, %g in NEW", mem_a, mem_b);
    static const char *const modes[] = {"quick", "tiny"}; /* "tiny" is optional: absent is false */
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        int mode_a = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a->config, modes[i]));
        int mode_b = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b->config, modes[i]));
        if (mode_a != mode_b)
            n += differ("config.%s: %s in OLD, %s in NEW", modes[i], mode_a ? "true" : "false",
                        mode_b ? "true" : "false");
    }

    const cJSON *s;
    cJSON_ArrayForEach(s, a->sizes) {
        const cJSON *other = cJSON_GetObjectItemCaseSensitive(b->sizes, s->string);
        if (other == NULL)
            n += differ("config.sizes.%s: %.0f in OLD, absent in NEW", s->string, s->valuedouble);
        else if (other->valuedouble != s->valuedouble)
            n += differ("config.sizes.%s: %.0f in OLD, %.0f in NEW", s->string, s->valuedouble,
                        other->valuedouble);
    }
    cJSON_ArrayForEach(s, b->sizes) {
        if (cJSON_GetObjectItemCaseSensitive(a->sizes, s->string) == NULL)
            n += differ("config.sizes.%s: absent in OLD, %.0f in NEW", s->string, s->valuedouble);
    }

    const cJSON *e;
    cJSON_ArrayForEach(e, a->engines) {
        const char *name = text(e, "name");
        const cJSON *other = find_engine(b->engines, name);
        if (other == NULL) continue;
        const char *set_a = text(e, "settings"), *set_b = text(other, "settings");
        if (strcmp(set_a, set_b) != 0)
            n += differ("engine %s: settings \"%s\" in OLD, \"%s\" in NEW", name, set_a, set_b);
        int safe_a = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "crash_safe"));
        int safe_b = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(other, "crash_safe"));
        if (safe_a != safe_b)
            n += differ("engine %s: crash_safe %s in OLD, %s in NEW", name, safe_a ? "true" : "false",
                        safe_b ? "true" : "false");
    }

    for (int i = 0; i < a->n_metrics; i++) {
        const metric *m = &a->metrics[i], *o = find_metric(b, m->id);
        if (o == NULL) continue;
        if (m->kind != o->kind)
            n += differ("metric %s: a different kind in OLD and NEW", m->id);
        else if (m->kind == KIND_TIME && m->units != o->units)
            n += differ("metric %s: units %g in OLD, %g in NEW", m->id, m->units, o->units);
    }
    return n;
}

/* ---- the comparison ------------------------------------------------------------------------- */

/* md prints s as the text of a Markdown table cell: '|' escaped, line breaks as spaces. */
static void md(const char *s) {
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", stdout);
        else if (*s == '\n' || *s == '\r')
            putchar(' ');
        else
            putchar(*s);
    }
}

/* fmt_signed writes a difference with its sign: 2 decimals below 10, 1 below 100, 0 above. */
static void fmt_signed(char *out, size_t n, double v) {
    double a = fabs(v);
    if (!isfinite(v)) {
        snprintf(out, n, "n/a");
    } else if (a >= 1000) {
        char digits[40];
        fmt_num(digits, sizeof digits, a);
        snprintf(out, n, "%s%s", v > 0 ? "+" : "-", digits);
    } else if (a < 0.005) {
        snprintf(out, n, "0.00"); /* not "-0.00" */
    } else {
        snprintf(out, n, "%+.*f", a < 10 ? 2 : a < 100 ? 1 : 0, v);
    }
}

static void fmt_change(char *out, size_t n, double ratio) {
    if (isfinite(ratio))
        snprintf(out, n, "%+.1f %%", (ratio - 1) * 100);
    else
        snprintf(out, n, "n/a");
}

static void print_header(const report *r, const char *role) {
    const cJSON *git = cJSON_GetObjectItemCaseSensitive(r->root, "git");
    const char *commit = text(git, "commit"), *date = text(r->root, "date");
    const cJSON *reps = cJSON_GetObjectItemCaseSensitive(r->config, "reps");
    printf("- %s: `", role);
    md(r->path);
    printf("`: commit %s%s", commit ? commit : "unknown",
           cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(git, "dirty")) ? " (dirty tree)" : "");
    if (date) printf(", %s", date);
    if (cJSON_IsNumber(reps)) printf(", %g reps", reps->valuedouble);
    printf(", %d strata samples\n", r->n_strata);
}

/* Notes gathered while the table is printed, shown after it. */
typedef struct notes {
    char **line;
    int n;
} notes;

static void note(notes *ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(notes *ns, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **more = realloc(ns->line, ((size_t)ns->n + 1) * sizeof *more);
    char *copy = strdup(buf);
    if (more == NULL || copy == NULL) {
        fputs("bench/compare: out of memory\n", stderr);
        exit(EXIT_INVALID);
    }
    ns->line = more;
    ns->line[ns->n++] = copy;
}

static void print_notes(notes *ns) {
    if (ns->n > 0) puts("\nNotes:\n");
    for (int i = 0; i < ns->n; i++) {
        printf("- ");
        md(ns->line[i]);
        putchar('\n');
        free(ns->line[i]);
    }
    free(ns->line);
}

typedef struct tally {
    int compared, regressed, improved, failed;
    char regressions[512];
} tally;

/* compare_row prints the table row of a time or rate metric present in both reports with
** strata figures on both sides, and counts its verdict. */
static void compare_row(const metric *o, const metric *m, tally *t) {
    double ratio = m->s.median * m->to_us / (o->s.median * o->to_us), delta;
    const char *verdict = "";
    if (m->kind == KIND_TIME) {
        delta = (m->s.median * m->to_us - o->s.median * o->to_us) / m->units;
        if (ratio > WORSE_RATIO && delta > MIN_DELTA_US) verdict = "REGRESSION";
        if (ratio < BETTER_RATIO && delta < -MIN_DELTA_US) verdict = "improved";
    } else { /* rate: per operation 1e6 / rate µs */
        delta = 1e6 / m->s.median - 1e6 / o->s.median;
        if (ratio < BETTER_RATIO && delta > MIN_DELTA_US) verdict = "REGRESSION";
        if (ratio > WORSE_RATIO && delta < -MIN_DELTA_US) verdict = "improved";
    }
    char old_cell[96], new_cell[96], change[32], delta_cell[48];
    fmt_summary(old_cell, sizeof old_cell, o->s, o->to_us / m->to_us); /* in NEW's unit */
    fmt_summary(new_cell, sizeof new_cell, m->s, 1);
    fmt_change(change, sizeof change, ratio);
    fmt_signed(delta_cell, sizeof delta_cell, delta);
    printf("| ");
    md(m->label + strspn(m->label, " ")); /* the harness indents sub-rows; a table cell cannot */
    printf(" | ");
    md(m->unit ? m->unit : m->kind == KIND_RATE ? "ops/s" : "");
    printf(" | %s | %s | %s | %s | %s |\n", old_cell, new_cell, change, delta_cell, verdict);
    t->compared++;
    if (*verdict == 'i') t->improved++;
    if (*verdict == 'R') {
        size_t used = strlen(t->regressions);
        snprintf(t->regressions + used, sizeof t->regressions - used, "%s%s (%s)", t->regressed ? ", " : "",
                 m->id, change);
        t->regressed++;
    }
}

/* note_change notes a memory or size metric whose median changed more than 30 %. */
static void note_change(notes *ns, const metric *o, const metric *m) {
    double ratio = m->s.median / o->s.median;
    if (!(ratio > WORSE_RATIO || ratio < BETTER_RATIO)) return;
    char a[48], b[48], change[32];
    fmt_num(a, sizeof a, o->s.median);
    fmt_num(b, sizeof b, m->s.median);
    fmt_change(change, sizeof change, ratio);
    const char *unit = m->unit ? m->unit : m->kind == KIND_MEMORY ? "KiB" : "bytes";
    note(ns, "%s: %s: %s → %s %s (%s)", m->kind == KIND_MEMORY ? "memory" : "size", m->label, a, b, unit,
         change);
}

static int count_failures(const report *r, const char *workload, const char **message) {
    int n = 0;
    for (int i = 0; i < r->n_failures; i++)
        if (strcmp(r->failures[i].workload, workload) == 0) {
            if (n++ == 0 && message) *message = r->failures[i].message;
        }
    return n;
}

/* note_failures notes strata's recorded workload errors; one in NEW that OLD did not have
** counts as a failure of the gate. */
static void note_failures(notes *ns, const report *a, const report *b, tally *t) {
    for (int i = 0; i < b->n_failures; i++) {
        const char *w = b->failures[i].workload, *message = NULL;
        int first = 1;
        for (int j = 0; j < i; j++)
            if (strcmp(b->failures[j].workload, w) == 0) first = 0;
        if (!first) continue;
        int n = count_failures(b, w, &message);
        if (count_failures(a, w, NULL) > 0) {
            note(ns, "strata workload %s failed in OLD and in NEW (%d of %d NEW samples): %s", w, n,
                 b->n_strata, message);
        } else {
            note(ns, "FAILED: strata workload %s failed in NEW (%d of %d samples), not in OLD: %s", w, n,
                 b->n_strata, message);
            t->failed++;
        }
    }
    for (int i = 0; i < a->n_failures; i++) {
        const char *w = a->failures[i].workload;
        int first = 1;
        for (int j = 0; j < i; j++)
            if (strcmp(a->failures[j].workload, w) == 0) first = 0;
        if (first && count_failures(b, w, NULL) == 0)
            note(ns, "strata workload %s failed in OLD, not in NEW", w);
    }
}

/* note_environment notes differences that do not make the reports incomparable. */
static void note_environment(notes *ns, const report *a, const report *b) {
    static const char *const keys[] = {"filesystem", "compiler", "cflags", "kernel"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *x = text(a->environment, keys[i]), *y = text(b->environment, keys[i]);
        if (x && y && strcmp(x, y) != 0)
            note(ns, "environment.%s differs: \"%s\" in OLD, \"%s\" in NEW", keys[i], x, y);
    }
    const cJSON *va = cJSON_GetObjectItemCaseSensitive(a->environment, "versions");
    const cJSON *vb = cJSON_GetObjectItemCaseSensitive(b->environment, "versions"), *v;
    cJSON_ArrayForEach(v, va) {
        const char *x = cJSON_IsString(v) ? v->valuestring : NULL, *y = text(vb, v->string);
        if (x && y && strcmp(x, y) != 0) note(ns, "version of %s: %s in OLD, %s in NEW", v->string, x, y);
    }
}

/* compare prints the report comparison and returns the exit status: EXIT_REGRESSION when a
** strata metric regressed or a strata workload newly failed, EXIT_INVALID when nothing could be
** compared, EXIT_OK otherwise. */
static int compare(const report *a, const report *b) {
    notes ns = {0};
    tally t = {0};
    printf("## strata benchmark comparison\n\n");
    print_header(a, "OLD");
    print_header(b, "NEW");
    printf(
        "\n| strata metric | unit | OLD median (min–max) | NEW median (min–max) | change | Δ per unit (µs) "
        "| verdict |\n|---|---|--:|--:|--:|--:|---|\n");
    for (int i = 0; i < b->n_metrics; i++) {
        const metric *m = &b->metrics[i], *o = find_metric(a, m->id);
        if (o == NULL) {
            note(&ns, "only in NEW: %s (%s)", m->id, m->label);
            continue;
        }
        if (m->kind == KIND_OTHER) continue;
        if (o->n == 0 || m->n == 0) {
            if (o->n + m->n > 0)
                note(&ns, "%s (%s): strata figures only in %s", m->id, m->label, o->n ? "OLD" : "NEW");
            continue;
        }
        if (m->kind == KIND_TIME || m->kind == KIND_RATE)
            compare_row(o, m, &t);
        else
            note_change(&ns, o, m);
    }
    for (int i = 0; i < a->n_metrics; i++)
        if (find_metric(b, a->metrics[i].id) == NULL)
            note(&ns, "only in OLD: %s (%s)", a->metrics[i].id, a->metrics[i].label);
    note_failures(&ns, a, b, &t);
    note_environment(&ns, a, b);
    print_notes(&ns);
    putchar('\n');
    if (t.compared == 0) {
        printf("verdict: nothing compared\n");
        fputs("bench/compare: not comparable: no strata time or rate metric has figures in both reports\n",
              stderr);
        return EXIT_INVALID;
    }
    if (t.regressed || t.failed) {
        printf("verdict: REGRESSION");
        if (t.regressed) printf(" in %d of %d strata metrics: %s", t.regressed, t.compared, t.regressions);
        if (t.failed)
            printf("%s%d strata workload(s) failed in NEW only", t.regressed ? "; " : ": ", t.failed);
        putchar('\n');
        return EXIT_REGRESSION;
    }
    printf("verdict: no regression (%d strata metrics compared, %d improved)\n", t.compared, t.improved);
    return EXIT_OK;
}

int main(int argc, char **argv) {
    bench_program = "bench/compare";
    if (argc != 3) {
        fputs("usage: bench/compare OLD.json NEW.json\n", stderr);
        return EXIT_INVALID;
    }
    report a = {.path = argv[1], .role = "OLD"}, b = {.path = argv[2], .role = "NEW"};
    int bad_a = load(&a), bad_b = load(&b); /* both, so that both files' problems are shown */
    int status = EXIT_INVALID;
    if (bad_a == 0 && bad_b == 0 && count_differences(&a, &b) == 0) status = compare(&a, &b);
    report_free(&a);
    report_free(&b);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "bench/compare: writing the output: %s\n", strerror(errno));
        return EXIT_INVALID;
    }
    return status;
}
