/*
** expect.h -- assertions on a call's status and error message, for tests of functions that
** report errors through a `strata_err err` in scope (the test file declares it).
*/
#ifndef STRATA_TEST_EXPECT_H
#define STRATA_TEST_EXPECT_H

#include <criterion/criterion.h>

/* EXPECT_OK asserts that expr returns STRATA_OK, showing the message otherwise. */
#define EXPECT_OK(expr)                                                                                      \
    do {                                                                                                     \
        err_clear(&err);                                                                                     \
        int rc_ = (expr);                                                                                    \
        cr_assert_eq(rc_, STRATA_OK, "%s failed: %s", #expr, err.msg);                                       \
    } while (0)

/* EXPECT_ERR asserts that expr returns STRATA_ERROR with exactly the message text. */
#define EXPECT_ERR(expr, text)                                                                               \
    do {                                                                                                     \
        err_clear(&err);                                                                                     \
        int rc_ = (expr);                                                                                    \
        cr_assert_eq(rc_, STRATA_ERROR, "%s: expected an error, got %d", #expr, rc_);                        \
        cr_assert_str_eq(err.msg, text, "%s", #expr);                                                        \
        err_clear(&err);                                                                                     \
    } while (0)

#endif
