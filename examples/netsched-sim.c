/*
 * examples/netsched-sim.c - the simulator's command line: runs policies on
 * the same workload (embedded default or a trace) and prints one comparison
 * table, a row per policy as soon as it finishes, then the best policy per
 * column. --json / --summary-csv / --csv / --plot write the same results
 * for programs. Uses only <netsched.h>.
 *
 *   netsched-sim --all                        every policy, default workload
 *   netsched-sim --policy ff,lwf-1 --trace t.csv --csv out.csv --json -
 *   netsched-sim --list
 *
 * Options, table columns and outputs are each described by one table below
 * (opts[], columns[], networks[]); --help, the parser and the outputs are
 * driven by them. Exit status: 0 every policy ran (a policy this build
 * lacks is reported, not an error) and every output was written; 1 a
 * policy failed, an input file (--trace, --models, --gittins-dist,
 * --contention-curve) is missing, unreadable or malformed, the workload is
 * empty, or an output failed; 2 a usage or value error on the command line;
 * 128 + the signal when SIGINT or SIGTERM stopped it (see "signals" below).
 */
#include <errno.h>
#include <math.h>
#include <netsched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_POLICIES 64

/* The network model's knobs (network-model issue): what --help lists under
   --contention-curve .. --cassini-candidates. */
typedef struct netcfg {
  const char *curve_name; /* NULL: the default curve; "ideal"; or the file */
  double alpha_ms;   /* --allreduce-latency */
  int nics;          /* --nics N (0 = one per GPU); -1: not given (1) */
  double nics_gbps;  /* --nics N@GBPS; < 0: not given */
  double gpu_mem_mb; /* --gpu-mem; 0: the default */
  int drift_wait;    /* --cassini-drift-rule wait */
  int candidates;    /* --cassini-candidates; 0: the default */
  int vclos_ecmp;    /* --vclos-routing ecmp */
  int hd;            /* --allreduce hd */
} netcfg;

typedef struct cli {
  int leaves, spines, servers, gpus, links;
  double gbps, nic_gbps, intra_gbps;
  int network; /* ns_sim_network */
  unsigned long long seed;
  const char *trace, *csv, *plot, *json, *summary, *models_path;
  int format; /* ns_sim_trace_format */
  int policies[MAX_POLICIES], npolicies;
  int progress; /* -1: on a terminal */
  int share, json_jobs;
  double dally_lease_s; /* --dally-lease; < 0: the library's default */
  const char *gittins_path; /* --gittins-dist */
  double *gittins;          /* its samples, GPU-ms */
  size_t ngittins;
  int limit;            /* --limit; < 0: every job */
  int input_error;      /* parse_args failed on an input file's content: exit 1 */
  netcfg net;           /* --contention-curve, --allreduce-latency, --nics, --gpu-mem, ... */
} cli;

typedef struct result {
  int rc;
  char err[512];
  double m[NS_SIM_METRIC_COUNT];
  double secs;
  double *jct; /* sorted, s; for --plot */
  size_t njct;
  char *jobs_json; /* per-job rows for --json-jobs */
  int csv_failed;   /* --csv could not be written */
} result;

/* ---- messages in the CLI's terms ----------------------------------------- */

/* The library's parameter names as the options that set them. */
static const struct {
  const char *c, *opt;
} c_names[] = {
    {"leaves*servers_per_leaf*gpus_per_server", "--leaves x --servers x --gpus"},
    {"leaves*spines*links_per_pair", "--leaves x --spines x --links"},
    {"servers_per_leaf", "--servers"}, {"gpus_per_server", "--gpus"},
    {"links_per_pair", "--links"},     {"link_gbps", "--gbps"},
    {"nic_gbps", "--nic-gbps"},        {"leaves", "--leaves"},
    {"intra_gbps", "--intra-gbps"},
    {"spines", "--spines"},
    {"gpu_time_samples", "--gittins-dist"},
};

/* msg without its leading "ns_xxx: " function names, library parameter
   names replaced by the options that set them. */
static void cli_terms(const char *msg, char *out, size_t len) {
  while (strncmp(msg, "ns_", 3) == 0) {
    const char *colon = strstr(msg, ": ");
    const char *space = strchr(msg, ' ');
    if (colon == NULL || (space && space < colon + 1))
      break;
    msg = colon + 2;
  }
  size_t at = 0;
  while (*msg && at + 1 < len) {
    size_t k = 0, n = sizeof c_names / sizeof c_names[0];
    for (; k < n; k++) {
      size_t l = strlen(c_names[k].c);
      if (strncmp(msg, c_names[k].c, l) == 0 && (msg[l] == ' ' || msg[l] == '\0'))
        break;
    }
    if (k < n) {
      at += (size_t)snprintf(out + at, len - at, "%s", c_names[k].opt);
      msg += strlen(c_names[k].c);
    } else {
      out[at++] = *msg++;
    }
    if (at >= len)
      at = len - 1;
  }
  out[at] = '\0';
}

static void fail_lib(const char *context) {
  char buf[600];
  cli_terms(ns_last_error(), buf, sizeof buf);
  fprintf(stderr, "netsched-sim: %s%s%s\n", context ? context : "", context ? ": " : "", buf);
}

/* "Did you mean": the closest of names[0..n) to s by the library's rule
   (ns_closest_name, the one its own messages use), or NULL. */
static const char *closest(const char *s, const char *const *names, int n) {
  int k = ns_closest_name(s, names, n);
  return k >= 0 ? names[k] : NULL;
}

/* ---- value parsers (each names the option and its valid range) ------------ */

static int parse_int(const char *opt, const char *s, long lo, long hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi) {
    fprintf(stderr, "netsched-sim: %s must be an integer in [%ld, %ld] (got '%s')\n", opt, lo, hi,
            s);
    return -1;
  }
  *out = (int)v;
  return 0;
}

/* A finite decimal number >= lo (> lo if strict): digits, sign, point and
   exponent only - strtod alone would take " 4", "0x10" (16) and "0x1p3". */
static int parse_num(const char *opt, const char *s, double lo, int strict, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (*s == '\0' || *end != '\0' || s[strspn(s, "0123456789+-.eE")] != '\0' || !isfinite(v) ||
      v < lo || (strict && v == lo)) {
    fprintf(stderr, "netsched-sim: %s must be a number %s %g (got '%s')\n", opt, strict ? ">" : ">=",
            lo, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* One of names[0..n) (given as "a|b|c" in the message). */
static int parse_choice(const char *opt, const char *s, const char *const *names, int n, int *out) {
  for (int i = 0; i < n; i++)
    if (strcmp(s, names[i]) == 0)
      return *out = i, 0;
  fprintf(stderr, "netsched-sim: %s must be one of ", opt);
  for (int i = 0; i < n; i++)
    fprintf(stderr, "%s%s", i ? ", " : "", names[i]);
  const char *hint = closest(s, names, n);
  fprintf(stderr, " (got '%s')%s%s%s\n", s, hint ? "; did you mean '" : "", hint ? hint : "",
          hint ? "'?" : "");
  return -1;
}

/* ---- tables: networks, formats, columns ---------------------------------- */

static const char *const network_names[] = {"phase", "maxmin", "contention", "ideal"};
static const int network_ids[] = {NS_SIM_NET_PHASE, NS_SIM_NET_MAXMIN, NS_SIM_NET_CONTENTION,
                                  NS_SIM_NET_IDEAL};
static const char *const network_labels[] = {"phase-level", "max-min (fluid)",
                                             "Eq. 5 contention (fluid)", "ideal (communication free)"};
#define NNETWORKS 4

static int network_index(int id) {
  for (int i = 0; i < NNETWORKS; i++)
    if (network_ids[i] == id)
      return i;
  return 0;
}

static const char *const format_names[] = {"tiresias", "philly", "auto"};
static const int format_ids[] = {NS_SIM_TRACE_TIRESIAS, NS_SIM_TRACE_PHILLY, NS_SIM_TRACE_AUTO};

/* The table's columns: metric, scale, and whether lower is better (the
   best policy and ties are marked per column). */
static const struct column {
  const char *head;
  int metric; /* ns_sim_metric_id */
  double scale;
  int width, digits, lower_better;
  const char *help;
} columns[] = {
    {"avgJCT_s", NS_SIM_METRIC_AVG_JCT_MS, 1e-3, 9, 1, 1,
     "mean job completion time (finish - arrival) of finished jobs, s"},
    {"medJCT_s", NS_SIM_METRIC_MEDIAN_JCT_MS, 1e-3, 9, 1, 1, "median JCT (nearest rank), s"},
    {"p95JCT_s", NS_SIM_METRIC_P95_JCT_MS, 1e-3, 9, 1, 1, "95th percentile JCT (nearest rank), s"},
    {"p99JCT_s", NS_SIM_METRIC_P99_JCT_MS, 1e-3, 9, 1, 1, "99th percentile JCT, s"},
    {"makespan_s", NS_SIM_METRIC_MAKESPAN_MS, 1e-3, 10, 1, 1, "last finish - first arrival, s"},
    {"avgQ_s", NS_SIM_METRIC_AVG_QUEUE_MS, 1e-3, 9, 1, 1,
     "mean queueing delay = first start - arrival (waits after a preemption are not in it: "
     "see avgW_s), s"},
    {"p95Q_s", NS_SIM_METRIC_P95_QUEUE_MS, 1e-3, 9, 1, 1, "95th percentile queueing delay, s"},
    {"avgW_s", NS_SIM_METRIC_AVG_WAIT_MS, 1e-3, 9, 1, 1,
     "mean time in the wait queue (Dally's queueing delay): first start - arrival plus every wait "
     "from a preemption to the restart; = avgQ_s without preemptions, s"},
    {"p95W_s", NS_SIM_METRIC_P95_WAIT_MS, 1e-3, 9, 1, 1, "95th percentile time in the wait queue, s"},
    {"util%", NS_SIM_METRIC_GPU_UTIL, 100, 6, 1, 0,
     "GPU utilisation: compute GPU-time / (GPUs x makespan)"},
    {"comm%", NS_SIM_METRIC_COMM_OVERHEAD, 100, 7, 1, 1,
     "communication overhead: mean over jobs of (run time - compute time alone) / compute time "
     "alone; 100 = a job took twice its compute time, so it can exceed 100"},
    {"avgIt_ms", NS_SIM_METRIC_AVG_ITER_MS, 1, 9, 1, 1,
     "mean over jobs of the job's mean iteration time (CASSINI) = time it held GPUs, minus the "
     "restore overhead after each restart, / its iterations (waits not in it), ms"},
    {"p99It_ms", NS_SIM_METRIC_P99_ITER_MS, 1, 9, 1, 1,
     "99th percentile over jobs of the job's mean iteration time, ms"},
    {"frag%", NS_SIM_METRIC_FRAGMENTATION, 100, 6, 1, 1,
     "machine fragmentation (Titan): idle GPUs of the machines that hold a worker, time-averaged"},
    {"mach", NS_SIM_METRIC_MACHINES_USED, 1, 6, 1, 1,
     "machines used: servers with a busy GPU, time-averaged over the makespan"},
    {"mach@arr", NS_SIM_METRIC_MACHINES_AT_ARRIVAL, 1, 8, 1, 1,
     "machines used as Titan samples them: servers with a busy GPU at each job arrival (after "
     "that instant's scheduling), mean over arrivals"},
    {"shared", NS_SIM_METRIC_LINKS_SHARED, 1, 6, 0, 1,
     "network links (NICs, uplinks) that carried two or more jobs at the same time"},
    {"unfin", NS_SIM_METRIC_UNFINISHED, 1, 6, 0, 1,
     "jobs that never finished (no placement could ever hold them)"},
    {"preempt", NS_SIM_METRIC_PREEMPTIONS, 1, 7, 0, 1,
     "preemptions: times a running job was suspended (2d-las, 2d-gittins, dally, dally-manual)"},
};
#define NCOLUMNS ((int)(sizeof columns / sizeof columns[0]))

/* ---- options --------------------------------------------------------------- */

static void wrap(FILE *f, const char *text, int indent, int at);

/* One line per policy for --list (scripts read its first column, e.g.
   tests/slurm); wrapped at 100 columns inside --help. */
static void list_policies(FILE *f, int wrapped) {
  for (int i = 0; i < ns_sim_policy_count(); i++)
    if (wrapped)
      wrap(f, ns_sim_policy_description(i), 17, fprintf(f, "  %-14s ", ns_sim_policy_name(i)));
    else
      fprintf(f, "  %-14s %s\n", ns_sim_policy_name(i), ns_sim_policy_description(i));
}

static void usage(FILE *f);

static int policy_names(const char **names) {
  int n = 0;
  for (int i = 0; i < ns_sim_policy_count() && i < MAX_POLICIES; i++)
    names[n++] = ns_sim_policy_name(i);
  return n;
}

static int add_policy(cli *c, int p) {
  for (int i = 0; i < c->npolicies; i++)
    if (c->policies[i] == p) {
      fprintf(stderr, "netsched-sim: policy %s given twice; it runs once\n", ns_sim_policy_name(p));
      return 0;
    }
  if (c->npolicies < MAX_POLICIES)
    c->policies[c->npolicies++] = p;
  return 0;
}

static int opt_policy(cli *c, const char *opt, char *v) {
  const char *names[MAX_POLICIES];
  int n = policy_names(names);
  for (char *tok = strtok(v, ","); tok; tok = strtok(NULL, ",")) {
    int found = -1;
    for (int i = 0; i < n; i++)
      if (strcmp(tok, names[i]) == 0)
        found = i;
    if (found < 0) {
      const char *hint = closest(tok, names, n);
      fprintf(stderr, "netsched-sim: %s: unknown policy '%s'%s%s%s (netsched-sim --list shows all %d)\n",
              opt, tok, hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "", n);
      return -1;
    }
    add_policy(c, found);
  }
  return 0;
}

static int opt_all(cli *c, const char *opt, char *v) {
  (void)opt, (void)v;
  for (int p = 0; p < ns_sim_policy_count() && p < MAX_POLICIES; p++)
    if (c->npolicies < MAX_POLICIES) {
      int seen = 0;
      for (int i = 0; i < c->npolicies; i++)
        seen |= c->policies[i] == p;
      if (!seen)
        c->policies[c->npolicies++] = p;
    }
  return 0;
}

static int opt_network(cli *c, const char *opt, char *v) {
  int i;
  if (parse_choice(opt, v, network_names, NNETWORKS, &i) < 0)
    return -1;
  c->network = network_ids[i];
  return 0;
}

static int opt_format(cli *c, const char *opt, char *v) {
  int i;
  if (parse_choice(opt, v, format_names, 3, &i) < 0)
    return -1;
  c->format = format_ids[i];
  return 0;
}

static int opt_seed(cli *c, const char *opt, char *v) {
  char *end;
  errno = 0;
  unsigned long long s = strtoull(v, &end, 10);
  if (*v == '\0' || *end != '\0' || errno != 0 || v[0] == '-') {
    fprintf(stderr, "netsched-sim: %s must be an integer in [0, %llu] (got '%s')\n", opt,
            18446744073709551615ull, v);
    return -1;
  }
  c->seed = s;
  return 0;
}

/* Cluster limits are the library's (ns_cluster_new_leaf_spine). */
static int opt_leaves(cli *c, const char *o, char *v) { return parse_int(o, v, 1, 1 << 22, &c->leaves); }
static int opt_spines(cli *c, const char *o, char *v) { return parse_int(o, v, 0, 1 << 24, &c->spines); }
static int opt_servers(cli *c, const char *o, char *v) { return parse_int(o, v, 1, 1 << 22, &c->servers); }
static int opt_gpus(cli *c, const char *o, char *v) { return parse_int(o, v, 1, 1 << 22, &c->gpus); }
static int opt_links(cli *c, const char *o, char *v) { return parse_int(o, v, 0, 1 << 24, &c->links); }
static int opt_gbps(cli *c, const char *o, char *v) { return parse_num(o, v, 0, 1, &c->gbps); }
static int opt_nic(cli *c, const char *o, char *v) { return parse_num(o, v, 0, 0, &c->nic_gbps); }
static int opt_intra(cli *c, const char *o, char *v) { return parse_num(o, v, 0, 1, &c->intra_gbps); }
static int opt_trace(cli *c, const char *o, char *v) { (void)o; c->trace = v; return 0; }
static int opt_limit(cli *c, const char *o, char *v) { return parse_int(o, v, 1, 1 << 30, &c->limit); }
/* Seconds: 0, or at least the library's shortest lease (1 s). */
static int opt_dally_lease(cli *c, const char *o, char *v) {
  if (parse_num(o, v, 0, 0, &c->dally_lease_s) < 0)
    return -1;
  if (c->dally_lease_s > 0 && c->dally_lease_s < 1) {
    fprintf(stderr, "netsched-sim: %s must be 0 or at least 1 s (got '%s')\n", o, v);
    return -1;
  }
  return 0;
}
static int opt_csv(cli *c, const char *o, char *v) { (void)o; c->csv = v; return 0; }
static int opt_json(cli *c, const char *o, char *v) { (void)o; c->json = v; return 0; }
static int opt_summary(cli *c, const char *o, char *v) { (void)o; c->summary = v; return 0; }
static int opt_plot(cli *c, const char *o, char *v) { (void)o; c->plot = v; return 0; }
static int opt_models(cli *c, const char *o, char *v) { (void)o; c->models_path = v; return 0; }
static int opt_gittins(cli *c, const char *o, char *v) { (void)o; c->gittins_path = v; return 0; }
static int opt_share(cli *c, const char *o, char *v) { (void)o, (void)v; c->share = 1; return 0; }
static int opt_jobs(cli *c, const char *o, char *v) { (void)o, (void)v; c->json_jobs = 1; return 0; }
static int opt_progress(cli *c, const char *o, char *v) { (void)o, (void)v; c->progress = 1; return 0; }
static int opt_no_progress(cli *c, const char *o, char *v) { (void)o, (void)v; c->progress = 0; return 0; }

static int check_input(const char *opt, const char *path);

/* --contention-curve FILE|ideal|default: FILE is a two-column CSV "k,e"
   (an optional header line, '#' comments and blank lines are skipped). */
static int opt_curve(cli *c, const char *o, char *v) {
  netcfg *n = &c->net;
  if (strcmp(v, "default") == 0) {
    n->curve_name = NULL;
    return 0;
  }
  n->curve_name = v;
  if (strcmp(v, "ideal") == 0)
    return 0;
  c->input_error = 1; /* a failure from here on is the file's: exit 1, not 2 */
  if (check_input(o, v) < 0)
    return -1;
  ns_sim_opts *t = ns_sim_opts_new(); /* read now, so the message comes before any run */
  if (t == NULL || ns_sim_opts_load_contention_curve(t, v) < 0) {
    char why[600];
    cli_terms(ns_last_error(), why, sizeof why);
    fprintf(stderr, "netsched-sim: %s %s: %s\n", o, v, why);
    ns_sim_opts_free(t);
    return -1;
  }
  ns_sim_opts_free(t);
  c->input_error = 0;
  return 0;
}
static int opt_alpha(cli *c, const char *o, char *v) {
  if (parse_num(o, v, 0, 0, &c->net.alpha_ms) < 0)
    return -1;
  if (c->net.alpha_ms > 3.6e6) {
    fprintf(stderr, "netsched-sim: %s must be at most 3600000 ms (got '%s')\n", o, v);
    return -1;
  }
  return 0;
}
/* --nics N[@GBPS] or gpu[@GBPS] (one NIC per GPU). */
static int opt_nics(cli *c, const char *o, char *v) {
  char *at = strchr(v, '@');
  if (at != NULL) {
    *at = '\0';
    int rc = parse_num(o, at + 1, 0, 1, &c->net.nics_gbps);
    *at = '@';
    if (rc < 0)
      return -1;
  }
  int rc = 0;
  if (strncmp(v, "gpu", at ? (size_t)(at - v) : strlen(v)) == 0 && (at ? at - v : (long)strlen(v)) == 3) {
    c->net.nics = 0;
  } else {
    if (at)
      *at = '\0';
    rc = parse_int(o, v, 1, 1 << 22, &c->net.nics);
    if (at)
      *at = '@';
  }
  return rc;
}
static int opt_gpu_mem(cli *c, const char *o, char *v) { return parse_num(o, v, 0, 1, &c->net.gpu_mem_mb); }
static int opt_drift_rule(cli *c, const char *o, char *v) {
  static const char *const rules[] = {"readjust", "wait"};
  int i;
  if (parse_choice(o, v, rules, 2, &i) < 0)
    return -1;
  c->net.drift_wait = i;
  return 0;
}
static int opt_vclos_routing(cli *c, const char *o, char *v) {
  static const char *const names[] = {"reserved", "ecmp"};
  return parse_choice(o, v, names, 2, &c->net.vclos_ecmp);
}
static int opt_allreduce(cli *c, const char *o, char *v) {
  static const char *const names[] = {"ring", "hd"};
  return parse_choice(o, v, names, 2, &c->net.hd);
}
static int opt_candidates(cli *c, const char *o, char *v) {
  return parse_int(o, v, 1, 10, &c->net.candidates);
}

/* The network options on o (a preset already applied). */
static int apply_net(const netcfg *n, ns_sim_opts *o) {
  int ideal = n->curve_name != NULL && strcmp(n->curve_name, "ideal") == 0;
  if (ideal && ns_sim_opts_set_contention_curve(o, NULL, NULL, 0) < 0)
    return -1;
  if (!ideal && n->curve_name != NULL && ns_sim_opts_load_contention_curve(o, n->curve_name) < 0)
    return -1;
  if (ns_sim_opts_set_allreduce_latency(o, n->alpha_ms) < 0 ||
      ns_sim_opts_set_cassini_drift_rule(o, n->drift_wait ? NS_SIM_DRIFT_WAIT : NS_SIM_DRIFT_READJUST) < 0 ||
      ns_sim_opts_set_vclos_routing(o, n->vclos_ecmp ? NS_SIM_VCLOS_ECMP : NS_SIM_VCLOS_RESERVED) < 0 ||
      ns_sim_opts_set_allreduce(o, n->hd ? NS_SIM_ALLREDUCE_HD : NS_SIM_ALLREDUCE_RING) < 0 ||
      (n->gpu_mem_mb > 0 && ns_sim_opts_set_gpu_memory(o, n->gpu_mem_mb) < 0))
    return -1;
  return n->candidates > 0 && ns_sim_opts_policy_name(o) != NULL &&
                 strncmp(ns_sim_opts_policy_name(o), "cassini", 7) == 0
             ? ns_sim_opts_set_cassini(o, 1, n->candidates)
             : 0;
}

/* What the table's header line says of the network model. */
static void describe_net(FILE *f, const cli *c) {
  const netcfg *n = &c->net;
  if (c->network == NS_SIM_NET_PHASE)
    fprintf(f, " (contention curve %s%s", n->curve_name ? n->curve_name : "default: HKBU 10 GbE fit",
            n->alpha_ms > 0 ? "" : ")");
  if (c->network == NS_SIM_NET_PHASE && n->alpha_ms > 0)
    fprintf(f, ", all-reduce latency %g ms)", n->alpha_ms);
  if (n->nics == 0)
    fprintf(f, "; one NIC per GPU");
  else if (n->nics > 1)
    fprintf(f, "; %d NICs per server", n->nics);
  else
    fprintf(f, "; 1 NIC per server (the default: the AdaDUAL testbed; --nics)");
}

static int opt_list(cli *c, const char *o, char *v) {
  (void)c, (void)o, (void)v;
  list_policies(stdout, 0);
  exit(0);
}

static int opt_version(cli *c, const char *o, char *v) {
  (void)c, (void)o, (void)v;
  printf("netsched-sim (libnetsched) %s\n", ns_version());
  exit(0);
}

static int opt_help(cli *c, const char *o, char *v) {
  (void)c, (void)o, (void)v;
  usage(stdout);
  exit(0);
}

static const struct option {
  const char *name, *metavar, *help;
  int (*set)(cli *c, const char *opt, char *value);
} opts[] = {
    {"--policy", "a,b,...", "policies to run, by the names --list prints (default ff); "
                            "a name given twice runs once", opt_policy},
    {"--all", NULL, "run every policy", opt_all},
    {"--list", NULL, "print the policy names with a description and exit", opt_list},
    {"--trace", "FILE", "read jobs from a CSV trace (see TRACES) instead of the embedded workload",
     opt_trace},
    {"--format", "auto|tiresias|philly", "the trace's format (default auto: from its header)",
     opt_format},
    {"--models", "FILE", "model profiles for the trace's model_name values, a CSV with the "
                         "header name,forward_ms,backward_ms,model_bytes,memory_mb", opt_models},
    {"--limit", "N", "run only the first N jobs by arrival (ties: trace order), e.g. to try a "
                     "big trace quickly (default: every job)", opt_limit},
    {"--seed", "N", "seed of the embedded workload and of random choices (default 1)", opt_seed},
    {"--leaves", "N", "leaf switches (racks), 1..4194304 (default 4)", opt_leaves},
    {"--spines", "N", "spine switches, 0..16777216 (default 8)", opt_spines},
    {"--servers", "N", "servers per leaf, 1..4194304 (default 4)", opt_servers},
    {"--gpus", "N", "GPUs per server, 1..4194304 (default 4)", opt_gpus},
    {"--links", "N", "links per leaf-spine pair, 0..16777216, >= 1 with spines (default 2)",
     opt_links},
    {"--gbps", "X", "bandwidth of every leaf-spine link, Gbps > 0 (default 10)", opt_gbps},
    {"--nic-gbps", "X", "server NIC bandwidth, Gbps >= 0; 0 = --gbps (default 0)", opt_nic},
    {"--intra-gbps", "X",
     "intra-server fabric, Gbps > 0 (default 100): with --nic-gbps (same rack) and --gbps "
     "(leaf-spine, across racks) the three bandwidth tiers", opt_intra},
    {"--network", "phase|maxmin|contention|ideal",
     "network model: phase (default: each job's compute and all-reduce phases, concurrent "
     "all-reduces sharing links max-min fairly); maxmin and contention, the older fluid models "
     "(a colliding job is charged all the time; contention = AdaDUAL's Eq. 5); ideal "
     "(communication free, to compare with simulators that model no network)", opt_network},
    {"--contention-curve", "FILE|ideal|default",
     "phase model: a link carrying k concurrent all-reduces delivers capacity x e(k); FILE is a "
     "CSV of 'k,e' points (linear in between, flat past the last, e(1) = 1); ideal = e 1 "
     "everywhere (plain max-min, no loss); default = the fit to HKBU's 10 GbE measurements "
     "(e(2) 0.79, e(8) 0.80, e(16) 0.61)", opt_curve},
    {"--allreduce-latency", "MS",
     "phase model: start-up latency of every all-reduce across servers, not shared "
     "(default 0; HKBU's 10 GbE fit: 14.9)", opt_alpha},
    {"--allreduce", "ring|hd",
     "phase model: every job's all-reduce as one ring (default) or as halving-doubling (hd: "
     "log2 n halving then doubling steps, each a phase sharing links; a GPU count not a power "
     "of two folds to the one below: ns_sim_opts_set_allreduce in netsched/sim.h)", opt_allreduce},
    {"--nics", "N[@GBPS]|gpu[@GBPS]",
     "NICs per server (default 1, the AdaDUAL testbed); gpu = one per GPU; @GBPS sets their "
     "rate as --nic-gbps", opt_nics},
    {"--gpu-mem", "MB", "memory of every GPU, MB > 0 (default 16384)", opt_gpu_mem},
    {"--cassini-drift-rule", "readjust|wait",
     "cassini-*: a drifted job's shifts are re-applied (readjust, default, CASSINI §4.2) or it "
     "waits for its next ideal slot (wait, the earlier rule)", opt_drift_rule},
    {"--cassini-candidates", "N",
     "cassini-*: candidate placements ranked, 1..10 (default 10); 1 = the base policy's own "
     "placement with time-shifts only", opt_candidates},
    {"--vclos-routing", "reserved|ecmp",
     "vclos, ocs-vclos: flows source-routed over the placement's reserved links (reserved, "
     "default: isolated) or hashed by ECMP over the shared fabric like any other placement's "
     "(ecmp: the same placement and reservations, routing not isolated)", opt_vclos_routing},
    {"--gittins-dist", "FILE",
     "2d-gittins: the service distribution, in the Tiresias simulator's format (its "
     "yarn-gput*.csv): a CSV whose header has a duration column, one job's GPU-time in "
     "GPU-seconds per line (default: the workload's own jobs, GPUs x lone run time)",
     opt_gittins},
    {"--dally-lease", "S",
     "dally, dally-manual: Themis-style leases of S seconds, 0 or >= 1 (default 1200; 0 = "
     "preempt after every scheduling pass instead); the rule at lease expiry: DALLY in "
     "netsched/sim.h",
     opt_dally_lease},
    {"--share", NULL, "let jobs share GPUs while their memory fits (LWF-kappa / Ada-SRSF model)",
     opt_share},
    {"--csv", "FILE", "one row per job: the trace's job_id and model_name, times, servers "
                      "(several policies: FILE with -<policy> before the extension)", opt_csv},
    {"--json", "FILE|-", "every metric of every policy as JSON, with the best per metric", opt_json},
    {"--json-jobs", NULL, "with --json: also each policy's per-job rows", opt_jobs},
    {"--summary-csv", "FILE|-", "one CSV row per policy: every metric and the columns it is best at",
     opt_summary},
    {"--plot", "FILE.png|.svg|.pdf", "JCT CDF of every policy (gnuplot; format from the extension)",
     opt_plot},
    {"--progress", NULL, "show a progress bar on stderr (default: when stderr is a terminal)",
     opt_progress},
    {"--no-progress", NULL, "never show the progress bar", opt_no_progress},
    {"--version", NULL, "print the version and exit", opt_version},
    {"--help", NULL, "print this help and exit (also -h)", opt_help},
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

/* text at column `indent`, wrapped before column 100 (words never split;
   the first line continues a line already `at` columns wide). */
static void wrap(FILE *f, const char *text, int indent, int at) {
  const int width = 100;
  while (*text) {
    int n = (int)strcspn(text, " ");
    if (at > indent && at + 1 + n > width) {
      fprintf(f, "\n%*s", indent, "");
      at = indent;
    } else if (at > indent) {
      fputc(' ', f);
      at++;
    }
    fprintf(f, "%.*s", n, text);
    at += n;
    text += n;
    while (*text == ' ')
      text++;
  }
  fputc('\n', f);
}

static void usage(FILE *f) {
  fprintf(f, "usage: netsched-sim [--policy a,b,... | --all] [--trace FILE] [options]\n"
             "       netsched-sim --list | --help | --version\n\n"
             "Runs each policy on the same workload and prints one row per policy as it\n"
             "finishes, then the best policy per column (ties: every tied policy). Without\n"
             "--trace: the embedded default workload (160 jobs, AdaDUAL paper §V-A).\n\n"
             "Options:\n");
  for (int i = 0; i < NOPTS; i++) {
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", opts[i].name, opts[i].metavar ? " " : "",
             opts[i].metavar ? opts[i].metavar : "");
    int at = fprintf(f, "  %-30s", head);
    if (at > 32) /* a long option head: its help on the next line */
      at = fprintf(f, "\n%33s", "") - 1;
    else
      at += fprintf(f, " ");
    wrap(f, opts[i].help, 33, at);
  }
  fprintf(f, "\nColumns of the table (JSON and --summary-csv use the metric names in brackets):\n"
             "  %-12s the policy (--list)\n", "policy");
  for (int i = 0; i < NCOLUMNS; i++) {
    char text[512];
    snprintf(text, sizeof text, "%s [%s, %s is best]", columns[i].help,
             ns_sim_metric_name(columns[i].metric), columns[i].lower_better ? "lowest" : "highest");
    wrap(f, text, 15, fprintf(f, "  %-12s ", columns[i].head));
  }
  fprintf(f, "  %-12s wall-clock time of the simulation, s\n", "time_s");
  fprintf(f, "  Per-job columns (JCT, queueing, wait, comm%%, iteration time) are taken over\n"
             "  the finished jobs. Medians and percentiles are nearest rank: the p-th\n"
             "  percentile of n sorted values is the ceil(p/100 x n)-th smallest, a value\n"
             "  that occurred, never interpolated (the median of 4 values is the 2nd); over\n"
             "  no values a column is 0.\n\n");
  fprintf(f, "Traces and --models (CSV, first line the header; extra columns are ignored;\n"
             "at most 64 columns and 65536 bytes a line; plain decimal numbers):\n"
             "  tiresias  job_id,num_gpu,submit_time,iterations,model_name[,duration]  (s)\n"
             "  philly    timestamp,duration,num_gpus  (YYYY-MM-DD HH:MM:SS, s)\n"
             "  job_id names the job in every output and must be unique. A duration is the\n"
             "  job's lone run time on a consolidated placement under the chosen network,\n"
             "  exactly (a Philly job's iterations come from its drawn model's profile, its\n"
             "  compute per iteration is then fitted to the duration).\n\n"
             "Exit status: 0 all ran and every output was written; 1 a policy failed, an input\n"
             "file (--trace, --models, --gittins-dist, --contention-curve) is missing, a\n"
             "directory, unreadable or malformed, the workload has no job to run, or an output\n"
             "could not be written; 2 a usage or value error on the command line (an unknown\n"
             "option or policy, a value out of range); 130 / 143 stopped by SIGINT / SIGTERM\n"
             "(the run is cancelled; no --json, --summary-csv or --plot written).\n\n"
             "Policies (\"ff\" backfills, \"fifo\" does not):\n");
  list_policies(f, 1);
}

static const struct option *find_option(const char *name) {
  if (strcmp(name, "-h") == 0)
    name = "--help";
  for (int i = 0; i < NOPTS; i++)
    if (strcmp(name, opts[i].name) == 0)
      return &opts[i];
  return NULL;
}

/* A usage error: one line, a hint, and where the full usage is. */
static int usage_error(const char *what, const char *arg) {
  const char *names[NOPTS];
  for (int i = 0; i < NOPTS; i++)
    names[i] = opts[i].name;
  const char *hint = arg[0] == '-' ? closest(arg, names, NOPTS) : NULL;
  fprintf(stderr, "netsched-sim: %s '%s'%s%s%s\n", what, arg, hint ? "; did you mean '" : "",
          hint ? hint : "", hint ? "'?" : "");
  fprintf(stderr, "usage: netsched-sim [--policy a,b,... | --all] [--trace FILE] [options] "
                  "(netsched-sim --help lists them)\n");
  return -1;
}

static int parse_args(cli *c, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    char *arg = argv[i], *value = NULL, *eq = strchr(arg, '=');
    char name[64];
    if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < sizeof name) {
      snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg); /* --opt=value */
      value = eq + 1;
    } else {
      snprintf(name, sizeof name, "%s", arg);
    }
    const struct option *o = find_option(name);
    if (o == NULL)
      return usage_error(arg[0] == '-' ? "unknown option" : "unexpected argument", name);
    if (o->metavar && value == NULL) {
      if (i + 1 >= argc)
        return usage_error("missing value for", name);
      value = argv[++i];
    } else if (!o->metavar && value) {
      return usage_error("takes no value:", name);
    }
    if (o->set(c, o->name, value) < 0)
      return -1;
  }
  if (c->json && c->summary && !strcmp(c->json, "-") && !strcmp(c->summary, "-")) {
    fprintf(stderr, "netsched-sim: --json - and --summary-csv - both ask for stdout; give one of "
                    "them a file name\n");
    return -1;
  }
  if (c->json_jobs && !c->json)
    return usage_error("--json-jobs needs", "--json");
  return 0;
}

/* ---- inputs ------------------------------------------------------------------ */

/* An input file the user named (--trace, --models) can be read: else a
   message naming the option, the path and why (no such file, is a
   directory, permission denied), before anything runs. */
static int check_input(const char *opt, const char *path) {
  struct stat st;
  FILE *f;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "netsched-sim: %s: '%s' is a directory, not a file\n", opt, path);
    return -1;
  }
  if ((f = fopen(path, "r")) == NULL) {
    fprintf(stderr, "netsched-sim: %s: cannot read '%s': %s\n", opt, path, strerror(errno));
    return -1;
  }
  fclose(f);
  return 0;
}

/* ---- model profiles (--models) --------------------------------------------- */

/* --models is read by the library (ns_sim_load_models: the trace reader's
   CSV rules and limits), once up front on a scratch simulator so that a bad
   file stops everything before the first policy runs, then into each run's
   simulator. */
static int check_models(const cli *c) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = o ? ns_sim_new(o) : NULL;
  ns_sim_opts_free(o);
  int rc = s ? ns_sim_load_models(s, c->models_path) : -1;
  if (rc < 0)
    fail_lib("--models");
  ns_sim_free(s);
  return rc < 0 ? -1 : 0;
}

/* ---- signals --------------------------------------------------------------------- */

/* SIGINT / SIGTERM: the handler records the signal and cancels the run in
   progress (ns_sim_cancel is async-signal-safe); the run returns
   NS_ECANCELED at once, no further policy starts, no --json,
   --summary-csv or --plot is written (their temporary files are removed,
   existing files stay as they were) and the exit status is 128 + the
   signal (130, 143). A signal between two runs is seen by the next run's
   first progress call, or before it starts. */
static volatile sig_atomic_t stop_signal;
static _Atomic(ns_sim *) running_sim;

static void on_stop_signal(int sig) {
  stop_signal = sig;
  ns_sim *s = atomic_load(&running_sim);
  if (s)
    ns_sim_cancel(s);
}

static void catch_stop_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* ---- Gittins distribution (--gittins-dist) ------------------------------------ */

static int split_csv(char *line, char **f, int max) {
  int n = 0;
  line[strcspn(line, "\r\n")] = '\0';
  for (char *p = line; n < max;) {
    f[n++] = p;
    char *comma = strchr(p, ',');
    if (comma == NULL)
      break;
    *comma = '\0';
    p = comma + 1;
  }
  return n;
}

/* The Tiresias simulator's parse_job_dist input: a header naming a
   "duration" column, then GPU-seconds per line (it reads int(); any
   number > 0 is taken here). Samples kept in GPU-ms. */
/* One line of f into buf (with its newline, NUL-terminated): its length;
   -1 at the end of the file; -2 for a line longer than size - 2 bytes, -3
   for a NUL byte (a binary file) - the input is not read further, so an
   endless one (/dev/zero) stops at once in bounded memory, as the
   library's readers do (getline would grow without end). */
#define LINE_MAX_BYTES 65536
static long bounded_line(FILE *f, char *buf, size_t size) {
  size_t n = 0;
  int ch = EOF;
  while ((ch = getc(f)) != EOF) {
    if (ch == '\0')
      return -3;
    if (n + 1 >= size)
      return -2;
    buf[n++] = (char)ch;
    if (ch == '\n')
      break;
  }
  if (n == 0 && ch == EOF)
    return -1;
  buf[n] = '\0';
  return (long)n;
}

static int bad_line(const char *opt, const char *path, long line_no, long got) {
  fprintf(stderr, "netsched-sim: %s %s line %ld: %s\n", opt, path, line_no,
          got == -3 ? "contains a NUL byte: a binary file, not CSV text"
                    : "longer than 65536 bytes (the longest line a CSV input may have)");
  return -1;
}

static int read_gittins(cli *c) {
  const char *path = c->gittins_path;
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "netsched-sim: --gittins-dist: cannot open '%s': %s\n", path, strerror(errno));
    return -1;
  }
  char *line = malloc(LINE_MAX_BYTES + 2), *fld[64];
  size_t have = 0;
  long line_no = 1, got = line ? bounded_line(f, line, LINE_MAX_BYTES + 2) : -1;
  int col = -1, rc = 0;
  if (got < -1) {
    rc = bad_line("--gittins-dist", path, line_no, got);
  } else if (got < 0) {
    fprintf(stderr, "netsched-sim: --gittins-dist %s: %s\n", path,
            line ? "empty (the header needs a duration column)" : "out of memory");
    rc = -1;
  } else {
    if (strncmp(line, "\xEF\xBB\xBF", 3) == 0) /* UTF-8 BOM: not part of the header */
      memmove(line, line + 3, strlen(line + 3) + 1);
    int n = split_csv(line, fld, 64);
    for (int i = 0; i < n && col < 0; i++)
      if (strcmp(fld[i], "duration") == 0)
        col = i;
    if (col < 0) {
      fprintf(stderr, "netsched-sim: --gittins-dist %s line 1: no duration column in the header\n",
              path);
      rc = -1;
    }
  }
  while (rc == 0 && (got = bounded_line(f, line, LINE_MAX_BYTES + 2)) != -1) {
    line_no++;
    if (got < 0) {
      rc = bad_line("--gittins-dist", path, line_no, got);
      break;
    }
    if (line[strspn(line, " \t\r\n")] == '\0')
      continue;
    int n = split_csv(line, fld, 64);
    char *v = col < n ? fld[col] : NULL, *end = NULL;
    double x = v ? strtod(v, &end) : NAN;
    while (end && (*end == ' ' || *end == '\t'))
      end++;
    if (v == NULL || end == v || *end != '\0' || !isfinite(x) || x <= 0 || x > 1e15) {
      fprintf(stderr, "netsched-sim: --gittins-dist %s line %ld: duration must be GPU-seconds, "
                      "a number > 0 and at most 1e15 (got '%s')\n", path, line_no, v ? v : "");
      rc = -1;
      break;
    }
    if (c->ngittins == have) {
      size_t grow = have ? 2 * have : 1024;
      double *p = realloc(c->gittins, grow * sizeof *p);
      if (p == NULL) {
        fprintf(stderr, "netsched-sim: --gittins-dist %s: out of memory\n", path);
        rc = -1;
        break;
      }
      c->gittins = p, have = grow;
    }
    c->gittins[c->ngittins++] = x * 1e3;
  }
  if (rc == 0 && ferror(f)) {
    fprintf(stderr, "netsched-sim: --gittins-dist %s: read error: %s\n", path, strerror(errno));
    rc = -1;
  }
  if (rc == 0 && c->ngittins == 0) {
    fprintf(stderr, "netsched-sim: --gittins-dist %s: no samples after the header\n", path);
    rc = -1;
  }
  free(line);
  fclose(f);
  return rc;
}

/* ---- running ------------------------------------------------------------------ */

typedef struct progress {
  const char *name;
  int show;
  ns_sim *s;
} progress;

static void progress_bar(size_t done, size_t total, void *user) {
  const progress *pr = user;
  if (stop_signal) /* a signal that came just before this run started */
    ns_sim_cancel(pr->s);
  if (!pr->show)
    return;
  const char *name = pr->name;
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
      ns_sim_opts_set_bandwidth(o, c->nic_gbps, c->intra_gbps) < 0 ||
      ns_sim_opts_set_network(o, (ns_sim_network)c->network) < 0 ||
      ns_sim_opts_set_seed(o, c->seed) < 0 || ns_sim_opts_set_gpu_sharing(o, c->share) < 0 ||
      (c->dally_lease_s >= 0 && ns_sim_opts_set_dally_lease(o, c->dally_lease_s * 1e3) < 0) ||
      (c->ngittins > 0 && ns_sim_opts_set_gittins_samples(o, c->gittins, c->ngittins) < 0) ||
      apply_net(&c->net, o) < 0 ||
      ns_sim_opts_set_nics(o, c->net.nics < 0 ? 1 : c->net.nics,
                           c->net.nics_gbps >= 0 ? c->net.nics_gbps : c->nic_gbps) < 0) {
    ns_sim_opts_free(o);
    return NULL;
  }
  return o;
}

/* A simulator with the workload loaded, or NULL (message printed). */
static ns_sim *prepare(const cli *c, int policy, int *loaded, int *total) {
  ns_sim_opts *o = make_opts(c, policy);
  if (o == NULL) {
    fail_lib(NULL);
    return NULL;
  }
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  if (s == NULL) {
    fail_lib(NULL);
    return NULL;
  }
  if (c->models_path && ns_sim_load_models(s, c->models_path) < 0) {
    fail_lib("--models");
    ns_sim_free(s);
    return NULL;
  }
  *loaded = c->trace ? ns_sim_load_trace(s, c->trace, (ns_sim_trace_format)c->format)
                     : ns_sim_load_default_workload(s);
  if (*loaded < 0) {
    fail_lib(c->trace ? "--trace" : NULL);
    ns_sim_free(s);
    return NULL;
  }
  *total = *loaded;
  if (c->limit >= 0 && *loaded > c->limit) {
    if (ns_sim_keep_first(s, c->limit) < 0) {
      fail_lib("--limit");
      ns_sim_free(s);
      return NULL;
    }
    *loaded = c->limit;
  }
  return s;
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

/* ---- JSON ------------------------------------------------------------------------ */

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

static void json_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.17g", v);
  else
    fputs("null", f);
}

/* Per-job rows of a finished run, as a JSON array (for --json-jobs). */
static char *jobs_json(ns_sim *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return NULL;
  fputc('[', f);
  for (int i = 0; i < ns_sim_job_count(s); i++) {
    double a = NAN, st = NAN, fin = NAN;
    int servers = 0;
    ns_sim_job_result(s, i, &a, &st, &fin, &servers);
    double wait = NAN, iter = NAN;
    ns_sim_job_wait_iter(s, i, &wait, &iter);
    fprintf(f, "%s{\"job_id\": ", i ? ",\n      " : "");
    json_str(f, ns_sim_job_name(s, i));
    fputs(", \"model\": ", f);
    json_str(f, ns_sim_job_model(s, i));
    fprintf(f, ", \"gpus\": %d, \"arrival_ms\": ", ns_sim_job_gpus(s, i));
    json_num(f, a);
    fputs(", \"start_ms\": ", f);
    json_num(f, st);
    fputs(", \"finish_ms\": ", f);
    json_num(f, fin);
    fputs(", \"jct_ms\": ", f);
    json_num(f, fin - a);
    fputs(", \"wait_ms\": ", f);
    json_num(f, wait);
    fputs(", \"iter_ms\": ", f);
    json_num(f, iter);
    fprintf(f, ", \"servers\": %d}", servers);
  }
  fputc(']', f);
  fclose(f);
  return buf;
}

/* ---- per-policy outputs -------------------------------------------------------------- */

static void csv_path(const cli *c, int policy, char *buf, size_t len) {
  if (c->npolicies == 1) {
    snprintf(buf, len, "%s", c->csv);
    return;
  }
  const char *dot = strrchr(c->csv, '.'), *slash = strrchr(c->csv, '/');
  if (dot && slash && dot < slash)
    dot = NULL;
  int stem = dot ? (int)(dot - c->csv) : (int)strlen(c->csv);
  snprintf(buf, len, "%.*s-%s%s", stem, c->csv, ns_sim_policy_name(policy), dot ? dot : "");
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs one prepared simulator; writes its --csv. Returns 0, or -1 if an
   output failed (the run's own failure is in r->rc). */
static int run_one(const cli *c, int policy, ns_sim *s, result *r) {
  int out_rc = 0;
  progress pr = {ns_sim_policy_name(policy), c->progress, s};
  ns_sim_set_progress(s, progress_bar, &pr);
  double t0 = now_s();
  atomic_store(&running_sim, s);
  r->rc = stop_signal ? NS_ECANCELED : ns_sim_run(s);
  atomic_store(&running_sim, NULL);
  r->secs = now_s() - t0;
  if (r->rc < 0)
    cli_terms(ns_last_error(), r->err, sizeof r->err);
  for (int m = 0; r->rc == NS_OK && m < NS_SIM_METRIC_COUNT; m++)
    ns_sim_metric(s, (ns_sim_metric_id)m, &r->m[m]);
  if (r->rc == NS_OK && c->plot)
    keep_jcts(s, r);
  if (r->rc == NS_OK && c->json_jobs)
    r->jobs_json = jobs_json(s);
  if (r->rc == NS_OK && c->csv) {
    char path[1024];
    csv_path(c, policy, path, sizeof path);
    if (ns_sim_write_jobs_csv(s, path) < 0) {
      fail_lib("--csv");
      out_rc = -1, r->csv_failed = 1;
    }
  }
  return out_rc;
}

static void print_header(FILE *f) {
  fprintf(f, "%-14s", "policy");
  for (int i = 0; i < NCOLUMNS; i++)
    fprintf(f, " %*s", columns[i].width, columns[i].head);
  fprintf(f, " %7s\n", "time_s");
}

static void print_row(FILE *f, int policy, const result *r) {
  if (r->rc < 0) { /* the library's message without its "...unavailable: " prefix */
    const char *why = strstr(r->err, "unavailable: ");
    fprintf(f, "%-14s %s: %s\n", ns_sim_policy_name(policy),
            r->rc == NS_EUNSUPPORTED ? "unavailable" : "failed",
            r->rc == NS_EUNSUPPORTED && why ? why + 13 : r->err);
  } else {
    fprintf(f, "%-14s", ns_sim_policy_name(policy));
    for (int i = 0; i < NCOLUMNS; i++)
      fprintf(f, " %*.*f", columns[i].width, columns[i].digits,
              r->m[columns[i].metric] * columns[i].scale);
    fprintf(f, " %7.2f\n", r->secs);
  }
  fflush(f); /* a finished row survives an interrupted run */
}

/* Is policy i best (or tied best) at column k? Ties: equal within 1e-9
   relative (the same schedule computed twice gives identical numbers). */
static int is_best(const cli *c, const result *res, int k, int i) {
  if (res[i].rc != NS_OK)
    return 0;
  double v = res[i].m[columns[k].metric];
  for (int j = 0; j < c->npolicies; j++) {
    if (res[j].rc != NS_OK)
      continue;
    double w = res[j].m[columns[k].metric], tol = 1e-9 * fmax(fabs(v), fabs(w));
    if (columns[k].lower_better ? w < v - tol : w > v + tol)
      return 0;
  }
  return 1;
}

static void print_best(FILE *f, const cli *c, const result *res) {
  int ok = 0;
  for (int i = 0; i < c->npolicies; i++)
    ok += res[i].rc == NS_OK;
  if (ok < 2)
    return;
  int shown = 0, same[NCOLUMNS], nsame = 0;
  for (int k = 0; k < NCOLUMNS; k++) {
    int n = 0, first = -1;
    for (int i = 0; i < c->npolicies; i++)
      if (is_best(c, res, k, i))
        n++, first = first < 0 ? i : first;
    if (n == ok) { /* every policy ties: nothing to choose by */
      same[nsame++] = k;
      continue;
    }
    if (shown++ == 0)
      fprintf(f, "best per column (lowest, util%% highest; ties: every tied policy):\n");
    fprintf(f, "  %-11s %10.*f  ", columns[k].head, columns[k].digits,
            res[first].m[columns[k].metric] * columns[k].scale);
    if (n > 1)
      fprintf(f, "tie of %d: ", n);
    for (int i = 0, w = 0; i < c->npolicies; i++)
      if (is_best(c, res, k, i))
        fprintf(f, "%s%s", w++ ? ", " : "", ns_sim_policy_name(c->policies[i]));
    fputc('\n', f);
  }
  if (nsame > 0) {
    fprintf(f, "%s %d tie on:", shown ? "  all" : "every column ties: all", ok);
    for (int i = 0; i < nsame; i++)
      fprintf(f, " %s", columns[same[i]].head);
    fputc('\n', f);
  }
  fflush(f);
}

/* Outputs are written whole or not at all: to a temporary file next to
   the destination, renamed over it only once it was written without error
   (and no stop signal came), so a failed or interrupted run never
   truncates an existing file. "-" is stdout; an existing file that is not
   a regular one (/dev/stdout, a FIFO) is written directly. */
typedef struct outfile {
  FILE *f;
  const char *path;
  char tmp[1100];
} outfile;

/* Before any run: can `path` be written (without touching it)? */
static int check_out(const char *opt, const char *path) {
  struct stat st;
  if (strcmp(path, "-") == 0)
    return 0;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      fprintf(stderr, "netsched-sim: %s: '%s' is a directory\n", opt, path);
      return -1;
    }
    if (access(path, W_OK) == 0)
      return 0;
  } else {
    char dir[1100];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    if (access(dir, W_OK | X_OK) == 0)
      return 0;
  }
  fprintf(stderr, "netsched-sim: %s: cannot write '%s': %s\n", opt, path, strerror(errno));
  return -1;
}

static FILE *out_begin(outfile *o, const char *opt, const char *path) {
  struct stat st;
  o->path = path, o->tmp[0] = '\0';
  if (strcmp(path, "-") == 0)
    return o->f = stdout;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    o->f = fopen(path, "w");
  else {
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "wx");
  }
  if (o->f == NULL)
    fprintf(stderr, "netsched-sim: %s: cannot write '%s': %s\n", opt, o->tmp[0] ? o->tmp : path,
            strerror(errno));
  return o->f;
}

static int out_end(outfile *o, const char *opt) {
  int bad = ferror(o->f) != 0;
  bad |= o->f == stdout ? fflush(o->f) != 0 : fclose(o->f) != 0;
  if (o->tmp[0]) {
    if (bad || stop_signal || rename(o->tmp, o->path) != 0)
      bad |= !stop_signal, unlink(o->tmp);
  }
  if (bad)
    fprintf(stderr, "netsched-sim: %s: writing '%s' failed; it was left as it was\n", opt,
            o->path);
  return bad ? -1 : 0;
}

/* Writes one output through a temporary file; 0 or -1 (reported). */
static int write_out(const char *opt, const char *path, void (*write)(const cli *, const result *,
                                                                      int, int, FILE *),
                     const cli *c, const result *res, int loaded, int skipped) {
  outfile o;
  if (out_begin(&o, opt, path) == NULL)
    return -1;
  write(c, res, loaded, skipped, o.f);
  return out_end(&o, opt);
}

static const char *status_of(const result *r) {
  return r->rc == NS_OK ? "ok" : r->rc == NS_EUNSUPPORTED ? "unavailable" : "failed";
}

static void write_json(const cli *c, const result *res, int loaded, int skipped, FILE *f) {
  fprintf(f, "{\"netsched_sim\": \"%s\",\n \"workload\": {\"trace\": ", ns_version());
  if (c->trace)
    json_str(f, c->trace);
  else
    fputs("null", f);
  fprintf(f, ", \"jobs\": %d, \"skipped\": %d, \"seed\": %llu},\n", loaded, skipped, c->seed);
  fprintf(f, " \"cluster\": {\"leaves\": %d, \"servers_per_leaf\": %d, \"gpus_per_server\": %d, "
             "\"spines\": %d, \"links_per_pair\": %d, \"link_gbps\": %g, \"network\": \"%s\", "
             "\"gpu_sharing\": %s},\n \"policies\": [",
          c->leaves, c->servers, c->gpus, c->spines, c->links, c->gbps,
          network_names[network_index(c->network)], c->share ? "true" : "false");
  for (int i = 0; i < c->npolicies; i++) {
    const result *r = &res[i];
    fprintf(f, "%s\n  {\"policy\": \"%s\", \"status\": \"%s\"", i ? "," : "",
            ns_sim_policy_name(c->policies[i]), status_of(r));
    if (r->rc != NS_OK) {
      fputs(", \"error\": ", f);
      json_str(f, r->err);
      fputc('}', f);
      continue;
    }
    fprintf(f, ", \"seconds\": %.3f,\n   \"metrics\": {", r->secs);
    for (int m = 0; m < NS_SIM_METRIC_COUNT; m++) {
      fprintf(f, "%s\"%s\": ", m ? ", " : "", ns_sim_metric_name(m));
      json_num(f, r->m[m]);
    }
    fputs("},\n   \"best\": [", f);
    for (int k = 0, w = 0; k < NCOLUMNS; k++)
      if (is_best(c, res, k, i))
        fprintf(f, "%s\"%s\"", w++ ? ", " : "", ns_sim_metric_name(columns[k].metric));
    fputc(']', f);
    if (r->jobs_json)
      fprintf(f, ",\n   \"jobs\": %s", r->jobs_json);
    fputc('}', f);
  }
  fputs("],\n \"best\": {", f);
  for (int k = 0; k < NCOLUMNS; k++) {
    fprintf(f, "%s\"%s\": [", k ? ", " : "", ns_sim_metric_name(columns[k].metric));
    for (int i = 0, w = 0; i < c->npolicies; i++)
      if (is_best(c, res, k, i))
        fprintf(f, "%s\"%s\"", w++ ? ", " : "", ns_sim_policy_name(c->policies[i]));
    fputc(']', f);
  }
  fputs("}}\n", f);
}

static void write_summary(const cli *c, const result *res, int loaded, int skipped, FILE *f) {
  (void)loaded, (void)skipped;
  fputs("policy,status", f);
  for (int m = 0; m < NS_SIM_METRIC_COUNT; m++)
    fprintf(f, ",%s", ns_sim_metric_name(m));
  fputs(",seconds,best\n", f);
  for (int i = 0; i < c->npolicies; i++) {
    const result *r = &res[i];
    fprintf(f, "%s,%s", ns_sim_policy_name(c->policies[i]), status_of(r));
    for (int m = 0; m < NS_SIM_METRIC_COUNT; m++)
      if (r->rc == NS_OK)
        fprintf(f, ",%.17g", r->m[m]);
      else
        fputc(',', f);
    if (r->rc == NS_OK)
      fprintf(f, ",%.3f,", r->secs);
    else
      fputs(",,", f);
    for (int k = 0, w = 0; k < NCOLUMNS; k++) /* metrics this policy is (tied) best at */
      if (is_best(c, res, k, i))
        fprintf(f, "%s%s", w++ ? ";" : "", ns_sim_metric_name(columns[k].metric));
    fputc('\n', f);
  }
}

/* ---- plot ------------------------------------------------------------------------- */

static const struct {
  const char *ext, *terminal;
} plot_formats[] = {
    {".png", "pngcairo size 1000,640"},
    {".svg", "svg size 1000,640 dynamic"},
    {".pdf", "pdfcairo size 10in,6.4in"},
};

static const char *plot_terminal(const char *path) {
  const char *dot = strrchr(path, '.');
  for (size_t i = 0; dot && i < sizeof plot_formats / sizeof plot_formats[0]; i++)
    if (strcmp(dot, plot_formats[i].ext) == 0)
      return plot_formats[i].terminal;
  return NULL;
}

/* Checks before any run, so a bad --plot costs nothing. */
static int check_plot(const char *path) {
  if (plot_terminal(path) == NULL) {
    fprintf(stderr, "netsched-sim: --plot: cannot tell the format of '%s' (use a .png, .svg or "
                    ".pdf file name)\n", path);
    return 2;
  }
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    fprintf(stderr, "netsched-sim: --plot needs gnuplot (Debian: apt-get install gnuplot-nox)\n");
    return 1;
  }
  return 0;
}

/* JCT CDF per policy: each with its own dash type and point marker, so
   policies with identical schedules (their lines on top of each other)
   stay distinguishable. */
static int plot(const cli *c, const result *res) {
  char tmp[1100]; /* gnuplot writes here; renamed over --plot once it succeeded */
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld", c->plot, (long)getpid());
  FILE *g = popen("gnuplot", "w");
  if (g == NULL) {
    fprintf(stderr, "netsched-sim: --plot: cannot start gnuplot: %s\n", strerror(errno));
    return -1;
  }
  fprintf(g, "set terminal %s\nset output '%s'\nset logscale x\n", plot_terminal(c->plot), tmp);
  fprintf(g, "set xlabel 'JCT (s)'\nset ylabel 'CDF'\nset key bottom right\nset grid\nplot ");
  int first = 1, k = 0;
  for (int i = 0; i < c->npolicies; i++)
    if (res[i].rc == NS_OK && res[i].njct > 0) {
      size_t every = res[i].njct / 12 + 1;
      fprintf(g, "%s'-' using 1:2 with linespoints lw 2 dt %d pt %d pi %zu ps 1.2 title '%s'",
              first ? "" : ", ", k % 5 + 1, k % 13 + 1, every, ns_sim_policy_name(c->policies[i]));
      first = 0, k++;
    }
  fprintf(g, "%s\n", first ? "0 notitle" : "");
  for (int i = 0; i < c->npolicies; i++) {
    if (res[i].rc != NS_OK || res[i].njct == 0)
      continue;
    for (size_t j = 0; j < res[i].njct; j++)
      fprintf(g, "%g %g\n", res[i].jct[j] > 1e-3 ? res[i].jct[j] : 1e-3,
              (double)(j + 1) / (double)res[i].njct);
    fprintf(g, "e\n");
  }
  if (pclose(g) != 0 || stop_signal || rename(tmp, c->plot) != 0) {
    unlink(tmp);
    if (!stop_signal)
      fprintf(stderr, "netsched-sim: --plot: gnuplot failed writing '%s'; see its messages "
                      "above\n", c->plot);
    return -1;
  }
  fprintf(stderr, "netsched-sim: JCT CDF written to %s\n", c->plot);
  return 0;
}

/* ---- main ------------------------------------------------------------------------------- */


/* Outputs checked before any run (a bad path fails at once) but written
   only at the end, each through a temporary file (outfile above). */
typedef struct outputs {
  FILE *table;
} outputs;

static int open_outputs(const cli *c, outputs *o) {
  o->table = (c->json && !strcmp(c->json, "-")) || (c->summary && !strcmp(c->summary, "-"))
                 ? NULL /* stdout is for the machine-readable output */
                 : stdout;
  if (c->json && check_out("--json", c->json) < 0)
    return -1;
  if (c->summary && check_out("--summary-csv", c->summary) < 0)
    return -1;
  for (int i = 0; c->csv && i < c->npolicies; i++) {
    char path[1100];
    csv_path(c, c->policies[i], path, sizeof path);
    if (check_out("--csv", path) < 0)
      return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  cli c = {4, 8, 4, 4, 2, 10.0, 0.0, 100.0, NS_SIM_NET_PHASE, 1, NULL, NULL, NULL, NULL, NULL, NULL,
           NS_SIM_TRACE_AUTO, {0}, 0, -1, 0, 0, -1.0, NULL, NULL, 0, -1, 0, {0}};
  c.net.nics = -1, c.net.nics_gbps = -1.0;
  if (parse_args(&c, argc, argv) < 0)
    return c.input_error ? 1 : 2;
  if (c.net.nics > c.gpus) {
    fprintf(stderr, "netsched-sim: --nics must be at most the GPUs per server (--gpus %d) (got %d)\n",
            c.gpus, c.net.nics);
    return 2;
  }
  if (c.npolicies == 0)
    c.policies[c.npolicies++] = NS_SIM_POLICY_FF;
  if (c.progress < 0)
    c.progress = isatty(STDERR_FILENO);
  ns_sim_opts *probe = make_opts(&c, c.policies[0]); /* cluster limits, before any work */
  if (probe == NULL) {
    fail_lib(NULL);
    return 2;
  }
  ns_sim_opts_free(probe);
  int prc = c.plot ? check_plot(c.plot) : 0;
  if (prc)
    return prc;
  /* an input file that is missing, unreadable or malformed: 1 (as a
     malformed trace), never 2 (the command line's own errors) */
  if ((c.trace && check_input("--trace", c.trace) < 0) ||
      (c.models_path && check_input("--models", c.models_path) < 0) ||
      (c.gittins_path && check_input("--gittins-dist", c.gittins_path) < 0))
    return 1;
  if (c.models_path && check_models(&c) < 0)
    return 1;
  if (c.gittins_path && read_gittins(&c) < 0) {
    free(c.gittins);
    return 1;
  }
  outputs out;
  result *res = NULL;
  if (open_outputs(&c, &out) < 0 || (res = calloc((size_t)c.npolicies, sizeof *res)) == NULL) {
    free(c.gittins); /* every exit frees what was read (LSan-clean) */
    return 1;
  }
  int hard = 0, out_fail = 0, skipped = 0, loaded = -1, finished = 0;
  catch_stop_signals();
  for (int i = 0; i < c.npolicies && !stop_signal; i++) {
    int n = 0, all = 0;
    ns_sim *s = prepare(&c, c.policies[i], &n, &all);
    if (s == NULL) { /* the workload itself failed: the same for every policy */
      hard = 1;
      break;
    }
    if (n == 0) { /* nothing to run: an error before the table starts */
      int sk = ns_sim_skipped_count(s);
      if (sk > 0)
        fprintf(stderr, "netsched-sim: --trace %s: nothing to run: every job (%d) is larger than "
                        "the cluster (--leaves %d x --servers %d x --gpus %d)\n",
                c.trace ? c.trace : "", sk, c.leaves, c.servers, c.gpus);
      else
        fprintf(stderr, "netsched-sim: --trace %s: nothing to run: the file has no job rows\n",
                c.trace ? c.trace : "");
      ns_sim_free(s);
      hard = 1;
      break;
    }
    if (loaded < 0 && out.table) {
      skipped = ns_sim_skipped_count(s);
      fprintf(out.table, "workload: %s, %d jobs", c.trace ? c.trace : "embedded default (seeded)", n);
      if (all > n)
        fprintf(out.table, " (the first by arrival of %d: --limit)", all);
      if (skipped > 0)
        fprintf(out.table, ", %d skipped (larger than the cluster)", skipped);
      if (c.ngittins > 0)
        fprintf(out.table, ", Gittins distribution %s (%zu samples)", c.gittins_path, c.ngittins);
      fprintf(out.table,
              "%s; cluster %d leaves x %d servers x %d GPUs, %d spines x %d links, %g Gbps; %s network",
              c.share ? ", GPU sharing" : "", c.leaves, c.servers, c.gpus, c.spines, c.links, c.gbps,
              network_labels[network_index(c.network)]);
      describe_net(out.table, &c);
      fputc('\n', out.table);
      print_header(out.table);
    }
    skipped = ns_sim_skipped_count(s);
    loaded = n;
    out_fail |= run_one(&c, c.policies[i], s, &res[i]) < 0;
    ns_sim_free(s);
    if (res[i].rc == NS_ECANCELED || stop_signal)
      break; /* no row for a run that was stopped */
    finished++;
    if (out.table)
      print_row(out.table, c.policies[i], &res[i]);
    hard |= res[i].rc < 0 && res[i].rc != NS_EUNSUPPORTED;
  }
  if (loaded >= 0 && !stop_signal) {
    if (out.table)
      print_best(out.table, &c, res);
    if (c.json)
      out_fail |= write_out("--json", c.json, write_json, &c, res, loaded, skipped) < 0;
    if (c.summary)
      out_fail |= write_out("--summary-csv", c.summary, write_summary, &c, res, loaded, skipped) < 0;
    if (c.plot)
      out_fail |= plot(&c, res) < 0;
    if (c.csv) { /* say which files --csv wrote (one per policy when several) */
      int w = 0;
      for (int i = 0; i < c.npolicies; i++)
        if (res[i].rc == NS_OK && !res[i].csv_failed) {
          char path[1024];
          csv_path(&c, c.policies[i], path, sizeof path);
          fprintf(stderr, "%s%s", w++ ? ", " : "netsched-sim: --csv: per-job rows written to ",
                  path);
        }
      if (w)
        fputc('\n', stderr);
    }
  }
  for (int i = 0; i < c.npolicies; i++)
    free(res[i].jct), free(res[i].jobs_json);
  free(res);
  free(c.gittins);
  if (stop_signal) {
    fprintf(stderr, "\nnetsched-sim: stopped by %s after %d of %d policies; --json, "
                    "--summary-csv and --plot not written (--csv only for the finished ones)\n",
            stop_signal == SIGINT ? "SIGINT" : "SIGTERM", finished, c.npolicies);
    return 128 + stop_signal;
  }
  return hard || out_fail ? 1 : 0;
}
