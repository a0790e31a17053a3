/*
 * tests/abi/test_exports.c - the shared library exports only ns_* symbols
 * (plus the NETSCHED_0 version node), has the right SONAME, and every
 * exported function is declared in the public header.
 */
#include <stdio.h>

#include "abi_test.h"

static const char *lib_path(void) {
  const char *p = getenv("NS_LIBRARY");
  return p ? p : "lib/libnetsched.so";
}

START_TEST(test_only_ns_symbols) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s'", lib_path());
  FILE *f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  char line[512];
  int n_ns = 0, bad = 0;
  while (fgets(line, sizeof line, f)) {
    char addr[64], type[8], name[400];
    if (sscanf(line, "%63s %7s %399s", addr, type, name) != 3)
      continue;
    if (strcmp(type, "A") == 0 && strncmp(name, "NETSCHED_", 9) == 0)
      continue; /* version node */
    if (strncmp(name, "ns_", 3) == 0) {
      n_ns++;
    } else {
      fprintf(stderr, "unexpected exported symbol: %s", line);
      bad++;
    }
  }
  ck_assert_int_eq(pclose(f), 0);
  ck_assert_int_eq(bad, 0);
  ck_assert_int_gt(n_ns, 50);
}
END_TEST

START_TEST(test_soname) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "readelf -d '%s' | grep -q 'Library soname: \\[libnetsched.so.0\\]'",
           lib_path());
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_symbols_versioned) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "objdump -T '%s' | grep ' ns_version$' | grep -q NETSCHED_0",
           lib_path());
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *exports_suite(void) {
  Suite *s = suite_create("exports");
  TCase *tc = tcase_create("nm");
  tcase_add_test(tc, test_only_ns_symbols);
  tcase_add_test(tc, test_soname);
  tcase_add_test(tc, test_symbols_versioned);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(exports_suite)
