/*
** tests/tsan/criterion/criterion.h -- the part of Criterion's API strata's tests use, for the
** ThreadSanitizer builds (make test TSAN=1).
**
** Criterion's runner cannot start under ThreadSanitizer: its shared arena (BoxFort) maps memory at
** random fixed addresses, which collide with TSan's shadow ranges, and the program aborts with
** "Could not initialize inheritable arena" or a SEGV (Criterion issue 274, open). TSAN=1 builds
** put this folder first on the include path and link tests/tsan/runner.c instead of
** -lcriterion: the same test sources, each Test run in a forked child as Criterion does, its
** .init/.fini (the suite's, then the test's) and .timeout kept; an assertion that fails prints
** file:line and the message and ends the test; cr_expect_* marks it failed and goes on.
** Only what the TSan subset of tests uses is here (see tests/README.md).
*/
#ifndef STRATA_TSAN_CRITERION_H
#define STRATA_TSAN_CRITERION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct criterion_test_extra_data {
    void (*init)(void);
    void (*fini)(void);
    double timeout; /* seconds; 0: none */
    bool disabled;
    const char *description;
};

void mc_register_test(const char *suite, const char *name, void (*fn)(void),
                      const struct criterion_test_extra_data *opts);
void mc_register_suite(const char *suite, const struct criterion_test_extra_data *opts);
/* not format-checked: the message is optional, "" when absent (the real Criterion checks them) */
void mc_fail(bool fatal, const char *file, int line, const char *expr, const char *fmt, ...);
void mc_skip(const char *fmt, ...) __attribute__((noreturn));
void mc_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define Test(suite, name, ...)                                                                      \
    static void suite##_##name##_impl(void);                                                        \
    static const struct criterion_test_extra_data suite##_##name##_opts = {__VA_ARGS__};            \
    __attribute__((constructor)) static void suite##_##name##_reg(void) {                           \
        mc_register_test(#suite, #name, suite##_##name##_impl, &suite##_##name##_opts);             \
    }                                                                                               \
    static void suite##_##name##_impl(void)

#define TestSuite(suite, ...)                                                                       \
    static const struct criterion_test_extra_data suite##_suite_opts = {__VA_ARGS__};               \
    __attribute__((constructor)) static void suite##_suite_reg(void) {                              \
        mc_register_suite(#suite, &suite##_suite_opts);                                             \
    }

/* The optional message: "" glued to the format literal when there is one. */
#define MC_CHECK(fatal, cond, expr, ...) ((cond) ? (void)0 : mc_fail(fatal, __FILE__, __LINE__, expr, "" __VA_ARGS__))

#define cr_assert(c, ...) MC_CHECK(true, (c), #c, __VA_ARGS__)
#define cr_assert_not(c, ...) MC_CHECK(true, !(c), "!(" #c ")", __VA_ARGS__)
#define cr_assert_eq(a, b, ...) MC_CHECK(true, (a) == (b), #a " == " #b, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) MC_CHECK(true, (a) != (b), #a " != " #b, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) MC_CHECK(true, (a) < (b), #a " < " #b, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) MC_CHECK(true, (a) <= (b), #a " <= " #b, __VA_ARGS__)
#define cr_assert_gt(a, b, ...) MC_CHECK(true, (a) > (b), #a " > " #b, __VA_ARGS__)
#define cr_assert_geq(a, b, ...) MC_CHECK(true, (a) >= (b), #a " >= " #b, __VA_ARGS__)
#define cr_assert_null(p, ...) MC_CHECK(true, (p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_assert_not_null(p, ...) MC_CHECK(true, (p) != NULL, #p " != NULL", __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) MC_CHECK(true, strcmp((a), (b)) == 0, #a " equals " #b, __VA_ARGS__)
#define cr_assert_str_neq(a, b, ...) MC_CHECK(true, strcmp((a), (b)) != 0, #a " differs from " #b, __VA_ARGS__)
#define cr_assert_arr_eq(a, b, n, ...) MC_CHECK(true, memcmp((a), (b), (n)) == 0, #a " == " #b " (" #n " bytes)", __VA_ARGS__)
#define cr_assert_fail(...) mc_fail(true, __FILE__, __LINE__, "fail", "" __VA_ARGS__)
#define cr_assert_float_eq(a, b, eps, ...) MC_CHECK(true, (a) - (b) <= (eps) && (b) - (a) <= (eps), #a " == " #b " within " #eps, __VA_ARGS__)
#define cr_expect(c, ...) MC_CHECK(false, (c), #c, __VA_ARGS__)
#define cr_expect_eq(a, b, ...) MC_CHECK(false, (a) == (b), #a " == " #b, __VA_ARGS__)
#define cr_expect_neq(a, b, ...) MC_CHECK(false, (a) != (b), #a " != " #b, __VA_ARGS__)
#define cr_expect_gt(a, b, ...) MC_CHECK(false, (a) > (b), #a " > " #b, __VA_ARGS__)
#define cr_expect_leq(a, b, ...) MC_CHECK(false, (a) <= (b), #a " <= " #b, __VA_ARGS__)
#define cr_expect_null(p, ...) MC_CHECK(false, (p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_expect_not_null(p, ...) MC_CHECK(false, (p) != NULL, #p " != NULL", __VA_ARGS__)
#define cr_expect_str_eq(a, b, ...) MC_CHECK(false, strcmp((a), (b)) == 0, #a " equals " #b, __VA_ARGS__)
/* cr_skip_test ends the test as skipped (exit status 77 of the child). */
#define cr_skip_test(...) mc_skip("" __VA_ARGS__)
#define cr_skip(...) mc_skip("" __VA_ARGS__)
#define cr_log_info(...) mc_log("info", __VA_ARGS__)
#define cr_log_warn(...) mc_log("warn", __VA_ARGS__)
#define cr_log_error(...) mc_log("error", __VA_ARGS__)

#endif
