# libnetsched - plain GNU make, no generator (zstd's lib/Makefile is the model).
#
#   make            lib/libnetsched.a, lib/libnetsched.so.X.Y.Z (+ symlinks), lib/netsched.pc
#   make check      every test suite (unit/cmocka, abi/Check, install + pkg-config/CMake consumers, python)
#   make sanitize   the same under ASan+UBSan (separate build tree, build/san/)
#   make valgrind   the unit tests under valgrind --leak-check=full
#   make demo       build and run the example programs
#   make bench      build and run the benchmarks in bench/
#   make reproduce  write bench/REPRODUCE.md (each paper in its own setup; SECTION=name: one)
#   make install / uninstall   honour PREFIX and DESTDIR (and LIBDIR, MANDIR, ...)
#   make clean

.DEFAULT_GOAL := all
SHELL := /bin/bash
.DELETE_ON_ERROR:

# The version is written once, in the public header.
VER_MAJOR := $(shell sed -n 's/^\#define NS_VERSION_MAJOR *\([0-9][0-9]*\).*/\1/p' include/netsched.h)
VER_MINOR := $(shell sed -n 's/^\#define NS_VERSION_MINOR *\([0-9][0-9]*\).*/\1/p' include/netsched.h)
VER_PATCH := $(shell sed -n 's/^\#define NS_VERSION_PATCH *\([0-9][0-9]*\).*/\1/p' include/netsched.h)
VERSION := $(VER_MAJOR).$(VER_MINOR).$(VER_PATCH)

PREFIX ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
LIBDIR ?= $(EXEC_PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(EXEC_PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/netsched
DATAROOTDIR ?= $(PREFIX)/share
MANDIR ?= $(DATAROOTDIR)/man
BASHCOMPDIR ?= $(DATAROOTDIR)/bash-completion/completions
DESTDIR ?=

PKG_CONFIG ?= pkg-config
# Debian's python3-* packages (setuptools, wheel, cffi; Dask and matplotlib for
# netsched.sweep) belong to the system interpreter, not to whichever python3 is
# first on PATH.
PYTHON ?= /usr/bin/python3
VENV ?= .venv
VALGRIND ?= valgrind --leak-check=full --error-exitcode=1 --errors-for-leak-kinds=definite,indirect -q

# Shared data (real traces and measurements) read by tests when present.
NS_DATA_DIR ?= $(abspath $(CURDIR)/../shared/data)
export NS_DATA_DIR

# ---- configuration: normal or sanitized build -------------------------------
CFLAGS ?= -O2 -g
SANITIZE ?= 0
ifeq ($(SANITIZE),1)
  OUT := build/san/lib
  OBJ := build/san
  SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  CFLAGS := -O1 -g $(SAN_FLAGS)
  LDFLAGS += $(SAN_FLAGS)
else
  OUT := lib
  OBJ := build
endif

STD_FLAGS := -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L

# Private dependencies of the library (pkg-config modules); see README.
LIB_PKGS := cbc
LIB_PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS) 2>/dev/null)
LIB_PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(LIB_PKGS) 2>/dev/null)
LIBS_PRIVATE := -lcsv -lm -pthread
LIB_LIBS := $(LIB_PKG_LIBS) $(LIBS_PRIVATE)

LIB_CPPFLAGS := -DNS_BUILDING -Iinclude -Isrc
LIB_CFLAGS := $(STD_FLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -pthread -MMD -MP

SRCS := $(sort $(wildcard src/*/*.c))
OBJS := $(SRCS:%.c=$(OBJ)/obj/%.o)

SO_NAME := libnetsched.so.$(VER_MAJOR)
SO_FILE := libnetsched.so.$(VERSION)
LIB_A := $(OUT)/libnetsched.a
LIB_SO := $(OUT)/$(SO_FILE)
LIB_PC := $(OUT)/netsched.pc

.PHONY: FORCE all lib check check-unit check-abi check-pkgconfig check-python sanitize valgrind \
        demo bench examples install install-pc install-static install-shared \
        install-includes install-bin install-cmake install-man install-completion install-cdef install-python uninstall clean

# cffi declarations generated from the public header (shipped in the Python
# package and installed to share/netsched/): ffi.cdef(open(...).read()).
CDEF := bindings/python/netsched/netsched.cdef

all: lib
lib: $(LIB_A) $(OUT)/libnetsched.so $(LIB_PC) $(CDEF)

$(CDEF): $(wildcard include/netsched.h include/netsched/*.h) bindings/python/gen_cdef.sh
	bash bindings/python/gen_cdef.sh include $(CC) > $@

$(OBJ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CPPFLAGS) $(LIB_PKG_CFLAGS) $(LIB_CFLAGS) -c $< -o $@

$(LIB_A): $(OBJS)
	@mkdir -p $(OUT)
	rm -f $@
	$(AR) rcs $@ $^

$(LIB_SO): $(OBJS) lib/libnetsched.map
	@mkdir -p $(OUT)
	$(CC) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=lib/libnetsched.map \
	  -Wl,--no-undefined -o $@ $(OBJS) $(LDFLAGS) $(LIB_LIBS)

$(OUT)/$(SO_NAME): $(LIB_SO)
	ln -sf $(SO_FILE) $@
$(OUT)/libnetsched.so: $(OUT)/$(SO_NAME)
	ln -sf $(SO_NAME) $@

# lib/netsched.pc is rewritten whenever PREFIX/LIBDIR/INCLUDEDIR differ from
# the last run's (the stamp changes only then). `make install` writes its own
# .pc and CMake files for the PREFIX it is given (install-pc, install-cmake),
# so `make; make install PREFIX=X` never installs a file that says /usr/local.
DIRS_STAMP := $(OBJ)/install-dirs.stamp
INSTALL_DIRS := $(PREFIX)|$(LIBDIR)|$(INCLUDEDIR)
$(DIRS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(INSTALL_DIRS)' | cmp -s - $@ || echo '$(INSTALL_DIRS)' > $@
FORCE:

SUBST_DIRS = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@MAJOR@|$(VER_MAJOR)|' \
	    -e 's|@REQUIRES_PRIVATE@|$(LIB_PKGS)|' -e 's|@LIBS_PRIVATE@|$(LIBS_PRIVATE)|'

$(LIB_PC): lib/netsched.pc.in include/netsched.h Makefile $(DIRS_STAMP)
	@mkdir -p $(OUT)
	$(SUBST_DIRS) $< > $@


# ---- tests ------------------------------------------------------------------
TEST_CPPFLAGS := -Iinclude -Isrc -Itests
TEST_CFLAGS := $(STD_FLAGS) $(CFLAGS) -pthread
PUB_HEADERS := include/netsched.h $(wildcard include/netsched/*.h)

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OBJ)/tests/unit/%)
# tests/hostile: hostile callers (re-entry, allocation failure, extreme
# values), cmocka suites built and run like the unit tests.
HOSTILE_SRCS := $(sort $(wildcard tests/hostile/test_*.c))
HOSTILE_BINS := $(HOSTILE_SRCS:tests/hostile/%.c=$(OBJ)/tests/hostile/%)
ABI_SRCS := $(sort $(wildcard tests/abi/test_*.c))
ABI_BINS := $(ABI_SRCS:tests/abi/%.c=$(OBJ)/tests/abi/%)
TEST_HELPERS := $(sort $(wildcard tests/unit/helpers/*.c))

# Unit tests link the static library, so they may also test internal helpers.
$(OBJ)/tests/unit/%: tests/unit/%.c $(TEST_HELPERS) $(wildcard tests/unit/helpers/*.h) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(LIB_PKG_CFLAGS) $(TEST_CFLAGS) $< $(TEST_HELPERS) -o $@ \
	  $(LDFLAGS) $(LIB_A) $(shell $(PKG_CONFIG) --libs cmocka) $(LIB_LIBS)

$(OBJ)/tests/hostile/%: tests/hostile/%.c $(TEST_HELPERS) $(wildcard tests/unit/helpers/*.h) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(LIB_PKG_CFLAGS) $(TEST_CFLAGS) $< $(TEST_HELPERS) -o $@ \
	  $(LDFLAGS) $(HOSTILE_LDFLAGS) $(LIB_A) $(shell $(PKG_CONFIG) --libs cmocka) $(LIB_LIBS)
# netsched-slurm's comment rules need no Slurm: its comment, policy and
# wait-log files (public API only) are linked into this unit suite.
SLURM_COMMENT_SRCS := bindings/slurm/comment.c bindings/slurm/policies.c bindings/slurm/waitlog.c
$(OBJ)/tests/unit/test_slurm_comment: tests/unit/test_slurm_comment.c $(SLURM_COMMENT_SRCS) \
    bindings/slurm/adapter.h $(TEST_HELPERS) $(wildcard tests/unit/helpers/*.h) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) -Ibindings/slurm $(TEST_CFLAGS) -D_DEFAULT_SOURCE $< $(SLURM_COMMENT_SRCS) \
	  $(TEST_HELPERS) -o $@ $(LDFLAGS) $(LIB_A) $(shell $(PKG_CONFIG) --libs cmocka) $(LIB_LIBS)
# Allocation-failure injection: the library's allocations go through the
# test's wrappers (the static library's objects are linked into the test).
$(OBJ)/tests/hostile/test_alloc_failure: HOSTILE_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

# ABI suites link the shared library: they see exactly what consumers see.
$(OBJ)/tests/abi/%: tests/abi/%.c tests/abi/abi_test.h $(OUT)/libnetsched.so
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -Itests $(TEST_CFLAGS) $< -o $@ $(LDFLAGS) -L$(OUT) -lnetsched \
	  -Wl,-rpath,$(abspath $(OUT)) $(shell $(PKG_CONFIG) --libs check) -lm

# Each runner prints its own summary line; every suite runs even if one fails.
# tests/slurm starts first, in the background (it mostly waits on its
# daemons), while the others run; unit and hostile binaries CHECK_JOBS at
# a time (default: one per core), the slowest first (TESTS_ORDER, below, as
# valgrind).
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
check: lib header-check $(UNIT_BINS) $(HOSTILE_BINS) $(ABI_BINS) examples
	@. tests/suite.sh; \
	suite_bg tests/slurm $(SLURM_CHECK); \
	suite_par $(CHECK_JOBS) $(TESTS_ORDER); \
	for t in $(ABI_BINS); do suite $$t env NS_LIBRARY=$(abspath $(OUT))/libnetsched.so $$t; done; \
	suite tests/install.sh bash tests/install.sh "$(OUT)"; \
	suite tests/suite_selftest.sh bash tests/suite_selftest.sh; \
	suite tests/examples.sh bash tests/examples.sh "$(OBJ)/examples" --quiet; \
	suite tests/readme_snippets.sh bash tests/readme_snippets.sh "$(OUT)" "$(SANITIZE)" "$(OBJ)/examples"; \
	suite tests/python env $(PY_ENV) NETSCHED_LIBRARY=$(abspath $(OUT))/$(SO_NAME) \
	  NETSCHED_SIM=$(abspath $(SIM_CLI)) PYTHONPATH=$(abspath bindings/python) $(PYTHON) tests/python/run.py; \
	suite tests/python/mypy $(MYPY_CHECK); \
	suite $(SLURM_DECIDE_TEST) $(SLURM_DECIDE_TEST); \
	suite_summary

# mypy --strict over the Python package (Debian: mypy; configuration in
# bindings/python/pyproject.toml); the suite says SKIPPED where mypy is absent.
MYPY_CHECK = bash tests/python/mypy.sh "$(PYTHON)" "$(abspath $(OBJ))/mypy-cache"

ifeq ($(SANITIZE),1)
# ctypes loads the sanitized library into an uninstrumented python.
PY_ENV := LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
          ASAN_OPTIONS=detect_leaks=0
# Every Slurm case runs under ASan too: tests/slurm runs beside the other
# suites (suite_bg), which take longer than it under sanitizers.
endif

sanitize:
	$(MAKE) SANITIZE=1 check

# VALGRIND_JOBS binaries at once (default: one per core; valgrind runs a
# binary on one core, and this step was a third of .ci/run's 20 minutes):
# each binary's output is printed whole when it ends, under a lock, and any
# failure fails the target, named on the last line. The slowest binaries
# start first (longest first keeps the cores busy to the end: on .ci/run of
# 42a7aa0 test_vclos took 143 s and test_sim_maxmin 123 s under valgrind, the
# other 29 together 122 s; started last, as in alphabetical order, they made
# the step 237 s instead of about 195 s).
VALGRIND_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TESTS_SLOW := $(foreach t,test_vclos test_sim_maxmin test_sim test_alloc_failure,\
  $(filter %/$(t),$(UNIT_BINS) $(HOSTILE_BINS)))
TESTS_ORDER := $(TESTS_SLOW) $(filter-out $(TESTS_SLOW),$(UNIT_BINS) $(HOSTILE_BINS))
valgrind: $(UNIT_BINS) $(HOSTILE_BINS)
	@d=$$(mktemp -d); \
	printf '%s\n' $(TESTS_ORDER) | xargs -P $(VALGRIND_JOBS) -I{} sh -c \
	  't0=$$(date +%s); if $(VALGRIND) {} > "$$1/out.$$$$" 2>&1; then r=ok; else r=FAILED; echo {} >> "$$1/failed"; fi; \
	   { flock 9; echo "== valgrind {}: $$r in $$(( $$(date +%s) - t0 )) s"; cat "$$1/out.$$$$"; } 9> "$$1/lock"; \
	   rm -f "$$1/out.$$$$"' sh "$$d"; \
	if [ -s "$$d/failed" ]; then echo "valgrind FAILED:"; cat "$$d/failed"; rm -rf "$$d"; exit 1; fi; \
	rm -rf "$$d"; echo "valgrind: $(words $(UNIT_BINS) $(HOSTILE_BINS)) binaries passed"

# ---- examples, demo, bench --------------------------------------------------
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLE_BINS := $(EXAMPLE_SRCS:examples/%.c=$(OBJ)/examples/%)

$(OBJ)/examples/%: examples/%.c $(OUT)/libnetsched.so
	@mkdir -p $(dir $@)
	$(CC) -Iinclude $(TEST_CFLAGS) $< -o $@ $(LDFLAGS) -L$(OUT) -lnetsched \
	  -Wl,-rpath,$(abspath $(OUT)) -lm

examples: $(EXAMPLE_BINS)

# The demo ends with the README's main job: every policy on the default workload.
SIM_CLI := $(OBJ)/examples/netsched-sim
# tests/examples.sh runs them (make check runs it too, output shown on failure).
demo: examples
	@bash tests/examples.sh $(OBJ)/examples

BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(OBJ)/bench/%)

$(OBJ)/bench/%: bench/%.c bench/bench_util.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(TEST_CFLAGS) $< -o $@ $(LDFLAGS) $(LIB_A) $(LIB_LIBS)

bench: $(BENCH_BINS)
	@for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done

# The phase model's shortcuts against the exact model, every preset (issue 30
# item 2; bench/bench_accuracy.py, knobs NS_ACC_* in its header).
.PHONY: bench-accuracy
bench-accuracy: $(OUT)/libnetsched.so
	NETSCHED_LIBRARY=$(abspath $(OUT))/$(SO_NAME) PYTHONPATH=$(abspath bindings/python) \
	  $(PYTHON) bench/bench_accuracy.py

# bench/REPRODUCE.md: the papers' figures and the simulator's side by side
# (bench/reproduce.py through the Python bindings; reads $(NS_DATA_DIR)).
.PHONY: reproduce
# SECTION=name (adadual, cassini, titan, vclos, dally, tiresias) prints that
# section alone and leaves bench/REPRODUCE.md as it is.
reproduce: $(OUT)/libnetsched.so
ifeq ($(SECTION),)
	NETSCHED_LIBRARY=$(abspath $(OUT))/$(SO_NAME) PYTHONPATH=$(abspath bindings/python) \
	  $(PYTHON) bench/reproduce.py > bench/REPRODUCE.md.tmp && mv bench/REPRODUCE.md.tmp bench/REPRODUCE.md
	@echo "reproduce: wrote bench/REPRODUCE.md"
else
	NETSCHED_LIBRARY=$(abspath $(OUT))/$(SO_NAME) PYTHONPATH=$(abspath bindings/python) \
	  $(PYTHON) bench/reproduce.py '$(SECTION)'
endif

# ---- install ----------------------------------------------------------------
install: install-pc install-cmake install-static install-shared install-includes install-bin \
         install-man install-completion install-cdef

install-cdef: $(CDEF)
	install -d $(DESTDIR)$(DATAROOTDIR)/netsched
	install -m 644 $(CDEF) $(DESTDIR)$(DATAROOTDIR)/netsched/netsched.cdef

# The Python package, offline, on Debian 12 with only README's apt packages:
#   make install-python [VENV=DIR] [PREFIX=the prefix given to make install]
# creates the venv DIR if needed (--system-site-packages: it sees Debian's
# setuptools and wheel, since pip cannot download build dependencies offline)
# and pip-installs a copy of bindings/python whose _libdir.py names LIBDIR,
# so the package finds a library installed outside the loader's path.
PY_STAGE := $(OBJ)/python
install-python: $(CDEF)
	rm -rf $(PY_STAGE) && mkdir -p $(PY_STAGE)
	cp -r bindings/python/pyproject.toml bindings/python/README.md bindings/python/netsched $(PY_STAGE)/
	rm -rf $(PY_STAGE)/netsched/__pycache__
	echo 'LIBDIR = "$(LIBDIR)"  # written by make install-python' > $(PY_STAGE)/netsched/_libdir.py
	[ -x $(VENV)/bin/python ] || $(PYTHON) -m venv --system-site-packages $(VENV)
	$(VENV)/bin/python -m pip install --no-index --no-build-isolation --no-deps \
	  --disable-pip-version-check --quiet $(PY_STAGE)
	@echo "install-python: netsched installed for $(VENV)/bin/python (library looked up in $(LIBDIR) after the checkout's)"

install-man: share/man/netsched-sim.1 share/man/libnetsched.3
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 644 share/man/netsched-sim.1 $(DESTDIR)$(MANDIR)/man1/netsched-sim.1
	install -m 644 share/man/libnetsched.3 $(DESTDIR)$(MANDIR)/man3/libnetsched.3

install-completion: share/completion/netsched-sim.bash
	install -d $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 $< $(DESTDIR)$(BASHCOMPDIR)/netsched-sim

install-pc: lib/netsched.pc.in
	install -d $(DESTDIR)$(PKGCONFIGDIR) $(OBJ)/install
	$(SUBST_DIRS) lib/netsched.pc.in > $(OBJ)/install/netsched.pc
	install -m 644 $(OBJ)/install/netsched.pc $(DESTDIR)$(PKGCONFIGDIR)/netsched.pc

# CMake package: find_package(netsched CONFIG) -> imported target netsched::netsched
install-cmake: lib/netsched-config.cmake.in lib/netsched-config-version.cmake.in
	install -d $(DESTDIR)$(CMAKEDIR) $(OBJ)/install
	for f in netsched-config netsched-config-version; do \
	  $(SUBST_DIRS) lib/$$f.cmake.in > $(OBJ)/install/$$f.cmake || exit 1; \
	  install -m 644 $(OBJ)/install/$$f.cmake $(DESTDIR)$(CMAKEDIR)/$$f.cmake || exit 1; done

install-static: $(LIB_A)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libnetsched.a

install-shared: $(LIB_SO)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(SO_FILE)
	ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libnetsched.so

# The simulator CLI, linked for the installed library (rpath = LIBDIR).
install-bin: examples/netsched-sim.c $(LIB_SO) $(OUT)/libnetsched.so
	install -d $(DESTDIR)$(BINDIR) $(OBJ)/install
	$(CC) -Iinclude $(TEST_CFLAGS) $< -o $(OBJ)/install/netsched-sim $(LDFLAGS) -L$(OUT) \
	  -lnetsched -Wl,-rpath,$(LIBDIR) -lm
	install -m 755 $(OBJ)/install/netsched-sim $(DESTDIR)$(BINDIR)/netsched-sim

install-includes:
	install -d $(DESTDIR)$(INCLUDEDIR)/netsched
	install -m 644 include/netsched.h $(DESTDIR)$(INCLUDEDIR)/netsched.h
	install -m 644 include/netsched/*.h $(DESTDIR)$(INCLUDEDIR)/netsched/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libnetsched.a $(DESTDIR)$(LIBDIR)/$(SO_FILE) \
	      $(DESTDIR)$(LIBDIR)/$(SO_NAME) $(DESTDIR)$(LIBDIR)/libnetsched.so \
	      $(DESTDIR)$(PKGCONFIGDIR)/netsched.pc $(DESTDIR)$(INCLUDEDIR)/netsched.h
	rm -rf $(DESTDIR)$(INCLUDEDIR)/netsched $(DESTDIR)$(CMAKEDIR)
	rm -f $(DESTDIR)$(BINDIR)/netsched-sim $(DESTDIR)$(BINDIR)/netsched-slurm $(DESTDIR)$(BASHCOMPDIR)/netsched-sim \
	      $(DESTDIR)$(MANDIR)/man1/netsched-sim.1 $(DESTDIR)$(MANDIR)/man1/netsched-slurm.1 \
	      $(DESTDIR)$(MANDIR)/man3/libnetsched.3 \
	      $(DESTDIR)$(DATAROOTDIR)/netsched/netsched.cdef
	-rmdir $(DESTDIR)$(DATAROOTDIR)/netsched 2>/dev/null

clean:
	rm -rf build lib/libnetsched.a lib/libnetsched.so* lib/netsched.pc $(CDEF)

-include $(shell find build -name '*.d' 2>/dev/null)

# ==== robustness: ABI baseline, public-header checks, fuzzing (issue 10) =====
# Kept in one block so it merges cleanly. Needs Debian abigail-tools (abidw,
# abidiff), g++, clang and libclang-rt-14-dev.
.PHONY: header-check abi-dump abi-check abi-selftest fuzz fuzz-build

# -- public header alone: C99 and C++11, pedantic, warnings as errors --------
HDR_CC ?= $(CC)
HDR_CXX ?= g++
HDR_WARN := -Wall -Wextra -pedantic -Werror
header-check: $(OUT)/libnetsched.so
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	src='#include <netsched.h>\n#include <netsched.h>\nint main(void) { return ns_version_number() == NS_VERSION_NUMBER ? 0 : 1; }\n'; \
	printf "$$src" > "$$tmp/h.c"; printf "$$src" > "$$tmp/h.cpp"; \
	echo "header-check: C99 $(HDR_CC)"; \
	$(HDR_CC) -std=c99 $(HDR_WARN) -Wstrict-prototypes -Wundef -Iinclude -c "$$tmp/h.c" -o "$$tmp/c.o"; \
	if command -v clang >/dev/null; then echo "header-check: C99 clang"; \
	  clang -std=c99 $(HDR_WARN) -Wstrict-prototypes -Wundef -Iinclude -fsyntax-only "$$tmp/h.c"; fi; \
	echo "header-check: C++11 $(HDR_CXX), linked against $(OUT)/libnetsched.so and run"; \
	$(HDR_CXX) -std=c++11 $(HDR_WARN) -Iinclude "$$tmp/h.cpp" -o "$$tmp/cxx" $(LDFLAGS) -L$(OUT) -lnetsched; \
	LD_LIBRARY_PATH=$(abspath $(OUT)) "$$tmp/cxx"; \
	for h in include/netsched/*.h; do \
	  printf '#include "%s"\n' "$(CURDIR)/$$h" > "$$tmp/sub.c"; \
	  $(HDR_CC) -std=c99 $(HDR_WARN) -Wundef -fsyntax-only "$$tmp/sub.c"; done; \
	echo "header-check: 1 passed, 0 failed (netsched.h as C99, C++11 and each sub-header alone)"

# -- ABI baseline (abidw) and compatibility check (abidiff) ------------------
# abidiff --no-added-syms: additions are compatible and filtered out, so any
# remaining report (removed or changed function/type, exit bit 4 or 8) fails.
ABI_BASELINE ?= abi/libnetsched.abi
ABI_LIB ?= $(OUT)/$(SO_FILE)
ABI_HEADERS ?= include
abi-dump: lib
	@readelf -S $(ABI_LIB) | grep -q debug_info || { echo "abi-dump: $(ABI_LIB) has no debug info (build with -g)"; exit 1; }
	@mkdir -p $(dir $(ABI_BASELINE))
	abidw --headers-dir $(ABI_HEADERS) --no-corpus-path --drop-private-types \
	  --drop-undefined-syms --out-file $(ABI_BASELINE) $(ABI_LIB)
	@echo "abi-dump: wrote $(ABI_BASELINE) ($$(grep -c '<elf-symbol ' $(ABI_BASELINE)) symbols)"

abi-check: lib
	@if [ ! -f $(ABI_BASELINE) ]; then \
	  echo "abi-check: SKIPPED - no baseline $(ABI_BASELINE) yet (create it with 'make abi-dump' and commit it)"; \
	  exit 0; fi; \
	readelf -S $(ABI_LIB) | grep -q debug_info || { echo "abi-check: $(ABI_LIB) has no debug info (build with -g)"; exit 1; }; \
	abidiff --no-added-syms --hd2 $(ABI_HEADERS) --drop-private-types $(ABI_BASELINE) $(ABI_LIB); \
	rc=$$?; if [ $$rc -ne 0 ]; then \
	  echo "abi-check: FAILED - incompatible change against $(ABI_BASELINE) (abidiff exit $$rc)"; exit 1; fi; \
	echo "abi-check: passed - $(ABI_LIB) is compatible with $(ABI_BASELINE)"

# Proves the mechanism on scratch copies: unchanged and added pass, a removed
# function and a changed parameter type fail, an absent baseline skips.
abi-selftest: lib
	bash tests/abi/abi_selftest.sh "$(OUT)" "$(OBJ)" "$(LIB_LIBS)"

# -- libFuzzer targets: tests/fuzz/fuzz_*.c ----------------------------------
# The library is rebuilt with clang under coverage + ASan + UBSan into
# build/fuzz/. A target's first lines name the symbols it needs
# ("fuzz-requires: ns_x ns_y"); one whose module has not landed is skipped.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30
# FUZZ_RUNS=N instead runs N inputs per target with a fixed seed: a
# reproducible smoke pass for CI (time-bounded runs explore, and may find
# something new on any run).
FUZZ_RUNS ?=
FUZZ_LIMIT = $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS) -seed=1,-max_total_time=$(FUZZ_SECONDS))
# The FUZZ_RUNS pass runs with address-space randomisation off (setarch -R),
# so that a target whose coverage follows pointer values draws the same
# inputs on every machine; a unit may take 60 s (ASan + coverage on a busy
# 2-core machine: fuzz_cassini's near-cap circles of 4M bins take 2.5 s of
# CPU and were seen at 13 s of wall time) before it counts as a hang.
FUZZ_NOASLR := $(if $(FUZZ_RUNS),$(shell setarch $$(uname -m) -R true 2>/dev/null && echo setarch $$(uname -m) -R))
FUZZ_TIMEOUT ?= 60
FUZZ_WHAT = $(if $(FUZZ_RUNS),$(FUZZ_RUNS) runs (seed 1),$(FUZZ_SECONDS) s)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -O1 -g $(FUZZ_SAN)
FUZZ_OBJS := $(SRCS:%.c=build/fuzz/obj/%.o)
FUZZ_LIB := build/fuzz/libnetsched-fuzz.a
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRCS:tests/fuzz/%.c=%)

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(LIB_CPPFLAGS) $(LIB_PKG_CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

build/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_util.h $(FUZZ_LIB)
	$(FUZZ_CC) -Iinclude -Isrc -Itests/fuzz $(FUZZ_CFLAGS) -fsanitize=fuzzer $< -o $@ \
	  $(FUZZ_LIB) $(LIB_LIBS)

# Builds each target whose required symbols the library defines; a skipped
# one is still compiled (-fsyntax-only) when its functions are declared, so
# it cannot rot while its module is pending.
fuzz-build: $(FUZZ_LIB)
	@: > build/fuzz/.built.tmp; for t in $(FUZZ_NAMES); do \
	  req=$$(sed -n 's/.*fuzz-requires:\(.*\)/\1/p' tests/fuzz/$$t.c); missing=""; undeclared=""; \
	  for s in $$req; do \
	    nm --defined-only $(FUZZ_LIB) 2>/dev/null | grep -q " T $$s$$" || missing="$$missing $$s"; \
	    grep -qw "$$s" include/netsched/*.h || undeclared="$$undeclared $$s"; done; \
	  if [ -z "$$missing" ]; then $(MAKE) -s --no-print-directory build/fuzz/$$t || exit 1; \
	    echo "$$t" >> build/fuzz/.built.tmp; continue; fi; \
	  echo "fuzz: SKIP $$t - module not landed (missing:$$missing)"; \
	  if [ -z "$$undeclared" ]; then \
	    $(FUZZ_CC) -Iinclude -Isrc -Itests/fuzz $(FUZZ_CFLAGS) -fsyntax-only tests/fuzz/$$t.c || exit 1; fi; \
	done; mv -f build/fuzz/.built.tmp build/fuzz/built

# Runs each built target for FUZZ_SECONDS on a scratch copy of its committed
# seeds (new corpus entries stay in build/, not in the repo).
# tests/fuzz/lsan.supp exempts leaks inside the C++ solver stack (CoinUtils'
# presolve leak, fixed upstream only on master).
fuzz: fuzz-build lib
	@fail=0; failed=""; for t in $$(cat build/fuzz/built); do \
	  work=build/fuzz/corpus/$$t; rm -rf $$work; mkdir -p $$work build/fuzz/artifacts; \
	  [ -d tests/fuzz/corpus/$$t ] && cp tests/fuzz/corpus/$$t/* $$work/ 2>/dev/null; \
	  echo "== fuzz $$t for $(FUZZ_WHAT)"; \
	  LSAN_OPTIONS=suppressions=$(abspath tests/fuzz/lsan.supp) \
	  $(FUZZ_NOASLR) build/fuzz/$$t $(FUZZ_LIMIT) -timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/$$t- $$work \
	    > build/fuzz/$$t.log 2>&1 || { fail=1; failed="$$failed $$t"; tail -n 60 build/fuzz/$$t.log; }; \
	  grep -E '^SKIP|^stat::(number_of_executed_units|new_units_added)' build/fuzz/$$t.log | tr '\n' ' '; echo; \
	done; \
	echo "== fuzz fuzz_python_args for $(FUZZ_WHAT)"; \
	NETSCHED_LIBRARY=$(abspath $(OUT))/$(SO_NAME) PYTHONPATH=$(abspath bindings/python) \
	  $(PYTHON) tests/fuzz/fuzz_python_args.py $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS) --seed 1,--seconds $(FUZZ_SECONDS)) \
	  --corpus tests/fuzz/corpus/fuzz_python_args --artifacts build/fuzz/artifacts \
	  || { fail=1; failed="$$failed fuzz_python_args"; }; \
	if [ $$fail -ne 0 ]; then for t in $$failed; do [ -f build/fuzz/$$t.log ] || continue; \
	    echo "== $$t failed:"; grep -E 'invariant failed|^  [a-z]|ERROR:|SUMMARY:|Base64:|written to' \
	      build/fuzz/$$t.log | head -n 12; done; \
	  echo "make fuzz: FAILED:$$failed (reproducers in build/fuzz/artifacts/)"; exit 1; fi; \
	echo "make fuzz: all targets ran $(FUZZ_WHAT) without a crash"

# ==== netsched-slurm: external scheduler for Slurm (issue 16) =================
# Built when libslurm's header is present (Debian: libslurm-dev); otherwise
# every target here says it is skipped. The program uses only <netsched.h>.
.PHONY: slurm check-slurm install-slurm bench-slurm
SLURM_H := $(wildcard /usr/include/slurm/slurm.h)
SLURM_SRCS := $(sort $(wildcard bindings/slurm/*.c))
SLURM_DECIDE_SRCS := bindings/slurm/decide.c bindings/slurm/policies.c bindings/slurm/state.c bindings/slurm/comment.c \
                     bindings/slurm/waitlog.c bindings/slurm/history.c
SLURM_BIN := $(OBJ)/bindings/slurm/netsched-slurm
SLURM_CFLAGS := -Iinclude $(TEST_CFLAGS) -D_DEFAULT_SOURCE

# The adapter's decision equals the policy object's, for every preset: its
# decision part on a synthetic snapshot, so no libslurm is needed (issue 28).
SLURM_DECIDE_TEST := $(OBJ)/tests/slurm/test_decide_policy
$(SLURM_DECIDE_TEST): tests/slurm/test_decide_policy.c $(SLURM_DECIDE_SRCS) \
    bindings/slurm/adapter.h $(TEST_HELPERS) $(wildcard tests/unit/helpers/*.h) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(SLURM_CFLAGS) -Ibindings/slurm -Itests/unit $< $(SLURM_DECIDE_SRCS) $(TEST_HELPERS) -o $@ \
	  $(LDFLAGS) $(LIB_A) -lcmocka $(LIB_LIBS)
check: $(SLURM_DECIDE_TEST)

ifneq ($(SLURM_H),)
all: slurm
slurm: $(SLURM_BIN)
$(SLURM_BIN): $(SLURM_SRCS) bindings/slurm/adapter.h $(OUT)/libnetsched.so
	@mkdir -p $(dir $@)
	$(CC) $(SLURM_CFLAGS) $(SLURM_SRCS) -o $@ $(LDFLAGS) -L$(OUT) -lnetsched \
	  -Wl,-rpath,$(abspath $(OUT)) -lslurm -lm

# `make check` runs the same command as a suite (SLURM_CHECK, in the
# background), so the summary counts it; `make check-slurm` runs it alone.
SLURM_CHECK = bash tests/slurm/run.sh "$(abspath $(SLURM_BIN))"
check: $(SLURM_BIN)
check-slurm: $(SLURM_BIN)
	$(SLURM_CHECK)

install-slurm: $(SLURM_SRCS) $(LIB_SO) $(OUT)/libnetsched.so share/man/netsched-slurm.1
	install -d $(DESTDIR)$(BINDIR) $(OBJ)/install
	$(CC) $(SLURM_CFLAGS) $(SLURM_SRCS) -o $(OBJ)/install/netsched-slurm $(LDFLAGS) -L$(OUT) \
	  -lnetsched -Wl,-rpath,$(LIBDIR) -lslurm -lm
	install -m 755 $(OBJ)/install/netsched-slurm $(DESTDIR)$(BINDIR)/netsched-slurm
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 644 share/man/netsched-slurm.1 $(DESTDIR)$(MANDIR)/man1/netsched-slurm.1

# The decision part alone (no Slurm): 1,000 held jobs on a 256-node snapshot.
$(OBJ)/bench/bench_slurm_decide: bench/slurm/bench_slurm_decide.c $(SLURM_DECIDE_SRCS) \
    bindings/slurm/adapter.h bench/bench_util.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(SLURM_CFLAGS) -Ibindings/slurm -Ibench $< $(SLURM_DECIDE_SRCS) -o $@ $(LDFLAGS) \
	  $(LIB_A) $(LIB_LIBS)
bench-slurm: $(OBJ)/bench/bench_slurm_decide
	@echo "== $<"; $<
else
SLURM_CHECK = echo "netsched-slurm: SKIPPED - /usr/include/slurm/slurm.h not found (install libslurm-dev)"
slurm check-slurm install-slurm bench-slurm:
	@$(SLURM_CHECK)
endif
all: slurm
install: install-slurm
bench: bench-slurm
