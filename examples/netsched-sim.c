/*
 * examples/netsched-sim.c - the simulator's command line: runs policies on
 * the same workload (embedded default or a trace) and prints one comparison
 * table. Uses only <netsched.h>.
 *
 *   netsched-sim --all                        every policy, default workload
 *   netsched-sim --policy ff,lwf-1 --trace t.csv --format tiresias --csv out.csv
 *   netsched-sim --list
 */
#include <math.h>
#include <netsched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct cli {
  int leaves, spines, servers, gpus, links;
  double gbps, nic_gbps;
  int network; /* ns_sim_network */
  unsigned long long seed;
  const char *trace, *csv, *plot;
  int format;
  int policies[64], npolicies;
  int progress;
  int share;
} cli;

typedef struct result {
  int rc;
  char err[256];
  double m[NS_SIM_METRIC_COUNT];
  double secs;
  double *jct; /* sorted, s; for --plot */
  size_t njct;
} result;

/* The network models the CLI names: --network NAME, and the summary line. */
static const struct {
  const char *name, *label;
  int id;
} networks[] = {
    {"phase", "phase-level", NS_SIM_NET_PHASE},
    {"maxmin", "max-min (fluid)", NS_SIM_NET_MAXMIN},
    {"contention", "Eq. 5 contention (fluid)", NS_SIM_NET_CONTENTION},
    {"ideal", "ideal (communication free)", NS_SIM_NET_IDEAL},
};
#define NNETWORKS ((int)(sizeof networks / sizeof networks[0]))

static void list_policies(void);

static void usage(FILE *f) {
  fprintf(f,
          "usage: netsched-sim [--policy a,b,c | --all] [--list] [--version]\n"
          "         [--trace FILE --format tiresias|philly] [--seed N]\n"
          "         [--leaves N] [--spines N] [--servers N (per leaf)] [--gpus N (per server)]\n"
          "         [--links N (per leaf-spine pair)] [--gbps X] [--nic-gbps X]\n"
          "         [--network phase|maxmin|contention|ideal] [--share] [--csv FILE] [--plot FILE.png]\n"
          "Without --trace, runs the embedded default workload (160 jobs, AdaDUAL §V-A)\n"
          "on 4 leaves x 4 servers x 4 GPUs, 8 spines x 2 links. --csv writes one row per job (with several\n"
          "policies: FILE with -<policy> before the extension). --share lets jobs share\n"
          "GPUs while memory fits (the LWF-kappa / Ada-SRSF model). --network ideal makes\n"
          "communication free (to compare with simulators that model no network).\n"
          "--network phase (default) simulates each job's compute and all-reduce phases,\n"
          "  flows of concurrent all-reduces sharing links max-min fairly; maxmin and\n"
          "  contention are the older fluid models (a colliding job is charged all the\n"
          "  time; contention = AdaDUAL's Eq. 5).\n"
          "A trace's duration is the job's lone run time on a consolidated placement\n"
          "under the chosen network. Policies (\"ff\" backfills, \"fifo\" does not):\n");
  if (f == stdout)
    list_policies();
}

static void list_policies(void) {
  for (int i = 0; i < ns_sim_policy_count(); i++)
    printf("  %-14s %s\n", ns_sim_policy_name(i), ns_sim_policy_description(i));
}

static const char *network_label(int id) {
  for (int i = 0; i < NNETWORKS; i++)
    if (networks[i].id == id)
      return networks[i].label;
  return "?";
}

static int parse_policies(cli *c, char *arg) {
  for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
    int found = -1;
    for (int i = 0; i < ns_sim_policy_count(); i++)
      if (strcmp(tok, ns_sim_policy_name(i)) == 0)
        found = i;
    if (found < 0) {
      ns_sim_opts *o = ns_sim_opts_new(); /* the library's message lists valid names */
      ns_sim_opts_set_policy_name(o, tok);
      fprintf(stderr, "netsched-sim: %s\n", ns_last_error());
      ns_sim_opts_free(o);
      return -1;
    }
    if (c->npolicies < 64)
      c->policies[c->npolicies++] = found;
  }
  return 0;
}

static int parse_int(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 0 || v > 1 << 24)
    return -1;
  *out = (int)v;
  return 0;
}

static int parse_dbl(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (*s == '\0' || *end != '\0' || !isfinite(v) || v < 0)
    return -1;
  *out = v;
  return 0;
}

/* One option with its value; 1 consumed, 0 unknown, -1 bad value. */
static int option(cli *c, const char *k, char *v) {
  int bad = 0;
  if (!strcmp(k, "--policy"))
    return parse_policies(c, v) == 0 ? 1 : -1;
  else if (!strcmp(k, "--trace"))
    c->trace = v;
  else if (!strcmp(k, "--format"))
    bad = !strcmp(v, "tiresias") ? (c->format = NS_SIM_TRACE_TIRESIAS, 0)
          : !strcmp(v, "philly") ? (c->format = NS_SIM_TRACE_PHILLY, 0) : 1;
  else if (!strcmp(k, "--network")) {
    bad = 1;
    for (int i = 0; i < NNETWORKS; i++)
      if (!strcmp(v, networks[i].name))
        c->network = networks[i].id, bad = 0;
  }
  else if (!strcmp(k, "--seed"))
    bad = sscanf(v, "%llu", &c->seed) != 1;
  else if (!strcmp(k, "--leaves"))
    bad = parse_int(v, &c->leaves);
  else if (!strcmp(k, "--spines"))
    bad = parse_int(v, &c->spines);
  else if (!strcmp(k, "--servers"))
    bad = parse_int(v, &c->servers);
  else if (!strcmp(k, "--gpus"))
    bad = parse_int(v, &c->gpus);
  else if (!strcmp(k, "--links"))
    bad = parse_int(v, &c->links);
  else if (!strcmp(k, "--gbps"))
    bad = parse_dbl(v, &c->gbps);
  else if (!strcmp(k, "--nic-gbps"))
    bad = parse_dbl(v, &c->nic_gbps);
  else if (!strcmp(k, "--csv"))
    c->csv = v;
  else if (!strcmp(k, "--plot"))
    c->plot = v;
  else
    return 0;
  if (bad) {
    fprintf(stderr, "netsched-sim: bad value '%s' for %s\n", v, k);
    return -1;
  }
  return 1;
}

/* Flags without a value; 1 handled, 0 not a flag. */
static int flag(cli *c, const char *k) {
  if (!strcmp(k, "--share"))
    c->share = 1;
  else if (!strcmp(k, "--all")) {
    c->npolicies = 0;
    for (int p = 0; p < ns_sim_policy_count() && p < 64; p++)
      c->policies[c->npolicies++] = p;
  } else if (!strcmp(k, "--list")) {
    list_policies();
    exit(0);
  } else if (!strcmp(k, "--version")) {
    printf("netsched-sim (libnetsched) %s\n", ns_version());
    exit(0);
  } else if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
    usage(stdout);
    exit(0);
  } else
    return 0;
  return 1;
}

static int parse_args(cli *c, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (flag(c, argv[i]))
      continue;
    int r = i + 1 < argc ? option(c, argv[i], argv[i + 1]) : 0;
    if (r < 0)
      return -1;
    if (r == 0) {
      fprintf(stderr, "netsched-sim: unknown option or missing value: %s\n", argv[i]);
      return -1;
    }
    i++;
  }
  return 0;
}

static void progress_bar(size_t done, size_t total, void *user) {
  const char *name = user;
  int width = 40, filled = total ? (int)(width * done / total) : width;
  fprintf(stderr, "\r%-14s [", name);
  for (int i = 0; i < width; i++)
    fputc(i < filled ? '#' : '.', stderr);
  fprintf(stderr, "] %zu/%zu", done, total);
  if (done == total)
    fprintf(stderr, "\r%*s\r", 80, "");
  fflush(stderr);
}

static ns_sim_opts *make_opts(const cli *c, int policy) {
  ns_sim_opts *o = ns_sim_opts_new();
  if (o == NULL)
    return NULL;
  if (ns_sim_opts_set_policy(o, (ns_sim_policy)policy) < 0 ||
      ns_sim_opts_set_cluster(o, c->leaves, c->spines, c->servers, c->gpus, c->links, c->gbps) < 0 ||
      ns_sim_opts_set_bandwidth(o, c->nic_gbps, 100.0) < 0 ||
      ns_sim_opts_set_network(o, (ns_sim_network)c->network) < 0 ||
      ns_sim_opts_set_seed(o, c->seed) < 0 || ns_sim_opts_set_gpu_sharing(o, c->share) < 0) {
    ns_sim_opts_free(o);
    return NULL;
  }
  return o;
}

static int load(const cli *c, ns_sim *s) {
  int n = c->trace ? ns_sim_load_trace(s, c->trace, (ns_sim_trace_format)c->format)
                   : ns_sim_load_default_workload(s);
  return n;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void keep_jcts(ns_sim *s, result *r) {
  int n = ns_sim_job_count(s);
  r->jct = malloc(((size_t)n + 1) * sizeof *r->jct);
  r->njct = 0;
  for (int i = 0; i < n && r->jct; i++) {
    double a, st, f;
    if (ns_sim_job_result(s, i, &a, &st, &f, NULL) == NS_OK && isfinite(f))
      r->jct[r->njct++] = (f - a) / 1000.0;
  }
  if (r->jct)
    qsort(r->jct, r->njct, sizeof *r->jct, cmp_dbl);
}

static void csv_path(const cli *c, int policy, char *buf, size_t len) {
  if (c->npolicies == 1) {
    snprintf(buf, len, "%s", c->csv);
    return;
  }
  const char *dot = strrchr(c->csv, '.');
  int stem = dot ? (int)(dot - c->csv) : (int)strlen(c->csv);
  snprintf(buf, len, "%.*s-%s%s", stem, c->csv, ns_sim_policy_name(policy), dot ? dot : "");
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs one policy; r->rc < 0 with r->err on failure. Returns jobs loaded. */
static int run_policy(const cli *c, int policy, result *r, int *skipped) {
  ns_sim_opts *o = make_opts(c, policy);
  ns_sim *s = o ? ns_sim_new(o) : NULL;
  ns_sim_opts_free(o);
  int n = s ? load(c, s) : NS_EINVAL;
  if (n < 0) {
    r->rc = n;
    snprintf(r->err, sizeof r->err, "%s", ns_last_error());
    ns_sim_free(s);
    return n;
  }
  *skipped = ns_sim_skipped_count(s);
  if (c->progress)
    ns_sim_set_progress(s, progress_bar, (void *)ns_sim_policy_name(policy));
  double t0 = now_s();
  r->rc = ns_sim_run(s);
  r->secs = now_s() - t0;
  if (r->rc < 0)
    snprintf(r->err, sizeof r->err, "%s", ns_last_error());
  for (int m = 0; r->rc == NS_OK && m < NS_SIM_METRIC_COUNT; m++)
    ns_sim_metric(s, (ns_sim_metric_id)m, &r->m[m]);
  if (r->rc == NS_OK && c->plot)
    keep_jcts(s, r);
  if (r->rc == NS_OK && c->csv) {
    char path[1024];
    csv_path(c, policy, path, sizeof path);
    if (ns_sim_write_jobs_csv(s, path) < 0)
      fprintf(stderr, "netsched-sim: %s\n", ns_last_error());
  }
  ns_sim_free(s);
  return n;
}

static void print_header(void) {
  printf("%-14s %9s %9s %9s %9s %10s %9s %9s %6s %7s %6s %6s %6s %7s %7s\n", "policy",
         "avgJCT_s", "medJCT_s", "p95JCT_s", "p99JCT_s", "makespan_s", "avgQ_s", "p95Q_s", "util%",
         "comm%", "frag%", "shared", "unfin", "preempt", "time_s");
}

static void print_row(int policy, const result *r) {
  const double *m = r->m;
  if (r->rc < 0) { /* the library's message without its "...unavailable: " prefix */
    const char *why = strstr(r->err, "unavailable: ");
    printf("%-14s %s: %s\n", ns_sim_policy_name(policy),
           r->rc == NS_EUNSUPPORTED ? "unavailable" : "failed",
           r->rc == NS_EUNSUPPORTED && why ? why + 13 : r->err);
    return;
  }
  printf("%-14s %9.1f %9.1f %9.1f %9.1f %10.1f %9.1f %9.1f %6.1f %7.1f %6.1f %6.0f %6.0f %7.0f "
         "%7.2f\n",
         ns_sim_policy_name(policy), m[NS_SIM_METRIC_AVG_JCT_MS] / 1e3,
         m[NS_SIM_METRIC_MEDIAN_JCT_MS] / 1e3, m[NS_SIM_METRIC_P95_JCT_MS] / 1e3,
         m[NS_SIM_METRIC_P99_JCT_MS] / 1e3, m[NS_SIM_METRIC_MAKESPAN_MS] / 1e3,
         m[NS_SIM_METRIC_AVG_QUEUE_MS] / 1e3, m[NS_SIM_METRIC_P95_QUEUE_MS] / 1e3,
         100 * m[NS_SIM_METRIC_GPU_UTIL], 100 * m[NS_SIM_METRIC_COMM_OVERHEAD],
         100 * m[NS_SIM_METRIC_FRAGMENTATION], m[NS_SIM_METRIC_LINKS_SHARED],
         m[NS_SIM_METRIC_UNFINISHED], m[NS_SIM_METRIC_PREEMPTIONS], r->secs);
}

/* JCT CDF per policy through gnuplot, when it is installed. */
static void plot(const cli *c, const result *res) {
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    fprintf(stderr, "netsched-sim: --plot needs gnuplot (e.g. apt-get install gnuplot-nox); "
                    "no plot written\n");
    return;
  }
  FILE *g = popen("gnuplot", "w");
  if (g == NULL) {
    fprintf(stderr, "netsched-sim: cannot start gnuplot\n");
    return;
  }
  fprintf(g, "set terminal pngcairo size 1000,640\nset output '%s'\nset logscale x\n", c->plot);
  fprintf(g, "set xlabel 'JCT (s)'\nset ylabel 'CDF'\nset key bottom right\nset grid\nplot ");
  int first = 1;
  for (int i = 0; i < c->npolicies; i++)
    if (res[i].rc == NS_OK && res[i].njct > 0) {
      fprintf(g, "%s'-' using 1:2 with lines lw 2 title '%s'", first ? "" : ", ",
              ns_sim_policy_name(c->policies[i]));
      first = 0;
    }
  fprintf(g, "%s\n", first ? "0 notitle" : "");
  for (int i = 0; i < c->npolicies; i++) {
    if (res[i].rc != NS_OK || res[i].njct == 0)
      continue;
    for (size_t k = 0; k < res[i].njct; k++)
      fprintf(g, "%g %g\n", res[i].jct[k] > 1e-3 ? res[i].jct[k] : 1e-3,
              (double)(k + 1) / (double)res[i].njct);
    fprintf(g, "e\n");
  }
  if (pclose(g) != 0)
    fprintf(stderr, "netsched-sim: gnuplot failed; see its messages above\n");
  else
    fprintf(stderr, "netsched-sim: JCT CDF written to %s\n", c->plot);
}

int main(int argc, char **argv) {
  cli c = {4, 8, 4, 4, 2, 10.0, 0.0, NS_SIM_NET_PHASE, 1, NULL, NULL, NULL,
           NS_SIM_TRACE_TIRESIAS, {0}, 0, 0, 0};
  if (parse_args(&c, argc, argv) < 0) {
    usage(stderr);
    return 2;
  }
  if (c.npolicies == 0)
    c.policies[c.npolicies++] = NS_SIM_POLICY_FF;
  c.progress = isatty(STDERR_FILENO);
  result *res = calloc((size_t)c.npolicies, sizeof *res);
  if (res == NULL)
    return 1;
  int hard = 0, skipped = 0, loaded = -1;
  for (int i = 0; i < c.npolicies; i++) {
    int n = run_policy(&c, c.policies[i], &res[i], &skipped);
    if (n < 0) { /* the workload itself failed: same for every policy */
      fprintf(stderr, "netsched-sim: %s\n", res[i].err);
      free(res);
      return 1;
    }
    loaded = n;
    hard |= res[i].rc < 0 && res[i].rc != NS_EUNSUPPORTED;
  }
  printf("workload: %s, %d jobs", c.trace ? c.trace : "embedded default (seeded)", loaded);
  if (skipped > 0)
    printf(", %d skipped (larger than the cluster)", skipped);
  printf("%s; cluster %d leaves x %d servers x %d GPUs, %d spines x %d links, %g Gbps; %s network\n",
         c.share ? ", GPU sharing" : "", c.leaves, c.servers, c.gpus, c.spines, c.links, c.gbps,
         network_label(c.network));
  print_header();
  for (int i = 0; i < c.npolicies; i++)
    print_row(c.policies[i], &res[i]);
  fflush(stdout); /* the table before gnuplot's messages */
  if (c.plot)
    plot(&c, res);
  for (int i = 0; i < c.npolicies; i++)
    free(res[i].jct);
  free(res);
  return hard ? 1 : 0;
}
