/*
** suite_kv.c -- Key-value phases (seed 004): not written yet.
*/
#include "harness.h"

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    (void)e, (void)o, (void)dir, (void)phase;
}

static void describe(FILE *out, const options *o) { (void)out, (void)o; }

const suite suite_kv = {.id = "kv", .title = "Key-value phases (seed 004)", .run_phase = run_phase, .describe = describe};
