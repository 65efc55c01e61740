/*
** test_dot.c -- the shell's dot commands and the options that go with them, run as a user runs
** them: the built binary (STRATA_BIN, passed by the Makefile) with arguments and standard input,
** its standard output, standard error, exit status and the files it writes checked exactly.
** .dump is checked by its text and by reading it back into an empty database with .read.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/run_program.h"
#include "helpers/tmpdir.h"

static char tmp[] = "/tmp/strata-dot-XXXXXX";

#include "helpers/shell_run.h"

static void setup(void) { cr_assert_not_null(mkdtemp(tmp)); }
static void teardown(void) { tmpdir_remove(tmp); }

/* output_of runs the shell and returns its standard output (malloc'd), asserting that it
** succeeded without a word on standard error. */
static char *output_of(const char *input, const char *const *args) {
    run_result r = run(input, args);
    cr_assert_eq(r.status, 0, "exit status %d, stderr: %s", r.status, r.err);
    cr_assert_str_eq(r.err, "", "stderr: %s", r.err);
    free(r.err);
    return r.out;
}

TestSuite(dot, .init = setup, .fini = teardown);

/* ---- .dump ------------------------------------------------------------------------------ */

/* A table of every column type with the values that are hard to write back: quotes, newlines,
** tabs and backslashes in text, the empty string, DECIMAL at its scale, doubles that need 17
** digits, the smallest subnormal, -0, NaN and the infinities, bytes that are not text. */
static const char every_type[] =
    "CREATE TABLE v(id INTEGER PRIMARY KEY, s SMALLINT, i INTEGER, b BIGINT, d DOUBLE, m DECIMAL(12,4), "
    "t VARCHAR(40) NOT NULL DEFAULT 'none', f BOOLEAN, day DATE, at TIMESTAMP, bl BLOB, iv INTERVAL);\n"
    "INSERT INTO v VALUES (1, -32768, 2147483647, -9223372036854775807, 0.1, -12345678.1234, 'it''s', true, "
    "DATE '2024-02-29', TIMESTAMP '2024-01-01 10:00:00.5', X'00FF41', INTERVAL '1 year 2 mons 3 days "
    "04:05:06');\n"
    "INSERT INTO v VALUES (2, NULL, NULL, NULL, 0.30000000000000004, 0.0001, 'two\nlines', false, NULL, "
    "NULL, "
    "X'', NULL);\n"
    "INSERT INTO v VALUES (3, 0, 0, 0, 5e-324, 0, 'tab\tand \\ back', NULL, DATE '0001-01-01', NULL, NULL, "
    "NULL);\n"
    "INSERT INTO v VALUES (4, 1, 1, 1, '-0', NULL, '', NULL, NULL, NULL, NULL, NULL);\n"
    "INSERT INTO v VALUES (5, 1, 1, 1, 'NaN', NULL, ' pad ', NULL, NULL, NULL, NULL, NULL);\n"
    "INSERT INTO v VALUES (6, 1, 1, 1, 'Infinity', NULL, 'x', NULL, NULL, NULL, NULL, NULL);\n"
    "INSERT INTO v VALUES (7, 1, 1, 1, '-Infinity', NULL, 'x', NULL, NULL, NULL, NULL, NULL);\n"
    "INSERT INTO v VALUES (8, 1, 1, 1, 1.7976931348623157e308, NULL, 'x', NULL, NULL, NULL, NULL, NULL);\n"
    "INSERT INTO v VALUES (9, 1, 1, 1, 123456789012345678, NULL, 'é日本', NULL, NULL, NULL, NULL, NULL);\n";

static const char every_type_dump[] =
    "BEGIN;\n"
    "CREATE TABLE v(id INTEGER PRIMARY KEY, s SMALLINT, i INTEGER, b BIGINT, d DOUBLE, m DECIMAL(12,4), "
    "t VARCHAR(40) NOT NULL DEFAULT 'none', f BOOLEAN, day DATE, at TIMESTAMP, bl BLOB, iv INTERVAL);\n"
    "INSERT INTO \"v\" VALUES(1,-32768,2147483647,-9223372036854775807,0.10000000000000001,-12345678.1234,"
    "'it''s',true,DATE '2024-02-29',TIMESTAMP '2024-01-01 10:00:00.5',X'00FF41',"
    "INTERVAL '1 year 2 mons 3 days 04:05:06');\n"
    "INSERT INTO \"v\" "
    "VALUES(2,NULL,NULL,NULL,0.30000000000000004,0.0001,'two\nlines',false,NULL,NULL,X'',NULL);\n"
    "INSERT INTO \"v\" VALUES(3,0,0,0,4.9406564584124654e-324,0.0000,'tab\tand \\ back',NULL,DATE "
    "'0001-01-01',"
    "NULL,NULL,NULL);\n"
    "INSERT INTO \"v\" VALUES(4,1,1,1,'-0',NULL,'',NULL,NULL,NULL,NULL,NULL);\n"
    "INSERT INTO \"v\" VALUES(5,1,1,1,'NaN',NULL,' pad ',NULL,NULL,NULL,NULL,NULL);\n"
    "INSERT INTO \"v\" VALUES(6,1,1,1,'Infinity',NULL,'x',NULL,NULL,NULL,NULL,NULL);\n"
    "INSERT INTO \"v\" VALUES(7,1,1,1,'-Infinity',NULL,'x',NULL,NULL,NULL,NULL,NULL);\n"
    "INSERT INTO \"v\" VALUES(8,1,1,1,1.7976931348623157e+308,NULL,'x',NULL,NULL,NULL,NULL,NULL);\n"
    "INSERT INTO \"v\" VALUES(9,1,1,1,1.2345678901234568e+17,NULL,'é日本',NULL,NULL,NULL,NULL,NULL);\n"
    "COMMIT;\n";

/* the values as the shell shows them, and the doubles' bits told apart by arithmetic the
** shortest text could hide: -0 by its sign, the subnormal by doubling */
static const char every_type_query[] =
    ".mode csv\n"
    "SELECT * FROM v ORDER BY id;\n"
    "SELECT id, d * 2 AS twice, d = 0.1::double AS tenth, d = 0.30000000000000004::double AS sum FROM v "
    "WHERE id <= 3 ORDER BY id;\n"
    "SELECT sum(m) AS total, count(bl) AS blobs, sum(length(bl)) AS bytes, max(length(t)) AS longest FROM "
    "v;\n";

static const char every_type_result[] =
    "id,s,i,b,d,m,t,f,day,at,bl,iv\n"
    "1,-32768,2147483647,-9223372036854775807,0.1,-12345678.1234,it's,true,2024-02-29,2024-01-01 10:00:00.5,"
    "\\x00ff41,1 year 2 mons 3 days 04:05:06\n"
    "2,,,,0.30000000000000004,0.0001,\"two\nlines\",false,,,\\x,\n"
    "3,0,0,0,5e-324,0.0000,tab\tand \\ back,,0001-01-01,,,\n"
    "4,1,1,1,-0,,\"\",,,,,\n"
    "5,1,1,1,NaN,,\" pad \",,,,,\n"
    "6,1,1,1,Infinity,,x,,,,,\n"
    "7,1,1,1,-Infinity,,x,,,,,\n"
    "8,1,1,1,1.7976931348623157e+308,,x,,,,,\n"
    "9,1,1,1,1.2345678901234568e+17,,é日本,,,,,\n"
    "id,twice,tenth,sum\n"
    "1,0.2,true,false\n"
    "2,0.6000000000000001,false,true\n"
    "3,1e-323,false,false\n"
    "total,blobs,bytes,longest\n"
    "-12345678.1233,2,3,14\n";

Test(dot, dump_writes_every_type_so_that_read_makes_the_same_values) {
    write_file(path_in("make.sql"), every_type);
    expect_run(NULL, ARGS("a.db", "-f", "make.sql"), 0, "", "");
    expect_run(every_type_query, ARGS("a.db"), 0, every_type_result, "");
    expect_run(".dump\n", ARGS("a.db"), 0, every_type_dump, "");

    expect_run(".output dump.sql\n.dump\n", ARGS("a.db"), 0, "", "");
    char *dumped = read_all(path_in("dump.sql"));
    cr_expect_str_eq(dumped, every_type_dump);
    free(dumped);
    expect_run(".read dump.sql\n", ARGS("b.db"), 0, "", "");
    expect_run(every_type_query, ARGS("b.db"), 0, every_type_result, "");
    expect_run(".dump\n", ARGS("b.db"), 0, every_type_dump, "");
    /* the declared types, the NOT NULL and the DEFAULT came along */
    expect_run("INSERT INTO v(id) VALUES (10);\nINSERT INTO v(id, t) VALUES (11, NULL);\n",
               ARGS("-bail", "b.db"), 1, "",
               "Error: stdin:2: null value in column \"t\" of relation \"v\" violates not-null constraint\n");
    expect_run(
        ".mode list\nSELECT t FROM v WHERE id = 10;\nSELECT CAST(1.23456 AS DECIMAL(12,4)) = 1.2346 AS ok;\n",
        ARGS("b.db"), 0, "t\nnone\nok\ntrue\n", "");
}

/* Several tables made in an order their names do not follow, a foreign key, a UNIQUE and a
** PRIMARY KEY (whose indexes the CREATE TABLE makes), an index on an expression, a view, and a
** table changed by ALTER after its index was made. */
static const char schema_sql[] =
    "CREATE TABLE zparent(id INTEGER PRIMARY KEY, code VARCHAR(8) NOT NULL UNIQUE);\n"
    "CREATE TABLE achild(k BIGINT PRIMARY KEY, pid INTEGER REFERENCES zparent(id), note TEXT);\n"
    "CREATE INDEX achild_pid ON achild(pid);\n"
    "CREATE INDEX achild_lower ON achild(lower(note));\n"
    "CREATE TABLE m(a INTEGER, b TEXT);\n"
    "CREATE INDEX m_a ON m(a);\n"
    "ALTER TABLE m RENAME COLUMN a TO alpha;\n"
    "ALTER TABLE m ADD COLUMN c INTEGER DEFAULT 7;\n"
    "CREATE VIEW notes AS SELECT k, note FROM achild WHERE note IS NOT NULL;\n"
    "INSERT INTO zparent VALUES (1, 'one'), (2, 'two');\n"
    "INSERT INTO achild VALUES (10, 1, 'Ten'), (20, 2, NULL), (30, 1, 'thirty');\n"
    "INSERT INTO m VALUES (1, 'x', 3), (2, 'y', NULL);\n";

static const char schema_dump[] =
    "BEGIN;\n"
    "CREATE TABLE m(a INTEGER, b TEXT);\n"
    "CREATE INDEX m_a ON m(a);\n"
    "ALTER TABLE m RENAME COLUMN a TO alpha;\n"
    "ALTER TABLE m ADD COLUMN c INTEGER DEFAULT 7\n"
    "-- default: 7\n"
    ";\n"
    "INSERT INTO \"m\" VALUES(1,'x',3);\n"
    "INSERT INTO \"m\" VALUES(2,'y',NULL);\n"
    "CREATE TABLE zparent(id INTEGER PRIMARY KEY, code VARCHAR(8) NOT NULL UNIQUE);\n"
    "INSERT INTO \"zparent\" VALUES(1,'one');\n"
    "INSERT INTO \"zparent\" VALUES(2,'two');\n"
    "CREATE TABLE achild(k BIGINT PRIMARY KEY, pid INTEGER REFERENCES zparent(id), note TEXT);\n"
    "INSERT INTO \"achild\" VALUES(10,1,'Ten');\n"
    "INSERT INTO \"achild\" VALUES(20,2,NULL);\n"
    "INSERT INTO \"achild\" VALUES(30,1,'thirty');\n"
    "CREATE INDEX achild_lower ON achild(lower(note));\n"
    "CREATE INDEX achild_pid ON achild(pid);\n"
    "CREATE VIEW notes AS SELECT k, note FROM achild WHERE note IS NOT NULL;\n"
    "COMMIT;\n";

static const char schema_query[] =
    ".mode list\n"
    ".indexes\n"
    "SELECT * FROM notes ORDER BY k;\n"
    "SELECT z.code, count(*) AS n FROM achild a JOIN zparent z ON z.id = a.pid GROUP BY z.code ORDER BY 1;\n"
    "SELECT alpha, b, c FROM m WHERE alpha = 2;\n"
    "PRAGMA integrity_check;\n";

static const char schema_result[] = "name\nachild_lower\nachild_pid\nm_a\nzparent_code_key\n"
                                    "k|note\n10|Ten\n30|thirty\n"
                                    "code|n\none|2\ntwo|1\n"
                                    "alpha|b|c\n2|y|NULL\n"
                                    "integrity_check\nok\n";

Test(dot, dump_of_several_tables_orders_them_by_their_foreign_keys_and_reads_back) {
    write_file(path_in("schema.sql"), schema_sql);
    expect_run(NULL, ARGS("a.db", "-f", "schema.sql"), 0, "", "");
    /* after a reopen the catalog lists the tables by name: achild before zparent, which it needs */
    expect_run(".dump\n", ARGS("a.db"), 0, schema_dump, "");
    expect_run(schema_query, ARGS("a.db"), 0, schema_result, "");

    expect_run(".once dump.sql\n.dump\n", ARGS("a.db"), 0, "", "");
    expect_run(".read dump.sql\n", ARGS("b.db"), 0, "", "");
    expect_run(schema_query, ARGS("b.db"), 0, schema_result, "");
    expect_run(".dump\n", ARGS("b.db"), 0, schema_dump, "");
    /* the constraints hold in the copy: the unique code, the foreign key */
    expect_run("INSERT INTO zparent VALUES (3, 'one');\n", ARGS("b.db"), 1, "",
               "Error: stdin:1: duplicate key value violates unique constraint \"zparent_code_key\"\n"
               "DETAIL: Key (code)=(one) already exists.\n");
    run_result r = run("INSERT INTO achild VALUES (40, 9, 'x');\n", ARGS("b.db"));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "foreign key") != NULL, "stderr: %s", r.err);
    run_free(&r);
    /* .schema shows a constraint's index no more: its CREATE TABLE makes it */
    expect_run(".schema zparent\n", ARGS("b.db"), 0,
               "CREATE TABLE zparent(id INTEGER PRIMARY KEY, code VARCHAR(8) NOT NULL UNIQUE);\n", "");
}

Test(dot, dump_of_one_table_and_of_an_unknown_one) {
    write_file(path_in("schema.sql"), schema_sql);
    expect_run(NULL, ARGS("a.db", "-f", "schema.sql"), 0, "", "");
    expect_run(".dump achild\n", ARGS("a.db"), 0,
               "BEGIN;\n"
               "CREATE TABLE achild(k BIGINT PRIMARY KEY, pid INTEGER REFERENCES zparent(id), note TEXT);\n"
               "INSERT INTO \"achild\" VALUES(10,1,'Ten');\n"
               "INSERT INTO \"achild\" VALUES(20,2,NULL);\n"
               "INSERT INTO \"achild\" VALUES(30,1,'thirty');\n"
               "CREATE INDEX achild_lower ON achild(lower(note));\n"
               "CREATE INDEX achild_pid ON achild(pid);\n"
               "COMMIT;\n",
               "");
    expect_run(".dump notes\n", ARGS("a.db"), 1, "", "Error: stdin:1: no such table: notes\n");
    expect_run(".dump nosuch\n", ARGS("a.db"), 1, "", "Error: stdin:1: no such table: nosuch\n");
    expect_run(".dump a b\n", ARGS("a.db"), 1, "", "Error: stdin:1: usage: .dump [TABLE]\n");
    expect_run(".dump\n", NULL, 0, "BEGIN;\nCOMMIT;\n", "");
}

Test(dot, dump_of_a_quoted_table_name) {
    expect_run("CREATE TABLE \"Odd \"\"name\"(\"x y\" INTEGER);\nINSERT INTO \"Odd \"\"name\" VALUES (1);\n"
               ".dump 'Odd \"name'\n",
               NULL, 0,
               "BEGIN;\n"
               "CREATE TABLE \"Odd \"\"name\"(\"x y\" INTEGER);\n"
               "INSERT INTO \"Odd \"\"name\" VALUES(1);\n"
               "COMMIT;\n",
               "");
}

/* ---- .open ------------------------------------------------------------------------------ */

Test(dot, open_switches_databases_and_a_failure_keeps_the_old_one) {
    expect_run(".open first.db\n"
               "CREATE TABLE t(a INTEGER);\n"
               "INSERT INTO t VALUES (42);\n"
               ".open second.db\n"
               ".tables\n"
               ".open first.db\n"
               "SELECT a FROM t;\n"
               ".open first.db\n" /* the same file again: closed, then opened */
               "SELECT a FROM t;\n",
               ARGS("-list"), 0, "name\na\n42\na\n42\n", "");
    cr_expect_eq(access(path_in("second.db"), F_OK), 0, "second.db was created");
    expect_run(".open first.db\n"
               ".open nodir/x.db\n"
               "SELECT a FROM t;\n"
               ".show\n",
               ARGS("-list"), 1, "",
               "Error: stdin:2: cannot open \"nodir/x.db\": open nodir/x.db: No such file or directory; "
               "\"first.db\" is still open\n");
    expect_run(".bail off\n.open first.db\n.open nodir/x.db\nSELECT a FROM t;\n", ARGS("-list"), 1, "a\n42\n",
               "Error: stdin:3: cannot open \"nodir/x.db\": open nodir/x.db: No such file or directory; "
               "\"first.db\" is still open\n");
    /* without a name: a new in-memory database */
    expect_run(".open\n.tables\nCREATE TABLE m(x INTEGER);\n.open\n.tables\n", ARGS("first.db", "-list"), 0,
               "name\nname\n", "");
    expect_run(".open a b\n", NULL, 1, "", "Error: stdin:1: usage: .open [FILE]\n");
}

/* ---- .output, .once --------------------------------------------------------------------- */

Test(dot, output_and_once_send_results_to_a_file) {
    expect_run(".output out.txt\n"
               "SELECT 1 AS a;\n"
               ".mode\n"
               ".output\n"
               "SELECT 2 AS b;\n"
               ".once once.txt\n"
               "SELECT 3 AS c;\n"
               "SELECT 4 AS d;\n"
               ".once once2.txt\n"
               ".tables\n"
               "SELECT 5 AS e;\n"
               ".output stdout\n",
               ARGS("-list"), 0, "b\n2\nd\n4\ne\n5\n", "");
    char *out = read_all(path_in("out.txt")), *once = read_all(path_in("once.txt")),
         *once2 = read_all(path_in("once2.txt"));
    cr_expect_str_eq(out, "a\n1\ncurrent output mode: list\n");
    cr_expect_str_eq(once, "c\n3\n");
    cr_expect_str_eq(once2, "name\n");
    free(out);
    free(once);
    free(once2);
    /* .output truncates; its results stay in the file when the shell ends */
    expect_run(".output out.txt\nSELECT 6 AS f;\n", ARGS("-list"), 0, "", "");
    out = read_all(path_in("out.txt"));
    cr_expect_str_eq(out, "f\n6\n");
    free(out);
}

Test(dot, output_to_an_unwritable_path_is_an_error_and_output_stays) {
    expect_run(".bail off\n.output nodir/x.txt\nSELECT 1 AS a;\n.once nodir/y.txt\nSELECT 2 AS b;\n",
               ARGS("-list"), 1, "a\n1\nb\n2\n",
               "Error: stdin:2: cannot write \"nodir/x.txt\": No such file or directory\n"
               "Error: stdin:4: cannot write \"nodir/y.txt\": No such file or directory\n");
    expect_run(".output /dev/full\nSELECT 1 AS a;\n.output\nSELECT 2 AS b;\n", ARGS("-list"), 1, "",
               "Error: cannot write \"/dev/full\": No space left on device\n");
    expect_run(".once\n", NULL, 1, "", "Error: stdin:1: usage: .once FILE\n");
}

/* ---- .indexes --------------------------------------------------------------------------- */

Test(dot, indexes_lists_index_names) {
    const char *make = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE, c INTEGER);\n"
                       "CREATE INDEX t_c ON t(c);\n"
                       "CREATE TABLE u(x INTEGER);\n"
                       "CREATE INDEX u_x ON u(x);\n"
                       ".mode list\n";
    char in[1024];
    snprintf(in, sizeof in, "%s.indexes\n.indexes u\n.indexes t\n.headers off\n.indexes nosuch\n", make);
    expect_run(in, NULL, 1, "name\nt_b_key\nt_c\nu_x\nname\nu_x\nname\nt_b_key\nt_c\n",
               "Error: stdin:10: no such table: nosuch\n");
}

/* ---- .nullvalue, .headers, .width ------------------------------------------------------- */

Test(dot, nullvalue_shows_null_in_every_mode_but_json) {
    const char *q = "SELECT NULL AS a, 1 AS b;\n";
    char in[1024];
    snprintf(in, sizeof in, ".nullvalue (none)\n%s.mode csv\n%s.mode line\n%s.mode list\n%s.mode json\n%s", q,
             q, q, q, q);
    expect_run(in, NULL, 0,
               "┌────────┬───┐\n"
               "│   a    │ b │\n"
               "├────────┼───┤\n"
               "│ (none) │ 1 │\n"
               "└────────┴───┘\n"
               "a,b\n(none),1\n"
               "a = (none)\nb = 1\n"
               "a|b\n(none)|1\n"
               "[{\"a\":null,\"b\":1}]\n",
               "");
    /* text that CSV must quote is quoted; '' makes NULL an empty field everywhere */
    expect_run(".mode csv\n.nullvalue 'a,b'\nSELECT NULL AS x;\n.nullvalue ''\n.mode list\nSELECT NULL AS x, "
               "2 AS y;\n",
               NULL, 0, "x\n\"a,b\"\nx|y\n|2\n", "");
    expect_run(".nullvalue\n", NULL, 1, "", "Error: stdin:1: usage: .nullvalue TEXT\n");
}

Test(dot, headers_apply_to_table_csv_and_list_mode) {
    const char *q = "SELECT 1 AS a, 'x' AS b;\n";
    char in[1024];
    snprintf(in, sizeof in, ".headers off\n%s.mode csv\n%s.mode list\n%s.headers on\n%s", q, q, q, q);
    expect_run(in, NULL, 0,
               "┌───┬───┐\n"
               "│ 1 │ x │\n"
               "└───┴───┘\n"
               "1,x\n"
               "1|x\n"
               "a|b\n1|x\n",
               "");
    expect_run(".headers maybe\n", NULL, 1, "", "Error: stdin:1: usage: .headers on|off\n");
}

Test(dot, width_fixes_table_columns_and_zero_fits_the_values) {
    expect_run(".width 4 0 -6\n"
               "SELECT 'abcdef' AS long_name, 'x' AS b, 'y' AS c, 42 AS n;\n"
               ".width\n"
               "SELECT 'abcdef' AS long_name;\n",
               NULL, 0,
               "┌──────┬───┬────────┬────┐\n"
               "│ lon… │ b │   c    │ n  │\n"
               "├──────┼───┼────────┼────┤\n"
               "│ abc… │ x │      y │ 42 │\n"
               "└──────┴───┴────────┴────┘\n"
               "┌───────────┐\n"
               "│ long_name │\n"
               "├───────────┤\n"
               "│ abcdef    │\n"
               "└───────────┘\n",
               "");
    char many[512] = ".width";
    for (int i = 0; i < 63; i++)
        strcat(many, " 1");
    expect_run(many, NULL, 1, "", "Error: stdin:1: .width: too many arguments (at most 62)\n");
    many[strlen(many) - 2] = '\0'; /* 62 widths */
    strcat(many, "\nSELECT 1 AS a;\n");
    expect_run(many, ARGS("-noheader"), 0, "┌───┐\n│ 1 │\n└───┘\n", "");
    expect_run(
        ".width 3 x\n", NULL, 1, "",
        "Error: stdin:1: usage: .width N1 N2 ... (integers from -10000 to 10000; 0: fit the values)\n");
}

/* ---- .bail, -bail ----------------------------------------------------------------------- */

Test(dot, bail_is_on_outside_a_terminal_and_off_keeps_going_with_status_1) {
    const char *script = "SELECT 1 AS a;\nSELEC;\nSELECT 2 AS b;\n";
    const char *err2 =
        "Error: stdin:2: syntax error at line 1, column 1: expected a statement such as SELECT, "
        "INSERT or CREATE, found \"SELEC\"\nSELEC;\n^\n";
    expect_run(script, ARGS("-list"), 1, "a\n1\n", err2);
    expect_run(script, ARGS("-list", "-bail"), 1, "a\n1\n", err2);
    char in[256];
    snprintf(in, sizeof in, ".bail off\n%s", script);
    const char *err3 =
        "Error: stdin:3: syntax error at line 1, column 1: expected a statement such as SELECT, "
        "INSERT or CREATE, found \"SELEC\"\nSELEC;\n^\n";
    expect_run(in, ARGS("-list"), 1, "a\n1\nb\n2\n", err3);
    /* -c after -c: off goes on to the next, on stops */
    expect_run(NULL, ARGS("-list", "-c", ".bail off", "-c", "SELECT nope", "-c", "SELECT 3 AS c"), 1,
               "c\n3\n", "Error: line 1, column 8: column \"nope\" does not exist\nSELECT nope\n       ^\n");
    expect_run(NULL, ARGS("-list", "-c", "SELECT nope", "-c", "SELECT 3 AS c"), 1, "",
               "Error: line 1, column 8: column \"nope\" does not exist\nSELECT nope\n       ^\n");
    /* in a .read file as well */
    write_file(path_in("bad.sql"), "SELECT 1 AS a;\nSELECT nope;\nSELECT 2 AS b;\n");
    expect_run(
        ".bail off\n.read bad.sql\nSELECT 3 AS c;\n", ARGS("-list"), 1, "a\n1\nb\n2\nc\n3\n",
        "Error: bad.sql:2: line 1, column 8: column \"nope\" does not exist\nSELECT nope;\n       ^\n");
    expect_run(
        ".read bad.sql\nSELECT 3 AS c;\n", ARGS("-list"), 1, "a\n1\n",
        "Error: bad.sql:2: line 1, column 8: column \"nope\" does not exist\nSELECT nope;\n       ^\n");
    expect_run(".bail maybe\n", NULL, 1, "", "Error: stdin:1: usage: .bail on|off\n");
}

/* ---- .changes --------------------------------------------------------------------------- */

Test(dot, changes_prints_the_rows_each_change_made) {
    expect_run("CREATE TABLE t(a INTEGER);\n"
               "INSERT INTO t VALUES (1);\n"
               ".changes on\n"
               "INSERT INTO t VALUES (2), (3), (4);\n"
               "UPDATE t SET a = a + 10 WHERE a > 2;\n"
               "SELECT count(*) AS n FROM t;\n"
               "-- a comment first\n"
               "DELETE FROM t WHERE a = 99;\n"
               "DELETE FROM t;\n"
               ".changes off\n"
               "INSERT INTO t VALUES (5);\n"
               ".changes on\n"
               "INSERT INTO t VALUES (6);\n",
               ARGS("-list"), 0,
               "changes: 3   total_changes: 4\n"
               "changes: 2   total_changes: 6\n"
               "n\n4\n"
               "changes: 0   total_changes: 6\n"
               "changes: 4   total_changes: 10\n"
               "changes: 1   total_changes: 12\n",
               "");
}

/* ---- .echo, -echo ----------------------------------------------------------------------- */

Test(dot, echo_prints_each_statement_and_dot_command_before_it_runs) {
    expect_run(
        "SELECT 1 AS a;   SELECT 2 AS b;\n.mode csv\nSELECT 3\n  AS c;\n.echo off\nSELECT 4 AS d;\n",
        ARGS("-echo", "-list"), 0,
        "SELECT 1 AS a;\na\n1\nSELECT 2 AS b;\nb\n2\n.mode csv\nSELECT 3\n  AS c;\nc\n3\n.echo off\nd\n4\n",
        "");
    expect_run(".echo on\nSELECT 1 AS a;\n", ARGS("-list"), 0, "SELECT 1 AS a;\na\n1\n", "");
}

/* ---- .show, .help, usage ---------------------------------------------------------------- */

Test(dot, show_lists_the_settings) {
    expect_run(".show\n", NULL, 0,
               "        bail: on\n"
               "     changes: off\n"
               "        echo: off\n"
               "     headers: on\n"
               "        mode: table\n"
               "   nullvalue: \"NULL\" (\"\" in csv, null in json)\n"
               "      output: stdout\n"
               "       timer: off\n"
               "       width: fit to the values\n"
               "    filename: :memory:\n",
               "");
    expect_run(".bail off\n.changes on\n.headers off\n.mode csv\n.nullvalue 'say \"x\"'\n.timer on\n"
               ".width 5 -3 0\n.once s.txt\n.show\n",
               ARGS("-echo", "db.strata"), 0,
               ".bail off\n.changes on\n.headers off\n.mode csv\n.nullvalue 'say \"x\"'\n.timer on\n"
               ".width 5 -3 0\n.once s.txt\n",
               "");
    char *shown = read_all(path_in("s.txt"));
    cr_expect_str_eq(shown, ".show\n"
                            "        bail: off\n"
                            "     changes: on\n"
                            "        echo: on\n"
                            "     headers: off\n"
                            "        mode: csv\n"
                            "   nullvalue: \"say \\\"x\\\"\"\n"
                            "      output: s.txt (for the next command)\n"
                            "       timer: on\n"
                            "       width: 5 -3 0\n"
                            "    filename: db.strata\n");
    free(shown);
}

Test(dot, help_and_usage_list_the_new_commands_and_options) {
    char *help = output_of(".help\n", NULL);
    const char *commands[] = {".bail on|off",     ".changes on|off", ".dump [TABLE]",   ".echo on|off",
                              ".indexes [TABLE]", ".nullvalue TEXT", ".once FILE",      ".open [FILE]",
                              ".output [FILE]",   ".show",           ".width N1 N2 ..."};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        cr_expect(strstr(help, commands[i]) != NULL, "%s missing from .help:\n%s", commands[i], help);
    free(help);
    char *usage = output_of(NULL, ARGS("-help"));
    cr_expect(strstr(usage, "\n  -bail ") && strstr(usage, "\n  -echo "), "usage:\n%s", usage);
    free(usage);
}

/* At a terminal (a pseudo-terminal from util-linux's script) an error brings the prompt back,
** unless bail is on: then the shell ends with status 1 and the statements typed after the error
** do not run. The terminal echoes the typed lines in its own time, so the check is on the
** result rows and the status, which only the shell writes. */
static run_result run_at_terminal(const char *input, const char *options) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "HOME=. %s %s; echo status=$?", STRATA_BIN, options);
    return run_program(tmp, ARGS("/usr/bin/script", "-qec", cmd, "/dev/null"), input);
}

Test(dot, bail_at_a_terminal_ends_the_shell_at_the_first_error) {
    if (access("/usr/bin/script", X_OK) != 0)
        cr_skip_test("no /usr/bin/script (util-linux) for a pseudo-terminal");
    const char *typed = "SELEC;\nSELECT 41 + 1 AS answer;\n.quit\n";
    run_result r = run_at_terminal(typed, "-list");
    cr_expect(strstr(r.out, "answer\r\n42\r\n") && strstr(r.out, "status=0"), "output:\n%s", r.out);
    run_free(&r);
    r = run_at_terminal(typed, "-list -bail");
    cr_expect(!strstr(r.out, "answer\r\n42\r\n") && strstr(r.out, "found \"SELEC\"") &&
                  strstr(r.out, "status=1"),
              "output:\n%s", r.out);
    run_free(&r);
    r = run_at_terminal(".bail on\nSELEC;\nSELECT 41 + 1 AS answer;\n.quit\n", "-list");
    cr_expect(!strstr(r.out, "answer\r\n42\r\n") && strstr(r.out, "status=1"), "output:\n%s", r.out);
    run_free(&r);
}
