/*
** bench_common.c -- helpers shared by the benchmark programs; see bench_common.h.
*/
#include "bench_common.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *bench_program = "bench";
const char *current_workload = "setup";
const char *current_engine = "harness";
int peak_reset_works = 1;

void die(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: %s, workload '%s': ", bench_program, current_engine, current_workload);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A uniform number in [0, n) without a division. */
uint64_t below(uint64_t *state, uint64_t n) {
    return (uint64_t)(((unsigned __int128)splitmix64(state) * n) >> 64);
}

uint64_t sum_bytes(const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t s = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        s += w;
    }
    for (; i < n; i++)
        s += b[i];
    return s;
}

/* ---------------------------------------------------------------------------------------------
** Peak memory of one workload: Linux resets the RSS high-water mark on "5" > /proc/self/clear_refs,
** so VmHWM read after a workload is the peak during it (including what the process already held).
*/

/* peak_reset starts a timed workload: it flushes the file data that this and earlier processes
** left dirty (so that the kernel's background writeback of hundreds of megabytes does not run
** during the timed part, whichever engine wrote them), then resets the memory high-water mark. */
void peak_reset(void) {
    sync();
    malloc_trim(0);
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f == NULL || fputs("5", f) < 0) peak_reset_works = 0;
    if (f && fclose(f) != 0) peak_reset_works = 0;
}

double peak_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = NAN;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lf kB", &kib) == 1) break;
    if (f) fclose(f);
    if (isnan(kib)) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        kib = (double)ru.ru_maxrss;
    }
    return kib;
}

double file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size : 0;
}

int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The floor of a durable commit: one 4 KiB pwrite + fdatasync, overwriting a synced file (as a
** reused WAL is) or appending to a new one (as a growing WAL is). */
void floor_open(floor_file *f, const char *path, int blocks) {
    uint64_t seed = 0xF100Fu;
    for (size_t i = 0; i < sizeof f->page; i += 8) {
        uint64_t r = splitmix64(&seed);
        memcpy(f->page + i, &r, 8);
    }
    snprintf(f->path, sizeof f->path, "%s", path);
    f->fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (f->fd < 0) die("open %s: %s", path, strerror(errno));
    for (int i = 0; i < blocks; i++)
        if (pwrite(f->fd, f->page, sizeof f->page, (off_t)i * 4096) != (ssize_t)sizeof f->page)
            die("pwrite: %s", strerror(errno));
    if (fsync(f->fd) != 0) die("fsync: %s", strerror(errno));
}

uint64_t floor_write_ns(floor_file *f, int block) {
    f->page[0] = (uint8_t)block;
    uint64_t t0 = now_ns();
    if (pwrite(f->fd, f->page, sizeof f->page, (off_t)block * 4096) != (ssize_t)sizeof f->page)
        die("pwrite: %s", strerror(errno));
    if (fdatasync(f->fd) != 0) die("fdatasync: %s", strerror(errno));
    return now_ns() - t0;
}

void floor_close(floor_file *f) {
    close(f->fd);
    unlink(f->path);
}

double floor_median_us(const char *path, int preallocate, int writes) {
    if (writes < 1 || writes > FLOOR_WRITES) die("floor: %d writes", writes);
    floor_file f;
    floor_open(&f, path, preallocate ? writes : 0);
    uint64_t lat[FLOOR_WRITES];
    for (int i = 0; i < writes; i++)
        lat[i] = floor_write_ns(&f, i);
    floor_close(&f);
    qsort(lat, (size_t)writes, sizeof lat[0], cmp_u64);
    return (double)(lat[(writes - 1) / 2] + lat[writes / 2]) / 2 / 1e3;
}

/* io_pressure is the share of the last 10 s in which some task waited for I/O (Linux PSI), in
** percent; NAN where the kernel does not report it. Another process's I/O shows up here. */
double io_pressure(void) {
    FILE *f = fopen("/proc/pressure/io", "r");
    double v = NAN;
    if (f && fscanf(f, "some avg10=%lf", &v) != 1) v = NAN;
    if (f) fclose(f);
    return v;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void remove_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

void run_setup(const char *prefix, char *run_dir, size_t run_cap, char *exe, size_t exe_cap) {
    struct stat st;
    if (stat("bench", &st) != 0 || !S_ISDIR(st.st_mode)) die("run from the repository root (no bench/ here)");
    mkdir("bench/tmp", 0755);
    mkdir("bench/results", 0755);
    snprintf(run_dir, run_cap, "bench/tmp/%s-%d", prefix, (int)getpid());
    if (mkdir(run_dir, 0755) != 0) die("mkdir %s: %s", run_dir, strerror(errno));
    ssize_t n = readlink("/proc/self/exe", exe, exe_cap - 1);
    if (n < 0) die("readlink /proc/self/exe: %s", strerror(errno));
    exe[n] = '\0';
}

int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Lower is better for every figure reported. */
const char *verdict(summary a, summary b, int is_size) {
    if (a.n == 0 || b.n == 0) return "n/a";
    if (a.n < 2 || b.n < 2) return "1 sample: none";
    if (a.max < b.min) return is_size ? "smaller" : "faster";
    if (a.min > b.max) return is_size ? "larger" : "slower";
    return is_size && a.min == a.max && b.min == b.max ? "same" : "overlap";
}

/* --- environment ------------------------------------------------------------------------- */

static void read_first_line(const char *cmd, char *out, size_t n) {
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (p == NULL) return;
    if (fgets(out, (int)n, p) == NULL) out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

static char *read_all(const char *cmd) {
    FILE *p = popen(cmd, "r");
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    if (buf == NULL) die("out of memory");
    if (p) {
        size_t n;
        while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0)
            if ((len += n) + 1 == cap && (buf = realloc(buf, cap *= 2)) == NULL) die("out of memory");
        pclose(p);
    }
    buf[len] = '\0';
    return buf;
}

void load_average(char *out, size_t n) {
    FILE *f = fopen("/proc/loadavg", "r");
    out[0] = '\0';
    if (f && fgets(out, (int)n, f)) out[strcspn(out, "\n")] = '\0';
    if (f) fclose(f);
    char *p = out; /* keep the three averages only */
    for (int spaces = 0; *p; p++)
        if (*p == ' ' && ++spaces == 3) *p = '\0';
}

static const char *fs_name(const char *dir) {
    struct statfs sf;
    if (statfs(dir, &sf) != 0) return "unknown";
    switch ((unsigned long)sf.f_type) {
    case 0xEF53: return "ext2/3/4";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x01021994: return "tmpfs";
    case 0x794C7630: return "overlayfs";
    case 0x6969: return "nfs";
    case 0x2FC12FC1: return "zfs";
    case 0xF2F52010: return "f2fs";
    default: return "other";
    }
}

void gather_environment(environment *env, const char *tmp_dir) {
    memset(env, 0, sizeof *env);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(env->date, sizeof env->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strftime(env->stamp, sizeof env->stamp, "%Y-%m-%d", &tm);

    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            char *v = strchr(line, ':') + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            v[strcspn(v, "\n")] = '\0';
            snprintf(env->cpu, sizeof env->cpu, "%s", v);
            break;
        }
    if (f) fclose(f);
    env->cores = sysconf(_SC_NPROCESSORS_ONLN);
    f = fopen("/proc/meminfo", "r");
    double kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %lf kB", &kib) == 1) break;
    if (f) fclose(f);
    env->mem_gib = kib / (1024.0 * 1024.0);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(env->kernel, sizeof env->kernel, "%s %s %s (%s)", u.sysname, u.release, u.machine,
                 u.version);
    snprintf(env->fs, sizeof env->fs, "%s", fs_name(tmp_dir));
    read_first_line("git rev-parse --short HEAD 2>/dev/null", env->commit, sizeof env->commit);
    if (env->commit[0] == '\0') snprintf(env->commit, sizeof env->commit, "unknown");
    env->git_status = read_all("git status --porcelain --untracked-files=no 2>/dev/null");
    load_average(env->load_before, sizeof env->load_before);
}

/* A number for a table cell: grouped thousands when large, 3 significant digits when small. */
void fmt_num(char *out, size_t n, double v) {
    if (isnan(v)) {
        snprintf(out, n, "n/a");
    } else if (fabs(v) >= 1000) {
        char digits[64], *o = out;
        int len = snprintf(digits, sizeof digits, "%.0f", v), lead = len % 3 ? len % 3 : 3;
        for (int i = 0; i < len && (size_t)(o - out) + 2 < n; i++) {
            if (i > 0 && (i - lead) % 3 == 0 && digits[i - 1] != '-') *o++ = ',';
            *o++ = digits[i];
        }
        *o = '\0';
    } else if (fabs(v) >= 100 || v == floor(v)) {
        snprintf(out, n, "%.0f", v);
    } else if (fabs(v) >= 10) {
        snprintf(out, n, "%.1f", v);
    } else {
        snprintf(out, n, "%.2f", v);
    }
}

void fmt_summary(char *out, size_t n, summary s, double scale) {
    char a[40], b[40], c[40];
    if (s.n == 0) {
        snprintf(out, n, "n/a");
        return;
    }
    fmt_num(a, sizeof a, s.median * scale);
    fmt_num(b, sizeof b, s.min * scale);
    fmt_num(c, sizeof c, s.max * scale);
    if (s.min == s.max)
        snprintf(out, n, "%s", a);
    else
        snprintf(out, n, "%s (%s–%s)", a, b, c);
}

void fmt_mib(char *out, size_t n, summary s) {
    if (s.n == 0)
        snprintf(out, n, "–");
    else
        snprintf(out, n, "%.0f", s.median / 1024);
}

void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void json_num(FILE *f, double v) {
    if (isnan(v))
        fputs("null", f);
    else
        fprintf(f, "%.10g", v);
}

summary summary_of(double *v, int n) {
    summary s = {n, NAN, NAN, NAN};
    if (n == 0) return s;
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return s;
}

void result_paths(const char *name, const environment *env, char *md, char *json, size_t n) {
    for (int i = 1;; i++) {
        char suffix[16] = "";
        if (i > 1) snprintf(suffix, sizeof suffix, "-%d", i);
        snprintf(md, n, "bench/results/%s-%s-%s%s.md", name, env->stamp, env->commit, suffix);
        snprintf(json, n, "bench/results/%s-%s-%s%s.json", name, env->stamp, env->commit, suffix);
        if (access(md, F_OK) != 0 && access(json, F_OK) != 0) return;
    }
}

int run_process(const char *const argv[], double *seconds) {
    fflush(NULL);
    uint64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "%s: exec %s: %s\n", bench_program, argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) die("waitpid: %s", strerror(errno));
    *seconds = (double)(now_ns() - t0) / 1e9;
    return status;
}

/* date_text: proleptic Gregorian, H. Hinnant's civil_from_days. */
void date_text(char *out, int32_t days) {
    int z = days + 719468;
    int era = (z >= 0 ? z : z - 146096) / 146097;
    int doe = z - era * 146097;
    int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int y = yoe + era * 400;
    int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int mp = (5 * doy + 2) / 153;
    int d = doy - (153 * mp + 2) / 5 + 1;
    int m = mp + (mp < 10 ? 3 : -9);
    y += m <= 2;
    snprintf(out, 11, "%04u-%02u-%02u", (unsigned)y % 10000u, (unsigned)m % 100u, (unsigned)d % 100u);
}
