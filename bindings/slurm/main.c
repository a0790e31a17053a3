/*
 * bindings/slurm/main.c - netsched-slurm: an external scheduler that places
 * opted-in, held Slurm jobs with a libnetsched policy (docs/slurm.md; README "With
 * Slurm"). Options, --once / --interval, the instance lock, signals.
 *
 * Exit status: 0 done (or stopped by SIGTERM/SIGINT); 1 bad usage; 2 the
 * controller could not be reached (--once); 3 another instance holds the
 * lock; 4 the cycle failed otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#include "adapter.h"

static volatile sig_atomic_t stop_requested = 0;
static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

typedef struct opts {
  const char *policy, *order, *partition, *state, *lock;
  int once, dry_run, verbose;
  double interval_s;
  nss_ctx ctx;
} opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: netsched-slurm [--once | --interval SECONDS] [--policy NAME] [--order NAME]\n"
          "                      [--dry-run] [--partition NAME] [--state FILE] [--lock FILE]\n"
          "                      [--link-gbps G] [--nic-gbps G] [--links-per-pair N] [--spines N]\n"
          "                      [--seed N] [--verbose] | --list | --help | --version\n"
          "Places held Slurm jobs that opt in (sbatch -H --comment=netsched[:model=M,iters=N],\n"
          "or held in --partition) with a libnetsched policy; prints one line per job:\n"
          "  <jobid> placed <nodelist>   or   <jobid> waits: <reason>\n"
          "Reads $SLURM_CONF like scontrol. See docs/slurm.md.\n");
}

static int bad(const char *opt, const char *val, const char *why) {
  fprintf(stderr, "netsched-slurm: %s '%s': %s\n", opt, val ? val : "", why);
  return -1;
}

static int parse_double(const char *opt, const char *v, double lo, double hi, double *out) {
  char *end = NULL;
  errno = 0;
  double d = v ? strtod(v, &end) : NAN;
  if (v == NULL || end == v || *end != '\0' || errno != 0 || !isfinite(d) || d < lo || d > hi) {
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

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->policy = "ff";
  o->ctx.link_gbps = 10, o->ctx.nic_gbps = 0, o->ctx.links_per_pair = 4, o->ctx.seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1, rc = 0;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--version") == 0) {
      long sv = SLURM_VERSION_NUMBER;
      printf("netsched-slurm %s (libnetsched %s, built for Slurm %ld.%02ld.%ld)\n",
             NS_VERSION_STRING, ns_version(), SLURM_VERSION_MAJOR(sv), SLURM_VERSION_MINOR(sv),
             SLURM_VERSION_MICRO(sv));
      exit(0);
    } else if (strcmp(a, "--list") == 0) {
      for (int k = 0; k < nss_policy_count(); k++)
        printf("%-14s %s\n", nss_policy_name(nss_policy_at(k)), nss_policy_desc(nss_policy_at(k)));
      exit(0);
    } else if (strcmp(a, "--once") == 0) {
      o->once = 1, takes = 0;
    } else if (strcmp(a, "--dry-run") == 0) {
      o->dry_run = 1, takes = 0;
    } else if (strcmp(a, "--verbose") == 0) {
      o->verbose = 1, takes = 0;
    } else if (v == NULL && a[0] == '-' && a[1] == '-') {
      return bad(a, "", "needs a value");
    } else if (strcmp(a, "--policy") == 0) {
      o->policy = v;
    } else if (strcmp(a, "--order") == 0) {
      o->order = v;
    } else if (strcmp(a, "--partition") == 0) {
      o->partition = v;
      if (*v == '\0')
        return bad(a, v, "empty partition name");
    } else if (strcmp(a, "--state") == 0) {
      o->state = v;
    } else if (strcmp(a, "--lock") == 0) {
      o->lock = v;
    } else if (strcmp(a, "--interval") == 0) {
      rc = parse_double(a, v, 0.1, 86400, &o->interval_s);
    } else if (strcmp(a, "--link-gbps") == 0) {
      rc = parse_double(a, v, 1e-3, 1e6, &o->ctx.link_gbps);
    } else if (strcmp(a, "--nic-gbps") == 0) {
      rc = parse_double(a, v, 1e-3, 1e6, &o->ctx.nic_gbps);
    } else if (strcmp(a, "--links-per-pair") == 0) {
      rc = parse_int(a, v, 1, 4096, &o->ctx.links_per_pair);
    } else if (strcmp(a, "--spines") == 0) {
      rc = parse_int(a, v, 1, 4096, &o->ctx.spines);
    } else if (strcmp(a, "--seed") == 0) {
      int s = 0;
      rc = parse_int(a, v, 0, 2147483647, &s);
      o->ctx.seed = (uint64_t)s;
    } else {
      usage(stderr);
      return bad("argument", a, "unknown option");
    }
    if (rc < 0)
      return -1;
    i += takes;
  }
  if (o->once == (o->interval_s > 0))
    return bad("mode", o->once ? "--once --interval" : "", "give exactly one of --once and --interval SECONDS");
  const nss_policy *p = nss_policy_find(o->policy);
  if (p == NULL) {
    char why[512];
    int n = snprintf(why, sizeof why, "unknown policy; known:");
    for (int k = 0; k < nss_policy_count() && n < (int)sizeof why; k++)
      n += snprintf(why + n, sizeof why - (size_t)n, " %s", nss_policy_name(nss_policy_at(k)));
    return bad("--policy", o->policy, why);
  }
  if (o->order != NULL && (o->ctx.order = nss_order_find(o->order)) == NULL) {
    char why[128];
    snprintf(why, sizeof why, "unknown order; known: %s", nss_order_names());
    return bad("--order", o->order, why);
  }
  if (o->ctx.nic_gbps == 0)
    o->ctx.nic_gbps = o->ctx.link_gbps;
  char msg[512];
  if (nss_ctx_init(&o->ctx, p, msg, sizeof msg) < 0) {
    fprintf(stderr, "netsched-slurm: %s\n", msg);
    return -1;
  }
  return 0;
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

/* Sleeps up to s seconds; returns early once a stop is requested. */
static void nap(double s) {
  for (double left = s; left > 0 && !stop_requested; left -= 0.1) {
    struct timespec t = {0, (long)((left < 0.1 ? left : 0.1) * 1e9)};
    nanosleep(&t, NULL);
  }
}

/* One cycle. 0 ok, 2 controller unreachable, 4 other failure. */
static int cycle(opts *o) {
  nss_select sel = {o->partition};
  nss_snapshot s;
  nss_plan plan;
  char msg[1024];
  if (nss_slurm_snapshot(&sel, &s, msg, sizeof msg) < 0) {
    fprintf(stderr, "netsched-slurm: %s\n", msg);
    return 2;
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
  double now = wall_ms();
  if (now > o->ctx.now_ms)
    o->ctx.now_ms = now;
  s.now_ms = o->ctx.now_ms;
  if (nss_decide(&o->ctx, &s, &plan, msg, sizeof msg) < 0) {
    fprintf(stderr, "netsched-slurm: %s\n", msg);
    nss_snapshot_free(&s);
    return 4;
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
  for (int i = 0; i < plan.n; i++) {
    const nss_decision *d = &plan.d[i];
    if (d->placed)
      printf("%u placed %s\n", d->id, d->nodelist);
    else
      printf("%u waits: %s\n", d->id, d->reason);
    if (!o->dry_run && nss_slurm_apply(find_job(&s, d->id), d, msg, sizeof msg) < 0)
      fprintf(stderr, "netsched-slurm: %s\n", msg);
  }
  fflush(stdout);
  nss_plan_free(&plan);
  nss_snapshot_free(&s);
  if (o->state != NULL && !o->dry_run && o->ctx.tuner != NULL &&
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
    return 3;
  }
  if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
    char pid[32] = "";
    ssize_t n = read(*fd, pid, sizeof pid - 1);
    pid[n > 0 ? n : 0] = '\0';
    pid[strcspn(pid, "\n")] = '\0';
    fprintf(stderr, "netsched-slurm: another instance (pid %s) holds the lock '%s'; not starting\n",
            pid[0] ? pid : "?", path);
    close(*fd);
    return 3;
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
    return 1;
  int lockfd = -1, rc = 0;
  if (!o.dry_run && (rc = take_lock(&o, &lockfd)) != 0) {
    nss_ctx_free(&o.ctx);
    return rc;
  }
  char msg[1024];
  if (o.state != NULL && nss_state_load(&o.ctx, o.state, msg, sizeof msg) < 0)
    fprintf(stderr, "netsched-slurm: %s\n", msg);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  slurm_init(NULL);
  if (o.once) {
    rc = cycle(&o);
    if (rc == 2)
      fprintf(stderr, "netsched-slurm: the Slurm controller could not be reached (SLURM_CONF=%s)\n",
              getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "default");
  } else {
    double backoff = 1;
    while (!stop_requested) {
      rc = cycle(&o);
      if (rc == 2) { /* controller down or restarting: retry with backoff */
        fprintf(stderr, "netsched-slurm: retrying in %.0f s\n", backoff);
        nap(backoff);
        backoff = backoff * 2 > 60 ? 60 : backoff * 2;
        continue;
      }
      backoff = 1;
      nap(o.interval_s);
    }
    rc = 0;
  }
  slurm_fini();
  nss_ctx_free(&o.ctx);
  if (lockfd >= 0)
    close(lockfd);
  return rc;
}
