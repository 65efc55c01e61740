/*
** suite_joins.c -- Joins (seed 002): not written yet.
*/
#include "harness.h"

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    (void)e, (void)o, (void)dir, (void)phase;
}

static void describe(FILE *out, const options *o) { (void)out, (void)o; }

const suite suite_joins = {.id = "joins", .title = "Joins (seed 002)", .run_phase = run_phase, .describe = describe};
