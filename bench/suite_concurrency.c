/*
** suite_concurrency.c -- Concurrency: one writer, 1 and 4 readers (seed 003): not written yet.
*/
#include "harness.h"

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    (void)e, (void)o, (void)dir, (void)phase;
}

static void describe(FILE *out, const options *o) { (void)out, (void)o; }

const suite suite_concurrency = {.id = "concurrency", .title = "Concurrency: one writer, 1 and 4 readers (seed 003)", .run_phase = run_phase, .describe = describe};
