/*
 * tests/hostile/test_input_files.c - hostile trace and model-profile files:
 * endless or binary input, over-long and over-wide lines, byte-order marks,
 * hex and other non-decimal numbers, model_bytes past any integer, a
 * directory, and outputs that must never be half-written. Each test name
 * names the hazard (issue 31). Every refused load must leave the simulator
 * as it was (no job, no profile added).
 */
#include "unit/helpers/ns_test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static ns_sim *new_sim(void) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_non_null(s);
  return s;
}

/* A temporary file holding `len` bytes of `text` (NULs allowed). */
static void temp_bytes(char *path, const char *text, size_t len) {
  snprintf(path, 64, "/tmp/ns-input-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, len), (ssize_t)len);
  close(fd);
}

static void assert_trace_fails(const char *text, size_t len, const char *needle) {
  char path[64];
  temp_bytes(path, text, len);
  ns_sim *s = new_sim();
  assert_fails_with(ns_sim_load_trace(s, path, NS_SIM_TRACE_AUTO), NS_EINVAL, needle);
  assert_int_equal(ns_sim_job_count(s), 0);
  ns_sim_free(s);
  unlink(path);
}

static const char tiresias_head[] = "job_id,num_gpu,submit_time,iterations,model_name\n";

static void test_endless_zero_bytes_fail_at_once(void **state) {
  (void)state;
  ns_sim *s = new_sim();
  /* /dev/zero grew one field to 2 GB in 30 s: now the first NUL stops it */
  assert_fails_with(ns_sim_load_trace(s, "/dev/zero", NS_SIM_TRACE_AUTO), NS_EINVAL,
                    "path '/dev/zero' line 1: contains a NUL byte: a binary file, not CSV text");
  ns_sim_free(s);
}

static void test_line_past_the_limit_is_refused_with_its_line(void **state) {
  (void)state;
  size_t n = sizeof tiresias_head - 1 + 70000 + 1;
  char *text = malloc(n + 1);
  assert_non_null(text);
  memcpy(text, tiresias_head, sizeof tiresias_head - 1);
  memset(text + sizeof tiresias_head - 1, 'a', 70000); /* one field of 70000 bytes */
  text[n - 1] = '\n';
  assert_trace_fails(text, n, "line 2: longer than 65536 bytes");
  free(text);
}

static void test_wide_rows_name_their_line_and_column_count(void **state) {
  (void)state;
  /* 19 columns: accepted, extra columns ignored (as --help says) */
  char path[64];
  char text[512];
  snprintf(text, sizeof text, "%sj1,1,0,10,vgg16,a,b,c,d,e,f,g,h,i,j,k,l,m,n\n", tiresias_head);
  temp_bytes(path, text, strlen(text));
  ns_sim *s = new_sim();
  assert_int_equal(ns_sim_load_trace(s, path, NS_SIM_TRACE_AUTO), 1);
  ns_sim_free(s);
  unlink(path);
  /* 65 columns on line 3 (a blank line 2 counted): refused, naming both */
  char wide[1024];
  int at = snprintf(wide, sizeof wide, "%s\nj1,1,0,10,vgg16", tiresias_head);
  for (int i = 0; i < 60; i++)
    at += snprintf(wide + at, sizeof wide - (size_t)at, ",x");
  snprintf(wide + at, sizeof wide - (size_t)at, "\n");
  assert_trace_fails(wide, strlen(wide), "line 3: 65 columns, more than the 64 a line may have");
  /* too few: the count and what the header needs */
  snprintf(text, sizeof text, "%sj1,1,0\n", tiresias_head);
  assert_trace_fails(text, strlen(text),
                     "line 2: 3 columns, the header's columns need at least 5 (got 'j1,1,0')");
}

static void test_utf8_bom_is_skipped_and_utf16_refused(void **state) {
  (void)state;
  char path[64], text[256];
  snprintf(text, sizeof text, "\xEF\xBB\xBF%sj7,1,0,10,vgg16\n", tiresias_head);
  temp_bytes(path, text, strlen(text));
  ns_sim *s = new_sim();
  assert_int_equal(ns_sim_load_trace(s, path, NS_SIM_TRACE_AUTO), 1);
  assert_string_equal(ns_sim_job_name(s, 0), "j7"); /* was "tiresias0": job_id lost */
  ns_sim_free(s);
  unlink(path);
  assert_trace_fails("\xFF\xFEj\0o\0", 6, "byte-order mark FF FE (UTF-16 little-endian)");
}

static void test_hex_and_other_non_decimal_numbers_are_refused(void **state) {
  (void)state;
  static const char *const bad[] = {"0x10", " 4", "4 ", "inf", "nan", "1e", "+", "", "4,5"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[256], needle[64];
    snprintf(text, sizeof text, "%sj1,\"%s\",0,10,vgg16\n", tiresias_head, bad[i]);
    snprintf(needle, sizeof needle, "num_gpu must be an integer >= 1 (got '%s')", bad[i]);
    assert_trace_fails(text, strlen(text), needle);
  }
}

static void test_a_directory_is_named_as_such(void **state) {
  (void)state;
  ns_sim *s = new_sim();
  assert_fails_with(ns_sim_load_trace(s, "/tmp", NS_SIM_TRACE_AUTO), NS_EINVAL,
                    "path '/tmp' is a directory");
  assert_fails_with(ns_sim_load_models(s, "/tmp"), NS_EINVAL, "path '/tmp' is a directory");
  ns_sim_free(s);
}

/* ---- model profiles ----------------------------------------------------------- */

static const char models_head[] = "name,forward_ms,backward_ms,model_bytes,memory_mb,comment\n";

static void assert_models_fail(const char *rows, const char *needle) {
  char path[64], text[4096];
  snprintf(text, sizeof text, "%s%s", models_head, rows);
  temp_bytes(path, text, strlen(text));
  ns_sim *s = new_sim();
  assert_int_equal(ns_sim_add_model_profile(s, "keep", 1, 1, 1, 0), NS_OK);
  assert_fails_with(ns_sim_load_models(s, path), NS_EINVAL, needle);
  /* all or nothing: only the profile added before */
  assert_int_equal(ns_sim_added_profile_count(s), 1);
  assert_string_equal(ns_sim_added_profile_name(s, 0), "keep");
  ns_sim_free(s);
  unlink(path);
}

static void test_model_bytes_past_any_integer_or_fractional_are_refused(void **state) {
  (void)state;
  /* 1e30, 1.9e19 and 2^64-1 became 0 (an undefined double-to-uint64 cast);
     1.5 was accepted */
  static const char *const bad[] = {"1e30", "1.9e19", "18446744073709551615", "1.5", "0x10",
                                    "-1", "9007199254740993"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char row[128], needle[160];
    snprintf(row, sizeof row, "ok,1,1,10,0,\nbig,1,1,%s,0,\n", bad[i]);
    snprintf(needle, sizeof needle, "line 3: model_bytes must be a whole number of bytes in [0, "
                                    "9007199254740992 (2^53)] (got '%s')", bad[i]);
    assert_models_fail(row, needle);
  }
}

static void test_long_comment_cannot_become_a_profile(void **state) {
  (void)state;
  /* a 2000-byte comment column: one row, not a second profile named by its tail */
  char rows[2400];
  int at = snprintf(rows, sizeof rows, "mine,1,2,100,0,");
  memset(rows + at, 'c', 1990);
  at += 1990;
  snprintf(rows + at, sizeof rows - (size_t)at, "vgg19,0,1,0,0\n");
  char path[64], text[4096];
  snprintf(text, sizeof text, "%s%s", models_head, rows);
  temp_bytes(path, text, strlen(text));
  ns_sim *s = new_sim();
  assert_int_equal(ns_sim_load_models(s, path), 1);
  assert_int_equal(ns_sim_added_profile_count(s), 1);
  assert_string_equal(ns_sim_added_profile_name(s, 0), "mine");
  ns_sim_free(s);
  unlink(path);
}

static void test_models_duplicate_names_and_bad_values_are_all_or_nothing(void **state) {
  (void)state;
  assert_models_fail("a,1,1,10,0,\nb,1,1,10,0,\na,2,2,10,0,\n",
                     "line 4: name must be unique in the file (also on line 2) (got 'a')");
  assert_models_fail("a,1,1,10,0,\nb,nan,1,10,0,\n",
                     "line 3: forward_ms must be a decimal number in [0, 1e+15] (got 'nan')");
  assert_models_fail("a,0,0,10,0,\n", "line 2: forward_ms + backward_ms must be > 0");
}

static void test_models_file_quoting_is_the_trace_readers(void **state) {
  (void)state;
  char path[64];
  const char *text = "\xEF\xBB\xBFname,model_bytes,forward_ms,backward_ms,memory_mb\n"
                     "\"bert, large\",1340000000,110,220,15000\n\n";
  temp_bytes(path, text, strlen(text));
  ns_sim *s = new_sim();
  assert_int_equal(ns_sim_add_model_profile(s, "bert, large", 1, 1, 1, 0), NS_OK);
  assert_int_equal(ns_sim_add_model_profile(s, "other", 1, 1, 1, 0), NS_OK);
  assert_int_equal(ns_sim_load_models(s, path), 1);
  /* replaced and moved last: the file's rows are the last names */
  assert_int_equal(ns_sim_added_profile_count(s), 2);
  assert_string_equal(ns_sim_added_profile_name(s, 0), "other");
  assert_string_equal(ns_sim_added_profile_name(s, 1), "bert, large");
  /* the profile is used: a job of that model runs 330 ms per iteration
     alone on one GPU (no communication), 10 iterations = 3.3 s */
  char trace[64], rows[256];
  snprintf(rows, sizeof rows, "%sj,1,0,10,\"bert, large\"\n", tiresias_head);
  temp_bytes(trace, rows, strlen(rows));
  assert_int_equal(ns_sim_load_trace(s, trace, NS_SIM_TRACE_AUTO), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 0), 3300.0, 1e-6);
  ns_sim_free(s);
  unlink(path);
  unlink(trace);
}

/* ---- outputs -------------------------------------------------------------------- */

static void test_failed_jobs_csv_write_leaves_the_old_file(void **state) {
  (void)state;
  char path[64];
  temp_bytes(path, "old contents\n", 13);
  ns_sim *s = new_sim();
  assert_int_equal(ns_sim_load_default_workload(s), 160);
  /* before a run: refused, file untouched */
  assert_int_equal(ns_sim_write_jobs_csv(s, path), NS_ESTATE);
  assert_int_equal(ns_sim_run(s), NS_OK);
  /* a directory in its place: refused by name */
  assert_fails_with(ns_sim_write_jobs_csv(s, "/tmp"), NS_EINVAL, "'/tmp' is a directory");
  FILE *f = fopen(path, "r");
  char line[64] = "";
  assert_non_null(fgets(line, sizeof line, f));
  fclose(f);
  assert_string_equal(line, "old contents\n");
  /* a successful write replaces it whole */
  assert_int_equal(ns_sim_write_jobs_csv(s, path), NS_OK);
  f = fopen(path, "r");
  assert_non_null(fgets(line, sizeof line, f));
  fclose(f);
  assert_true(strncmp(line, "job,name,gpus", 13) == 0);
  ns_sim_free(s);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_endless_zero_bytes_fail_at_once),
      cmocka_unit_test(test_line_past_the_limit_is_refused_with_its_line),
      cmocka_unit_test(test_wide_rows_name_their_line_and_column_count),
      cmocka_unit_test(test_utf8_bom_is_skipped_and_utf16_refused),
      cmocka_unit_test(test_hex_and_other_non_decimal_numbers_are_refused),
      cmocka_unit_test(test_a_directory_is_named_as_such),
      cmocka_unit_test(test_model_bytes_past_any_integer_or_fractional_are_refused),
      cmocka_unit_test(test_long_comment_cannot_become_a_profile),
      cmocka_unit_test(test_models_duplicate_names_and_bad_values_are_all_or_nothing),
      cmocka_unit_test(test_models_file_quoting_is_the_trace_readers),
      cmocka_unit_test(test_failed_jobs_csv_write_leaves_the_old_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
