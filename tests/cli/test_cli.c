/*
** test_cli.c -- the strata shell, run as a user runs it: the built binary (STRATA_BIN, passed by
** the Makefile) with arguments and standard input, its standard output, standard error and exit
** status checked exactly.
*/
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/run_program.h"
#include "helpers/tmpdir.h"

static char tmp[] = "/tmp/strata-cli-XXXXXX";

#include "helpers/shell_run.h"

static void setup(void) { cr_assert_not_null(mkdtemp(tmp)); }
static void teardown(void) { tmpdir_remove(tmp); }

static const char *sample =
    "CREATE TABLE t(a INTEGER, b TEXT, c DECIMAL(5,2));"
    "INSERT INTO t VALUES (1, 'one', 1.5), (22, 'two, \"q\"', NULL), (NULL, 'x\ny', -3.25);";

static char *with_sample(const char *query) {
    static char sql[1024];
    snprintf(sql, sizeof sql, "%s%s", sample, query);
    return sql;
}

TestSuite(cli, .init = setup, .fini = teardown);

Test(cli, table_mode_is_boxed_with_numbers_right_aligned) {
    expect_run(NULL, ARGS("-c", with_sample("SELECT * FROM t")), 0,
               "┌──────┬──────────┬───────┐\n"
               "│  a   │    b     │   c   │\n"
               "├──────┼──────────┼───────┤\n"
               "│    1 │ one      │  1.50 │\n"
               "│   22 │ two, \"q\" │  NULL │\n"
               "│ NULL │ x\\ny     │ -3.25 │\n"
               "└──────┴──────────┴───────┘\n",
               "");
}

Test(cli, table_mode_without_header_and_with_no_rows) {
    expect_run(NULL, ARGS("-noheader", "-c", "SELECT 1 AS a, 'xy' AS b"), 0,
               "┌───┬────┐\n"
               "│ 1 │ xy │\n"
               "└───┴────┘\n",
               "");
    expect_run(NULL, ARGS("-c", "SELECT 1 AS long_name WHERE false"), 0,
               "┌───────────┐\n"
               "│ long_name │\n"
               "└───────────┘\n",
               "");
    expect_run(NULL, ARGS("-c", "SELECT 'é日本' AS x"), 0,
               "┌───────┐\n"
               "│   x   │\n"
               "├───────┤\n"
               "│ é日本 │\n"
               "└───────┘\n",
               "");
}

Test(cli, table_mode_streams_past_its_buffer_to_the_widths_it_chose) {
    run_result r = run(NULL, ARGS("-c", "SELECT i, CASE WHEN i > 10000 THEN 'longer' ELSE 'ab' END AS s "
                                        "FROM generate_series(1, 10002) t(i)"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *end = "│ 10000 │ ab │\n"
                      "│ 10001 │ l… │\n"
                      "│ 10002 │ l… │\n"
                      "└───────┴────┘\n";
    size_t n = strlen(r.out), m = strlen(end);
    cr_assert(n > m && strcmp(r.out + n - m, end) == 0, "output ends:\n%s", r.out + (n > 200 ? n - 200 : 0));
    run_free(&r);
}

Test(cli, csv_mode_quotes_as_rfc_4180) {
    expect_run(NULL, ARGS("-csv", "-c", with_sample("SELECT *, a > 1 AS big, ' pad' AS p FROM t")), 0,
               "a,b,c,big,p\n"
               "1,one,1.50,false,\" pad\"\n"
               "22,\"two, \"\"q\"\"\",,true,\" pad\"\n"
               ",\"x\ny\",-3.25,,\" pad\"\n",
               "");
    expect_run(NULL, ARGS("-csv", "-noheader", "-c", "SELECT 1 AS a, 'b' AS b"), 0, "1,b\n", "");
}

Test(cli, json_mode_is_an_array_of_objects) {
    expect_run(
        NULL,
        ARGS("-json", "-c", with_sample("SELECT *, a > 1 AS big, E'tab\\there\\\\' AS \"k\"\"ey\" FROM t")),
        0,
        "[{\"a\":1,\"b\":\"one\",\"c\":1.50,\"big\":false,\"k\\\"ey\":\"tab\\there\\\\\"},\n"
        "{\"a\":22,\"b\":\"two, \\\"q\\\"\",\"c\":null,\"big\":true,\"k\\\"ey\":\"tab\\there\\\\\"},\n"
        "{\"a\":null,\"b\":\"x\\ny\",\"c\":-3.25,\"big\":null,\"k\\\"ey\":\"tab\\there\\\\\"}]\n",
        "");
    expect_run(NULL, ARGS("-json", "-c", "SELECT 1 AS a WHERE false"), 0, "[]\n", "");
    expect_run(NULL, ARGS("-json", "-c", "SELECT 2.5::double AS d, DATE '2024-02-29' AS day"), 0,
               "[{\"d\":2.5,\"day\":\"2024-02-29\"}]\n", "");
}

Test(cli, line_mode_names_each_value) {
    expect_run(
        NULL, ARGS("-line", "-c", with_sample("SELECT a, b AS bee FROM t WHERE a IS NOT NULL ORDER BY a")), 0,
        "  a = 1\n"
        "bee = one\n"
        "\n"
        "  a = 22\n"
        "bee = two, \"q\"\n",
        "");
}

Test(cli, list_mode_separates_with_bars) {
    expect_run(NULL, ARGS("-list", "-c", with_sample("SELECT a, b FROM t WHERE b <> 'x\ny' ORDER BY a")), 0,
               "a|b\n"
               "1|one\n"
               "22|two, \"q\"\n",
               "");
    expect_run(NULL, ARGS("-list", "-noheader", "-c", "SELECT NULL AS a, 'z' AS b"), 0, "NULL|z\n", "");
}

Test(cli, statements_without_rows_print_nothing) { expect_run(NULL, ARGS("-c", sample), 0, "", ""); }

Test(cli, an_error_stops_with_the_positioned_message_and_status_1) {
    expect_run(NULL, ARGS("-list", "-c", "SELECT 1; SELEC 2; SELECT 3"), 1, "?column?\n1\n",
               "Error: syntax error at line 1, column 1: expected a statement such as SELECT, INSERT or "
               "CREATE, found \"SELEC\"\n"
               "SELEC 2; SELECT 3\n"
               "^\n");
    expect_run(NULL, ARGS("-c", "SELECT 1/0"), 1, "",
               "Error: line 1, column 9: division by zero\n"
               "SELECT 1/0\n"
               "        ^\n");
}

Test(cli, stdin_statements_span_lines_and_semicolons_hide_in_literals_and_comments) {
    expect_run("SELECT 1 AS a;\n"
               "-- a comment; with a semicolon\n"
               "SELECT 'x;\ny' AS \"b;\"\n"
               ", E'it\\'s;' AS c; /* ; /* nested; */ ; */ SELECT\n"
               "2 AS last\n",
               ARGS("-list"), 0,
               "a\n1\n"
               "b;|c\nx;\ny|it's;\n"
               "last\n2\n",
               "");
}

Test(cli, stdin_error_names_the_line_and_stops) {
    expect_run("SELECT 1 AS a;\n\nSELECT nme;\nSELECT 3 AS never;\n", ARGS("-csv"), 1, "a\n1\n",
               "Error: stdin:3: line 1, column 8: column \"nme\" does not exist\n"
               "SELECT nme;\n"
               "       ^\n");
}

Test(cli, script_file_with_dot_commands) {
    write_file(path_in("script.sql"), "CREATE TABLE s(k INTEGER, v TEXT);\n"
                                      "INSERT INTO s VALUES (1, 'a'), (2, 'b');\n"
                                      ".mode csv\n"
                                      "SELECT * FROM s ORDER BY k;\n"
                                      ".headers off\n"
                                      ".mode list\n"
                                      "SELECT v, k FROM s ORDER BY k DESC;\n"
                                      ".mode\n");
    expect_run(NULL, ARGS("-f", "script.sql"), 0, "k,v\n1,a\n2,b\nb|2\na|1\ncurrent output mode: list\n", "");
}

Test(cli, script_file_error_names_file_and_line) {
    write_file(path_in("bad.sql"), "SELECT 1 AS a;\n.bogus\nSELECT 2;\n");
    expect_run(NULL, ARGS("-list", "-f", "bad.sql"), 1, "a\n1\n",
               "Error: bad.sql:2: unknown command \".bogus\"; .help lists the commands\n");
    expect_run(NULL, ARGS("-f", "missing.sql"), 1, "",
               "Error: cannot open \"missing.sql\": No such file or directory\n");
}

Test(cli, read_runs_a_file_and_quit_ends_the_shell) {
    write_file(path_in("inc.sql"), "SELECT 'from inc' AS src;\n");
    expect_run(".mode list\n.read inc.sql\nSELECT 'after' AS src;\n.quit\nSELECT 'never';\n", NULL, 0,
               "src\nfrom inc\nsrc\nafter\n", "");
}

Test(cli, timer_prints_the_run_time) {
    run_result r = run(".timer on\nSELECT 1 AS a;\n.timer off\nSELECT 2 AS b;\n", ARGS("-list"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    char seconds[16];
    cr_assert_eq(sscanf(r.out, "a\n1\nRun Time: real %15s\nb\n2\n", seconds), 1, "output:\n%s", r.out);
    cr_expect(strlen(seconds) >= 5 && seconds[strlen(seconds) - 4] == '.', "seconds %s", seconds);
    cr_expect(strstr(r.out, "\nb\n2\n") != NULL, "output:\n%s", r.out);
    run_free(&r);
}

Test(cli, help_tables_and_schema) {
    run_result r = run(".help\n", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, ".mode [MODE]") && strstr(r.out, ".timer on|off") && strstr(r.out, ".read FILE"),
              "help:\n%s", r.out);
    run_free(&r);
    expect_run(
        "CREATE TABLE zeta(a INTEGER);\nCREATE TABLE alpha(b TEXT);\nCREATE VIEW v AS SELECT a FROM zeta;\n"
        ".mode list\n.tables\n",
        NULL, 0, "name\nalpha\nv\nzeta\n", "");
    expect_run("CREATE TABLE t(a INTEGER);\nCREATE INDEX ta ON t(a);\n.schema t\n", NULL, 0,
               "CREATE TABLE t(a INTEGER);\nCREATE INDEX ta ON t(a);\n", "");
    expect_run(".schema nosuch\n", NULL, 0, "", "");
    expect_run(NULL, ARGS("-c", ".mode xml"), 1, "", "Error: usage: .mode table|csv|json|line|list\n");
}

Test(cli, database_file_and_positional_sql_persist) {
    expect_run(NULL, ARGS("db.strata", "CREATE TABLE p(x INTEGER); INSERT INTO p VALUES (7)"), 0, "", "");
    expect_run(NULL, ARGS("-csv", "db.strata", "SELECT x * 6 AS y FROM p"), 0, "y\n42\n", "");
    expect_run("SELECT count(*) AS n FROM p;", ARGS("-json", "db.strata"), 0, "[{\"n\":1}]\n", "");
}

Test(cli, bad_options_are_refused) {
    run_result r = run(NULL, ARGS("-bogus"));
    cr_expect_eq(r.status, 1);
    cr_expect(strncmp(r.err, "Error: unknown option -bogus\nusage: strata", 42) == 0, "stderr:\n%s", r.err);
    run_free(&r);
    expect_run(NULL, ARGS("-c"), 1, "", "Error: -c needs an argument\n");
    expect_run(NULL, ARGS("a.db", "SELECT 1", "extra"), 1, "",
               "Error: too many arguments (extra); quote the SQL as one argument\n");
}

Test(cli, import_creates_a_typed_table_from_the_header_and_detects_the_delimiter) {
    write_file(path_in("items.csv"), "id;name;price;day\n1;a;1.5;2024-01-01\n2;\"b;c\";2;2024-01-02\n3;;;\n");
    expect_run(".import items.csv items\n.schema items\n.mode csv\nSELECT * FROM items ORDER BY id;\n", NULL, 0,
               "CREATE TABLE \"items\"(\"id\" BIGINT, \"name\" VARCHAR, \"price\" DOUBLE, \"day\" DATE);\n"
               "id,name,price,day\n1,a,1.5,2024-01-01\n2,b;c,2,2024-01-02\n3,,,\n",
               "");
}

Test(cli, import_into_an_existing_table_skips_a_matching_header_only) {
    write_file(path_in("with.csv"), "K,V\n1,x\n");
    write_file(path_in("without.tbl"), "2|y|\n3|z|\n");
    expect_run("CREATE TABLE kv(k INTEGER, v TEXT);\n.import with.csv kv\n.import without.tbl kv\n"
               ".mode list\nSELECT k, v FROM kv ORDER BY k;\n",
               NULL, 0, "k|v\n1|x\n2|y\n3|z\n", "");
}

Test(cli, import_errors_leave_nothing_behind) {
    write_file(path_in("bad.csv"), "a,b\n1,2\n3\n");
    expect_run(".import bad.csv nums\n", NULL, 1, "",
               "Error: stdin:1: file 'bad.csv': CSV line 3, column 2 (b): too few fields: expected 2, found 1\n");
    /* the table was not created: its CREATE went with the failed load */
    expect_run(".mode list\nSELECT count(*) AS n FROM strata_catalog WHERE name = 'nums';\n", NULL, 0, "n\n0\n", "");
    expect_run(".import missing.csv t\n", NULL, 1, "", "Error: stdin:1: cannot open \"missing.csv\"\n");
    expect_run(".import only_one_arg\n", NULL, 1, "", "Error: stdin:1: usage: .import FILE TABLE\n");
}

Test(cli, copy_with_rejects_says_how_many_were_rejected) {
    write_file(path_in("r.csv"), "1\nx\n3\ny\n");
    expect_run("CREATE TABLE r(a INTEGER);\nCOPY r FROM 'r.csv' (REJECTS 'bad.csv');\n.mode list\nSELECT sum(a) AS s FROM r;\n",
               NULL, 0, "2 records rejected: they are in the REJECTS file\ns\n4\n", "");
}

Test(cli, progress_bar_pragma_shows_and_switches) {
    expect_run(".mode list\nPRAGMA progress_bar;\nPRAGMA progress_bar = off;\nPRAGMA progress_bar;\n", NULL, 0,
               "progress_bar\non\nprogress_bar\noff\n", "");
    expect_run("PRAGMA progress_bar = maybe;\n", NULL, 1, "", "Error: stdin:1: PRAGMA progress_bar takes on or off\n");
}
