/*
 * bindings/slurm/main.c - netsched-slurm: an external scheduler that places
 * opted-in, held Slurm jobs with a libnetsched policy (docs/slurm.md,
 * netsched-slurm(1)). Options, --once / --interval, the instance
 * lock, signals, the bounded wait for the configuration and the controller.
 *
 * Exit status (netsched-sim's convention for 0 and 2):
 *   0 done (or stopped by SIGTERM/SIGINT)
 *   1 a cycle failed otherwise (the policy or the library)
 *   2 a usage or value error (unknown option, bad value)
 *   3 another instance holds the lock
 *   4 the Slurm configuration could not be read, or (--once) the controller
 *     could not be reached, within --timeout seconds
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#include "adapter.h"

enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_LOCKED = 3, EXIT_UNREACHABLE = 4 };
#define DEFAULT_TIMEOUT_S 5

/* libslurm's parsed slurm.conf: the global Slurm's own commands use
   (exported by libslurm.so, declared in Slurm's read_config.h, not in
   slurm.h). Its msg_timeout is how many 1-s attempts libslurm makes to
   connect to the controller, and how long it waits for a reply: the adapter
   sets it to --timeout so no call blocks for Slurm's default ~10 s. */
extern slurm_conf_t slurm_conf;

static volatile sig_atomic_t stop_requested = 0;
static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

typedef struct opts {
  const char *policy, *order, *partition, *state, *lock, *preempt;
  int once, dry_run, verbose, timeout_s, action; /* action: 'h'elp, 'v'ersion, 'l'ist */
  double interval_s;
  nss_ctx ctx;
} opts;

/* ---- options --------------------------------------------------------------- */

typedef int (*opt_set)(opts *o, const char *opt, const char *v);
typedef struct opt_def {
  const char *name, *metavar, *help;
  opt_set set;
} opt_def;

static int bad(const char *opt, const char *val, const char *why) {
  fprintf(stderr, "netsched-slurm: %s '%s': %s\n", opt, val ? val : "", why);
  return -1;
}

static int parse_double(const char *opt, const char *v, double lo, double hi, double *out) {
  char *end = NULL;
  errno = 0;
  double d = strtod(v, &end);
  if (end == v || *end != '\0' || errno != 0 || !isfinite(d) || d < lo || d > hi ||
      isspace((unsigned char)v[0])) {
    char why[96];
    snprintf(why, sizeof why, "expected a number in [%g, %g]", lo, hi);
    return bad(opt, v, why);
  }
  *out = d;
  return 0;
}

static int parse_int(const char *opt, const char *v, int lo, int hi, int *out) {
  double d = 0;
  if (parse_double(opt, v, lo, hi, &d) < 0)
    return -1;
  if (d != floor(d))
    return bad(opt, v, "expected a whole number");
  *out = (int)d;
  return 0;
}

/* "Did you mean": the closest of name(i) for i in [0, n) to s by the
   library's rule (ns_closest_name, the one its own messages use), or NULL. */
static const char *closest(const char *s, const char *(*name)(int), int n) {
  const char *names[64];
  if (n > 64)
    n = 64;
  for (int i = 0; i < n; i++)
    names[i] = name(i);
  int k = ns_closest_name(s, names, n);
  return k >= 0 ? names[k] : NULL;
}

static const char *policy_at(int i) { return nss_policy_name(nss_policy_at(i)); }
/* The order names of nss_order_names() ("fifo|srsf|..."), split once. */
static char order_names[8][32];
static int norder_names;
static const char *order_at(int i) { return order_names[i]; }
static int order_count(void) {
  if (norder_names == 0)
    for (const char *p = nss_order_names(); *p != '\0' && norder_names < 8; norder_names++) {
      size_t n = strcspn(p, "|");
      snprintf(order_names[norder_names], sizeof order_names[0], "%.*s", (int)n, p);
      p += n + (p[n] == '|');
    }
  return norder_names;
}

/* "unknown X; did you mean 'Y'? (known: ...)" */
static int unknown_value(const char *opt, const char *v, const char *what, const char *(*name)(int),
                         int n, const char *known) {
  char why[600];
  const char *hint = closest(v, name, n);
  int k = snprintf(why, sizeof why, "unknown %s", what);
  if (hint != NULL)
    k += snprintf(why + k, sizeof why - (size_t)k, "; did you mean '%s'?", hint);
  snprintf(why + k, sizeof why - (size_t)k, " (%s)", known);
  return bad(opt, v, why);
}

static int set_once(opts *o, const char *a, const char *v) { (void)a, (void)v; o->once = 1; return 0; }
static int set_dry(opts *o, const char *a, const char *v) { (void)a, (void)v; o->dry_run = 1; return 0; }
static int set_verbose(opts *o, const char *a, const char *v) { (void)a, (void)v; o->verbose = 1; return 0; }
static int set_help(opts *o, const char *a, const char *v) { (void)a, (void)v; o->action = 'h'; return 0; }
static int set_version(opts *o, const char *a, const char *v) { (void)a, (void)v; o->action = 'v'; return 0; }
static int set_list(opts *o, const char *a, const char *v) { (void)a, (void)v; o->action = 'l'; return 0; }
static int set_interval(opts *o, const char *a, const char *v) {
  return parse_double(a, v, 0.1, 86400, &o->interval_s);
}
static int set_policy(opts *o, const char *a, const char *v) {
  if (nss_policy_find(v) == NULL) {
    char known[512];
    int n = snprintf(known, sizeof known, "known:");
    for (int k = 0; k < nss_policy_count() && n > 0 && n < (int)sizeof known; k++)
      n += snprintf(known + n, sizeof known - (size_t)n, " %s", policy_at(k));
    return unknown_value(a, v, "policy", policy_at, nss_policy_count(), known);
  }
  o->policy = v;
  return 0;
}
static int set_order(opts *o, const char *a, const char *v) {
  if ((o->ctx.order = nss_order_find(v)) == NULL)
    return unknown_value(a, v, "order", order_at, order_count(), "known: fifo, srsf, sjf, nw-sens");
  o->order = v;
  return 0;
}
static int set_partition(opts *o, const char *a, const char *v) {
  if (*v == '\0')
    return bad(a, v, "empty partition name");
  o->partition = v;
  return 0;
}
static int set_path(const char *a, const char *v, const char **out) {
  if (*v == '\0')
    return bad(a, v, "empty path");
  *out = v;
  return 0;
}
static int set_state(opts *o, const char *a, const char *v) { return set_path(a, v, &o->state); }
static int set_lock(opts *o, const char *a, const char *v) { return set_path(a, v, &o->lock); }
static const char *const preempt_names[] = {"off", "requeue"};
static const char *preempt_at(int i) { return preempt_names[i]; }
static int set_preempt(opts *o, const char *a, const char *v) {
  for (int i = 0; i < 2; i++)
    if (strcmp(v, preempt_names[i]) == 0) {
      o->ctx.preempt = i;
      o->preempt = v;
      return 0;
    }
  return unknown_value(a, v, "preemption mode", preempt_at, 2, "known: off, requeue");
}
static int set_timeout(opts *o, const char *a, const char *v) {
  return parse_int(a, v, 1, 3600, &o->timeout_s);
}
static int set_link(opts *o, const char *a, const char *v) {
  return parse_double(a, v, 1e-3, 1e6, &o->ctx.link_gbps);
}
static int set_nic(opts *o, const char *a, const char *v) {
  return parse_double(a, v, 1e-3, 1e6, &o->ctx.nic_gbps);
}
static int set_lpp(opts *o, const char *a, const char *v) {
  return parse_int(a, v, 1, 4096, &o->ctx.links_per_pair);
}
static int set_spines(opts *o, const char *a, const char *v) {
  return parse_int(a, v, 1, 4096, &o->ctx.spines);
}
static int set_seed(opts *o, const char *a, const char *v) {
  int s = 0;
  if (parse_int(a, v, 0, 2147483647, &s) < 0)
    return -1;
  o->ctx.seed = (uint64_t)s;
  return 0;
}

/* Every option, in --help's order; the man page describes each (tests/install.sh). */
static const opt_def options[] = {
    {"--once", NULL, "run one cycle, then exit", set_once},
    {"--interval", "SECONDS", "run a cycle every SECONDS (0.1-86400) until SIGTERM or SIGINT", set_interval},
    {"--policy", "NAME", "placement policy, by netsched-sim's preset names (--list) (default ff)", set_policy},
    {"--order", "NAME", "order of the held jobs: fifo, srsf, sjf or nw-sens (default: the policy's)", set_order},
    {"--preempt", "MODE", "off, or requeue: when the policy (2d-las, 2d-gittins) suspends a running job that opted in with netsched:preemptible, requeue it held; it is placed again later (default off)", set_preempt},
    {"--dry-run", NULL, "print the decisions, change nothing in Slurm, take no lock", set_dry},
    {"--partition", "NAME", "held jobs of partition NAME opt in without a comment (default: none)", set_partition},
    {"--state", "FILE", "keep what the adapter remembers (Dally's delay tuner; requeued jobs' attained service) in FILE across restarts (default: none)", set_state},
    {"--lock", "FILE", "one instance per lock file (default $TMPDIR/netsched-slurm.lock, /tmp without TMPDIR)", set_lock},
    {"--timeout", "SECONDS", "give up reading slurm.conf or reaching slurmctld after SECONDS, 1-3600 (default 5)", set_timeout},
    {"--link-gbps", "G", "bandwidth of a leaf-spine link, Gbps (default 10)", set_link},
    {"--nic-gbps", "G", "server NIC bandwidth, the rate of the jobs' all-reduce, Gbps (default: --link-gbps)", set_nic},
    {"--links-per-pair", "N", "parallel links between a leaf and a spine, 1-4096 (default 4)", set_lpp},
    {"--spines", "N", "spine switches, 1-4096 (default: the switches above the leaves in the topology)", set_spines},
    {"--seed", "N", "seed of the random choices of rand and titan, 0-2147483647 (default 1)", set_seed},
    {"--verbose", NULL, "print the nodes and jobs as read to stderr", set_verbose},
    {"--list", NULL, "print the policies with a description, then exit", set_list},
    {"--version", NULL, "print the version, then exit", set_version},
    {"--help", NULL, "print this help, then exit (also -h)", set_help},
};
#define NOPTIONS ((int)(sizeof options / sizeof options[0]))

static const char *option_at(int i) { return options[i].name; }

static const char *const SYNOPSIS =
    "usage: netsched-slurm --once | --interval SECONDS [--policy NAME] [options]\n"
    "       netsched-slurm --list | --help | --version\n";

static void usage(FILE *f) {
  fputs(SYNOPSIS, f);
  fputs("\nPlaces the held Slurm jobs that opt in (sbatch -H --comment=netsched[:HINTS], hints\n"
        "model=M, iters=N, preemptible; or held in --partition) with a libnetsched policy and\n"
        "releases each onto its nodes; every other job is left to Slurm. One line per\n"
        "opted-in job on stdout:\n"
        "  <jobid> placed <nodelist>      (node list set, job released)\n"
        "  <jobid> waits: <reason>        (reason also written after the marker in its comment)\n"
        "  <jobid> requeued (...)         (--preempt requeue: its GPUs go to the jobs placed)\n"
        "Reads $SLURM_CONF like scontrol.\n\nOptions (each also as --option=value):\n", f);
  for (int i = 0; i < NOPTIONS; i++) {
    char head[40];
    snprintf(head, sizeof head, "%s%s%s", options[i].name, options[i].metavar ? " " : "",
             options[i].metavar ? options[i].metavar : "");
    fprintf(f, "  %-24s %s\n", head, options[i].help);
  }
  fputs("\nExit status: 0 done (also when stopped by SIGTERM/SIGINT); 1 a cycle failed;\n"
        "2 a usage or value error; 3 another instance holds the lock; 4 slurm.conf could\n"
        "not be read, or (--once) slurmctld not reached, within --timeout seconds.\n"
        "See netsched-slurm(1) and docs/slurm.md.\n", f);
}

/* A usage error: one line naming the argument, a hint (the option closest
   to hint_for, if given), the synopsis. */
static int usage_error(const char *what, const char *arg, const char *hint_for) {
  const char *hint = hint_for ? closest(hint_for, option_at, NOPTIONS) : NULL;
  fprintf(stderr, "netsched-slurm: %s '%s'%s%s%s\n", what, arg, hint ? "; did you mean '" : "",
          hint ? hint : "", hint ? "'?" : "");
  fprintf(stderr, "%s(netsched-slurm --help describes every option)\n", SYNOPSIS);
  return -1;
}

static const opt_def *find_option(const char *name) {
  if (strcmp(name, "-h") == 0)
    name = "--help";
  for (int i = 0; i < NOPTIONS; i++)
    if (strcmp(name, options[i].name) == 0)
      return &options[i];
  return NULL;
}

/* 0, or -1 after a message (usage error). o->action set for --help etc. */
static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->policy = "ff";
  o->timeout_s = DEFAULT_TIMEOUT_S;
  o->ctx.link_gbps = 10, o->ctx.nic_gbps = 0, o->ctx.links_per_pair = 4, o->ctx.seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *value = NULL, *eq = strchr(arg, '=');
    char name[64];
    if (strncmp(arg, "--", 2) == 0 && eq != NULL && (size_t)(eq - arg) < sizeof name) {
      snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg); /* --option=value */
      value = eq + 1;
    } else {
      snprintf(name, sizeof name, "%s", arg);
    }
    const opt_def *d = find_option(name);
    if (d == NULL)
      return usage_error(arg[0] == '-' ? "unknown option" : "unexpected argument", arg,
                         arg[0] == '-' ? name : NULL);
    if (d->metavar != NULL && value == NULL) {
      if (i + 1 >= argc)
        return usage_error("missing value for", name, NULL);
      value = argv[++i];
    } else if (d->metavar == NULL && value != NULL) {
      return usage_error("takes no value:", arg, NULL);
    }
    if (d->set(o, d->name, value) < 0)
      return -1;
    if (o->action)
      return 0; /* --help, --version, --list: act now, whatever follows */
  }
  if (o->once == (o->interval_s > 0)) {
    fprintf(stderr, "netsched-slurm: give exactly one of --once and --interval SECONDS%s\n",
            o->once ? " (got both)" : "");
    fprintf(stderr, "%s(netsched-slurm --help describes every option)\n", SYNOPSIS);
    return -1;
  }
  const nss_policy *p = nss_policy_find(o->policy);
  if (o->ctx.nic_gbps == 0)
    o->ctx.nic_gbps = o->ctx.link_gbps;
  char msg[512];
  if (nss_ctx_init(&o->ctx, p, msg, sizeof msg) < 0) {
    fprintf(stderr, "netsched-slurm: %s\n", msg);
    return -1;
  }
  int ord = ns_policy_order_of(o->ctx.pol);
  if (o->ctx.preempt && ord != NS_POLICY_ORDER_2D_LAS && ord != NS_POLICY_ORDER_2D_GITTINS) {
    /* Dally's order (NW_SENS) suspends only by lease re-offers in measured
       Nw_sens order; the adapter measures none and keeps leases off
       (policies.c), so under Slurm it never suspends: say so. */
    fprintf(stderr, "netsched-slurm: --preempt '%s': policy %s%s%s never suspends a job%s (the "
                    "preemptive policies: 2d-las, 2d-gittins)\n", o->preempt, o->policy,
            o->order ? " with --order " : "", o->order ? o->order : "",
            ord == NS_POLICY_ORDER_NW_SENS
                ? " under Slurm: its lease re-offers go by measured Nw_sens, which "
                  "netsched-slurm cannot measure"
                : "");
    fprintf(stderr, "%s(netsched-slurm --help describes every option)\n", SYNOPSIS);
    nss_ctx_free(&o->ctx);
    return -1;
  }
  return 0;
}

static int act(const opts *o) {
  if (o->action == 'h') {
    usage(stdout);
  } else if (o->action == 'v') {
    long sv = SLURM_VERSION_NUMBER;
    printf("netsched-slurm %s (libnetsched %s, built for Slurm %ld.%02ld.%ld)\n",
           NS_VERSION_STRING, ns_version(), SLURM_VERSION_MAJOR(sv), SLURM_VERSION_MINOR(sv),
           SLURM_VERSION_MICRO(sv));
  } else {
    for (int k = 0; k < nss_policy_count(); k++)
      printf("%-14s %s\n", nss_policy_name(nss_policy_at(k)), nss_policy_desc(nss_policy_at(k)));
  }
  return fflush(stdout) == 0 ? EXIT_DONE : EXIT_FAILED;
}

/* ---- Slurm's configuration, bounded ------------------------------------- */

static const char *conf_name(void) {
  const char *c = getenv("SLURM_CONF");
  return c != NULL && *c != '\0' ? c : "the default slurm.conf";
}

/* slurm_init() exits the process (libslurm's fatal(), status 1) when it
   cannot read the configuration, after retrying a missing file for up to
   60 s. Try it first in a child bounded by timeout_s (alarm), with its
   stderr captured: 0 if it worked, else -1 after a message. */
static int probe_config(int timeout_s) {
  int fd[2];
  if (pipe(fd) < 0) {
    fprintf(stderr, "netsched-slurm: cannot check the Slurm configuration: %s\n", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "netsched-slurm: cannot check the Slurm configuration: %s\n", strerror(errno));
    close(fd[0]), close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], STDERR_FILENO);
    dup2(fd[1], STDOUT_FILENO);
    alarm((unsigned)timeout_s);
    slurm_init(NULL);
    _exit(0);
  }
  close(fd[1]);
  char out[1024];
  size_t n = 0;
  ssize_t r;
  char sink[256];
  while ((r = read(fd[0], n < sizeof out - 1 ? out + n : sink,
                   n < sizeof out - 1 ? sizeof out - 1 - n : sizeof sink)) != 0) {
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      break;
    if (n < sizeof out - 1)
      n += (size_t)r;
  }
  close(fd[0]);
  out[n] = '\0';
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
    return 0;
  /* libslurm's last line says why ("fatal: Unable to process configuration file") */
  while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
    out[--n] = '\0';
  const char *last = strrchr(out, '\n');
  last = last ? last + 1 : out;
  if (strncmp(last, "netsched-slurm: ", 16) == 0) /* libslurm's log prefix */
    last += 16;
  for (char *c = out; *c; c++)
    if ((unsigned char)*c < 0x20 && *c != '\n')
      *c = ' ';
  if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
    fprintf(stderr, "netsched-slurm: the Slurm configuration (%s) could not be read within "
                    "--timeout %d s%s%s\n", conf_name(), timeout_s, *last ? ": " : "", last);
  else
    fprintf(stderr, "netsched-slurm: the Slurm configuration (%s) could not be read%s%s\n",
            conf_name(), *last ? ": " : "", last);
  return -1;
}

static double wall_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static const nss_job *find_job(const nss_snapshot *s, uint32_t id) {
  for (int i = 0; i < s->njobs; i++)
    if (s->jobs[i].id == id && s->jobs[i].kind == NSS_JOB_HELD)
      return &s->jobs[i];
  return NULL;
}

static const nss_job *find_any(const nss_snapshot *s, uint32_t id) {
  for (int i = 0; i < s->njobs; i++)
    if (s->jobs[i].id == id)
      return &s->jobs[i];
  return NULL;
}

/* The first of ids[0..n) running on a node of `nodelist` ("n1,n5"), or 0. */
static uint32_t overlaps(const nss_snapshot *s, const char *nodelist, const uint32_t *ids, int n) {
  for (int k = 0; k < n; k++) {
    const nss_job *j = find_any(s, ids[k]);
    for (int g = 0; j != NULL && g < j->nplaced; g++) {
      const char *name = s->nodes[j->node_of[g]].name;
      size_t len = strlen(name);
      for (const char *p = nodelist; p != NULL; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
          return ids[k];
    }
  }
  return 0;
}

/* Sleeps up to s seconds; returns early once a stop is requested. */
static void nap(double s) {
  for (double left = s; left > 0 && !stop_requested; left -= 0.1) {
    struct timespec t = {0, (long)((left < 0.1 ? left : 0.1) * 1e9)};
    nanosleep(&t, NULL);
  }
}

/* One cycle: EXIT_DONE, EXIT_UNREACHABLE (controller) or EXIT_FAILED. */
static int cycle(opts *o) {
  nss_select sel = {o->partition};
  nss_snapshot s;
  nss_plan plan;
  char msg[1024];
  if (nss_slurm_snapshot(&sel, &s, msg, sizeof msg) < 0) {
    fprintf(stderr, "netsched-slurm: %s\n", msg);
    return EXIT_UNREACHABLE;
  }
  if (o->verbose) {
    for (int i = 0; i < s.nnodes; i++)
      fprintf(stderr, "netsched-slurm: node %s leaf %s gpus %d %s (state 0x%x)\n",
              s.nodes[i].name, s.leaves[s.nodes[i].leaf], s.nodes[i].gpus,
              s.nodes[i].usable ? "usable" : "unusable", (unsigned)s.nodes[i].state);
    for (int i = 0; i < s.njobs; i++)
      fprintf(stderr, "netsched-slurm: job %u %s gpus %d on %d GPUs known\n", s.jobs[i].id,
              s.jobs[i].kind == NSS_JOB_HELD ? "held" : s.jobs[i].kind == NSS_JOB_RUNNING ? "running" : "in flight",
              s.jobs[i].gpus, s.jobs[i].nplaced);
  }
  if (s.unsettled > 0) { /* e.g. just after a controller restart: decide nothing */
    fprintf(stderr, "netsched-slurm: %s; nothing decided this cycle\n", s.unsettled_why);
    nss_snapshot_free(&s);
    return 0;
  }
  double now = wall_ms();
  if (now > o->ctx.now_ms)
    o->ctx.now_ms = now;
  s.now_ms = o->ctx.now_ms;
  nss_hist_apply(&o->ctx, &s); /* arrivals and attained service (history.c) */
  if (nss_decide(&o->ctx, &s, &plan, msg, sizeof msg) < 0) {
    fprintf(stderr, "netsched-slurm: %s\n", msg);
    nss_snapshot_free(&s);
    return EXIT_FAILED;
  }
  /* Test hook (tests/slurm): widen the window between reading and acting
     so a test can cancel a job or down a node inside it. */
  const char *pause = getenv("NETSCHED_SLURM_TEST_PAUSE_S");
  if (pause != NULL && atof(pause) > 0) {
    fprintf(stderr, "netsched-slurm: test pause %s s\n", pause);
    nap(atof(pause));
  }
  if (plan.note[0] != '\0')
    fprintf(stderr, "netsched-slurm: warning: %s\n", plan.note);
  /* Requeues first: the placed jobs were given the suspended jobs' GPUs. */
  uint32_t *kept = calloc((size_t)plan.ns + 1, sizeof *kept);
  int nkept = 0;
  for (int i = 0; i < plan.ns; i++) {
    const nss_suspend *v = &plan.s[i];
    printf("%u requeued (attained service %.0f GPU-s; its GPUs go to the jobs placed)\n", v->id,
           v->attained_ms / 1e3);
    fflush(stdout);
    if (o->dry_run)
      continue;
    int r = nss_slurm_requeue(v->id, msg, sizeof msg);
    if (r == 0) {
      /* this run's GPU x ms joins its history, saved at once (before the
         placements are acted on) */
      const nss_job *j = find_any(&s, v->id);
      if (nss_hist_add(&o->ctx, v->id, (double)v->gpus * v->run_ms,
                       j != NULL ? nss_job_arrival_ms(j) : 0) < 0)
        fprintf(stderr, "netsched-slurm: job %u: out of memory for its history\n", v->id);
      if (o->state != NULL && nss_state_save(&o->ctx, o->state, msg, sizeof msg) < 0)
        fprintf(stderr, "netsched-slurm: %s\n", msg);
      continue;
    }
    fprintf(stderr, "netsched-slurm: %s%s\n", msg,
            r < 0 ? "; it is not offered as preemptible again" : "");
    if (r < 0) { /* it keeps its GPUs: nothing may be released onto them */
      nss_refused_add(&o->ctx, v->id);
      if (kept != NULL)
        kept[nkept++] = v->id;
    }
  }
  for (int i = 0; i < plan.n; i++) {
    nss_decision *d = &plan.d[i];
    uint32_t holder = d->placed ? overlaps(&s, d->nodelist, kept, nkept) : 0;
    if (holder != 0) {
      d->placed = 0;
      snprintf(d->reason, sizeof d->reason,
               "its GPUs were to come from job %u, which Slurm refused to requeue", holder);
    }
    if (d->placed)
      printf("%u placed %s\n", d->id, d->nodelist);
    else
      printf("%u waits: %s\n", d->id, d->reason);
    if (!o->dry_run && nss_slurm_apply(find_job(&s, d->id), d, msg, sizeof msg) < 0)
      fprintf(stderr, "netsched-slurm: %s\n", msg);
  }
  fflush(stdout);
  free(kept);
  nss_plan_free(&plan);
  nss_snapshot_free(&s);
  if (o->state != NULL && !o->dry_run && (o->ctx.tuner != NULL || o->ctx.preempt) &&
      nss_state_save(&o->ctx, o->state, msg, sizeof msg) < 0)
    fprintf(stderr, "netsched-slurm: %s\n", msg);
  return 0;
}

/* One instance per lock file: flock held for the process's life. */
static int take_lock(const opts *o, int *fd) {
  char def[4096];
  const char *path = o->lock;
  if (path == NULL) {
    const char *tmp = getenv("TMPDIR");
    snprintf(def, sizeof def, "%s/netsched-slurm.lock", tmp && *tmp ? tmp : "/tmp");
    path = def;
  }
  *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (*fd < 0) {
    fprintf(stderr, "netsched-slurm: --lock '%s': %s\n", path, strerror(errno));
    return EXIT_LOCKED;
  }
  if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
    char pid[32] = "";
    ssize_t n = read(*fd, pid, sizeof pid - 1);
    pid[n > 0 ? n : 0] = '\0';
    pid[strcspn(pid, "\n")] = '\0';
    fprintf(stderr, "netsched-slurm: another instance (pid %s) holds the lock '%s'; not starting\n",
            pid[0] ? pid : "?", path);
    close(*fd);
    return EXIT_LOCKED;
  }
  char pid[32];
  int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  if (ftruncate(*fd, 0) == 0 && write(*fd, pid, (size_t)n) != n)
    fprintf(stderr, "netsched-slurm: warning: cannot write pid to lock '%s'\n", path);
  return 0;
}

int main(int argc, char **argv) {
  opts o;
  if (parse(argc, argv, &o) < 0)
    return EXIT_USAGE;
  if (o.action)
    return act(&o);
  int lockfd = -1, rc = 0;
  if (!o.dry_run && (rc = take_lock(&o, &lockfd)) != 0) {
    nss_ctx_free(&o.ctx);
    return rc;
  }
  char msg[1024];
  if (o.state != NULL && nss_state_load(&o.ctx, o.state, msg, sizeof msg) < 0)
    fprintf(stderr, "netsched-slurm: %s\n", msg);
  if (probe_config(o.timeout_s) < 0) {
    nss_ctx_free(&o.ctx);
    if (lockfd >= 0)
      close(lockfd);
    return EXIT_UNREACHABLE;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  slurm_init(NULL);
  slurm_conf.msg_timeout = (uint16_t)o.timeout_s; /* bounds libslurm's retries (see above) */
  if (o.once) {
    rc = cycle(&o);
    if (rc == EXIT_UNREACHABLE)
      fprintf(stderr, "netsched-slurm: the Slurm controller could not be reached within --timeout "
                      "%d s (SLURM_CONF=%s)\n", o.timeout_s, conf_name());
  } else {
    double backoff = 1;
    while (!stop_requested) {
      rc = cycle(&o);
      if (rc == EXIT_UNREACHABLE) { /* controller down or restarting: retry with backoff */
        fprintf(stderr, "netsched-slurm: retrying in %.0f s\n", backoff);
        nap(backoff);
        backoff = backoff * 2 > 60 ? 60 : backoff * 2;
        continue;
      }
      backoff = 1;
      nap(o.interval_s);
    }
    rc = EXIT_DONE;
  }
  slurm_fini();
  nss_ctx_free(&o.ctx);
  if (lockfd >= 0)
    close(lockfd);
  return rc;
}
