# libnetsched - plain GNU make, no generator (zstd's lib/Makefile is the model).
#
#   make            lib/libnetsched.a, lib/libnetsched.so.X.Y.Z (+ symlinks), lib/netsched.pc
#   make check      every test suite (unit/cmocka, abi/Check, pkg-config, python)
#   make sanitize   the same under ASan+UBSan (separate build tree, build/san/)
#   make valgrind   the unit tests under valgrind --leak-check=full
#   make demo       build and run the example programs
#   make bench      build and run the benchmarks in bench/
#   make install / uninstall   honour PREFIX and DESTDIR
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
DESTDIR ?=

PKG_CONFIG ?= pkg-config
PYTHON ?= python3
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

.PHONY: all lib check check-unit check-abi check-pkgconfig check-python sanitize valgrind \
        demo bench examples install install-pc install-static install-shared \
        install-includes uninstall clean

all: lib
lib: $(LIB_A) $(OUT)/libnetsched.so $(LIB_PC)

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

$(LIB_PC): lib/netsched.pc.in include/netsched.h Makefile
	@mkdir -p $(OUT)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@REQUIRES_PRIVATE@|$(LIB_PKGS)|' -e 's|@LIBS_PRIVATE@|$(LIBS_PRIVATE)|' \
	    $< > $@

# ---- tests ------------------------------------------------------------------
TEST_CPPFLAGS := -Iinclude -Isrc -Itests
TEST_CFLAGS := $(STD_FLAGS) $(CFLAGS) -pthread
PUB_HEADERS := include/netsched.h $(wildcard include/netsched/*.h)

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OBJ)/tests/unit/%)
ABI_SRCS := $(sort $(wildcard tests/abi/test_*.c))
ABI_BINS := $(ABI_SRCS:tests/abi/%.c=$(OBJ)/tests/abi/%)
TEST_HELPERS := $(sort $(wildcard tests/unit/helpers/*.c))

# Unit tests link the static library, so they may also test internal helpers.
$(OBJ)/tests/unit/%: tests/unit/%.c $(TEST_HELPERS) $(wildcard tests/unit/helpers/*.h) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(LIB_PKG_CFLAGS) $(TEST_CFLAGS) $< $(TEST_HELPERS) -o $@ \
	  $(LDFLAGS) $(LIB_A) $(shell $(PKG_CONFIG) --libs cmocka) $(LIB_LIBS)

# ABI suites link the shared library: they see exactly what consumers see.
$(OBJ)/tests/abi/%: tests/abi/%.c tests/abi/abi_test.h $(OUT)/libnetsched.so
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -Itests $(TEST_CFLAGS) $< -o $@ $(LDFLAGS) -L$(OUT) -lnetsched \
	  -Wl,-rpath,$(abspath $(OUT)) $(shell $(PKG_CONFIG) --libs check) -lm

# Each runner prints its own summary line; every suite runs even if one fails.
check: lib $(UNIT_BINS) $(ABI_BINS) examples
	@fail=0; \
	for t in $(UNIT_BINS); do echo "== $$t"; $$t || fail=1; done; \
	for t in $(ABI_BINS); do echo "== $$t"; NS_LIBRARY=$(abspath $(OUT))/libnetsched.so $$t || fail=1; done; \
	echo "== tests/pkgconfig.sh"; bash tests/pkgconfig.sh "$(OUT)" || fail=1; \
	echo "== tests/readme_snippets.sh"; bash tests/readme_snippets.sh "$(OUT)" "$(SANITIZE)" || fail=1; \
	if [ -d tests/python ] && ls tests/python/test_*.py >/dev/null 2>&1; then \
	  echo "== tests/python"; $(PY_ENV) NETSCHED_LIBRARY=$(abspath $(OUT))/$(SO_NAME) \
	    PYTHONPATH=$(abspath bindings/python) $(PYTHON) -m unittest discover -s tests/python -t . || fail=1; \
	fi; \
	if [ $$fail -ne 0 ]; then echo "make check: FAILED"; exit 1; fi; echo "make check: all suites passed"

ifeq ($(SANITIZE),1)
# ctypes loads the sanitized library into an uninstrumented python.
PY_ENV := LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
          ASAN_OPTIONS=detect_leaks=0
endif

sanitize:
	$(MAKE) SANITIZE=1 check

valgrind: $(UNIT_BINS)
	@fail=0; for t in $(UNIT_BINS); do echo "== valgrind $$t"; $(VALGRIND) $$t || fail=1; done; exit $$fail

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
demo: examples
	@for e in $(filter-out $(SIM_CLI),$(EXAMPLE_BINS)); do echo "== $$e"; $$e || exit 1; done
	@echo "== $(SIM_CLI) --all"; $(SIM_CLI) --all

BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(OBJ)/bench/%)

$(OBJ)/bench/%: bench/%.c bench/bench_util.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(TEST_CFLAGS) $< -o $@ $(LDFLAGS) $(LIB_A) $(LIB_LIBS)

bench: $(BENCH_BINS)
	@for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done

# ---- install ----------------------------------------------------------------
install: install-pc install-static install-shared install-includes

install-pc: $(LIB_PC)
	install -d $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(LIB_PC) $(DESTDIR)$(PKGCONFIGDIR)/netsched.pc

install-static: $(LIB_A)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libnetsched.a

install-shared: $(LIB_SO)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(SO_FILE)
	ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libnetsched.so

install-includes:
	install -d $(DESTDIR)$(INCLUDEDIR)/netsched
	install -m 644 include/netsched.h $(DESTDIR)$(INCLUDEDIR)/netsched.h
	install -m 644 include/netsched/*.h $(DESTDIR)$(INCLUDEDIR)/netsched/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libnetsched.a $(DESTDIR)$(LIBDIR)/$(SO_FILE) \
	      $(DESTDIR)$(LIBDIR)/$(SO_NAME) $(DESTDIR)$(LIBDIR)/libnetsched.so \
	      $(DESTDIR)$(PKGCONFIGDIR)/netsched.pc $(DESTDIR)$(INCLUDEDIR)/netsched.h
	rm -rf $(DESTDIR)$(INCLUDEDIR)/netsched

clean:
	rm -rf build lib/libnetsched.a lib/libnetsched.so* lib/netsched.pc

-include $(shell find build -name '*.d' 2>/dev/null)
