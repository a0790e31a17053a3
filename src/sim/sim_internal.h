/*
 * src/sim/sim_internal.h - private structures of the simulator.
 *
 * The simulator uses only public policy entry points; it includes
 * core/internal.h for the core structs and error helpers only (and the
 * policy queue's struct there, which src/sim/policy.c fills directly with
 * nsi_queue_put: the entries the public calls would make).
 */
#ifndef NS_SIM_INTERNAL_H
#define NS_SIM_INTERNAL_H

#include <stdatomic.h>

#include "core/internal.h"

#define NSI_SIM_MAX_CANDIDATES 10
#define NSI_CURVE_MAX 256 /* points of a contention curve */
#define NSI_DECIDE_WAKE (-2) /* event job id of the preemptive orders' wake-ups (ns_decision_next_ms) */
/* Dally lease reading: default lease (20 min) and shortest one
   (ns_sim_opts_set_dally_lease) */
#define NSI_DALLY_LEASE_MS (20 * 60e3)
#define NSI_DALLY_MIN_LEASE_MS 1000.0
/* Floor of a trace-derived compute per iteration (sim.h, TRACE DURATIONS). */
#define NSI_SIM_MIN_COMPUTE_MS 1e-3

struct ns_sim_opts {
  /* the policy parts (order, placement, kappa, admission and n, CASSINI and
     its candidates, backfilling, the preset's name): one ns_policy, owned,
     never deciding (the run clones it); read through nsi_order() ... */
  ns_policy *parts;
  ns_sim_network network;
  int leaves, spines, servers_per_leaf, gpus_per_server, links_per_pair;
  double link_gbps, nic_gbps, intra_gbps;
  double eq5_a, eq5_b, eq5_eta; /* eq5_b < 0: derive from link_gbps */
  uint64_t seed;
  double dally_machine_ms, dally_rack_ms, dally_history_ms;
  int dally_no_preempt; /* ns_sim_opts_set_dally_preemption(o, 0) */
  double dally_lease_ms; /* > 0: Themis-lease preemption (policy.c); 0: after each pass */
  uint64_t skew_bytes;
  int gpu_sharing;
  int phase_window;   /* fast-forward window W (iterations; 0 = off) */
  /* CASSINI's drift threshold and rule: the policy parts' (src/policy/drift.c) */
  /* preemptive orders: queues, starvation and Gittins samples are the
     policy parts' (src/policy/las.c reads them) */
  double restore_ms; /* checkpoint/restore per resume */
  int git_set;       /* 1: ns_sim_opts_set_gittins_samples gave samples (in parts); 0: the
                        workload's own distribution */
  ns_sim_place_fn place_fn;
  void *place_user;
  /* network-model issue (26): phase-model contention and NICs */
  int nic_ports;        /* NIC ports per server; 0 = one per GPU; default 1 */
  double alpha_ms;      /* an all-reduce's start-up latency across servers (phase model) */
  int curve_n;          /* points of the contention curve (0: ideal, e = 1) */
  double curve_k[NSI_CURVE_MAX], curve_e[NSI_CURVE_MAX];
  double gpu_mem_mb;    /* 0: the cluster's default (16384 MB) */
  int dally_new;        /* ns_sim_dally_new: Nw_sens of a job that never ran */
  int vclos_routing;    /* ns_sim_vclos_routing: reserved links (0) or ECMP (network.c) */
  int allreduce;        /* ns_sim_allreduce of jobs without their own (network.c) */
};

/* A halving-doubling all-reduce as steps (network.c builds, net_phase.c
   runs them): step i's flows are links[off[i] .. off[i+1]) (multiplicity,
   sorted), its transfer work[i] ms at the flow rate d (at the intra-server
   rate for a step without links), lone[i] ms alone. */
typedef struct nsi_steps {
  int n;
  size_t *off;
  int *links;
  double *work, *lone;
} nsi_steps;

/* e(k) of the options' contention curve (net_phase.c); k >= 1. */
double nsi_sim_curve(const ns_sim_opts *o, int k);
/* NIC ports per server of the run (o->nic_ports, 0 -> one per GPU). */
int nsi_sim_nic_ports(const ns_sim_opts *o);

/* How a multi-server job's communication meets the others' on a link. */
enum { NSI_COLLIDE = 0, NSI_SERIAL = 1, NSI_SHIFTED = 2 };
enum { NSI_WAITING = 0, NSI_QUEUED = 1, NSI_RUNNING = 2, NSI_DONE = 3, NSI_REJECTED = 4 };
/* Phase of a job in the phase model (net_phase.c). */
enum { NSI_PH_COMPUTE = 0, NSI_PH_COMM = 1, NSI_PH_WAIT = 2, NSI_PH_HOLD = 3,
       NSI_PH_LAT = 4 /* an admitted all-reduce's start-up latency (alpha), then COMM */ };

/* A model profile: an embedded one (static name) or one added with
   ns_sim_add_model_profile (name owned by the simulator). */
typedef struct nsi_model {
  char *name;
  double compute_ms, mem_mb;
  uint64_t bytes;
} nsi_model;

typedef struct nsi_simjob {
  char *name;        /* one allocation "name\0model": freeing name frees model */
  const char *model; /* model name as given (trace's model_name), "" if none */
  int gpus;
  uint64_t iterations;
  double arrival_ms, compute_ms, mem_mb;
  uint64_t model_bytes;
  /* run state */
  int state;
  ns_job *job; /* live while queued/running */
  double key;  /* queue order key */
  double start_ms, finish_ms;
  int servers;
  double comm_alone_ms; /* t of the model */
  int mode;             /* NSI_COLLIDE ... */
  double rem;           /* iterations left at t_upd */
  double t_upd, rate;   /* iterations per ms since t_upd */
  double paused_until;  /* time-shift: no progress before this */
  double iter_ms;       /* current iteration time */
  unsigned ver;         /* completion-event version */
  int *links;           /* network links used (index), with multiplicity */
  size_t nlinks;
  int *srv;             /* distinct servers */
  int *gpu;             /* GPUs held (sharing: slowdown) */
  size_t ngpu;
  double slow;          /* compute slowdown from GPU sharing (>= 1) */
  size_t nsrv;
  double wake_ms;       /* Dally: last wake-up pushed (-1 = none) */
  double shift_ms;      /* CASSINI: time-shift of the winning candidate ... */
  int shift_pending;    /* ... not yet applied by the network model */
  /* phase model (net_phase.c) */
  int phase;            /* NSI_PH_* (group members) */
  uint64_t it_left;     /* iterations not finished, the current one included */
  double ph_left;       /* work left in the phase: ms of compute / of transfer at full rate / of hold */
  double ph_rate;       /* progress of ph_left per ms */
  double pos, per;      /* lone: ms into the current iteration at t_upd (< 0: held); iteration ms */
  double comm_work;     /* the all-reduce: ms at full rate (0: none) */
  double lone_comm;     /* the all-reduce alone (its own flows' multiplicity), lat_ms included */
  double lat_ms;        /* its start-up latency alpha (multi-server, phase model), else 0 */
  int group;            /* group id, -1 = lone */
  double hold_until;    /* the next compute phase starts no earlier (CASSINI) */
  uint64_t w_n;         /* fast-forward window: iteration ends counted ... */
  double w_t1, w_tl;    /* ... time of the first and of the last */
  int mark, seed;       /* net_phase.c resolve(): stamps */
  double bgx;           /* its mean throughput per flow while bgon (Gbps) */
  double bgphi;         /* ... and the part of its mean iteration it transfers */
  int gi;               /* its index in its group's members (and max-min items, g->mm) */
  int bgon;             /* lone at its window mean inside a large component: its mean
                           throughput loads its links (net_phase.c, partial restarts) */
  int stale;            /* a neighbour of changes not yet re-simulated (its touched links,
                           summed; net_phase.c: at most touch_cap per restart) */
  int rtonly;           /* (to be) re-simulated in a partial restart only because a link-mate
                           left one at a new mean (net_phase.c rate_touch): its own new mean
                           rate-touches no one */
  int ar;               /* its all-reduce: 0 the run's, else 1 + ns_sim_allreduce */
  nsi_steps *hd;        /* halving-doubling: its steps (NULL: one ring transfer) */
  int step;             /* ... the step in progress while communicating */
  uint64_t wait_ep;     /* s->aep when admission last refused its all-reduce (NSI_PH_WAIT) ... */
  int wait_link;        /* ... and the link the refusal holds on (-1: none known) */
  /* preemption (the policy decides, engine.c suspends and resumes) */
  double att_ms, att_at; /* executed ms as the preemptive orders count it (attained service =
                            GPUs x att_ms: at each of their passes), and when last counted */
  int preemptions, resumed;
  double susp_at, susp_ms; /* last suspension; total time suspended */
  /* Dally (policy.c): Nw_sens and what the network model measured for it */
  double nw_sens;       /* last measured (kept while suspended), or the initial estimate */
  double run_acc;       /* ms run in earlier placements (restore overhead excluded) */
  double run_from;      /* this placement: progress counted from (start + restore) */
  double wait_from;     /* Dally starvation: arrival, or the latest suspension */
  double last_start;    /* time of the latest start (not a victim in that pass) */
} nsi_simjob;

typedef struct nsi_group {
  int *members; /* sim job indices */
  size_t n;
  int ff;       /* fast-forwarded: members run as lone jobs at their window mean */
  int partial;  /* a re-simulated part of a large component (net_phase.c) */
  uint64_t W;   /* its window (iterations) */
  unsigned cache; /* capeff_epoch + 1 of its max-min structure (mm), 0 = stale */
  struct nsi_mm *mm; /* its members' all-reduces over their shared links (maxmin.c) */
  unsigned mm_serial; /* s->lmapg of its shared links (local ids in s->lmap) */
  uint64_t mep;       /* s->aep when its membership last changed (admit_waiters) */
} nsi_group;

/* Scratch of nsi_sim_fill (grown as needed, freed with the run). */
typedef struct nsi_fill {
  int *lres, *lstart, *litem, *lcnt, *frozen, *lown; /* per local resource / incidence */
  int *hlnk, *hpos; /* indexed heap of ids: resources, then items (nl + i) */
  double *lrem, *hkey; /* hkey per id */
  double *hval;        /* hval[at] = hkey[hlnk[at]]: the heap compares without the indirection */
  size_t cap, nheap;
} nsi_fill;

/* Incremental max-min over a fixed structure (maxmin.c): items (a group's
   all-reduces) over local resources (the links they share), each item
   active or not (transferring). */
typedef struct nsi_mm_slot { /* a memo's hash slot (maxmin.c) */
  uint64_t hash;
  size_t at;                 /* entry's byte offset in pool + 1; 0 = empty */
} nsi_mm_slot;
typedef struct nsi_mm_memo { /* one generation of a memo (maxmin.c) */
  nsi_mm_slot *slot;         /* open addressing, the hash beside the entry */
  size_t nslot;
  unsigned char *pool;       /* entries, each in one piece: item set, rates, ints */
  size_t npool, cap_pool, nent, nrp; /* bytes used; entries; rates held */
} nsi_mm_memo;
typedef struct nsi_mm {
  int n, nr;                /* items, resources */
  int *ist, *ir;            /* item i's resources ir[ist[i] .. ist[i + 1]), ascending, repeated */
  int *rst, *ri;            /* resource r's distinct items ri[rst[r] .. rst[r + 1]), ascending */
  double *rcap, *icap, *ek; /* per resource capacity; per item own limit; e(k), k = 0..n */
  int has_ek;               /* 0: e = 1 (ideal curve) */
  int *coff;                /* per resource: its capacity by k at ctab[coff[r] + k], or -1 */
  double *ctab;             /* (nsi_mm_cap_table; with e(k) only) */
  size_t nctab;
  unsigned char *on;        /* per item: active (nsi_mm_set) */
  int *job;                 /* per item: the caller's tag (net_phase.c: its sim job; -1 dropped) */
  int *live;                /* per resource: its items not dropped (nsi_mm_drop) */
  int recap;                /* a capacity changed (nsi_mm_set_cap): the memo is emptied at the
                               next solve */
  int *idst, *idr, *xown;   /* item i's distinct resources: incidences idst[i] .. idst[i + 1) */
  int *ra, *na, *ipos;      /* per resource its active incidences; an incidence's place there */
  double *rate;             /* per item: its rate in the last solve that covered it */
  int *comp, ncomp;         /* the last solve's items, ascending */
  /* scratch */
  unsigned *rmark, *imark, stamp;
  int *queue, *lid, *cnt;
  double *capk, *ic, *out;
  int **res;
  size_t *nres;
  uint64_t *akey;           /* the active set, a bit per item */
  size_t words;
  int nact;                 /* active items */
  uint64_t *pkey;           /* scratch: one part's item set, a bit per item */
  int *lab, *pitem, *poff, nparts; /* components of the active items: part per item, items by part */
  double *prate;
  int *pcnt;
  nsi_fill fill;
  /* mm_fill (maxmin.c): the fill over the structure itself */
  int *idm;                 /* per distinct incidence: the item's flows on that resource */
  int *am;                  /* per resource: flows of its active items (sum of idm) */
  int *fl, *flres, *fcnt, *fsl, *fol, *ffz, *xpos; /* local shared resources, alive lists */
  int *fdy, *fdl;           /* per local shared resource: round it was touched; touched list */
  double *frem, *fkey, *fokey; /* capacity left per local shared resource; the keys of the
                                  alive lists, by position (fkey[a]: fsl[a]'s, fokey[a]: fol[a]'s) */
  int *fpos, *opos;         /* per local shared resource, per item of the fill: its position
                               in fsl / fol, -1 once gone */
  int *fcand, *ocand;       /* a round's candidates to freeze: shared resources, items */
  int generic_fill;         /* tests: fill through nsi_sim_fill (the generic fill) instead */
  /* memos, two generations each (maxmin.c): set[] the partitions of whole
     active sets, part[] solved parts by item set */
  nsi_mm_memo set[2], part[2];
  int gen_set, gen_part;    /* the generation taking new entries; ^ 1 the older */
  size_t memo_cap;          /* rates per generation, at most (0: NSI_MM_MEMO; tests set it) */
  double demand;            /* of the memo's rates */
  int scratch;              /* tests: no memo, every solve searches and fills from scratch */
  uint64_t hits, misses;    /* solves of a whole active set: recalled, not */
  uint64_t part_hits, part_misses, hits_older; /* of a part; recalled from an older generation */
  size_t cap_ist, cap_ir, cap_ri, cap_rst, cap_rcap, cap_rmark, cap_lid, cap_cnt, cap_capk,
      cap_queue, cap_icap, cap_ek, cap_on, cap_imark, cap_comp, cap_rate, cap_res, cap_nres,
      cap_ic, cap_out, cap_akey, cap_pkey, cap_lab, cap_pitem, cap_poff, cap_prate, cap_pcnt, cap_ra, cap_idr,
      cap_xown, cap_ipos, cap_idst, cap_na, cap_coff, cap_ctab, cap_idm, cap_am, cap_fl, cap_flres,
      cap_fcnt, cap_fsl, cap_fol, cap_ffz, cap_xpos, cap_frem, cap_fkey, cap_fokey, cap_fdy, cap_fdl,
      cap_job, cap_live, cap_fpos, cap_opos, cap_fcand, cap_ocand;
} nsi_mm;

/* Sets up m (its memory reused) for n items, item i on local resources
   res[i][0 .. nres[i]) (ascending, a repeat = one more flow there) with its
   own limit icap[i] (INFINITY: none), nr resources of capacity rcap[r]; ek:
   e(k) for k = 0..n (NULL: 1). Every item inactive, the memo empty. NS_OK or
   NS_ENOMEM (m stays freeable). */
int nsi_mm_build(nsi_mm *m, int n, const int *const *res, const size_t *nres, const double *icap,
                 int nr, const double *rcap, const double *ek);
/* Resource r's capacity when k of its items are active, k = 0 .. its
   items (tab[k]), instead of rcap[r] x e(k): a link that partial restarts'
   kept jobs load (net_phase.c). Only with ek; after nsi_mm_build, before a
   solve. NS_OK or NS_ENOMEM. */
int nsi_mm_cap_table(nsi_mm *m, int r, const double *tab);
/* Item i leaves the structure for good (inactive from now on; job[i] = -1):
   the solves give what a structure built without it gives (a resource
   left with one item limits that item alone, as its own limit would).
   The memo stands: no capacity changed. */
void nsi_mm_drop(nsi_mm *m, int i);
/* Resource r is shared by two or more items not dropped. */
int nsi_mm_shared(const nsi_mm *m, int r);
/* Resource r's capacity is now rcap (with e(k): tab[k], k = 0 .. its
   items, or NULL for rcap x e(k)); the memo is emptied (at the next
   solve). NS_OK or NS_ENOMEM. */
int nsi_mm_set_cap(nsi_mm *m, int r, double rcap, const double *tab);
/* Max-min rates (progressive filling, each at most `demand`) of the active
   items connected through resources to seeds[0 .. nseeds) (active or not:
   their resources start the search) and to the resources seed_res[0 ..
   nseed_res): m->comp / m->ncomp, m->rate[item].
   Identical to nsi_sim_fill over those items in ascending order. */
/* Item i transfers (on) or not. */
void nsi_mm_set(nsi_mm *m, int i, int on);
int nsi_mm_solve(nsi_mm *m, const int *seeds, int nseeds, const int *seed_res, int nseed_res,
                 double demand);
/* The same over every active item at once (one fill). */
int nsi_mm_solve_all(nsi_mm *m, double demand);
void nsi_mm_free(nsi_mm *m);

struct ns_sim;

/* A network model: the engine calls these, nothing else (see sim.h). */
typedef struct nsi_netmodel {
  const char *name;
  /* the job was just committed (links known): set up its progress */
  int (*start)(struct ns_sim *s, nsi_simjob *j);
  /* after the event time's starts and finishes: rates, events */
  int (*update)(struct ns_sim *s);
  /* the job's current event was popped; *finished = 1 when it is done */
  int (*event)(struct ns_sim *s, nsi_simjob *j, int *finished);
  /* the job leaves (finish; later suspend): progress up to now, out of its group */
  void (*stop)(struct ns_sim *s, nsi_simjob *j);
  /* iterations the job has left at now (fractional) */
  double (*remaining)(struct ns_sim *s, nsi_simjob *j);
  /* Dally's Nw_sens inputs (§4.3.1) for a RUNNING job, over all its
     placements so far: *done = iterations done (fractional), *run_ms = ms
     it ran (held GPUs, the restore overhead excluded) */
  void (*measured)(struct ns_sim *s, nsi_simjob *j, double *done, double *run_ms);
} nsi_netmodel;

/* A policy: one function per part, the engine and the phase model call
   them; placement goes through the policy object (nsi_sim_place). */
typedef struct nsi_hooks {
  /* the queue key: the policy object's (ns_policy_order_key) */
  double (*order)(struct ns_sim *s, const nsi_simjob *j);
  /* phase model: may j start its all-reduce now? On a refusal, *hold = a
     link of j on which the refusal holds until an all-reduce using that
     link ends or j's group's membership changes (SRSF(n): one with n in
     flight; starts only add load), so that the phase model does not ask
     again before (admit_waiters); -1 (set by the caller) when no such link
     is known (AdaDUAL reads remaining bytes, which move with time). */
  int (*admit_comm)(struct ns_sim *s, nsi_simjob *j, int *start, int *hold);
  /* Dally's pass-by-pass preemption (policy.c asks ns_policy_preempt),
     after a scheduling pass: *waiter = a queued job that gets GPUs by
     suspending running jobs, s->pd holding them (its suspends, s->pids
     their jobs) and its placement (start 0), or -1. Decides only; the
     engine suspends and starts. NULL: the policy never preempts this way. */
  int (*preempt)(struct ns_sim *s, int *waiter);
  /* CASSINI's drift re-adjustment (phase model; policy.c reports to the
     policy, which keeps the schedules and decides): j (re)started, its
     iteration known (compute_ms, lone_comm); j's shift was applied, its
     next compute starting at slot; j starts an all-reduce now: *hold_until
     = when its next compute may start (NAN: no hold), or new time-shifts
     recorded (shift_pending). NULL without CASSINI. */
  int (*cassini_started)(struct ns_sim *s, nsi_simjob *j);
  int (*cassini_shifted)(struct ns_sim *s, nsi_simjob *j, double slot);
  int (*cassini_allreduce)(struct ns_sim *s, nsi_simjob *j, double *hold_until);
  /* j finished: the policy forgets its schedule (the engine frees its handle next) */
  void (*cassini_finished)(struct ns_sim *s, nsi_simjob *j);
} nsi_hooks;


typedef struct nsi_event {
  double t;
  int job;      /* -1: wake-up only */
  unsigned ver;
} nsi_event;

typedef struct nsi_heap {
  nsi_event *ev;
  size_t n, cap;
  int *pos;    /* per job: its entry's index in ev, -1 = none (heap.c) */
  size_t npos; /* jobs pos covers; a job past it gets plain entries */
} nsi_heap;

struct ns_sim {
  ns_sim_opts o;
  nsi_simjob *jobs;
  size_t njobs, cap_jobs;
  int skipped;
  int rejected; /* jobs a policy refused as never placeable (NS_EINVAL) */
  ns_sim_progress_fn progress;
  void *progress_user;
  /* run state */
  const nsi_netmodel *net_model;
  nsi_hooks hooks;
  int ran;
  /* The handle's guard (nsi_sim_enter): NSI_SIM_WRITER while a mutating
     call or a run holds s, NSI_SIM_RUNNING during ns_sim_run, NSI_SIM_CANCEL
     once ns_sim_cancel asked that run to stop, plus NSI_SIM_READER per const
     call in progress. One lock-free atomic word: ns_sim_cancel is a single
     compare-and-swap on it (async-signal-safe). */
  atomic_uint guard;
  ns_cluster *cluster;
  ns_placement *pl, *scratch;
  /* The run's policy object (netsched/policy.h): order, placement, CASSINI's
     candidates, ranking and shifts, Dally's tuner; one-job queue and
     decision it is asked with (policy.c) */
  ns_policy *policy;
  ns_queue *pq;
  ns_decision *pd;
  ns_decision *rd; /* CASSINI: a drift's re-adjustment (NULL without CASSINI) */
  int *order; /* job indices by arrival */
  int *queue;
  size_t nqueue, cap_queue;
  int *running;
  size_t nrunning, cap_running;
  int *net; /* running multi-server jobs (network.c scratch, cap_running) */
  size_t nnet, cap_net;
  int net_dirty;
  nsi_heap heap;
  double now;
  /* network */
  int nnet_links;
  int nports, ports_per_server; /* NIC ports (network.c), per server */
  int ring_only;    /* no job's all-reduce is halving-doubling (network.c): each multi-server
                       job's links hold its servers' NIC tx and rx alike */
  double *cap;      /* capacity per link */
  double *load;     /* scratch per link */
  double *fuse;     /* scratch per link: frozen use */
  double *sum;      /* scratch per link */
  int *cnt;         /* jobs per link (scratch) */
  unsigned char *shared_ever;
  /* phase model */
  nsi_group *grp;
  size_t ngrp, cap_grp;
  int *own;         /* scratch per link and per GPU: union-find owner, own_base + position
                       in this grouping (older values: none) */
  int own_base;
  int *pu_tmp;      /* phase_update's scratch (net_phase.c), kept across updates */
  size_t cap_pu_tmp;
  size_t *pu_cnt;
  size_t cap_pu_cnt;
  int *lid;         /* scratch per link and per GPU: nsi_sim_fill's local ids (-1) */
  double *bg, *capeff; /* per link: mean throughput of bgon jobs; cap - bg (phase model) */
  double *bgk;         /* per link: bgon jobs transferring there on average (sum of bgphi) */
  double *capk;        /* per link, scratch of a solve: capeff x e(k) (contention curve) */
  double ek[65];       /* e(k) of the curve for k <= 64 */
  int kmax;            /* SRSF(n) admission: at most n transfers on a link at once (0: no bound) */
  int touch_cap;       /* partial restarts: neighbours re-simulated per change, at most
                          (NSI_PHASE_TOUCHED; _PREEMPT under a preemptive order) */
  int *wtmp;           /* scratch: waiting all-reduces of a group (admit_waiters) */
  size_t cap_wtmp;
  uint64_t *lrel;      /* per link: s->aep when an all-reduce on it last ended (admit_waiters) */
  uint64_t aep;        /* admission epoch: bumped at each refusal, all-reduce end and
                          membership change */
  int *bgcnt;       /* per link: bgon jobs on it */
  int *lmap;        /* per link: its local id in the max-min of the group built last over it ... */
  unsigned *lmapg;  /* ... valid where this equals that group's mm_serial */
  unsigned lmap_serial;
  int *lseed;       /* scratch: local links a leaving job starts a solve from */
  size_t cap_lseed;
  int *touch;       /* per link, since the last update: 1 if a job started or left on it,
                       plus 1 << 16 if a partial restart's member left it there at a new
                       mean (net_phase.c rate_touch); 0 for neither */
  int *tlist;       /* the links with touch != 0 (each once), ntouch of them */
  size_t ntouch;
  int stale_any;    /* some running job has stale > 0: re-simulated when a restart ends */
  unsigned capeff_epoch; /* bumped whenever capeff changes */
  double *icap_tmp;
  nsi_fill fill;
  double *gcap, *gload, *gused; /* per GPU: capacity 1, solver scratch */
  int ngpus_total;
  double *rate_tmp;
  int **res_tmp;
  size_t *nres_tmp;
  int *idx_tmp;
  int *seeds;
  size_t nseeds, cap_seeds;
  int stamp;
  double lwf_refreshed; /* time of the last LWF workload refresh (policy.c) */
  size_t cap_tmp;
  uint64_t phase_events;
  int ref_solve; /* tests: groups' max-min without memo (nsi_mm.scratch) */
  int ref_admit; /* tests: every waiting all-reduce asked at every pass (no still_refused) */
  int ref_group; /* tests: the grouping walks NIC rx links too (no rx shortcut, phase_update) */
  uint64_t admit_skips; /* waiting all-reduces not asked again (still_refused), this run */
  uint64_t cassini_readjusts; /* the last run's policy's ns_policy_readjust_count (tests read it) */
  /* decisions over the whole queue (preemptive orders, Dally's leases):
     the queue view's job indices (queue index -> job), and the version of
     the live wake-up at the decision's next_ms */
  int *pids;
  size_t cap_pids;
  unsigned wake_ver;
  int *srv_busy;    /* busy GPUs per server */
  int used_servers, idle_on_used;
  /* metric integrals */
  double frag_int, frag_time, alloc_int;
  double machines_int; /* integral of used servers over time */
  double arrival_machines; /* sum over arrivals of used servers after their pass */
  size_t arrival_samples, arrival_pending; /* arrivals sampled; arrived, pass not yet run */
  int alloc_gpus;
  double metrics[NS_SIM_METRIC_COUNT];
  nsi_model *models; /* ns_sim_add_model_profile */
  size_t nmodels, cap_models;
};

/* heap.c: one entry per job (a push moves it), any number of wake-ups */
int nsi_sim_heap_init(nsi_heap *h, size_t njobs); /* empty, for jobs 0..njobs-1 */
void nsi_sim_heap_free(nsi_heap *h);
int nsi_sim_heap_push(nsi_heap *h, double t, int job, unsigned ver);
int nsi_sim_heap_pop(nsi_heap *h, nsi_event *out);

/* network.c: the fabric (links of a ring, capacities, a max-min solver) */
int nsi_sim_net_init(ns_sim *s);
void nsi_sim_net_free(ns_sim *s);
int nsi_sim_job_links(ns_sim *s, nsi_simjob *j, const ns_placement *p, int **links,
                      size_t *nlinks);
double nsi_sim_comm_alone_ms(const ns_sim *s, const nsi_simjob *j, int multi_server);
double nsi_sim_lone_rate(const ns_sim *s, const nsi_simjob *j);
void nsi_sim_steps_free(nsi_steps *st);
int nsi_sim_job_allreduce(const ns_sim *s, const nsi_simjob *j); /* ns_sim_allreduce */
/* NS_OK or NS_ENOMEM (scratch); lid: per resource, -1 on entry and return */
int nsi_sim_fill(nsi_fill *f, size_t n, int *const *res, const size_t *nres, const double *icap,
                 double demand, const double *cap, int *lid, double *rate);
void nsi_sim_fill_free(nsi_fill *f);

/* net_fluid.c, net_phase.c: the models of ns_sim_network (ideal = the phase
   model with free communication: every job is lone) */
extern const nsi_netmodel nsi_sim_net_maxmin, nsi_sim_net_contention, nsi_sim_net_phase,
    nsi_sim_net_ideal;

/* policy.c */
int nsi_sim_policy_prepare(ns_sim *s);
void nsi_sim_policy_release(ns_sim *s);
int nsi_sim_place(ns_sim *s, int ji, int *placed);
/* The preemptive orders (2D-LAS, 2D-Gittins) and Dally's lease reading
   (nsi_sim_leasing): the policy decides over every waiting and running job
   at once (ns_policy_decide); s->pd holds the decision, s->pids[i] the job
   of its queue index i (the waiting ones first). nsi_sim_take_start
   readies start k: *ji = its job, s->pl = its placement, its time-shifts
   recorded. */
int nsi_sim_leasing(const ns_sim_opts *o);
int nsi_sim_decide(ns_sim *s);
int nsi_sim_take_start(ns_sim *s, size_t k, int *ji);
/* Dally's Nw_sens of a job now: measured while it runs (s->net_model's
   measured), its kept value otherwise (policy.c's header comment). */
double nsi_sim_nw_sens(ns_sim *s, nsi_simjob *j);

/* opts.c: dst = src, owned arrays and parts copied (NS_ENOMEM with fn's
   name); nsi_sim_opts_release frees what a copy owns. */
int nsi_sim_opts_copy(ns_sim_opts *dst, const ns_sim_opts *src, const char *fn);
void nsi_sim_opts_release(ns_sim_opts *o);
/* The policy parts of o (o->parts). */
static inline ns_sim_order nsi_order(const ns_sim_opts *o) {
  return (ns_sim_order)ns_policy_order_of(o->parts);
}
static inline ns_sim_placement nsi_placement(const ns_sim_opts *o) {
  return (ns_sim_placement)ns_policy_placement_of(o->parts);
}
static inline ns_sim_admission nsi_admission(const ns_sim_opts *o) {
  return (ns_sim_admission)ns_policy_admission_of(o->parts, NULL);
}
/* Partial restarts: neighbours re-simulated per change, at most; _PREEMPT
   under a preemptive order (why: net_phase.c's header). */
#define NSI_PHASE_TOUCHED 32
#define NSI_PHASE_TOUCHED_PREEMPT 8
/* The orders that decide over every waiting and running job and preempt
   (2D-LAS, 2D-Gittins: policy.c's passes). */
static inline int nsi_sim_preemptive(const ns_sim_opts *o) {
  return nsi_order(o) == NS_SIM_ORDER_2D_LAS || nsi_order(o) == NS_SIM_ORDER_2D_GITTINS;
}
static inline int nsi_admit_n(const ns_sim_opts *o) {
  int n = 1;
  ns_policy_admission_of(o->parts, &n);
  return n;
}
static inline int nsi_cassini(const ns_sim_opts *o) { return ns_policy_uses_cassini(o->parts) == 1; }
static inline int nsi_backfill(const ns_sim_opts *o) { return ns_policy_backfills(o->parts) == 1; }

/* csvfile.c: the CSV reader every input file goes through (its header
   comment lists the limits). */
#define NSI_CSV_MAX_FIELDS 64
#define NSI_CSV_MAX_LINE 65536
typedef struct nsi_csv {
  const char *fn, *path; /* for messages: "fn: path '...' line N: ..." */
  long line;             /* physical line (1-based) the current record ends on */
  long records;          /* records so far, this one included (1 = the header) */
  char *field[NSI_CSV_MAX_FIELDS];
  size_t nfield;         /* fields of this record */
  size_t ncols;          /* (reader) fields counted, kept or not */
  size_t pending;        /* (reader) bytes of the record being read */
  int rc;                /* first error */
  int (*row)(struct nsi_csv *c, void *user);
  void *user;
} nsi_csv;
/* Calls row(c, user) for every record of `path`, the header included,
   with c->field[0 .. c->nfield); a negative return stops the read with
   that status (its message recorded by the callback, e.g. nsi_csv_bad).
   NS_OK, or NS_EINVAL naming fn, path and line (cannot be opened, is a
   directory, binary, UTF-16, a line too long or too wide, empty), or
   NS_ENOMEM. */
int nsi_csv_read(const char *fn, const char *path, int (*row)(nsi_csv *c, void *user),
                 void *user);
/* Records NS_EINVAL "fn: path 'P' line N: what (got 'val')" once (the first
   error wins; no "(got ...)" for a NULL val) and returns the reader's status. */
int nsi_csv_bad(nsi_csv *c, const char *what, const char *val);
/* A decimal number filling the whole field ([+-]digits[.digits][e[+-]d]):
   0 with *out set, or -1 for anything else - hex (0x10), inf, nan,
   spaces, an empty field, a magnitude past the double range. */
int nsi_csv_decimal(const char *v, double *out);

/* metrics.c */
int nsi_sim_compute_metrics(ns_sim *s); /* NS_OK / NS_ENOMEM */

/* workload.c */
/* Every public ns_sim_* call on a handle holds its guard for its duration:
   NSI_SIM_READ for the const ones (any number at once, from any threads),
   NSI_SIM_WRITE for the others and ns_sim_run (alone). nsi_sim_enter: NS_OK
   with s held; NS_EINVAL if s is NULL; NS_ESTATE, changing nothing, if s is
   held otherwise (running: a callback of its own run calling back, or a
   call from another thread). nsi_sim_leave releases what enter took. */
enum { NSI_SIM_WRITER = 1u, NSI_SIM_RUNNING = 2u, NSI_SIM_CANCEL = 4u, NSI_SIM_READER = 8u };
enum { NSI_SIM_READ = 0, NSI_SIM_WRITE = 1 };
int nsi_sim_enter(const ns_sim *s, const char *fn, int mode);
void nsi_sim_leave(const ns_sim *s, int mode);
/* A public call's body under the guard: returns enter's failure, or the
   body's value after leaving. */
#define NSI_SIM_CALL(s, fn, mode, body)             \
  do {                                              \
    int nsi_in_ = nsi_sim_enter((s), (fn), (mode)); \
    if (nsi_in_ < 0)                                \
      return nsi_in_;                               \
    int nsi_out_ = (body);                          \
    nsi_sim_leave((s), (mode));                     \
    return nsi_out_;                                \
  } while (0)
/* ns_sim_cancel was called during this run (engine.c polls it). */
int nsi_sim_cancelled(const ns_sim *s);
double nsi_sim_ideal_iter_ms(const ns_sim_opts *o, const nsi_simjob *j);
/* Profile of a model name: an added profile of that exact name, else an
   embedded one by prefix (vgg, resnet, ...). NS_OK or NS_ENOTFOUND. */
int nsi_sim_model_lookup(const ns_sim *s, const char *model_name, nsi_model *out);
/* Embedded profile m (0..3: ns_sim_model). */
void nsi_sim_model_builtin(int m, nsi_model *out);
/* Validated add (ns_sim_add_job's checks) with a model name; fn names the
   caller in messages. Returns the index, NS_ENOSPACE (skipped) or < 0. */
/* ns_sim_add_model_profile's checks and effect under the caller's guard;
   fn names the caller in messages. */
int nsi_sim_add_profile(ns_sim *s, const char *fn, const char *name, double forward_ms,
                        double backward_ms, uint64_t model_bytes, double mem_mb);
int nsi_sim_add_job_model(ns_sim *s, const char *fn, const char *name, const char *model,
                          double arrival_ms, int gpus, uint64_t iterations, double compute_ms,
                          uint64_t model_bytes, double mem_mb);
double nsi_sim_nic_gbps(const ns_sim_opts *o);
double nsi_sim_eq5_b(const ns_sim_opts *o);
double nsi_sim_eq5_eta(const ns_sim_opts *o);
double nsi_sim_comm_consolidated_ms(const ns_sim_opts *o, int gpus, uint64_t model_bytes);

/* engine.c */
void nsi_sim_reset(ns_sim *s);

#endif
