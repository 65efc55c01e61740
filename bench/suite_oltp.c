/*
** suite_oltp.c -- OLTP at three sizes (seed 003): not written yet.
*/
#include "harness.h"

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    (void)e, (void)o, (void)dir, (void)phase;
}

static void describe(FILE *out, const options *o) { (void)out, (void)o; }

const suite suite_oltp = {.id = "oltp", .title = "OLTP at three sizes (seed 003)", .run_phase = run_phase, .describe = describe};
