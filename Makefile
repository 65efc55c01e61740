# strata -- build, test and benchmark.
#
#   make            build libstrata.a, libstrata.so and the programs (build/release/): the shell
#                   strata and examples/quickstart; on every core unless -j is given
#   make install    the header, both libraries, the shell and strata.pc under PREFIX (/usr/local),
#                   staged under DESTDIR when given; make uninstall removes them
#   make deps       install the Debian packages strata needs (when missing)
#   make test       build and run every test             (SANITIZE=1: ASan+UBSan, PORTABLE=1: -march=x86-64,
#                   AVX2=1: -march=haswell, AVX2 without AVX-512; TSAN=1: ThreadSanitizer, only the
#                   tests that run threads, built against tests/tsan/'s runner instead of Criterion's)
#   make test-vector  only the SIMD kernels' tests (the vector layer's and the column store's decoding),
#                   in the chosen variant
#   make bench-rowstore   the row-store benchmark against SQLite
#   make bench-kernels    the SIMD kernels' micro-benchmark against the memory bandwidth
#                   (BENCH_ARGS="--quick --reps N --save")
#   make bench      the benchmark harness: every workload, strata against SQLite's modes and DuckDB
#                   (QUICK=1 a small version; BENCH_ARGS="--engines ... --workloads ... --reps N")
#   make bench-deps install DuckDB (the npm package) for the harness, into bench/deps/
#   make bench-sql  the SQL engine's workloads against SQLite WAL (QUICK=1, BENCH_ARGS as above)
#   bench/compare OLD.json NEW.json   the regression gate over two harness results
#   make fuzz-run   build the libFuzzer target with clang and run it FUZZ_SECONDS (60) seconds
#   make tpch-gen   the TPC-H data generator: the 8 .tbl files at SF (0.01) into OUT (datasets/tpch/data)
#   make tpch       a TPC-H database at SF (0.1) loaded from the generator into DB (datasets/tpch/data/...)
#   make tpch-run   the 22 TPC-H queries timed against that database (loaded first when missing)
#   make tpch-check strata's answers to the 22 queries at SF compared with SQLite's and DuckDB's
#
# Variants build into their own folders, so the normal, sanitizer and portable builds coexist.

# make builds in parallel on every core unless -j is given (make -j1 for one job at a time).
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

CC ?= cc
SANITIZE ?= 0
TSAN ?= 0
PORTABLE ?= 0

DEB_PACKAGES := libsimde-dev libzstd-dev zlib1g-dev libroaring-dev libcriterion-dev libsqlite3-dev libedit-dev libcjson-dev pkg-config
# tmux runs the shell under a pseudo-terminal in its tests (tests/cli/)
DEB_PACKAGES += tmux
# clang and its libFuzzer runtime build the fuzz target (make fuzz)
DEB_PACKAGES += clang libclang-rt-dev

AVX2 ?= 0
ifeq ($(PORTABLE),1)
  ARCH := -march=x86-64
  VARIANT := portable
else ifeq ($(AVX2),1)
  ARCH := -march=haswell
  VARIANT := avx2
else
  ARCH := -march=native
  VARIANT := release
endif
# Release builds optimize across files at link time (as SQLite's one-file amalgamation lets the
# compiler do): the objects carry both LTO and regular code; the libraries, the shell, the
# benchmarks and the SQL logic test runner link with LTO, the unit tests link the regular code
# (TEST_LINK, through libstrata-internal.a), which keeps their links fast. LTO= builds without. Each file is still compiled
# with every warning; the whole-program pass leaves out maybe-uninitialized, which it reports for
# out-parameters set on every success path.
LTO := -flto=auto -ffat-lto-objects
OPT := -O2 -g $(LTO)
ifeq ($(SANITIZE),1)
  LTO :=
  OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  VARIANT := $(VARIANT)-san
endif
# TSAN=1: ThreadSanitizer (not combinable with SANITIZE=1: ASan and TSan exclude each other).
ifeq ($(TSAN),1)
  LTO :=
  OPT := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
  VARIANT := $(VARIANT)-tsan
endif

BUILD ?= build
B := $(BUILD)/$(VARIANT)
WERROR ?= -Werror
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -Wall -Wextra $(WERROR) $(ARCH) $(OPT) -fPIC -pthread -Iinclude -Icore -Iplanner
LDFLAGS_ALL := $(filter -fsanitize=%,$(OPT)) $(if $(LTO),-Wno-maybe-uninitialized) -pthread -lzstd -lz -lroaring -lm
TEST_LINK := $(CFLAGS_ALL) -fno-lto

# The SQL layer's rooms (planner/README.md): its files include each other as "room/file.h" (-Iplanner).
PLANNER_ROOMS := parser catalog bind optimize exec func load storage
LIB_DIRS := core vector rowstore colstore planner $(addprefix planner/,$(PLANNER_ROOMS))
LIB_SRC := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(LIB_SRC))

TEST_SRC := $(wildcard tests/*/test_*.c)
TEST_BIN := $(patsubst tests/%.c,$(B)/tests/%,$(TEST_SRC))
TEST_HELPERS := $(wildcard tests/helpers/*.c)
TEST_LIBS := -lcriterion
# Criterion's runner cannot start under ThreadSanitizer (tests/tsan/criterion/criterion.h says
# why): TSAN=1 builds the same tests against the Criterion subset in tests/tsan/ and its runner.
ifeq ($(TSAN),1)
  TEST_LINK += -Itests/tsan
  TEST_LIBS := tests/tsan/runner.c
endif
# The differential tests run the same queries in SQLite.
$(B)/tests/diff/%: TEST_LIBS += -lsqlite3

# The version comes from include/strata.h; the soname's number changes when the ABI breaks.
VERSION := $(shell sed -n 's/^\#define STRATA_VERSION "\(.*\)"/\1/p' include/strata.h)
SOVERSION := 0

.PHONY: all deps test test-vector bench-rowstore bench-kernels clean check-deps install uninstall readme-check
all: $(B)/libstrata.a $(B)/libstrata.so $(B)/strata $(B)/examples/quickstart

# Install what is missing; a fresh machine needs `apt-get update` before the first install.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "all Debian packages present"; fi

$(B)/%.o: %.c $(wildcard include/*.h $(addsuffix /*.h,$(LIB_DIRS))) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

# Two archives. libstrata-internal.a holds every object as compiled (LTO and regular code): the
# unit tests and the internal benchmarks link it, with -fno-lto, for the library's internal
# functions. libstrata.a, the one users link, holds one object, strata.o: the whole library
# optimized together once (LTO happens here, inside the library, not in the user's link) with
# every global symbol but the strata_* API made local, so a user's link takes a second and no
# internal name can clash with the program's. libstrata.so is made from the same object.
$(B)/libstrata-internal.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/strata.o: $(LIB_OBJ)
	$(CC) $(CFLAGS_ALL) $(if $(LTO),-flinker-output=nolto-rel -Wno-maybe-uninitialized) -r -o $@.tmp $(LIB_OBJ)
	objcopy --wildcard --keep-global-symbol='strata_*' $@.tmp $@
	@rm -f $@.tmp

$(B)/libstrata.a: $(B)/strata.o
	@rm -f $@
	ar rcs $@ $^

# The shared library: soname libstrata.so.$(SOVERSION), file libstrata.so.$(VERSION), and the
# libstrata.so link beside it for -lstrata in the build tree.
$(B)/libstrata.so.$(VERSION): $(B)/strata.o include/strata.map
	$(CC) $(filter-out -flto% -ffat-lto-objects,$(CFLAGS_ALL)) -shared -Wl,-soname,libstrata.so.$(SOVERSION) \
	  -Wl,--version-script=include/strata.map -o $@ $(B)/strata.o $(LDFLAGS_ALL)

$(B)/libstrata.so: $(B)/libstrata.so.$(VERSION)
	ln -sf libstrata.so.$(VERSION) $(B)/libstrata.so.$(SOVERSION)
	ln -sf libstrata.so.$(VERSION) $@

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the header, both libraries, the shell and
# the pkg-config file (include/strata.pc.in). ldconfig runs when installing into the system
# itself (no DESTDIR) as root, so that programs find libstrata.so.$(SOVERSION) at once.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

$(B)/strata.pc: include/strata.pc.in include/strata.h Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	  -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS_PRIVATE@|$(filter -l% -pthread,$(LDFLAGS_ALL))|' $< > $@

install: all $(B)/strata.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 include/strata.h $(DESTDIR)$(INCLUDEDIR)/strata.h
	install -m 644 $(B)/libstrata.a $(DESTDIR)$(LIBDIR)/libstrata.a
	install -m 755 $(B)/libstrata.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libstrata.so.$(VERSION)
	ln -sf libstrata.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libstrata.so.$(SOVERSION)
	ln -sf libstrata.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libstrata.so
	install -m 644 $(B)/strata.pc $(DESTDIR)$(PKGCONFIGDIR)/strata.pc
	install -m 755 $(B)/strata $(DESTDIR)$(BINDIR)/strata
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/strata.h $(DESTDIR)$(LIBDIR)/libstrata.a $(DESTDIR)$(LIBDIR)/libstrata.so \
	  $(DESTDIR)$(LIBDIR)/libstrata.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libstrata.so.$(VERSION) \
	  $(DESTDIR)$(PKGCONFIGDIR)/strata.pc $(DESTDIR)$(BINDIR)/strata

$(B)/tests/%: tests/%.c $(TEST_HELPERS) $(B)/libstrata-internal.a $(wildcard tests/helpers/*.h) $(if $(filter 1,$(TSAN)),tests/tsan/runner.c tests/tsan/criterion/criterion.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_LINK) -Itests -o $@ $< $(TEST_HELPERS) $(B)/libstrata-internal.a $(TEST_LIBS) $(LDFLAGS_ALL)

# The shell and the examples see the public header only (no -Icore, no -Iplanner): they use include/strata.h.
CFLAGS_PUBLIC := $(filter-out -Icore -Iplanner,$(CFLAGS_ALL))
CLI_SRC := $(wildcard cli/*.c)

$(B)/strata: $(CLI_SRC) $(wildcard cli/*.h) include/strata.h $(B)/libstrata.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_PUBLIC) -o $@ $(CLI_SRC) $(B)/libstrata.a -ledit $(LDFLAGS_ALL)

$(B)/examples/%: examples/%.c include/strata.h $(B)/libstrata.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_PUBLIC) -o $@ $< $(B)/libstrata.a $(LDFLAGS_ALL)

# The shell's tests run the built binary; STRATA_BIN tells them where it is.
$(B)/tests/cli/%: tests/cli/%.c $(TEST_HELPERS) $(B)/libstrata-internal.a $(B)/strata $(wildcard tests/helpers/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_LINK) -Itests -DSTRATA_BIN='"$(abspath $(B)/strata)"' -o $@ $< $(TEST_HELPERS) $(B)/libstrata-internal.a $(TEST_LIBS) $(LDFLAGS_ALL)

# TSAN=1: the tests whose code runs threads -- the pool, the row store's concurrency, strata_interrupt
# from a second thread, reader threads beside row-group migrations, the SQL bulk loads that encode
# row groups on a thread of their own (appender, COPY), the file layer from several threads, queries
# whose pipelines run on several workers, an error slot set by several threads at once, a table's
# scan ranges read each on a thread of its own -- under ThreadSanitizer. A race report fails its
# test (exit status 66).
TSAN_TESTS := $(addprefix $(B)/tests/,core/test_pool rowstore/test_concurrency api/test_interrupt \
  colstore/test_rowgroup core/test_vfs api/test_appender api/test_copy planner/test_parallel \
  core/test_status colstore/test_parallel_scan planner/test_parallel_join planner/test_parallel_sort \
  planner/test_parallel_copy planner/test_parallel_index)
ifeq ($(TSAN),1)
test: deps-check $(TSAN_TESTS)
	@export TSAN_OPTIONS="second_deadlock_stack=1 $(TSAN_OPTIONS)"; fail=0; \
	for t in $(TSAN_TESTS); do echo "== $$t"; $$t --jobs 2 || fail=1; done; \
	if [ $$fail = 0 ]; then echo "all tests passed ($(VARIANT))"; else echo "TESTS FAILED ($(VARIANT))"; exit 1; fi
else
# Each test program runs in turn; Criterion runs its tests in parallel on the machine's cores.
test: deps-check $(TEST_BIN) $(B)/tests/sql/slt_runner $(B)/libstrata.so
	@export LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0; \
	fail=0; \
	echo "== libstrata.so exports only strata_* symbols"; \
	if nm -D --defined-only $(B)/libstrata.so | awk '{print $$3}' | grep -v '^strata_' | grep .; then fail=1; fi; \
	for t in $(TEST_BIN); do \
	  echo "== $$t"; $$t --jobs 2 || fail=1; done; \
	echo "== SQL logic tests (in memory, on disk, in memory at threads = 4)"; \
	$(B)/tests/sql/slt_runner tests/sql > $(B)/tests/sql/mem.log 2>&1 || fail=1; tail -1 $(B)/tests/sql/mem.log; \
	rm -rf $(B)/tests/sql/db; mkdir -p $(B)/tests/sql/db; \
	$(B)/tests/sql/slt_runner --file-db $(B)/tests/sql/db tests/sql > $(B)/tests/sql/file.log 2>&1 || fail=1; \
	tail -1 $(B)/tests/sql/file.log; \
	$(B)/tests/sql/slt_runner --threads 4 tests/sql > $(B)/tests/sql/threads.log 2>&1 || fail=1; \
	tail -1 $(B)/tests/sql/threads.log; \
	grep -h -A12 '^FAIL' $(B)/tests/sql/mem.log $(B)/tests/sql/file.log $(B)/tests/sql/threads.log | head -60; \
	echo "== the benchmark harness: engine contract, tiny run (checksums only)"; \
	$(MAKE) -s --no-print-directory bench-check || fail=1; \
	echo "== the README's examples (tests/docs/readme_check)"; \
	$(MAKE) -s --no-print-directory readme-check || fail=1; \
	if [ $$fail = 0 ]; then echo "all tests passed ($(VARIANT))"; else echo "TESTS FAILED ($(VARIANT))"; exit 1; fi
endif

# The kernels' three builds: AVX-512 (native here), AVX2 and SSE2 (portable). test-vector runs the
# vector layer's tests and the column store's decode kernels' (tests/colstore/test_decode.c) alone;
# a machine without the variant's instructions skips it with a note.
VECTOR_TESTS := $(filter $(B)/tests/vector/%,$(TEST_BIN)) $(B)/tests/colstore/test_decode
test-vector: deps-check $(VECTOR_TESTS)
	@if [ "$(AVX2)" = 1 ] && ! grep -qw avx2 /proc/cpuinfo; then echo "no AVX2 on this machine: $(VARIANT) tests skipped"; exit 0; fi; \
	fail=0; for t in $(VECTOR_TESTS); do echo "== $$t"; $$t --jobs 2 || fail=1; done; \
	if [ $$fail = 0 ]; then echo "vector tests passed ($(VARIANT))"; else echo "VECTOR TESTS FAILED ($(VARIANT))"; exit 1; fi

# The README's examples as written (tests/docs/readme_check): its C program built against a
# staged `make install` through pkg-config, its shell lines and its SQL.
README_STAGE := $(abspath $(B))/stage
readme-check: all
	@rm -rf $(README_STAGE)
	@$(MAKE) -s --no-print-directory install DESTDIR=$(README_STAGE) PREFIX=/usr/local >/dev/null
	@tests/docs/readme_check $(B) $(README_STAGE) /usr/local cc $(filter -fsanitize=%,$(OPT))

deps-check:
	@for p in libcriterion-dev libcjson-dev tmux; do dpkg -s $$p >/dev/null 2>&1 || { echo "missing package $$p: run 'make deps'"; exit 1; }; done

# The benchmark records the flags and library it was built with (see bench/README.md).
$(B)/bench/bench_rowstore: bench/bench_rowstore.c bench/bench_common.c bench/bench_common.h $(B)/libstrata-internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DBENCH_CFLAGS='"$(CC) $(CFLAGS_ALL)"' -DBENCH_LIB='"$(B)/libstrata-internal.a"' \
	  -o $@ $< bench/bench_common.c $(B)/libstrata-internal.a -lsqlite3 -lm $(LDFLAGS_ALL)

bench-rowstore: $(B)/bench/bench_rowstore
	$(B)/bench/bench_rowstore $(BENCH_ARGS)

# A session's open, first commit, second commit and close (bench/README.md): public API only.
# Against SQLite (-lsqlite3); it records the flags it was built with.
$(B)/bench/bench_close: bench/bench_close.c bench/bench_common.c bench/bench_common.h $(B)/libstrata.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DBENCH_CFLAGS='"$(CC) $(CFLAGS_ALL)"' -Iinclude \
	  -o $@ $< bench/bench_common.c $(B)/libstrata.a -lsqlite3 -lm $(LDFLAGS_ALL)

# The kernels' micro-benchmark (bench/README.md): the kernels are internal, so it includes
# vector/kernel.h (and through it core/ headers: -Icore) and links libstrata-internal.a, which exports them.
$(B)/bench/bench_kernels: bench/bench_kernels.c bench/bench_common.c bench/bench_common.h vector/kernel.h vector/vector.h \
  colstore/bitpack.h colstore/segment.h \
  $(B)/libstrata-internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DBENCH_CFLAGS='"$(CC) $(CFLAGS_ALL)"' -DBENCH_LIB='"$(B)/libstrata-internal.a"' \
	  -o $@ $< bench/bench_common.c $(B)/libstrata-internal.a $(LDFLAGS_ALL)

bench-kernels: $(B)/bench/bench_kernels
	$(B)/bench/bench_kernels $(BENCH_ARGS)


# TPC-H results as text files and the rule that compares them (datasets/tpch/tpch_check.h), libc
# only: tpch-run, tpch-ref, the harness and the comparison test share it.
TPCH_CHECK_SRC := datasets/tpch/tpch_check.c
TPCH_CHECK_DEPS := $(TPCH_CHECK_SRC) datasets/tpch/tpch_check.h

# The benchmark harness (bench/README.md): strata against SQLite's modes and DuckDB. DuckDB is a
# peer only, loaded at run time with dlopen from the npm package that `make bench-deps` installs
# into bench/deps/ (ignored by git); without it the DuckDB column says "not installed".
# The load suite (suite_load.c) links the TPC-H generator (row counts, the expected checksum) and
# runs the tpch-gen program (TPCH_GEN_BIN) to write its .tbl files once.
HARNESS_SRC := bench/harness.c $(wildcard bench/suite_*.c) bench/engines.c bench/engine_duckdb.c bench/bench_common.c \
  datasets/tpch/tpch_gen.c $(TPCH_CHECK_SRC)
$(B)/bench/harness: $(HARNESS_SRC) bench/bench_common.h bench/engine.h bench/harness.h include/strata.h \
  datasets/tpch/tpch_gen.h datasets/tpch/tpch_check.h $(B)/libstrata.a $(B)/datasets/tpch-gen
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_PUBLIC) -Idatasets/tpch -DBENCH_CFLAGS='"$(CC) $(CFLAGS_PUBLIC)"' -DBENCH_LIB='"$(B)/libstrata.a"' \
	  -DTPCH_GEN_BIN='"$(abspath $(B)/datasets/tpch-gen)"' \
	  -o $@ $(HARNESS_SRC) $(B)/libstrata.a -lsqlite3 -ldl -lm $(LDFLAGS_ALL)

# The engine contract (bench/engine_check.c) for every engine, then the harness at a tiny size:
# the checksums of every workload against the data generator and between engines, no timing.
$(B)/bench/engine_check: bench/engine_check.c bench/engines.c bench/engine_duckdb.c bench/bench_common.c bench/engine.h include/strata.h $(B)/libstrata.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_PUBLIC) -o $@ bench/engine_check.c bench/engines.c bench/engine_duckdb.c bench/bench_common.c $(B)/libstrata.a -lsqlite3 -ldl -lm $(LDFLAGS_ALL)

# tpch-ref: the TPC-H queries' expected results from SQLite, cross-checked against DuckDB
# (datasets/tpch/sqlite/README.md). It links no strata: SQLite directly, DuckDB through dlopen.
$(B)/bench/tpch-ref: bench/tpch_ref.c bench/engine_duckdb.c bench/bench_common.c bench/engine.h \
  bench/bench_common.h $(TPCH_CHECK_DEPS) datasets/tpch/tpch_gen.c datasets/tpch/tpch_gen.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_PUBLIC) -Idatasets/tpch -o $@ bench/tpch_ref.c bench/engine_duckdb.c bench/bench_common.c \
	  $(TPCH_CHECK_SRC) $(TPCH_GEN_SRC) -lsqlite3 -ldl $(TPCH_LDFLAGS)

# The benchmark regression gate (bench/compare OLD.json NEW.json builds and runs it).
$(B)/bench/compare: bench/compare.c bench/bench_common.c bench/bench_common.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ bench/compare.c bench/bench_common.c -lcjson $(LDFLAGS_ALL)

# The gate's tests run the built program; COMPARE_BIN tells them where it is.
$(B)/tests/bench/%: tests/bench/%.c $(B)/bench/compare $(wildcard tests/helpers/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_LINK) -Itests -DCOMPARE_BIN='"$(abspath $(B)/bench/compare)"' -o $@ $< $(TEST_LIBS) $(LDFLAGS_ALL)

.PHONY: bench bench-sql bench-deps bench-check
bench-deps:
	@command -v npm >/dev/null 2>&1 || { echo "bench-deps needs npm (Debian: apt-get install npm)"; exit 1; }
	@mkdir -p bench/deps
	npm install --prefix bench/deps --no-save --no-audit --no-fund @duckdb/node-bindings-linux-x64

# make bench: every workload at the seeds' sizes, 5 repetitions; QUICK=1 a small version;
# BENCH_ARGS adds harness options (--reps N, --engines ..., --workloads ...).
bench: $(B)/bench/harness
	$(B)/bench/harness $(if $(QUICK),--quick) $(BENCH_ARGS)

# The SQL engine's benchmark (its issue's workloads): strata against SQLite WAL + FULL.
bench-sql: $(B)/bench/harness
	$(B)/bench/harness --engines strata,sqlite-wal --workloads sql $(if $(QUICK),--quick) $(BENCH_ARGS)

bench-check: $(B)/bench/harness $(B)/bench/engine_check
	@rm -rf bench/tmp/engine-check && mkdir -p bench/tmp && $(B)/bench/engine_check bench/tmp/engine-check strata sqlite-wal sqlite-truncate sqlite-off duckdb
	@$(B)/bench/harness --tiny > $(B)/bench/tiny.log 2>&1 || { cat $(B)/bench/tiny.log; exit 1; }; tail -1 $(B)/bench/tiny.log

# SQL logic tests (tests/sql/README.md); SLT_ARGS passes options such as --verbose or --file-db DIR.
.PHONY: test-sql
$(B)/tests/sql/slt_runner: tests/sql/slt_runner.c tests/sql/slt_md5.c tests/sql/slt_md5.h $(B)/libstrata.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ tests/sql/slt_runner.c tests/sql/slt_md5.c $(B)/libstrata.a -lm $(LDFLAGS_ALL)

test-sql: $(B)/tests/sql/slt_runner
	$(B)/tests/sql/slt_runner $(SLT_ARGS) tests/sql

# libFuzzer target over strata_exec (tests/fuzz/README.md), built with clang into $(BUILD)/fuzz/:
# `make fuzz` builds it, `make fuzz-run FUZZ_SECONDS=60` runs it from a seed corpus made of the
# statements of tests/sql/*.test; a crash leaves its input in $(BUILD)/fuzz/crash-*.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_B := $(BUILD)/fuzz
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -O1 -g -fno-omit-frame-pointer -fPIC -pthread -Iinclude -Icore -Iplanner \
  -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ := $(patsubst %.c,$(FUZZ_B)/%.o,$(LIB_SRC))
.PHONY: fuzz fuzz-run fuzz-check

fuzz-check:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "make fuzz needs clang with libFuzzer (Debian: clang libclang-rt-dev; run 'make deps')"; exit 1; }
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	  | $(FUZZ_CC) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null \
	  || { echo "$(FUZZ_CC) cannot link -fsanitize=fuzzer: libFuzzer is missing (Debian: libclang-rt-dev; run 'make deps')"; exit 1; }

$(FUZZ_B)/%.o: %.c $(wildcard include/*.h $(addsuffix /*.h,$(LIB_DIRS))) | fuzz-check
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_B)/fuzz_sql: tests/fuzz/fuzz_sql.c tests/helpers/sql_guard.h $(FUZZ_OBJ) | fuzz-check
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) -lzstd -lz -lroaring -lm

fuzz: $(FUZZ_B)/fuzz_sql

# The seed corpus: one file per statement or query of tests/sql (the SQL between the record's
# first line and its result or the blank line that ends it).
$(FUZZ_B)/seeds/.done: $(wildcard tests/sql/*/*.test)
	@rm -rf $(FUZZ_B)/seeds && mkdir -p $(FUZZ_B)/seeds
	@awk -v dir=$(FUZZ_B)/seeds ' \
	  /^(statement|query)/ { insql = 1; sql = ""; next } \
	  insql && (/^----/ || /^$$/) { if (sql != "") { n++; f = dir "/seed-" n; printf "%s", sql > f; close(f) } insql = 0; next } \
	  insql { sql = sql (sql == "" ? "" : "\n") $$0 }' $(sort $(wildcard tests/sql/*/*.test))
	@touch $@
	@echo "seed corpus: $$(ls $(FUZZ_B)/seeds | wc -l) statements"

fuzz-run: $(FUZZ_B)/fuzz_sql $(FUZZ_B)/seeds/.done
	@mkdir -p $(FUZZ_B)/corpus
	$(FUZZ_B)/fuzz_sql -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=4096 -rss_limit_mb=4096 \
	  -dict=tests/fuzz/sql.dict -artifact_prefix=$(FUZZ_B)/ -print_final_stats=1 $(FUZZ_B)/corpus $(FUZZ_B)/seeds

clean:
	rm -rf build

# The TPC-H data generator (datasets/README.md), written from the specification: the program
# tpch-gen and `make tpch-gen SF=0.1 OUT=dir`, which writes the 8 .tbl files (SF 0.01 into
# datasets/tpch/data/ by default). It needs libc and pthreads only, not libstrata.
TPCH_LDFLAGS := $(filter-out -l%,$(LDFLAGS_ALL)) -lm
TPCH_GEN_SRC := datasets/tpch/tpch_gen.c
TPCH_GEN_DEPS := $(TPCH_GEN_SRC) datasets/tpch/tpch_gen.h include/strata.h Makefile
$(B)/datasets/tpch-gen: datasets/tpch/tpch_dbgen.c $(TPCH_GEN_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_PUBLIC) -o $@ datasets/tpch/tpch_dbgen.c $(TPCH_GEN_SRC) $(TPCH_LDFLAGS)

.PHONY: tpch-gen
tpch-gen: SF ?= 0.01
tpch-gen: OUT ?= datasets/tpch/data
tpch-gen: $(B)/datasets/tpch-gen
	$(B)/datasets/tpch-gen -s $(SF) -o $(OUT) -v

# The generator's tests link its source (not libstrata) and run the built program (TPCH_GEN_BIN).
$(B)/tests/datasets/%: tests/datasets/%.c $(TPCH_GEN_DEPS) $(B)/datasets/tpch-gen $(wildcard tests/helpers/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_LINK) -Itests -Idatasets/tpch -DTPCH_GEN_BIN='"$(abspath $(B)/datasets/tpch-gen)"' \
	  -o $@ $< $(TPCH_GEN_SRC) $(TEST_LIBS) $(TPCH_LDFLAGS)

# A TPC-H database made from the generator, and the 22 queries timed against it (datasets/README.md):
# `make tpch SF=1` builds tpch-load and (re)loads DB, default datasets/tpch/data/tpch-sf$(SF).db at
# SF 0.1; `make tpch-run SF=1` loads DB first when the file is missing (not when the loader or the
# library changed: `make tpch` reloads) and runs tpch-run on it, TPCH_ARGS passing its options and
# query numbers (TPCH_ARGS="-r 3 1 6"). Both programs use the public API and link libstrata.a.
TPCH_SF := $(or $(SF),0.1)
# DB is taken from the command line only, not from an environment variable of that name.
ifneq ($(origin DB),command line)
  DB := datasets/tpch/data/tpch-sf$(TPCH_SF).db
endif
TPCH_LOAD := $(B)/datasets/tpch-load -s $(TPCH_SF) -S datasets/tpch/schema.sql

$(B)/datasets/tpch-load: datasets/tpch/tpch_load.c $(TPCH_GEN_DEPS) $(B)/libstrata.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_PUBLIC) -o $@ datasets/tpch/tpch_load.c $(TPCH_GEN_SRC) $(B)/libstrata.a $(LDFLAGS_ALL)

$(B)/datasets/tpch-run: datasets/tpch/tpch_run.c $(TPCH_GEN_DEPS) $(TPCH_CHECK_DEPS) $(B)/libstrata.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_PUBLIC) -o $@ datasets/tpch/tpch_run.c datasets/tpch/tpch_check.c $(TPCH_GEN_SRC) $(B)/libstrata.a $(LDFLAGS_ALL)

.PHONY: tpch tpch-run
tpch: $(B)/datasets/tpch-load
	@mkdir -p $(dir $(DB))
	$(TPCH_LOAD) -d $(DB)

$(DB): | $(B)/datasets/tpch-load
	@mkdir -p $(dir $@)
	$(TPCH_LOAD) -d $@

tpch-run: $(B)/datasets/tpch-run $(DB)
	$(B)/datasets/tpch-run -d $(DB) -q datasets/tpch/queries $(TPCH_ARGS)

# `make tpch-check SF=0.1`: strata's results of the 22 queries on DB compared with the expected
# ones (tpch-run -c; exit status 1 on a difference, an error or a timeout). SF 0.01 and 0.1 are
# stored in tests/datasets/tpch-expected/; any other SF is made by tpch-ref (SQLite, cross-checked
# against DuckDB) into bench/tmp/tpch-expected-sf$(SF)/ the first time.
TPCH_STORED := tests/datasets/tpch-expected/sf$(TPCH_SF)
TPCH_EXPECTED := $(if $(wildcard $(TPCH_STORED)/q22.txt),$(TPCH_STORED),bench/tmp/tpch-expected-sf$(TPCH_SF))
.PHONY: tpch-check
tpch-check: $(B)/datasets/tpch-run $(B)/bench/tpch-ref $(DB)
	@[ -f $(TPCH_EXPECTED)/q22.txt ] || $(B)/bench/tpch-ref -s $(TPCH_SF) -o $(TPCH_EXPECTED)
	$(B)/datasets/tpch-run -d $(DB) -q datasets/tpch/queries -c $(TPCH_EXPECTED) $(TPCH_ARGS)

# The comparison with the expected results (tests/datasets/tpch-expected/) runs tpch-load and
# tpch-run -c; it links tpch_check.c for the rule and the result files.
$(B)/tests/datasets/test_tpch_expected: tests/datasets/test_tpch_expected.c $(TPCH_CHECK_DEPS) \
  $(B)/datasets/tpch-load $(B)/datasets/tpch-run $(wildcard tests/helpers/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_LINK) -Itests -Idatasets/tpch -DTPCH_LOAD_BIN='"$(abspath $(B)/datasets/tpch-load)"' \
	  -DTPCH_RUN_BIN='"$(abspath $(B)/datasets/tpch-run)"' -DTPCH_SCHEMA='"$(abspath datasets/tpch/schema.sql)"' \
	  -DTPCH_QUERIES='"$(abspath datasets/tpch/queries)"' -DTPCH_EXPECTED='"$(abspath tests/datasets/tpch-expected)"' \
	  -o $@ $< $(TPCH_CHECK_SRC) $(TEST_LIBS) $(TPCH_LDFLAGS)

# The loader's and the runner's tests run both programs and read the database through libstrata.
$(B)/tests/datasets/test_tpch_load: tests/datasets/test_tpch_load.c $(TPCH_GEN_DEPS) $(B)/libstrata.a \
  $(B)/datasets/tpch-load $(B)/datasets/tpch-run $(wildcard tests/helpers/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_LINK) -Itests -Idatasets/tpch -DTPCH_LOAD_BIN='"$(abspath $(B)/datasets/tpch-load)"' \
	  -DTPCH_RUN_BIN='"$(abspath $(B)/datasets/tpch-run)"' -DTPCH_SCHEMA='"$(abspath datasets/tpch/schema.sql)"' \
	  -DTPCH_QUERIES='"$(abspath datasets/tpch/queries)"' \
	  -o $@ $< $(TPCH_GEN_SRC) $(B)/libstrata.a $(TEST_LIBS) $(LDFLAGS_ALL)
