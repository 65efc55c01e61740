/*
** memory.c -- the memory limit's shares, default and written form (memory.h).
*/
#include "storage/memory.h"

#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#define PAGE_CACHE_MAX ((size_t)64 << 20)
#define MEMORY_LIMIT_MIN ((size_t)1 << 20)

size_t memory_limit_apply(pager *p, segcache *segs, size_t limit) {
    size_t cache = limit / 2 < PAGE_CACHE_MAX ? limit / 2 : PAGE_CACHE_MAX;
    size_t seg_bytes = limit / 8 < SEGMENT_CACHE_MAX ? limit / 8 : SEGMENT_CACHE_MAX;
    pager_set_cache_bytes(p, cache);
    segcache_set_budget(segs, seg_bytes);
    return limit - cache - seg_bytes;
}

size_t memory_limit_default(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psz <= 0) return (size_t)1 << 30;
    return (size_t)((double)pages * (double)psz * 0.8);
}

/* parse_size reads a size as memory_limit_parse describes it, without the minimum. Returns -1
** when the text is not such a size. */
static int parse_size(const char *text, size_t *out) {
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0)) return -1;
    while (*end == ' ') end++;
    static const struct {
        const char *unit;
        double mult;
    } units[] = {
        {"", 1}, {"b", 1}, {"bytes", 1}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
        {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcasecmp(end, units[i].unit)) {
            double bytes = v * units[i].mult;
            if (bytes >= 18e18) return -1;
            *out = (size_t)bytes;
            return 0;
        }
    return -1;
}

int memory_limit_parse(const char *text, size_t *limit, strata_err *err) {
    size_t n;
    if (!text || parse_size(text, &n))
        return err_set(err, STRATA_ERROR,
                       "invalid value for memory_limit: a size such as '512MB' or '2GiB' (units B, KB, MB, GB, TB, "
                       "KiB, MiB, GiB, TiB) was expected");
    if (n < MEMORY_LIMIT_MIN) return err_set(err, STRATA_ERROR, "memory_limit must be at least 1 MiB");
    *limit = n;
    return STRATA_OK;
}
