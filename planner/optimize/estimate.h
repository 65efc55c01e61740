/*
** estimate.h -- cardinality estimates: how many rows each operator of a bound plan produces,
** from the table statistics (stats.h), for EXPLAIN and for the optimizer's choices (join order,
** a hash join's build side).
**
** The estimates follow the textbook model (System R, as PostgreSQL and DuckDB refine it): values
** uniform between min and max, columns independent, every key of a join's smaller side finding a
** partner. Where the statistics say nothing the defaults below apply; a table never analyzed
** counts DEFAULT_TABLE_ROWS rows.
**
**   equality with a constant  1 / distinct            (no statistics: SEL_EQ_DEFAULT)
**   range with a constant     linear interpolation between min and max, for numbers, DATE and
**                             TIMESTAMP, the distinct values taken as evenly spaced points (so
**                             x < 25 of the integers 0..99 is 25 %, not 25.25 %); ranges on one
**                             column in an AND are intersected first
**                             (otherwise, and for strings or parameters: SEL_RANGE_DEFAULT)
**   IS NULL                   NULL count / rows       (no statistics: SEL_NULL_DEFAULT)
**   IN (list of n)            n / distinct, at most 1
**   LIKE                      SEL_LIKE_DEFAULT (a prefix or not: the pattern is not analyzed)
**   NOT p                     1 - sel(p);  <> and NOT IN likewise
**   p AND q AND ...           s1 * s2 * ... as if independent (PostgreSQL's rule; an exponential
**                             backoff overestimated TPC-H's independent filters up to 10×)
**   p OR q                    s1 + s2 - s1 * s2
**   anything else             SEL_DEFAULT
**   equi-join                 |L| * |R| / max(distinct(l), distinct(r)), a side's distinct count over
**                             several keys the product of theirs, at most its rows;
**                             LEFT/RIGHT/FULL keep at least their preserved sides
**   semi / anti join          |L| * min(1, distinct(r) / distinct(l)), and the rest
**   GROUP BY / DISTINCT       the product of the keys' distinct counts, at most the input
**                             (a key whose count is unknown: DISTINCT_DEFAULT_FRACTION of it)
**   LIMIT, top-N              at most the limit;  UNION ALL: the sum; INTERSECT: the smaller
*/
#ifndef STRATA_ESTIMATE_H
#define STRATA_ESTIMATE_H

#include "exec/plan.h"

#define DEFAULT_TABLE_ROWS 1000.0
#define SEL_EQ_DEFAULT 0.1
#define SEL_RANGE_DEFAULT (1.0 / 3.0)
#define SEL_NULL_DEFAULT 0.05
#define SEL_LIKE_DEFAULT 0.1
#define SEL_DEFAULT (1.0 / 3.0)
#define DISTINCT_DEFAULT_FRACTION 0.1

/* estimate_plan sets est_rows of p and of every operator below it. */
void estimate_plan(plan_op *p);

/* estimate_selectivity returns the estimated fraction (0..1) of the rows of `input` (whose
** est_rows is set) for which pred, an expression over input's output columns, is true. */
double estimate_selectivity(const expr *pred, const plan_op *input);

/* estimate_distinct returns the estimated number of distinct values of e over the rows p
** produces (p's est_rows set): from the statistics of the table column e comes from, else
** DISTINCT_DEFAULT_FRACTION of the rows; never more than p's rows. */
double estimate_distinct(const expr *e, const plan_op *p);

/* estimate_table_rows returns the rows td is estimated to hold: its statistics' count plus the
** rows inserted since, else DEFAULT_TABLE_ROWS. */
double estimate_table_rows(const table_def *td);

#endif
