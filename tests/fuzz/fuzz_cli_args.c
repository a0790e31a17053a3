/*
 * tests/fuzz/fuzz_cli_args.c - the command-line parser of netsched-sim
 * (examples/netsched-sim.c, parse_args) on random argument vectors: known
 * options with random, empty, huge, negative, non-numeric and comma-laden
 * values, unknown options, options missing their value, repeated options.
 *
 * fuzz-requires: ns_sim_policy_count ns_sim_policy_name ns_sim_opts_set_policy_name
 *
 * The CLI is one file with a main(); it is included here with main renamed,
 * so that its static parser is driven directly (no simulation runs). The
 * flags that print and exit (--list, --version, --help, -h) are never
 * generated as options, and an input whose random bytes spell one anyway
 * (a value after a flag that takes none is parsed as the next option) is
 * skipped before parsing: exit(0) would end the fuzzing process, and
 * libFuzzer would spend its budget restarting (issue 31). Coupling: this target uses parse_args(cli *, int, char **) and
 * the cli type's fields below; a rework of the CLI must keep or update them.
 *
 * Invariants: parse_args returns 0 or -1, never crashes or reads past an
 * argument (ASan); on success every value it stored is in its domain (ints
 * in [0, 2^24], reals finite and >= 0, policies valid preset ids, at most
 * 64 of them).
 */
#include "fuzz_util.h"

#define main netsched_sim_main
#include "../../examples/netsched-sim.c"
#undef main

static const char *const options[] = {"--policy", "--trace",  "--format", "--network",
                                      "--seed",   "--leaves", "--spines", "--servers",
                                      "--gpus",   "--links",  "--gbps",   "--nic-gbps",
                                      "--csv",    "--plot",   "--share",  "--all",
                                      "--bogus",  "-x",       "",         "--policy=",
                                      "--json",   "--json-jobs", "--summary-csv", "--models",
                                      "--progress", "--no-progress", "--gpus=", "--polcy"};
static const char *const values[] = {"ff",       "lwf-1,ff", "ff,,ff",  ",",      "nope",
                                     "tiresias", "philly",   "phase",   "ideal",  "maxmin", "auto", "-",
                                     "0",        "-1",       "16777216", "16777217",
                                     "99999999999999999999", "1e308", "1e309", "nan", "inf",
                                     "-0",       "0x10",     " 4",      "4 ",     "",
                                     "3.5",      "18446744073709551616"};

#define NOPT (sizeof options / sizeof options[0])
#define NVAL (sizeof values / sizeof values[0])
#define MAXARGS 24

/* A value: a known one, a random byte string, or a policy list of many
   names (past the 64-entry table). */
static char *make_value(fz *f) {
  char *s;
  switch (fz_range(f, 0, 5)) {
  case 0: {
    size_t len = (size_t)fz_range(f, 0, 40);
    s = malloc(len + 1);
    for (size_t i = 0; i < len; i++) {
      s[i] = (char)fz_u8(f);
      if (s[i] == '\0')
        s[i] = ',';
    }
    s[len] = '\0';
    return s;
  }
  case 1: { /* 70 policy names: the CLI keeps 64 */
    size_t cap = 70 * 16;
    s = malloc(cap);
    s[0] = '\0';
    for (int i = 0; i < 70; i++) {
      strcat(s, ns_sim_policy_name(i % ns_sim_policy_count()));
      strcat(s, ",");
    }
    return s;
  }
  default: {
    const char *v = values[fz_range(f, 0, NVAL - 1)];
    s = malloc(strlen(v) + 1);
    strcpy(s, v);
    return s;
  }
  }
}

/* An argument the parser answers by printing and exit(0). */
static int exits(const char *arg) {
  static const char *const flags[] = {"-h", "--help", "--version", "--list"};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    if (strcmp(arg, flags[i]) == 0)
      return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  char *argv[MAXARGS + 2];
  int argc = 0;
  argv[argc] = malloc(16);
  strcpy(argv[argc++], "netsched-sim");
  int want = (int)fz_range(&f, 0, MAXARGS);
  while (argc < want + 1) {
    const char *o = options[fz_range(&f, 0, NOPT - 1)];
    argv[argc] = malloc(strlen(o) + 1);
    strcpy(argv[argc++], o);
    if (argc < MAXARGS + 1 && fz_range(&f, 0, 7) != 0) /* sometimes no value */
      argv[argc++] = make_value(&f);
  }
  argv[argc] = NULL;
  char *keep[MAXARGS + 2];
  memcpy(keep, argv, sizeof keep); /* the parser may tokenise in place */
  for (int i = 1; i < argc; i++)
    if (exits(argv[i])) {
      for (int k = 0; k < argc; k++)
        free(keep[k]);
      return 0;
    }

  cli c;
  memset(&c, 0, sizeof c); /* main's defaults do not matter to the parser */
  c.network = NS_SIM_NET_PHASE;
  int rc = parse_args(&c, argc, argv);
  FZ_CHECK(rc == 0 || rc == -1, "parse_args returned %d", rc);
  if (rc == 0) {
    int ints[] = {c.leaves, c.spines, c.servers, c.gpus, c.links};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
      FZ_CHECK(ints[i] >= 0 && ints[i] <= 1 << 24, "int option %zu = %d", i, ints[i]);
    FZ_CHECK(isfinite(c.gbps) && c.gbps >= 0 && isfinite(c.nic_gbps) && c.nic_gbps >= 0,
             "gbps %g nic %g", c.gbps, c.nic_gbps);
    FZ_CHECK(c.npolicies >= 0 && c.npolicies <= 64, "%d policies", c.npolicies);
    for (int i = 0; i < c.npolicies; i++)
      FZ_CHECK(c.policies[i] >= 0 && c.policies[i] < ns_sim_policy_count(), "policy %d",
               c.policies[i]);
    FZ_CHECK(c.format == NS_SIM_TRACE_TIRESIAS || c.format == NS_SIM_TRACE_PHILLY ||
                 c.format == NS_SIM_TRACE_AUTO,
             "format %d", c.format);
    int known = 0;
    for (int i = 0; i < NNETWORKS; i++)
      known |= network_ids[i] == c.network;
    FZ_CHECK(known, "network %d", c.network);
    for (int i = 0; i < c.npolicies; i++) /* a policy given twice runs once */
      for (int j = 0; j < i; j++)
        FZ_CHECK(c.policies[i] != c.policies[j], "policy %d twice", c.policies[i]);
    FZ_CHECK(!c.json_jobs || c.json, "--json-jobs accepted without --json");
  }
  for (int i = 0; i < argc; i++)
    free(keep[i]);
  return 0;
}
