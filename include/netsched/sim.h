/*
 * netsched/sim.h - trace-driven discrete-event cluster simulator.
 * Included by <netsched.h>; do not include directly.
 *
 * The simulator is a loop of exactly the calls a cluster manager makes
 * (policy entry point -> ns_cluster_commit ... ns_cluster_release) plus a
 * clock and a network model. It compares every policy of the library on the
 * same workload: an embedded default, jobs added one by one, or a trace file.
 * This header is the reference for its rules; docs/simulator.md is the
 * user's guide (what they mean for a comparison) and points back here.
 *
 * Usage:
 *   ns_sim_opts *o = ns_sim_opts_new();
 *   ns_sim_opts_set_policy_name(o, "lwf-1");        // or set_policy(o, NS_SIM_POLICY_LWF1)
 *   ns_sim *s = ns_sim_new(o);                       // copies o; o may be freed
 *   ns_sim_load_default_workload(s);                 // or ns_sim_load_trace / ns_sim_add_job
 *   if (ns_sim_run(s) == NS_OK) ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &jct);
 *
 * NETWORK MODELS. Common to all: a job's iteration = compute (fwd + bwd
 * ms of its model) + communication (one all-reduce of its model bytes).
 * GPUs are exclusive (one job per GPU) unless GPU sharing is on
 * (ns_sim_opts_set_gpu_sharing). A job on one server all-reduces over the
 * server's internal fabric at intra_gbps (default 100 Gbps, PCIe-class):
 * 2(N-1)/N * M bytes, no contention (GPUs are exclusive, so no two jobs
 * share it; the contention curve below does not apply). A job spanning
 * servers runs a ring over its GPUs in GPU-id order: one flow per pair of
 * consecutive GPUs (cyclically) on different servers. Each flow traverses
 * the sending GPU's NIC port (tx), the receiving GPU's NIC port (rx) -
 * each of nic_gbps, default = link_gbps - and, across leaves, one
 * leaf->spine uplink and one spine->leaf downlink of link_gbps. Servers
 * have ns_sim_opts_set_nics ports (default 1: one NIC shared by the
 * server's jobs, the Ada-SRSF testbed of the embedded workload; 0 = one
 * per GPU, DGX/HGX-style and the vClos testbed); local GPU i uses port
 * i * nics / gpus_per_server. The spine and parallel link are chosen by
 * the library's ECMP, a fixed hash of the (sending port, receiving port)
 * pair (core.h "Port model"; the run's cluster is given the same ports at
 * nic_gbps, so that CASSINI's candidates, ns_cassini_candidate_from_cluster,
 * describe exactly these links), except for vClos placements, which use
 * their reserved links and ns_vclos_route (source routing). With one NIC
 * per server the GPU ring's flows are the server ring's (one per
 * consecutive server pair). A ring advances in lock-step: its flows
 * move at one rate x <= d = min(nic, link), k of its flows on one link
 * count k times there. Alone, the communication takes
 * t = 2(N-1)/N * M * 8 / x.
 *
 *  - NS_SIM_NET_PHASE (the default): each running job alternates a compute
 *    phase and its all-reduce; the next compute starts when the all-reduce
 *    ends (no overlap inside one job). The all-reduces in flight at one
 *    instant share every link max-min fairly (progressive filling, weights
 *    = flow multiplicities), recomputed at every phase boundary of a job
 *    that shares a link with another. Overlap, collisions and interleaving
 *    emerge from the phases: two identical jobs starting together collide
 *    at every all-reduce (lock-step), the same pair offset by one compute
 *    phase never meets, jobs of different periods drift through each
 *    other. A job alone on its links takes exactly its fluid-model time
 *    (compute + t per iteration). It is the default because in the fluid
 *    models the model's shortcuts (a colliding job charged weight 1 all the
 *    time, a coordinated one its duty cycle) and not the policies decided
 *    who wins. Cost: only jobs that share a link (or a GPU) are simulated
 *    phase by phase, in groups; lone jobs are analytic (two events), and a
 *    group is fast-forwarded after W iterations of its slowest member (each
 *    member continues at its mean iteration over those W iterations until
 *    the group changes; ns_sim_opts_set_phase_window, default 16, 0 = off;
 *    a group of n jobs uses max(2, 16 W / n) iterations, so that every
 *    window costs about 16 W member-iterations: a pair 8 W, 16 jobs W;
 *    CASSINI time-shifts applied to a member, at a placement or a drift
 *    re-adjustment, start its group's window again).
 *    Error bound: none when the group's relative phases repeat within the
 *    window (lock-step, interleaved, SRSF/AdaDUAL alternation); otherwise a
 *    member's iteration time is off its exact mean by at most (its longest -
 *    shortest iteration in the window) / (its window), plus at most one
 *    iteration at each hand-over. Measured (bench/RESULTS.md, make
 *    bench-accuracy; embedded workload, 20 seeds, every preset against W =
 *    0): no bias (every preset's mean avg and p95 JCT error within 2 %, its
 *    95 % interval containing 0); one run is off by 0-4 % (avg; p95 0-6 %)
 *    on average over the seeds, for most presets no more than the
 *    unaccelerated model itself moves when the arrivals move by 1 s (their
 *    schedules are chaotic).
 *    CONTENTION LOSS (network-model issue): concurrent all-reduces do not
 *    get a link's whole capacity. While the flows of k > 1 all-reduces
 *    (k distinct jobs transferring at that instant; a ring's several flows
 *    on one link are one all-reduce) cross a link, it delivers capacity x
 *    e(k), shared max-min by weight as above; e(1) = 1. So on a link
 *    carrying A and B, then A, B and C, then A alone, the capacity is
 *    C e(2), C e(3), C: e follows the number of jobs on that link at that
 *    instant, each link by its own count (A may see e(3) on one link and
 *    e(1) on the next; its rate is its tightest link's share). Jobs kept at
 *    their window mean in a partial restart (below) count as the part of
 *    their iteration they transfer (k is then a real number, e linear
 *    between integers), and their mean load is taken off what the link
 *    delivers: capacity x e(k) - load. e is a curve
 *    (ns_sim_opts_set_contention_curve, netsched-sim --contention-curve):
 *    the default is fitted to HKBU's measurements of 1-16 concurrent ring
 *    all-reduces on 10 GbE (../shared/data/contention/; e(2) = 0.794,
 *    e(3..8) = 0.72-0.89, e(9..16) = 0.51-0.62, flat past 16; values and
 *    fit in src/sim/opts.c): with the measured alpha, the simulated
 *    lock-step all-reduces are within 7.9 % of the 48 measurements on
 *    average, 21.3 % at worst (tests/unit/test_sim_contention.c). The
 *    ideal curve (e = 1) is plain max-min with no loss, the model before
 *    this issue. Each all-reduce across servers also pays a start-up
 *    latency alpha first (ns_sim_opts_set_allreduce_latency, default 0;
 *    HKBU's fit 14.9 ms), not shared and counted as in flight by
 *    admission; intra-server all-reduces pay none. The fluid models
 *    (maxmin, contention) have neither.
 *    Large components (more than 16 jobs joined by shared links, no GPU
 *    sharing; scattering policies on big clusters) restart only in part: a
 *    membership change re-simulates the jobs that share a link with the
 *    job that started or left (and any part still in its window); the
 *    others keep their window means, and the re-simulated jobs see each
 *    kept one as a constant load on each of its links equal to its mean
 *    throughput (its flows x the flow rate x its all-reduce at full rate /
 *    its mean iteration). A change re-simulates at most 32 of the jobs it
 *    touches, 8 under the preemptive orders 2D-LAS and 2D-Gittins (those
 *    on the most touched links, earlier deferred touches counted; new
 *    jobs and a part still in its window always); the others
 *    are deferred, keep their means meanwhile and are re-simulated when
 *    that partial restart ends or at the next change (a job of a
 *    multi-server placement across racks shares uplinks with tens of jobs;
 *    under preemption nearly every event changes one). A change's restart
 *    then re-simulates untouched members of the component too, in the
 *    order the component lists them, until it holds 32 (8) jobs: a
 *    component of 17-32 jobs restarts whole at every change, a larger one
 *    refreshes up to 32 of its members' means per change (their new means
 *    rate-touch no one; without it untouched members kept their means
 *    for their whole run and ran Philly's p95 JCT 2 % low, bench/RESULTS.md
 *    "Fill"; on the whole Philly trace at 2048 GPUs it moves cassini-ff's
 *    avg JCT by +31 +- 16 % over 12 run-time draws, and which setting is
 *    nearer the exact model at that scale is not measured). Each re-simulated
 *    job goes back to its window mean after its own window (max(2, 64 / n)
 *    iterations for n re-simulated jobs, 1 when n > 32). Error: the window bound above for the
 *    re-simulated jobs; in addition a kept job sees the change's effect
 *    on it through its neighbours only from the first update after they
 *    leave their restart at new means (they rate-touch it: re-simulated
 *    then, within that cap per change, after the jobs a start or leave
 *    touched; test_phase_kept_rate_touch), re-simulated jobs see kept ones' mean
 *    rather than their phases, and SRSF(n)/AdaDUAL admission counts only
 *    the re-simulated ones. Kept jobs count in a link's e(k) (above): n
 *    alike jobs saturating a link get capacity x e(n) / n each, and so does
 *    the one re-simulated among n - 1 kept ones (not counting them gave it
 *    capacity x (1 - e(n)) more: on Philly windows 2D-LAS finished jobs
 *    9.5 % early on average; test_phase_partial_contention, bench/RESULTS.md).
 *    Under SRSF(n) admission at most n all-reduces transfer on a link, so
 *    kept ones raise its k no further than n (SRSF(1): no loss at all;
 *    charging them more slowed srsf-1's long jobs on a Philly window
 *    2-10x; test_phase_srsf_kept_no_contention).
 *    Measured: mean |JCT error| 1.5 % against the
 *    unaccelerated run on a 20-job chain whose jobs leave one by one, 3.3 %
 *    on a 40-job chain (4.3 % re-simulating only the touched neighbours)
 *    (tests/unit/test_sim.c, test_phase_partial_restart);
 *    2.5 % (worst job 6.6 %) when a 21-server job leaves a chain of 20
 *    under 2D-LAS and 12 of its neighbours are deferred, 3.2 % (worst 16 %:
 *    the window of the start's 41-job restart) when a 41-server job leaves
 *    a chain of 40 under FIFO and 8 are deferred
 *    (test_phase_deferred_neighbours). Components
 *    of 16 jobs or fewer (every group of the embedded default workload) restart
 *    whole, with the bound above.
 *    Policies in phase terms:
 *      - admission runs at the start of every all-reduce of a job that
 *        shares a link: SRSF(n) starts it while fewer than n others are in
 *        flight on each of its links (only the excess waits); AdaDUAL calls
 *        ns_adadual_decide with the all-reduces in flight on each of its
 *        servers and their remaining bytes, and with eta = 2 b (1/e(2) - 1),
 *        the contention this model charges two colliding all-reduces
 *        (threshold 0.33 for the default curve, 0.5 for the ideal one);
 *        waiting all-reduces are reconsidered whenever one of their group
 *        ends, smallest remaining service first, each decided on its own
 *        links (AdaDUAL Algorithm 3: one that must wait holds back no
 *        other).
 *      - CASSINI: candidates are the base policy's placements, described
 *        by ns_cassini_candidate_from_cluster on the run's cluster (its
 *        committed jobs are the running ones) and ranked by ns_cassini_rank;
 *        the winner's time-shifts align the next compute start of each of
 *        its jobs to T0 + shift (T0 = the latest next iteration start of the
 *        running ones). A shifted job whose all-reduce starts more than
 *        drift x its ideal iteration off that schedule is re-adjusted
 *        (CASSINI §4.2/§5.7; drift 5 % by default,
 *        ns_sim_opts_set_cassini_drift, which is the policy's
 *        ns_policy_set_cassini_drift and the library's
 *        ns_cassini_opts_set_drift_fraction; the policy object decides,
 *        policy.h "CASSINI's drift re-adjustment", and the phase model
 *        reports and applies): ns_cassini_readjust re-ranks
 *        its shared links with each job's iteration on its placement
 *        (compute + its all-reduce alone); where one differs from its
 *        profile by more than the threshold the new shifts are applied as
 *        at a placement; otherwise the ranked shifts are applied again
 *        from now, re-aligning the job and its link partners (the paper
 *        re-adjusts; default; a job's n-th re-adjustment is followed by a
 *        gap of 10 x 2^n of its ideal iterations without one, during which
 *        it runs on: re-ranking at every drifted all-reduce made cassini-ff
 *        13x slower on Philly, bench/RESULTS.md) or, with NS_SIM_DRIFT_WAIT
 *        (ns_sim_opts_set_cassini_drift_rule), the shifts stand and the job
 *        waits for its next ideal slot (the earlier rule). With
 *        max_candidates 1 (ns_sim_opts_set_cassini, --cassini-candidates 1)
 *        CASSINI keeps the base policy's own placement and applies only
 *        the time-shifts: interleaving without re-placement.
 *      - GPU sharing: the compute phases on one GPU share it (processor
 *        sharing, max-min over the job's GPUs); one job's all-reduce
 *        overlaps another's compute.
 *    In every model, the per-GPU workload that LWF-kappa, list scheduling
 *    and custom placements read (ns_cluster_gpu_workload_ms) is the work
 *    remaining on the GPU (compute ms x iterations left x GPUs of each
 *    running job there, refreshed once per event time), not the jobs'
 *    static totals.
 *  - NS_SIM_NET_MAXMIN (fluid): iterations progress at 1 / iteration ms.
 *    Concurrent demand on a link shares its capacity max-min fairly. A
 *    job "colliding" on a link counts with weight 1 (its communication is
 *    assumed to always overlap the others'); a "coordinated" job
 *    (time-shifted by CASSINI, or serialised by communication admission)
 *    counts with its duty cycle f = t / (compute + t). Communication then
 *    takes t * d / x_j. GPU sharing multiplies compute by the job count of
 *    the job's most shared GPU.
 *  - NS_SIM_NET_CONTENTION (fluid): the server-level model of Eq. 5 of the
 *    AdaDUAL paper, ns_comm_time_ms(a, b, eta, k, M), with k = number of
 *    colliding multi-server jobs on the job's busiest server (itself
 *    included); coordinated jobs use k = 1 (time-shifted ones stretched by
 *    the NIC's summed duty cycle when it exceeds 1). Default a = 0, b = 0.856 ms/MB,
 *    eta = 0.235 ms/MB (the authors' 10 GbE fit), scaled by 10 / link_gbps.
 *  - Fluid communication admission: ALL lets every job collide; SRSF(n)
 *    lets a job collide while at most n multi-server jobs share each of its
 *    links, and serialises it otherwise (re-decided whenever the running
 *    set changes); AdaDUAL calls ns_adadual_decide once when the job starts
 *    (per server: multi-server jobs there, and for a single one M/2 as its
 *    expected remaining bytes) and collides on "start", serialises on
 *    "wait". A serialised job that is not time-shifted waits, per
 *    iteration, for the expected residual transfer of the other serialised
 *    jobs sharing its links: sum_k f_k * t_k / 2 (random phases).
 *  - CASSINI: the base placement policy proposes up to max_candidates
 *    placements (the base placement; then the base policy asked again with
 *    the first server of every previous candidate temporarily marked busy
 *    through ns_cluster_occupy / ns_cluster_vacate). Each is described to
 *    ns_cassini_rank as the (job, link) pairs of the links it would share
 *    (one link per distinct set of jobs: a ring's NIC tx and rx links carry
 *    the same jobs and would otherwise always form an Affinity-graph loop);
 *    a candidate sharing no link wins at once; if every candidate has a
 *    loop, the base placement is used unshifted. The winner's time-shifts
 *    (ns_candidate_shift_ms) are applied: each job on its shared links pauses
 *    once for its shift and becomes coordinated (fluid), or aligns its
 *    phases (phase model, above).
 *  - Fluid time-shifts delay a job's iteration start (the new job starts
 *    shift ms after its placement; a running job pauses for its shift).
 *  - NS_SIM_NET_IDEAL: communication costs nothing (iteration = compute);
 *    placement still decides who fits where, not how fast jobs run.
 *  - Not modelled: job migration, failures.
 *
 * PREEMPTION (orders NS_SIM_ORDER_2D_LAS / _2D_GITTINS, presets "2d-las",
 * "2d-gittins"): at every event the queues of Tiresias's discretised
 * scheduler decide which jobs hold GPUs (the policy object's decision,
 * ns_policy_decide over every waiting and running job: src/policy/las.c;
 * attained service = GPUs x executed time, thresholds, starvation
 * promotion, Gittins index as the Tiresias simulator computes them),
 * counting GPUs over the whole
 * cluster in queue order; a running job not chosen is suspended: it
 * releases its GPUs (ns_cluster_release) and keeps its progress (iterations
 * done); a chosen waiting job is placed by the placement policy (it stays
 * waiting if that finds no GPUs) and a resumed one first spends the
 * restore overhead (ns_sim_opts_set_preemption_overhead) without progress.
 * The Gittins distribution is by default the workload's own: every job's
 * GPUs x its lone consolidated run time; ns_sim_opts_set_gittins_samples
 * gives it instead as GPU-time samples, as the Tiresias simulator reads
 * them from a file (its yarn-gput*.csv). Start time is the first start;
 * queueing delay counts until then.
 * Starvation under 2D-Gittins is the Tiresias simulator's own (checked job
 * by job against it, bench/reproduce/gittins.md): within a queue a job
 * that has run ranks by its index at its attained service, which for many
 * distributions falls below a fresh job's, so every arrival goes ahead of
 * it; a multi-GPU job that needs GPUs seldom all free at once can then wait
 * until arrivals stop. Starvation promotion (ns_sim_opts_set_starvation)
 * only lifts jobs out of the queues after the first, so it does nothing
 * when every job's GPU-time is below the first threshold (the 60-job
 * Tiresias trace: at most 2440 GPU-s < 3250).
 *
 * DALLY (order NS_SIM_ORDER_NW_SENS, presets "dally", "dally-manual"), Dally
 * §4.3.1 as the simulator measures it:
 *  - Nw_sens = (I_done / I_total) / (T_run / T_ideal), T_ideal = compute per
 *    iteration x I_total (no communication), i.e. compute x done / run:
 *    the network model reports each running job's iterations done and the
 *    ms it ran (over all its placements; the restore overhead excluded), so
 *    a job alone on its links in the phase model has exactly compute /
 *    (compute + its all-reduce alone at its tier) and one that shares links
 *    less (ns_sim_job_nw_sens). A suspended job keeps its last measure
 *    while it waits. A job that never ran has Nw_sens 1.0 (the library's
 *    reading, ns_dally_priority: no slowdown endured), so it ranks after
 *    every job that measured a slowdown; as a measured Nw_sens is at most
 *    1, new jobs never preempt and the preemption below never triggers
 *    under this default. ns_sim_opts_set_dally_new_jobs(o,
 *    NS_SIM_DALLY_NEW_PROFILE) instead estimates it from the profile:
 *    compute / (compute + its all-reduce alone at the most consolidated tier
 *    it fits: one server over the intra-server fabric, one rack over the
 *    NICs, else across racks at min(NIC, leaf-spine link)). The queue is in
 *    increasing Nw_sens, ties by arrival.
 *  - Preemption (the paper names the priority, not the trigger; our
 *    readings). Default, Themis leases (Dally's simulator is built on
 *    Themis, §4.2.1; ns_sim_opts_set_dally_lease, default 20 min): a job
 *    holds its GPUs for a lease from its start or renewal. When leases
 *    expire, the waiting jobs and the expired ones are offered in
 *    increasing Nw_sens (an expired job's measured now; ties by arrival)
 *    the free GPUs and the expired jobs' GPUs: an expired job whose GPUs no
 *    job before it took keeps them (lease renewed, no suspension, no
 *    restore); a waiting job gets the free GPUs, else those of the expired
 *    jobs after it in the order, least network-sensitive (highest Nw_sens)
 *    first, at most 16, when its placement (Algorithm 1) accepts them,
 *    else nothing is taken; an expired job that lost its GPUs is suspended
 *    (and offered what is still free: accepting moves it, with the restore
 *    overhead). Between expiries only free GPUs are offered. A job that
 *    never ran competes at 1.0 or its profile estimate (above), not first.
 *    This re-offer is the policy object's (netsched/policy.h, LEASES): the
 *    simulator passes each expired job's measured Nw_sens to
 *    ns_policy_decide and applies its renewals, suspends and starts, so a
 *    cluster manager running ns_policy gets the same decisions (lease 0
 *    below: ns_policy_preempt).
 *    Lease 0, the earlier pass-by-pass reading: after each scheduling pass,
 *    waiting jobs in queue order may suspend running jobs whose Nw_sens
 *    exceeds theirs by more than 5 % (without a margin two jobs of nearly
 *    equal Nw_sens could swap at every event), least network-sensitive
 *    first, at most 16 per waiter and none started in the same pass;
 *    victims are taken off one by one until the waiter's placement
 *    (Algorithm 1: it may still decline a scattered offer while its timers
 *    run) accepts, else nothing is suspended; at most 8 such offers per
 *    event time. bench/REPRODUCE.md compares both against Tiresias. In
 *    both, a suspended job keeps its progress, waits at its measured
 *    Nw_sens, pays the restore overhead (ns_sim_opts_set_preemption_overhead)
 *    when it resumes and its Dally starvation counts from its suspension.
 *    Not with CASSINI or GPU sharing.
 *  - dally-manual: fixed timers, same priority and preemption (§5.1.3).
 *
 * TRACE DURATIONS: a trace's duration (Philly; Tiresias when its duration
 * column is present) is the job's lone run time on a consolidated placement
 * (as few servers as possible) under the chosen network model, i.e.
 * iterations x (compute + the all-reduce alone there: intra-server fabric
 * within one server, the NIC ring across servers, Eq. 5 with k = 1 under
 * CONTENTION, 0 under IDEAL). Tiresias rows keep their iteration count;
 * Philly rows get iterations = max(1, round(duration / (profile compute +
 * that all-reduce))) from their drawn model. Both then get compute per
 * iteration = duration / iterations - that all-reduce (floored at 1 us when
 * the duration is shorter than the communication alone), so a Philly job's
 * compute differs from its profile's by less than half an iteration spread
 * over all of them. So a job alone on a consolidated placement runs exactly
 * its trace duration (to rounding, ~1e-12 relative), under IDEAL whatever
 * its placement, unless the 1 us floor applied.
 * Tiresias rows without the column keep the profile's compute.
 *
 * RE-ENTRY AND THREADS: while ns_sim_run runs, every ns_sim_* call on that
 * simulator - from its own progress or placement callback, or from another
 * thread - returns NS_ESTATE ("s is running") and changes nothing;
 * ns_sim_job_name returns "" and ns_sim_free does nothing (free the
 * simulator after ns_sim_run returns). The run itself then completes as if
 * the calls had not been made. The one exception is ns_sim_cancel. Outside
 * a run the same guard (one atomic word per simulator) makes every call
 * safe against calls from other threads: const calls (metrics, results,
 * names) run side by side; a call that changes s (adds, loads, set_progress,
 * run, free) runs alone, and a call that finds the other kind in progress
 * returns NS_ESTATE ("s is in use by a call in another thread") at once,
 * changing nothing - it never waits. Strings returned by ns_sim_job_name
 * and ns_sim_job_model stay valid until the next call that changes s.
 * ns_sim_free must still not race with other calls on s (after it returns,
 * s is gone). Other simulators and the ns_sim_opts_* setters are not
 * affected.
 *
 * SCHEDULING: at every event time, queued jobs are offered the cluster in
 * their order (ns_sim_order) and each is placed if its policy finds GPUs;
 * with backfilling (ns_sim_opts_set_backfill, the default) one that cannot
 * be placed does not block later ones; without it the pass stops there.
 *
 * METRICS: JCT = finish - arrival; queueing delay = first start - arrival
 * (waits after a preemption are not in it: see wait time); makespan
 * = last finish - first arrival; GPU utilisation = compute GPU-time /
 * (GPUs * makespan); communication overhead = mean over jobs of
 * (run time - compute time alone) / compute time alone (Dally's "% of
 * compute time"; with GPU sharing it includes the turns taken); machine fragmentation (Titan §V: idle GPUs / GPUs of a
 * machine, averaged over the machines that hold at least one worker,
 * time-averaged while any machine is used); links shared = distinct network
 * links (NICs, uplinks) that carried two or more jobs at the same time;
 * GPU-ms allocated = the integral of (job, GPU) holdings over time (equal to
 * the sum over jobs of GPUs held x run time: the conservation check);
 * machines used (Titan §V's "number of used machines") = the number of
 * servers holding at least one job, averaged over the makespan.
 * Added for the papers' own definitions:
 * - wait time (Dally §5's queueing delay, "time in the wait queue") = the
 *   time a job spent queued: first start - arrival, plus for each preemption
 *   the time from its suspension to its restart (a preempted job rejoins
 *   the queue); the restore overhead after a restart is not waiting (the
 *   job holds its GPUs). Equal to the queueing delay for a job never
 *   preempted.
 * - machines used at arrivals (Titan §V-B, "monitored as the job arrives")
 *   = the mean over job arrivals of the number of servers with at least one
 *   busy GPU, counted after the scheduling pass at the arrival's time (the
 *   arriving job placed if it could be, jobs finishing at that instant
 *   gone); jobs arriving at the same instant each count once. Beside the
 *   time average above.
 * - mean iteration time of a job (CASSINI §5's iteration time, per job) =
 *   its run time / its iterations, run time = the time it held GPUs minus
 *   the restore overhead paid after each restart (ns_sim_opts_set_preemption_overhead;
 *   the time Dally's Nw_sens counts as run). Waits are not in it; in the
 *   fluid models (maxmin, contention) neither is a CASSINI time-shift, a
 *   delay before its first iteration; the phase model holds shifted jobs
 *   between iterations, and those holds are in it.
 * Every per-job metric (JCT, queueing delay, wait time, comm overhead,
 * iteration time) is taken over the finished jobs. Averages are arithmetic
 * means; medians and percentiles are nearest rank: the p-th percentile of n
 * sorted values is the ceil(p / 100 x n)-th smallest (at least the first),
 * an observed value, never interpolated (the median of 4 values is the 2nd).
 * A metric over no values is 0.
 */
#ifndef NETSCHED_SIM_H
#define NETSCHED_SIM_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_sim_opts ns_sim_opts;
typedef struct ns_sim ns_sim;

/* Order in which waiting jobs are offered resources. Keys are fixed while a
   job waits: FIFO = arrival; SRSF = gpus * iterations * ideal iteration
   ms; SJF = iterations * ideal iteration ms; NW_SENS = the job's Nw_sens
   (DALLY above: measured, kept while it waits, or the initial estimate;
   Dally: increasing Nw_sens, with network-sensitive preemption). Ties keep
   arrival order. */
typedef enum ns_sim_order {
  NS_SIM_ORDER_FIFO = 0,
  NS_SIM_ORDER_SRSF = 1,
  NS_SIM_ORDER_SJF = 2,
  NS_SIM_ORDER_NW_SENS = 3,
  /* Preemptive: Tiresias's discretised 2D-LAS and 2D-Gittins (PREEMPTION
     above); the queue is re-decided at every event, running jobs included. */
  NS_SIM_ORDER_2D_LAS = 4,
  NS_SIM_ORDER_2D_GITTINS = 5
} ns_sim_order;

/* Placement policy: the public entry point the simulator calls. */
typedef enum ns_sim_placement {
  NS_SIM_PLACE_FIRST_FIT = 0,       /* ns_place_first_fit */
  NS_SIM_PLACE_LIST_SCHEDULING = 1, /* ns_place_list_scheduling */
  NS_SIM_PLACE_RANDOM = 2,          /* ns_place_random (seed + job index) */
  NS_SIM_PLACE_BEST_FIT = 3,        /* ns_place_best_fit */
  NS_SIM_PLACE_TIRESIAS = 4,        /* ns_place_tiresias (skew threshold) */
  NS_SIM_PLACE_LWF = 5,             /* ns_lwf_place (kappa) */
  NS_SIM_PLACE_TITAN = 6,           /* ns_titan_place */
  NS_SIM_PLACE_VCLOS = 7,           /* ns_vclos_place */
  NS_SIM_PLACE_OCS_VCLOS = 8,       /* ns_vclos_place on an OCS cluster */
  NS_SIM_PLACE_DALLY = 9,           /* ns_dally_offer, auto-tuned timers */
  NS_SIM_PLACE_DALLY_MANUAL = 10,   /* ns_dally_offer, fixed timers */
  NS_SIM_PLACE_CUSTOM = 11          /* the callback of ns_sim_opts_set_place_fn */
} ns_sim_placement;

/* Communication admission (see the model above). */
typedef enum ns_sim_admission {
  NS_SIM_ADMIT_ALL = 0,
  NS_SIM_ADMIT_SRSF = 1,   /* SRSF(n) */
  NS_SIM_ADMIT_ADADUAL = 2 /* AdaDUAL (Ada-SRSF with SRSF ordering) */
} ns_sim_admission;

/* Network models (see the model above). NS_SIM_NET_PHASE is the default;
   NS_SIM_NET_IDEAL: communication costs nothing (every job's
   iteration is its compute), for comparison with simulators that model no
   network, such as Tiresias's. */
typedef enum ns_sim_network {
  NS_SIM_NET_MAXMIN = 0,     /* fluid, max-min with weight / duty-cycle shortcuts */
  NS_SIM_NET_CONTENTION = 1, /* fluid, Eq. 5, server level */
  NS_SIM_NET_PHASE = 2,      /* phase level (the default) */
  NS_SIM_NET_IDEAL = 3       /* communication costs nothing */
} ns_sim_network;

/* Embedded model profiles (AdaDUAL paper Table III, V100, batch 16/64). */
typedef enum ns_sim_model {
  NS_SIM_MODEL_VGG16 = 0,       /* 526.4 MB, fwd 35.8 ms, bwd 53.7 ms, 4527 MB */
  NS_SIM_MODEL_RESNET50 = 1,    /*  99.2 MB, fwd 25.0 ms, bwd 37.4 ms, 3213 MB */
  NS_SIM_MODEL_INCEPTION_V3 = 2,/* 103.0 MB, fwd 34.9 ms, bwd 52.4 ms, 3291 MB */
  NS_SIM_MODEL_LSTM_PTB = 3     /* 251.8 MB, fwd 31.5 ms, bwd 47.3 ms, 2751 MB */
} ns_sim_model;

/* Trace file formats (columns documented at ns_sim_load_trace). */
typedef enum ns_sim_trace_format {
  NS_SIM_TRACE_TIRESIAS = 0,
  NS_SIM_TRACE_PHILLY = 1,
  NS_SIM_TRACE_AUTO = 2 /* from the header: num_gpu -> Tiresias, timestamp + num_gpus -> Philly */
} ns_sim_trace_format;

/* Named policy presets: an ordering, a placement, an admission rule, the
   CASSINI flag and backfilling (on for every preset except "fifo"; "ff" is
   Tiresias's "fjf", "fifo" its "fifo"). Names (ns_sim_policy_name) are what the CLI accepts. */
typedef enum ns_sim_policy {
  NS_SIM_POLICY_FF = 0,           /* "ff":          FIFO, first-fit, backfilling */
  NS_SIM_POLICY_LS = 1,           /* "ls":          FIFO, list scheduling */
  NS_SIM_POLICY_RAND = 2,         /* "rand":        FIFO, random */
  NS_SIM_POLICY_BEST_FIT = 3,     /* "best-fit":    FIFO, best-fit consolidation */
  NS_SIM_POLICY_TIRESIAS = 4,     /* "tiresias":    FIFO, skew consolidation */
  NS_SIM_POLICY_LWF1 = 5,         /* "lwf-1":       FIFO, LWF-kappa, kappa 1 */
  NS_SIM_POLICY_SRSF_FF = 6,      /* "srsf-ff":     SRSF, first-fit */
  NS_SIM_POLICY_SJF_FF = 7,       /* "sjf-ff":      SJF, first-fit */
  NS_SIM_POLICY_SRSF1 = 8,        /* "srsf-1":      SRSF, LWF-1, SRSF(1) */
  NS_SIM_POLICY_SRSF2 = 9,        /* "srsf-2":      SRSF, LWF-1, SRSF(2) */
  NS_SIM_POLICY_ADA_SRSF = 10,    /* "ada-srsf":    SRSF, LWF-1, AdaDUAL */
  NS_SIM_POLICY_TITAN = 11,       /* "titan":       FIFO, Titan */
  NS_SIM_POLICY_VCLOS = 12,       /* "vclos":       FIFO, vClos */
  NS_SIM_POLICY_OCS_VCLOS = 13,   /* "ocs-vclos":   FIFO, vClos on an OCS cluster */
  NS_SIM_POLICY_DALLY = 14,       /* "dally":       Nw_sens, Dally auto timers */
  NS_SIM_POLICY_DALLY_MANUAL = 15,/* "dally-manual": Nw_sens, Dally fixed timers */
  NS_SIM_POLICY_CASSINI_FF = 16,  /* "cassini-ff":  FIFO, first-fit + CASSINI */
  NS_SIM_POLICY_CASSINI_LWF1 = 17,/* "cassini-lwf-1": FIFO, LWF-1 + CASSINI */
  NS_SIM_POLICY_FIFO = 18,        /* "fifo":        strict FIFO (head-of-line
                                     blocking, no backfilling), first-fit */
  NS_SIM_POLICY_2D_LAS = 19,      /* "2d-las":      Tiresias 2D-LAS, first-fit */
  NS_SIM_POLICY_2D_GITTINS = 20   /* "2d-gittins":  Tiresias 2D-Gittins, first-fit */
} ns_sim_policy;

/* Number of presets; name ("" if out of range) and one-line description. */
NS_API int ns_sim_policy_count(void);
NS_API const char *ns_sim_policy_name(int policy);
NS_API const char *ns_sim_policy_description(int policy);

/* A placement callback for NS_SIM_PLACE_CUSTOM: same contract as the
   library's policies (fill `out`, never mutate `c`; NS_ENOSPACE = wait;
   another negative status aborts the run with it). `out` is always empty
   and bound to nothing when the callback starts (as from
   ns_placement_new; bind it if you use ns_placement_server_count/tier).
   NS_OK must come with at least the job's GPUs and at most the cluster's;
   otherwise - or for a positive return value - the run fails with
   NS_EINVAL naming the job, the count and the callback. A negative status
   returned without a message (ns_last_error() is cleared before each call)
   is reported as such, never with an older message. The callback must not
   call ns_sim_* on its own simulator (see RE-ENTRY below). */
typedef int (*ns_sim_place_fn)(const ns_cluster *c, const ns_job *job, ns_placement *out,
                               void *user);

/* ---- options ----------------------------------------------------------- */

/* Defaults: policy "ff"; cluster 4 leaves x 4 servers x 4 GPUs (the
   16 x 4-GPU V100 cluster of the AdaDUAL paper), 8 spines, 2 links per
   leaf-spine pair (one uplink per GPU port, and l x s = 4 x 8 vClos shapes
   for the 32-GPU jobs), 10 Gbps; nic_gbps = link_gbps; intra_gbps 100;
   PHASE network (fast-forward window 16, CASSINI drift 0.05 re-adjusted; the default contention
   curve, all-reduce latency 0, 1 NIC per server, GPU memory 16384 MB); kappa 1; SRSF(n) n = 1;
   CASSINI 10 candidates; seed 1; Dally new jobs at Nw_sens 1.0;
   Tiresias skew threshold 200 MB (VGG-16 and LSTM-PTB are "skewed");
   Dally timers 12 h / 12 h (§4.3.2), history 7 days, leases 20 min. NULL on ENOMEM. */
NS_API ns_sim_opts *ns_sim_opts_new(void);
NS_API void ns_sim_opts_free(ns_sim_opts *o);
/* Applies a preset (ordering, placement, kappa, admission, CASSINI flag).
   The options hold these parts (order, placement, kappa, admission, CASSINI,
   backfilling) in one policy object (netsched/policy.h): the setters below
   are its setters (ns_policy_set_preset, _set_order, ...) under these names,
   and each run decides with a copy of it (ns_policy_clone). */
NS_API int ns_sim_opts_set_policy(ns_sim_opts *o, ns_sim_policy policy);
/* Same by name; unknown name: NS_EINVAL whose message lists the valid names. */
NS_API int ns_sim_opts_set_policy_name(ns_sim_opts *o, const char *name);
/* Name of the preset last applied ("custom" once a part was changed). */
NS_API const char *ns_sim_opts_policy_name(const ns_sim_opts *o);
NS_API int ns_sim_opts_set_order(ns_sim_opts *o, ns_sim_order order);
NS_API int ns_sim_opts_set_placement(ns_sim_opts *o, ns_sim_placement placement);
/* 1 <= kappa <= 1<<20. */
NS_API int ns_sim_opts_set_kappa(ns_sim_opts *o, int kappa);
/* n (1..64) is SRSF(n)'s limit, ignored for the other rules. */
NS_API int ns_sim_opts_set_admission(ns_sim_opts *o, ns_sim_admission admission, int n);
/* enabled 0/1; 1 <= max_candidates <= 10. */
NS_API int ns_sim_opts_set_cassini(ns_sim_opts *o, int enabled, int max_candidates);
NS_API int ns_sim_opts_set_network(ns_sim_opts *o, ns_sim_network model);
/* Phase model: fast-forward window W (0..1<<20 iterations; 0 = simulate
   every phase; default 16). See the model section for the error bound. */
NS_API int ns_sim_opts_set_phase_window(ns_sim_opts *o, int iterations);
/* Phase model, CASSINI: re-adjust a shifted job's time-shift when its
   all-reduce starts more than fraction x its ideal iteration away from its
   schedule (0 = shifts are applied once; at most 0.5; default 0.05, the
   paper's §5.7 threshold). Forwarded to the run's policy
   (ns_policy_set_cassini_drift, which decides the re-adjustments); the same
   fraction is the library's re-adjustment threshold
   (ns_cassini_opts_set_drift_fraction, ns_cassini_readjust). */
NS_API int ns_sim_opts_set_cassini_drift(ns_sim_opts *o, double fraction);
/* Leaf-spine shape, as ns_cluster_new_leaf_spine (spines may be 0). */
NS_API int ns_sim_opts_set_cluster(ns_sim_opts *o, int leaves, int spines, int servers_per_leaf,
                                   int gpus_per_server, int links_per_pair, double link_gbps);
/* Server NIC (finite > 0; 0 = link_gbps) and intra-server fabric (> 0) Gbps. */
NS_API int ns_sim_opts_set_bandwidth(ns_sim_opts *o, double nic_gbps, double intra_gbps);
/* Eq. 5 parameters (finite, >= 0) for NS_SIM_NET_CONTENTION. */
NS_API int ns_sim_opts_set_contention(ns_sim_opts *o, double a_ms, double b_ms_per_byte,
                                      double eta_ms_per_byte);
NS_API int ns_sim_opts_set_seed(ns_sim_opts *o, uint64_t seed);
/* Dally: the tuner's default machine and rack timers (finite, >= 0, ms;
   ns_delay_tuner_new's defaults) and its history limit (finite, > 0).
   A declined job's starvation is the time since its arrival or its latest
   suspension. */
NS_API int ns_sim_opts_set_dally(ns_sim_opts *o, double machine_ms, double rack_ms,
                                 double history_ms);
/* Dally's network-sensitive preemption (DALLY above) with the NW_SENS
   order: 1 (default) on, 0 off (the same measured Nw_sens order, nobody is
   suspended - to see what the preemption itself changes). enabled must be
   0 or 1 (NS_EINVAL, naming it); o unchanged on error. */
NS_API int ns_sim_opts_set_dally_preemption(ns_sim_opts *o, int enabled);
/* Dally's preemption as Themis leases (DALLY above, "Lease reading"):
   lease_ms > 0: a job holds its GPUs for lease_ms from its start or
   renewal; when a lease expires its GPUs are re-offered with the free ones
   to the waiting jobs and the expired ones in increasing Nw_sens: an
   expired job offered before anyone took its GPUs keeps them (renewed, no
   suspension), else it is suspended. 0: no leases (the preemption after
   each scheduling pass). Default 1200000 (20 min). Only with the NW_SENS
   order and the preemption on (ns_sim_opts_set_dally_preemption).
   lease_ms finite, 0 or >= 1000 (NS_EINVAL naming it, quoting the value);
   o unchanged on error. */
NS_API int ns_sim_opts_set_dally_lease(ns_sim_opts *o, double lease_ms);
NS_API int ns_sim_opts_set_skew_threshold(ns_sim_opts *o, uint64_t bytes);
/* 0 (default): one job per GPU. 1: the cluster shares GPUs while memory
   fits (ns_cluster_set_gpu_sharing; the LWF-kappa / Ada-SRSF model): jobs
   on a GPU take turns at the task level (phase model: compute phases share
   the GPU, one job's all-reduce overlaps another's compute; fluid models: a
   job's compute time is multiplied by the job count of its most shared
   GPU). */
NS_API int ns_sim_opts_set_gpu_sharing(ns_sim_opts *o, int shared);
/* 1 (default of every preset but "fifo"): a queued job that cannot be
   placed does not block later ones (backfilling). 0: the queue stops at the
   first job that cannot be placed (strict order, head-of-line blocking). */
NS_API int ns_sim_opts_set_backfill(ns_sim_opts *o, int enabled);
/* Preemptive orders' queues: 1 <= queues <= 8, and queues - 1 thresholds of
   attained service in GPU-ms, finite, > 0 and strictly ascending
   (thresholds may be NULL when queues is 1). Default 3 queues, 3250 and
   7200 GPU-s (the Tiresias simulator's jobs.py). The first threshold is
   also 2D-Gittins's service quantum (delta). */
NS_API int ns_sim_opts_set_las_queues(ns_sim_opts *o, int queues, const double *thresholds_gpu_ms);
/* Starvation promotion of the preemptive orders: a job back in the queue
   that has waited knob x its executed time returns to the first queue
   (finite, >= 0; 0 = never, the default of the Tiresias simulator's
   dlas-gpu and of the Tiresias paper's evaluation). */
NS_API int ns_sim_opts_set_starvation(ns_sim_opts *o, double knob);
/* Checkpoint/restore overhead charged to a preempted job each time it
   resumes (finite, >= 0 ms): it holds its GPUs without progress that long.
   Default 0, as the Tiresias simulator (it restarts a preempted job at
   once); the Tiresias paper measures preemption in its testbed as a
   checkpoint to and a restore from storage, which depends on model size. */
NS_API int ns_sim_opts_set_preemption_overhead(ns_sim_opts *o, double restore_ms);
/* 2D-Gittins's service distribution: n GPU-time samples in GPU-ms (each
   finite, > 0 and at most 1e18; the Tiresias simulator reads whole
   GPU-seconds), copied.
   The index table is built from them as the Tiresias simulator builds it
   from its yarn-gput*.csv (samples in whole GPU-seconds up to 1e-6 s;
   delta = the first threshold). n = 0 (gpu_time_samples may then be NULL):
   back to the default, the workload's own jobs (GPUs x lone consolidated
   run time). Only the NS_SIM_ORDER_2D_GITTINS order reads it. NS_EINVAL
   naming gpu_time_samples (NULL with n > 0, or the first bad sample with
   its index and value), NS_ENOMEM; o unchanged on error. */
NS_API int ns_sim_opts_set_gittins_samples(ns_sim_opts *o, const double *gpu_time_samples,
                                           size_t n);
/* Sets the custom placement (fn non-NULL; user is passed back) and selects
   NS_SIM_PLACE_CUSTOM. */
NS_API int ns_sim_opts_set_place_fn(ns_sim_opts *o, ns_sim_place_fn fn, void *user);

/* ---- network model: contention, latency, NICs, GPU memory ---------------
   (CONTENTION LOSS in the model section above.) */

/* The contention curve of the phase model: a link carrying the flows of k
   concurrent all-reduces (k distinct jobs transferring at that instant)
   delivers capacity x e(k), shared max-min among them. The curve is the
   points (k[i], e[i]), i < n: k finite, >= 1, strictly ascending; e in
   (0, 1], e = 1 at k = 1; linear between points, from (1, 1) up to the
   first, flat past the last. n = 0 (k and e may be NULL) is the ideal
   curve, e = 1 everywhere: plain max-min sharing with no loss. At most 256
   points. NS_EINVAL naming the argument and quoting the value; o unchanged
   on error. Default: ns_sim_opts_set_default_contention_curve. */
NS_API int ns_sim_opts_set_contention_curve(ns_sim_opts *o, const double *k, const double *e,
                                            size_t n);
/* The curve from a CSV file of "k,e" records (an optional header line;
   records starting with '#' are comments), read with the rules of every
   input file (ns_sim_load_trace's limits, UTF-8 BOM skipped); the points
   then as ns_sim_opts_set_contention_curve. NS_EINVAL naming the path and
   line; o unchanged on error. */
NS_API int ns_sim_opts_load_contention_curve(ns_sim_opts *o, const char *path);
/* Restores the default curve: fitted to the HKBU 10 GbE measurements of 1 to
   16 concurrent ring all-reduces (e(2) = 0.794 ... e(16) = 0.605; the
   values and their fit are in src/sim/opts.c). */
NS_API int ns_sim_opts_set_default_contention_curve(ns_sim_opts *o);
/* e(k) of o's curve (k >= 1); NAN with NS_EINVAL for a NULL o or k < 1. */
NS_API double ns_sim_opts_contention_factor(const ns_sim_opts *o, int k);
/* Start-up latency alpha of every all-reduce across servers in the phase
   model (the alpha of the alpha-beta model): paid once per all-reduce, not
   shared, before its transfer; finite, 0 <= alpha_ms <= 3.6e6; default 0. */
NS_API int ns_sim_opts_set_allreduce_latency(ns_sim_opts *o, double alpha_ms);
/* NIC ports per server and their rate: nics_per_server 1 (default: one NIC
   shared by the server's jobs, the AdaDUAL testbed of the embedded
   workload) up to the GPUs per server; 0 = one per GPU (DGX/HGX-style,
   the vClos testbed). Local GPU i of a server uses port
   i * nics / gpus_per_server (core.h "Port model": the run's cluster gets
   the same ports, so CASSINI's candidates see the simulator's links).
   gbps: as ns_sim_opts_set_bandwidth's nic_gbps (0 = link_gbps), which it
   sets. 0 <= nics_per_server <= 4194304 here; more than the GPUs per server
   fails at ns_sim_run (NS_EINVAL). */
NS_API int ns_sim_opts_set_nics(ns_sim_opts *o, int nics_per_server, double gbps);
/* Memory of every GPU in MB (finite, >= 0; 0 = the cluster's default,
   16384, the V100-16GB of the AdaDUAL paper's text; the authors' code uses
   32768). Jobs whose memory does not fit a GPU cannot be placed. */
NS_API int ns_sim_opts_set_gpu_memory(ns_sim_opts *o, double mb);
/* CASSINI's drift rule in the phase model (ns_sim_opts_set_cassini_drift
   sets the threshold); forwarded to the run's policy
   (ns_policy_set_cassini_drift_rule; values equal ns_policy_drift_rule's). */
typedef enum ns_sim_drift_rule {
  NS_SIM_DRIFT_READJUST = 0, /* default: the shifts of its links are ranked and applied again */
  NS_SIM_DRIFT_WAIT = 1      /* the drifted job waits for its next ideal slot (earlier rule) */
} ns_sim_drift_rule;
NS_API int ns_sim_opts_set_cassini_drift_rule(ns_sim_opts *o, ns_sim_drift_rule rule);
/* Dally: the Nw_sens of a job that never ran (the paper's formula is 0 / 0
   then). NS_SIM_DALLY_NEW_ONE (default): 1.0, the library's reading
   (ns_dally_priority: no slowdown endured); since a measured Nw_sens is at
   most 1, a new job then never preempts and Dally's preemption never
   triggers. NS_SIM_DALLY_NEW_PROFILE: the job's lone iteration at its
   most consolidated tier from its profile, compute / (compute + all-reduce
   alone) - the reading that keeps the preemption alive. */
typedef enum ns_sim_dally_new {
  NS_SIM_DALLY_NEW_ONE = 0,
  NS_SIM_DALLY_NEW_PROFILE = 1
} ns_sim_dally_new;
NS_API int ns_sim_opts_set_dally_new_jobs(ns_sim_opts *o, ns_sim_dally_new reading);
/* How the flows of a vClos or OCS-vClos placement are routed between
   leaves. NS_SIM_VCLOS_RESERVED (default): source-routed over the links the
   placement reserved (vClos §5.2), isolated from other jobs. NS_SIM_VCLOS_ECMP:
   the same placement (and the same reservations, so the same waits for
   spine ports), but its flows take the ECMP hash's spine and link like any
   other placement's, sharing them with the other jobs: the run that
   separates vClos's placement from its isolation. Other placements always
   route by ECMP. NS_EINVAL naming routing for another value. */
typedef enum ns_sim_vclos_routing {
  NS_SIM_VCLOS_RESERVED = 0,
  NS_SIM_VCLOS_ECMP = 1
} ns_sim_vclos_routing;
NS_API int ns_sim_opts_set_vclos_routing(ns_sim_opts *o, ns_sim_vclos_routing routing);
/* The all-reduce algorithm of every job without its own
   (ns_sim_set_job_allreduce). NS_SIM_ALLREDUCE_RING (default): one ring over
   the job's GPUs in ascending id order, one transfer of 2(n-1)/n x M per GPU
   sharing its links max-min. NS_SIM_ALLREDUCE_HD: recursive halving then
   doubling, phase model only (NS_EINVAL at ns_sim_run under maxmin or
   contention; ideal: no communication). It is the library's collective
   (ns_collective_traffic with NS_COLL_HALVING_DOUBLING: what Titan's and
   vClos's placements plan for, and the simulator hands the job's ns_job
   that collective), ranks in the placement's GPU order (Titan, vClos: GPU
   i hosts worker i; other placements list GPUs ascending). With n GPUs, p
   the largest power of two <= n, k = log2 p: in halving step t (0..k-1)
   every rank v exchanges M / 2^(t+1) with v XOR p / 2^(t+1); the k
   doubling steps mirror them (the last exchanges M / 2 again). n not a power of
   two: Rabenseifner's fold (MPICH, gloo): a first step where each even rank
   2i < 2(n-p) sends its whole M to 2i + 1, the p remaining ranks run the
   above, and a last step sends M back. Each step is one phase: its flows
   between servers (links as the ring's: NIC ports, ECMP or reserved
   uplinks) share links max-min with every other transfer under the
   contention curve, moving the step's largest send at the flow rate d
   (capped per link by capacity / its flows there); the next step starts
   when the step ends. A step with no flow between servers moves its bytes
   at the intra-server rate. The start-up latency
   (ns_sim_opts_set_allreduce_latency) is paid once per all-reduce, before
   the first step. Bytes per GPU for n = p equal the ring's, so with one
   GPU per NIC port on a non-blocking fabric the two take the same time
   alone; GPUs sharing a port send a cross-server step's flows through it
   at once (the ring sends one), and with ranks in ascending order on
   whole servers the first halving step crosses servers with M / 2. The
   policies' estimates of an all-reduce alone (Dally's profile reading, the
   phases CASSINI sees) stay the ring's. NS_EINVAL naming algorithm
   otherwise. */
typedef enum ns_sim_allreduce {
  NS_SIM_ALLREDUCE_RING = 0,
  NS_SIM_ALLREDUCE_HD = 1
} ns_sim_allreduce;
NS_API int ns_sim_opts_set_allreduce(ns_sim_opts *o, ns_sim_allreduce algorithm);

/* ---- simulator ---------------------------------------------------------- */

/* A simulator with a copy of `o` and its own cluster. NULL on error. */
NS_API ns_sim *ns_sim_new(const ns_sim_opts *o);
/* Frees s (NULL: no-op). On a running simulator (from its own callback)
   it does nothing and records NS_ESTATE's message for ns_last_error(). */
NS_API void ns_sim_free(ns_sim *s);

/* Adds one job arriving at arrival_ms (finite, >= 0) asking for gpus
   (>= 1) for `iterations` (>= 1) iterations of compute_ms (finite, > 0) and
   an all-reduce of model_bytes; mem_mb per GPU (finite, >= 0). name copied
   (1..255 bytes). Returns the job's index (>= 0). A job larger than the
   cluster is not added: NS_ENOSPACE, counted by ns_sim_skipped_count. */
NS_API int ns_sim_add_job(ns_sim *s, const char *name, double arrival_ms, int gpus,
                          uint64_t iterations, double compute_ms, uint64_t model_bytes,
                          double mem_mb);
/* Number of embedded model profiles (ns_sim_model values 0..count-1). */
NS_API int ns_sim_model_count(void);
/* Embedded profile `model`: its name as traces write it ("vgg16",
   "resnet50", "inception3", "lstm-ptb"; static, never freed), all-reduce
   bytes, forward and backward ms per iteration, memory MB per GPU. Out
   pointers may be NULL. NS_EINVAL (nothing written) for a model outside
   0..ns_sim_model_count()-1. For callers that describe jobs themselves
   (netsched-slurm's model hints) with the simulator's numbers. */
NS_API int ns_sim_model_profile(ns_sim_model model, const char **name, uint64_t *model_bytes,
                                double *fwd_ms, double *bwd_ms, double *mem_mb);
/* Same with an embedded model profile. */
NS_API int ns_sim_add_model_job(ns_sim *s, const char *name, double arrival_ms, int gpus,
                                uint64_t iterations, ns_sim_model model);
/* Job `job` (an index ns_sim_add_job returned) runs its all-reduce with
   `algorithm` instead of the options' (ns_sim_opts_set_allreduce), e.g. a
   mix of ring and halving-doubling jobs. NS_EINVAL naming job or algorithm;
   s unchanged on error. Clears earlier results, as adding a job does. */
NS_API int ns_sim_set_job_allreduce(ns_sim *s, int job, ns_sim_allreduce algorithm);
/* The embedded default workload (AdaDUAL §V-A), deterministic for the
   options' seed: 160 jobs arriving uniformly over 20 minutes, sizes 80 x 1,
   14 x 2, 26 x 4, 30 x 8, 8 x 16, 2 x 32 GPUs (50 / 8.75 / 16.25 / 18.75 /
   5 / 1.25 %), 1000-6000 iterations, models drawn uniformly from the four
   profiles. Returns the number of jobs added. */
NS_API int ns_sim_load_default_workload(ns_sim *s);
/* Adds (or replaces) a model profile named `name` (1..255 bytes) for the
   traces loaded afterwards: forward and backward ms per iteration (finite,
   >= 0, sum > 0), model_bytes all-reduced per iteration, mem_mb per GPU
   (finite, >= 0). A trace's model_name equal to `name` uses it before the
   embedded profiles' prefixes. NS_OK, or NS_EINVAL naming the argument. */
NS_API int ns_sim_add_model_profile(ns_sim *s, const char *name, double forward_ms,
                                    double backward_ms, uint64_t model_bytes, double mem_mb);
/* Reads model profiles from a CSV file whose header names the columns
   name,forward_ms,backward_ms,model_bytes,memory_mb (in any order; other
   columns are ignored) - the file netsched-sim --models and Python's
   Simulator.load_models read, through this one reader: the trace reader's
   CSV rules and limits (INPUT FILES below). Each row is
   ns_sim_add_model_profile(name, forward_ms, backward_ms, model_bytes,
   memory_mb): numbers are plain decimals (no hex, inf or nan), model_bytes a
   whole number in [0, 2^53], the others in [0, 1e15], names 1..255 bytes and
   unique within the file. All or nothing: a bad row fails with NS_EINVAL
   naming the file, line and column and quoting the value, and no profile
   changes. A profile of an existing name is replaced; the file's profiles
   become the last ones of ns_sim_added_profile_name, in file order. Returns
   the number of rows read (>= 1: a header alone is NS_EINVAL). */
NS_API int ns_sim_load_models(ns_sim *s, const char *path);
/* Profiles added so far (ns_sim_add_model_profile, ns_sim_load_models) and
   the name of the i-th ("" out of range; valid until the next call that
   changes s). */
NS_API int ns_sim_added_profile_count(const ns_sim *s);
NS_API const char *ns_sim_added_profile_name(const ns_sim *s, int i);
/* Reads a trace (libcsv). Tiresias: header job_id,num_gpu,submit_time,
   iterations,model_name[,duration,interval] (seconds); model names are the
   profiles added by ns_sim_add_model_profile, else map to embedded ones by
   prefix: vgg/alexnet -> VGG-16, resnet -> ResNet-50,
   inception/googlenet -> Inception-V3, lstm -> LSTM-PTB, else NS_EINVAL.
   A job_id column (either format) names the jobs (ns_sim_job_name); ids
   must be unique (NS_EINVAL names both lines); without it jobs are named
   tiresias<i> / philly<i> (i = data row, from 0). A missing column fails
   naming it. NS_SIM_TRACE_AUTO picks the format from the header.
   Philly: header timestamp,duration,num_gpus[,gpu_time,cluster]; arrival =
   timestamp - earliest timestamp; a model is drawn per job from the seed;
   iterations from the duration (TRACE DURATIONS above). All or nothing:
   a malformed row fails with NS_EINVAL naming the file and line, and no job
   is added. Rows larger than the cluster are skipped and counted. Returns
   the number of jobs added.
   INPUT FILES (traces, model profiles): CSV (RFC 4180 quoting), UTF-8; a
   UTF-8 byte-order mark is skipped, a UTF-16 one refused; at most 64
   columns (the ones not named above are ignored) and 65536 bytes per line,
   no NUL byte - an endless or binary input fails at its first such line,
   in bounded memory; numbers are plain decimals ("0x10", "inf", " 4" are
   refused). Line numbers in messages are the file's lines (header = 1). */
NS_API int ns_sim_load_trace(ns_sim *s, const char *path, ns_sim_trace_format format);
/* Scales the offered load of the jobs loaded so far: every gap between
   arrivals is multiplied by `factor` (finite, > 0). The earliest arrival a0
   stays; a job arriving at a then arrives at a0 + factor * (a - a0), so
   factor 2 halves the load and 0.5 doubles it (factor 1 changes nothing).
   Jobs added later are not scaled. Discards the last run's results (the
   accessors return NS_ESTATE until the next ns_sim_run). NS_EINVAL (s,
   factor) leaves every job as it was. */
NS_API int ns_sim_scale_arrivals(ns_sim *s, double factor);
/* Keeps the n jobs loaded so far that arrive first (ties: the one added
   first) and drops the others, e.g. to try a big trace quickly
   (netsched-sim --limit). n >= the job count changes nothing. Jobs keep
   the order they were added in; skipped jobs (ns_sim_skipped_count) are
   not counted. Discards the last run's results when it drops a job (the
   accessors return NS_ESTATE until the next ns_sim_run). NS_EINVAL (s,
   n < 0), NS_ENOMEM; a failure leaves every job as it was. */
NS_API int ns_sim_keep_first(ns_sim *s, int n);

/* Progress callback, called with done/total jobs at most ~200 times per run. */
typedef void (*ns_sim_progress_fn)(size_t done, size_t total, void *user);
NS_API int ns_sim_set_progress(ns_sim *s, ns_sim_progress_fn fn, void *user);

/* Runs the whole workload from a fresh cluster (a second call reruns it).
   NS_EINVAL without jobs; NS_EUNSUPPORTED if the policy's module is not
   available in this build (message names the policy); a policy error
   aborts the run with its status, except NS_EINVAL from a library policy,
   which means "this job can never be placed here" (e.g. no vClos shape of
   the fabric holds it): the job is dropped from the queue. Dropped jobs and
   jobs still waiting when nothing can happen any more end the run
   unfinished (NS_SIM_METRIC_UNFINISHED). A failed run discards the previous
   run's results (accessors return NS_ESTATE); the jobs stay loaded.
   NS_ESTATE, changing nothing, if s is already running (RE-ENTRY above). */
/* Cost: O(events x (queued + running jobs)) plus one policy decision
   per queued job and scheduling pass (each policy's cost is in its
   header); memory O(jobs + network links). */
NS_API int ns_sim_run(ns_sim *s);
/* Asks the run in progress on s to stop: ns_sim_run then returns
   NS_ECANCELED ("cancelled ... at T s of simulated time") within one event
   time or one policy decision (well under 100 ms on the traces of
   bench/RESULTS.md), with no results kept (as a failed run: the accessors
   return NS_ESTATE), the jobs still loaded and s ready to run again. A
   request made while no run is in progress does nothing (the next run is
   not affected), so a caller that stops between runs checks its own flag
   too. Async-signal-safe and callable from any thread, including s's own
   callbacks: one lock-free atomic operation, no lock, no allocation, no
   message (NS_OK; NS_EINVAL for NULL, without ns_last_error()). */
NS_API int ns_sim_cancel(ns_sim *s);

/* ---- results ------------------------------------------------------------ */

typedef enum ns_sim_metric_id {
  NS_SIM_METRIC_AVG_JCT_MS = 0,
  NS_SIM_METRIC_MEDIAN_JCT_MS = 1,
  NS_SIM_METRIC_P95_JCT_MS = 2,
  NS_SIM_METRIC_P99_JCT_MS = 3,
  NS_SIM_METRIC_MAKESPAN_MS = 4,
  NS_SIM_METRIC_AVG_QUEUE_MS = 5,
  NS_SIM_METRIC_P95_QUEUE_MS = 6,
  NS_SIM_METRIC_GPU_UTIL = 7,        /* fraction 0..1 */
  NS_SIM_METRIC_COMM_OVERHEAD = 8,   /* fraction of compute time */
  NS_SIM_METRIC_FRAGMENTATION = 9,   /* fraction 0..1 */
  NS_SIM_METRIC_LINKS_SHARED = 10,
  NS_SIM_METRIC_JOBS_DONE = 11,
  NS_SIM_METRIC_UNFINISHED = 12,
  NS_SIM_METRIC_SKIPPED = 13,
  NS_SIM_METRIC_GPU_MS_ALLOCATED = 14, /* integral of held GPUs over time */
  NS_SIM_METRIC_MACHINES_USED = 15,    /* time-averaged servers holding a job */
  NS_SIM_METRIC_PREEMPTIONS = 16,      /* jobs suspended (count) */
  NS_SIM_METRIC_AVG_WAIT_MS = 17,      /* time in the wait queue, waits after preemptions included */
  NS_SIM_METRIC_P95_WAIT_MS = 18,
  NS_SIM_METRIC_MACHINES_AT_ARRIVAL = 19, /* servers holding a job, mean over job arrivals */
  NS_SIM_METRIC_AVG_ITER_MS = 20,      /* per-job mean iteration time (run time / iterations) */
  NS_SIM_METRIC_P99_ITER_MS = 21
} ns_sim_metric_id;
#define NS_SIM_METRIC_COUNT 22

/* Name of a metric ("" if out of range). */
NS_API const char *ns_sim_metric_name(int metric);
/* A metric of the last run; NS_ESTATE before a successful run. Percentiles
   and the median use the nearest-rank definition (METRICS above); NAN-free:
   empty sets give 0. */
NS_API int ns_sim_metric(const ns_sim *s, ns_sim_metric_id metric, double *value);
/* Jobs added (accepted) and jobs skipped as larger than the cluster. */
NS_API int ns_sim_job_count(const ns_sim *s);
NS_API int ns_sim_skipped_count(const ns_sim *s);
/* Per-job row of the last run: arrival, start (NAN if never started),
   finish (NAN if unfinished) in ms; servers spanned (0 if never placed).
   Any output pointer may be NULL. NS_ESTATE before a run. */
NS_API int ns_sim_job_result(const ns_sim *s, int job, double *arrival_ms, double *start_ms,
                             double *finish_ms, int *servers);
/* Job name ("" if out of range) and GPU demand (NS_EINVAL if out of range). */
NS_API const char *ns_sim_job_name(const ns_sim *s, int job);
NS_API int ns_sim_job_gpus(const ns_sim *s, int job);
/* Times job (an index) was preempted in the last run (>= 0), or NS_EINVAL
   (out of range) / NS_ESTATE (before a run). */
NS_API int ns_sim_job_preemptions(const ns_sim *s, int job);
/* Dally's network sensitivity of job (an index) in the last run (Dally
   §4.3.1, DALLY below): (iterations done / total) / (ms run / (compute ms
   per iteration x total)), measured by the network model over all its
   placements (the restore overhead excluded); for a finished job its whole
   run, for an unfinished one its last measure, for a job that never ran the
   initial estimate. Every policy reports it (only Dally orders by it).
   NS_EINVAL: job out of range or nw_sens NULL (names it); NS_ESTATE before
   a run. *nw_sens is unchanged on error. */
NS_API int ns_sim_job_nw_sens(const ns_sim *s, int job, double *nw_sens);
/* The job's model name: the trace's model_name as written (e.g. "vgg19",
   which runs on the VGG-16 profile), the embedded profile's name
   (ns_sim_add_model_job, Philly, default workload), or "" (ns_sim_add_job,
   or out of range). Valid until s is freed. */
NS_API const char *ns_sim_job_model(const ns_sim *s, int job);
/* The job's time in the wait queue, waits after preemptions included, and
   its mean iteration time (METRICS above), in ms; both NAN if it did not
   finish. Either output pointer may be NULL. NS_EINVAL: job out of range
   (names it); NS_ESTATE before a run. Outputs unchanged on error. */
NS_API int ns_sim_job_wait_iter(const ns_sim *s, int job, double *wait_ms, double *iter_ms);
/* Writes one CSV row per job (header: job,name,gpus,iterations,arrival_ms,
   start_ms,finish_ms,jct_ms,queue_ms,servers,comm_overhead,model,preemptions,
   wait_ms,iter_ms; queue_ms is the delay to the first start, wait_ms every
   wait; times empty if the job did not finish). NS_ESTATE before a run;
   NS_EINVAL if the file cannot be written (names the path; "is a
   directory"). Written whole or not at all: to a temporary file next to
   path, renamed over it only once every row was written, so a failure
   leaves an existing file as it was (an existing non-regular file such as
   /dev/stdout is written directly). */
NS_API int ns_sim_write_jobs_csv(const ns_sim *s, const char *path);

#ifdef __cplusplus
}
#endif

#endif
