/*
** vec_test.h -- small helpers shared by the vector layer's tests.
*/
#ifndef STRATA_TEST_VEC_TEST_H
#define STRATA_TEST_VEC_TEST_H

#include <criterion/criterion.h>

#include "../../vector/vector.h"

/* T is the plain type of an id (no precision, scale or length). */
static inline sql_type T(sql_type_id id) {
    sql_type t = {.id = (uint8_t)id};
    return t;
}

/* init_vec initializes v for type id, failing the test on error. */
static inline void init_vec(vector *v, sql_type_id id) {
    strata_err err = {0};
    cr_assert_eq(vec_init(v, T(id), &err), STRATA_OK, "%s", err.msg);
}

#endif
