/*
 * tests/unit/test_slurm_comment.c - netsched-slurm's comment handling
 * (bindings/slurm/comment.c) without Slurm: the user's part kept byte for
 * byte, the wait section found by its last " waits: ", shortened to Slurm's
 * 1024-byte limit, strict hints (model, iters, the bare preemptible),
 * control characters escaped, the read cap.
 * tests/slurm runs the same rules on the real daemons (case_comments).
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

#include "adapter.h"

static char *repeat(const char *head, char c, size_t n) {
  size_t h = strlen(head);
  char *s = malloc(h + n + 1);
  assert_non_null(s);
  memcpy(s, head, h);
  memset(s + h, c, n);
  s[h + n] = '\0';
  return s;
}

/* Parses `comment` into a fresh job; returns nss_parse_hints' status. */
static int parse(const char *comment, nss_job *j, char *msg, size_t n) {
  memset(j, 0, sizeof *j);
  j->comment = comment ? strdup(comment) : NULL;
  return nss_parse_hints(j, msg, n);
}

static void drop(nss_job *j) {
  free(j->comment);
  free(j->hints);
}

static void test_user_part(void **state) {
  (void)state;
  assert_int_equal(nss_comment_user_len(NULL), 0);
  assert_int_equal(nss_comment_user_len("netsched"), 8);
  assert_int_equal(nss_comment_user_len("netsched waits: no room"), 8);
  /* the LAST " waits: " starts our section: a user's own earlier one stays */
  const char *c = "netsched data waits: on NFS waits: no room";
  assert_int_equal(nss_comment_user_len(c), strlen("netsched data waits: on NFS"));
  /* "waits:" without the blank before it is text */
  assert_int_equal(nss_comment_user_len("netsched;waits: x"), 17);
}

static void test_compose(void **state) {
  (void)state;
  char *out = nss_comment_compose("netsched:model=vgg16 waits: old reason", 0, "new reason");
  assert_string_equal(out, "netsched:model=vgg16 waits: new reason");
  free(out);
  out = nss_comment_compose("netsched:model=vgg16 waits: old reason", 1, NULL);
  assert_string_equal(out, "netsched:model=vgg16"); /* placed: section removed */
  free(out);
  out = nss_comment_compose(NULL, 0, "r"); /* partition job without comment */
  assert_string_equal(out, "netsched waits: r");
  free(out);
  /* 1000-byte user part: 1024 - 1000 - 8 = 16 bytes for the reason, 13 + "..." */
  char *u = repeat("netsched ", 'y', 991);
  out = nss_comment_compose(u, 0, "0123456789abcdefghij");
  assert_int_equal(strlen(out), 1024);
  assert_memory_equal(out, u, 1000);
  assert_string_equal(out + 1000, " waits: 0123456789abc...");
  free(out);
  free(u);
  /* exactly room for the reason: unchanged */
  u = repeat("netsched ", 'y', 1004); /* 1013 + 8 + 3 = 1024 */
  out = nss_comment_compose(u, 0, "abc");
  assert_int_equal(strlen(out), 1024);
  assert_string_equal(out + 1013, " waits: abc");
  free(out);
  free(u);
  /* fewer than 4 bytes of room: no section at all, the user's part whole */
  u = repeat("netsched ", 'z', 1006); /* 1015 + 8 = 1023: room 1 */
  out = nss_comment_compose(u, 0, "a long reason");
  assert_string_equal(out, u);
  free(out);
  free(u);
  /* a user's part past Slurm's limit (a job_submit plugin's) is kept whole */
  u = repeat("netsched ", 'w', 3000);
  char *old = malloc(strlen(u) + 20);
  sprintf(old, "%s waits: old", u);
  out = nss_comment_compose(old, 0, "new");
  assert_string_equal(out, u);
  free(out);
  free(old);
  free(u);
}

static void test_clean_and_quote(void **state) {
  (void)state;
  char r[64];
  nss_clean_reason(r, sizeof r, "a\nb\tc\x1b[2J waits: d");
  assert_string_equal(r, "a b c [2J waits  d"); /* no " waits: " left inside */
  assert_int_equal(nss_comment_user_len(r), strlen(r));
  char q[100];
  nss_quote(q, sizeof q, "vgg\n16", 6);
  assert_string_equal(q, "vgg\\x0a16");
  char *big = repeat("", 'q', 100);
  nss_quote(q, sizeof q, big, 100);
  assert_int_equal(strlen(q), 43); /* 40 characters and "..." */
  assert_string_equal(q + 40, "...");
  free(big);
}

static void test_hints(void **state) {
  (void)state;
  nss_job j;
  char msg[NSS_MAX_REASON + 1];
  assert_int_equal(parse("netsched:model=vgg16,iters=1000 waits: x", &j, msg, sizeof msg), 0);
  assert_int_equal(j.model, nss_model_find("vgg16"));
  assert_int_equal((int)j.iters, 1000);
  assert_string_equal(j.hints, "netsched:model=vgg16,iters=1000");
  drop(&j);
  assert_int_equal(parse("netsched:iters=9007199254740992", &j, msg, sizeof msg), 0);
  assert_true(j.iters == 9007199254740992ull); /* 2^53: the largest */
  drop(&j);
  assert_int_equal(parse("netsched free text, not hints", &j, msg, sizeof msg), 0);
  assert_int_equal(j.model, -1);
  drop(&j);
  assert_int_equal(parse("netsched:", &j, msg, sizeof msg), 0); /* no hints */
  assert_int_equal(j.preemptible, 0);
  drop(&j);
  /* preemptible: a bare key, alone or among the others, in any position */
  assert_int_equal(parse("netsched:preemptible waits: x", &j, msg, sizeof msg), 0);
  assert_int_equal(j.preemptible, 1);
  drop(&j);
  assert_int_equal(parse("netsched:model=vgg16,preemptible,iters=5", &j, msg, sizeof msg), 0);
  assert_int_equal(j.preemptible, 1);
  assert_int_equal((int)j.iters, 5);
  drop(&j);
  /* not a hint outside "netsched:...": free text does not opt in */
  assert_int_equal(parse("netsched preemptible", &j, msg, sizeof msg), 0);
  assert_int_equal(j.preemptible, 0);
  drop(&j);
  /* a bad hint anywhere: the comment opts into nothing */
  assert_int_equal(parse("netsched:preemptible,model=gpt9", &j, msg, sizeof msg), -1);
  assert_int_equal(j.preemptible, 0);
  drop(&j);
  static const struct {
    const char *comment, *msg;
  } bad[] = {
      {"netsched:iters=9007199254740993", "hint iters '9007199254740993' is not a whole number"},
      {"netsched:iters=99999999999999999999999", "hint iters '99999999999999999999999'"},
      {"netsched:iters= -5", "hint iters ' -5'"},
      {"netsched:iters=+5", "hint iters '+5'"},
      {"netsched:iters=0x10", "hint iters '0x10'"},
      {"netsched:iters=1e3", "hint iters '1e3'"},
      {"netsched:iters=0", "hint iters '0'"},
      {"netsched:iters=", "hint iters ''"},
      {"netsched:iters=5,iters=6", "hint 'iters' given twice"},
      {"netsched:model=vgg16,", "empty hint"},
      {"netsched:model", "hint 'model' is not key=value"},
      {"netsched:colour=red", "unknown hint 'colour' (known: model, iters, preemptible)"},
      {"netsched:preemptible=1", "hint 'preemptible' takes no value (got 'preemptible=1')"},
      {"netsched:preemptible=", "hint 'preemptible' takes no value"},
      {"netsched:preemptible,preemptible", "hint 'preemptible' given twice"},
      {"netsched:Preemptible", "unknown hint 'Preemptible'"},
      {"netsched:model=vgg\n16", "unknown model 'vgg\\x0a16'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (parse(bad[i].comment, &j, msg, sizeof msg) != -1)
      fail_msg("'%s' accepted", bad[i].comment);
    if (strncmp(msg, "bad hint in comment: ", 21) != 0 || strstr(msg, bad[i].msg) == NULL)
      fail_msg("'%s': message '%s', expected '%s'", bad[i].comment, msg, bad[i].msg);
    assert_null(strchr(msg, '\n'));
    drop(&j);
  }
  /* more than NSS_COMMENT_READ_MAX bytes: refused, not parsed */
  char *huge = repeat("netsched:", 'x', NSS_COMMENT_READ_MAX);
  assert_int_equal(parse(huge, &j, msg, sizeof msg), -1);
  assert_non_null(strstr(msg, "more than netsched-slurm reads (65536)"));
  assert_null(j.hints);
  drop(&j);
  free(huge);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_user_part),
      cmocka_unit_test(test_compose),
      cmocka_unit_test(test_clean_and_quote),
      cmocka_unit_test(test_hints),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
