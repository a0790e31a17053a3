"""Loading libnetsched and the one table of its C signatures.

The shared library is found in this order (first hit wins):

1. the path in the environment variable ``NETSCHED_LIBRARY``;
2. ``lib/libnetsched.so.0`` of the source tree this package sits in
   (``bindings/python/netsched`` -> ``../../../lib``), so that a checkout
   works right after ``make``;
3. ``LIBDIR/libnetsched.so.0`` of the ``make install`` that the package was
   installed with (``make install-python`` writes ``_libdir.py``), so a
   library in a non-system prefix is found without ``LD_LIBRARY_PATH``;
4. the system loader, by SONAME ``libnetsched.so.0`` (``make install``).

Every exported function is declared once, in ``_TABLE`` below, with its
restype and argtypes (python-libevdev's ``_clib.py`` is the model). Handles
are distinct opaque pointer types, so ctypes itself refuses a job where a
link is expected.

A function of the table that the loaded library does not export (an older
build, or a policy module not merged yet) does not break the import: it is
listed in ``missing_symbols()`` and calling it raises ``MissingSymbolError``.
"""

from __future__ import annotations

import ctypes
import os
from ctypes import (POINTER, c_char_p, c_double, c_int, c_size_t, c_uint64,
                    c_void_p)
from typing import TYPE_CHECKING, Any, Callable, NoReturn

if TYPE_CHECKING:
    from typing import TypeAlias

SONAME = "libnetsched.so.0"
ENV_VAR = "NETSCHED_LIBRARY"


class _Opaque(ctypes.Structure):
    """Base of the opaque handle structs (no visible fields, as in C)."""


class _Job(_Opaque):
    pass


class _Link(_Opaque):
    pass


class _Cluster(_Opaque):
    pass


class _Placement(_Opaque):
    pass


class _CassiniOpts(_Opaque):
    pass


class _Affinity(_Opaque):
    pass


class _Candidate(_Opaque):
    pass


class _TitanOpts(_Opaque):
    pass


class _VclosOpts(_Opaque):
    pass


class _DelayTuner(_Opaque):
    pass


class _SimOpts(_Opaque):
    pass


class _Sim(_Opaque):
    pass


class _Policy(_Opaque):
    pass


class _Queue(_Opaque):
    pass


class _Decision(_Opaque):
    pass


JOB = POINTER(_Job)
LINK = POINTER(_Link)
CLUSTER = POINTER(_Cluster)
PLACEMENT = POINTER(_Placement)
CASSINI_OPTS = POINTER(_CassiniOpts)
AFFINITY = POINTER(_Affinity)
CANDIDATE = POINTER(_Candidate)
TITAN_OPTS = POINTER(_TitanOpts)
VCLOS_OPTS = POINTER(_VclosOpts)
DELAY_TUNER = POINTER(_DelayTuner)
SIM_OPTS = POINTER(_SimOpts)
SIM = POINTER(_Sim)
POLICY = POINTER(_Policy)
QUEUE = POINTER(_Queue)
DECISION = POINTER(_Decision)

if TYPE_CHECKING:
    #: A typed handle pointer (JOB, LINK, ...; ctypes makes each a distinct
    #: type). ctypes._Pointer cannot be subscripted at run time, hence the alias.
    Pointer: TypeAlias = "ctypes._Pointer[Any]"
else:
    Pointer = ctypes._Pointer

_int_p = POINTER(c_int)
_dbl_p = POINTER(c_double)
_u64_p = POINTER(c_uint64)
_size_p = POINTER(c_size_t)

# Callback types of sim.h (ns_sim_place_fn, ns_sim_progress_fn).
SIM_PLACE_FN = ctypes.CFUNCTYPE(c_int, CLUSTER, JOB, PLACEMENT, c_void_p)
SIM_PROGRESS_FN = ctypes.CFUNCTYPE(None, c_size_t, c_size_t, c_void_p)
TITAN_PAIR_FN = ctypes.CFUNCTYPE(c_double, c_int, c_int, c_void_p)
# policy.h's ns_policy_place_fn is the same C type as ns_sim_place_fn.
POLICY_PLACE_FN = SIM_PLACE_FN

# name: (restype, [argtypes]) -- in the order of the public headers.
# ns_tier / ns_collective / ns_status are C enums: passed and returned as int.
_TABLE: dict[str, tuple[Any, list[Any]]] = {
    # core.h: version and errors
    "ns_version": (c_char_p, []),
    "ns_version_number": (c_int, []),
    "ns_strerror": (c_char_p, [c_int]),
    "ns_last_error": (c_char_p, []),
    "ns_closest_name": (c_int, [c_char_p, POINTER(c_char_p), c_int]),
    # core.h: jobs
    "ns_job_new": (JOB, [c_char_p, c_int]),
    "ns_job_free": (None, [JOB]),
    "ns_job_name": (c_char_p, [JOB]),
    "ns_job_gpus": (c_int, [JOB]),
    "ns_job_set_iteration_ms": (c_int, [JOB, c_double]),
    "ns_job_add_phase": (c_int, [JOB, c_double, c_double]),
    "ns_job_clear_phases": (c_int, [JOB]),
    "ns_job_set_compute_ms": (c_int, [JOB, c_double, c_double]),
    "ns_job_set_model_bytes": (c_int, [JOB, c_uint64]),
    "ns_job_set_collective": (c_int, [JOB, c_int]),
    "ns_job_set_iterations": (c_int, [JOB, c_uint64, c_uint64]),
    "ns_job_set_gpu_memory_mb": (c_int, [JOB, c_double]),
    "ns_job_iteration_ms": (c_double, [JOB]),
    "ns_job_phase_count": (c_size_t, [JOB]),
    "ns_job_phase": (c_int, [JOB, c_size_t, _dbl_p, _dbl_p]),
    "ns_job_compute_ms": (c_int, [JOB, _dbl_p, _dbl_p]),
    "ns_job_model_bytes": (c_uint64, [JOB]),
    "ns_job_collective": (c_int, [JOB]),
    "ns_job_iterations": (c_int, [JOB, _u64_p, _u64_p]),
    "ns_job_gpu_memory_mb": (c_double, [JOB]),
    # core.h: links
    "ns_link_new": (LINK, [c_char_p, c_double]),
    "ns_link_free": (None, [LINK]),
    "ns_link_add_job": (c_int, [LINK, JOB]),
    "ns_link_job_count": (c_size_t, [LINK]),
    "ns_link_capacity_gbps": (c_double, [LINK]),
    "ns_link_name": (c_char_p, [LINK]),
    "ns_link_job": (JOB, [LINK, c_size_t]),
    # core.h: cluster
    "ns_cluster_new_leaf_spine": (CLUSTER, [c_int, c_int, c_int, c_int, c_int, c_double]),
    "ns_cluster_free": (None, [CLUSTER]),
    "ns_cluster_enable_ocs": (c_int, [CLUSTER, c_int]),
    "ns_cluster_gpu_count": (c_int, [CLUSTER]),
    "ns_cluster_server_count": (c_int, [CLUSTER]),
    "ns_cluster_server_of_gpu": (c_int, [CLUSTER, c_int]),
    "ns_cluster_leaf_of_server": (c_int, [CLUSTER, c_int]),
    "ns_cluster_free_gpus_on_server": (c_int, [CLUSTER, c_int]),
    "ns_cluster_occupy": (c_int, [CLUSTER, _int_p, c_size_t]),
    "ns_cluster_vacate": (c_int, [CLUSTER, _int_p, c_size_t]),
    "ns_cluster_set_gpu_memory_mb": (c_int, [CLUSTER, c_double]),
    "ns_cluster_set_gpu_sharing": (c_int, [CLUSTER, c_int]),
    "ns_cluster_set_nic_ports": (c_int, [CLUSTER, c_int, c_double]),
    "ns_cluster_leaf_count": (c_int, [CLUSTER]),
    "ns_cluster_spine_count": (c_int, [CLUSTER]),
    "ns_cluster_servers_per_leaf": (c_int, [CLUSTER]),
    "ns_cluster_gpus_per_server": (c_int, [CLUSTER]),
    "ns_cluster_links_per_pair": (c_int, [CLUSTER]),
    "ns_cluster_link_gbps": (c_double, [CLUSTER]),
    "ns_cluster_ocs_count": (c_int, [CLUSTER]),
    "ns_cluster_gpu_memory_mb": (c_double, [CLUSTER]),
    "ns_cluster_gpu_sharing": (c_int, [CLUSTER]),
    "ns_cluster_free_gpu_count": (c_int, [CLUSTER]),
    "ns_cluster_free_gpus_on_leaf": (c_int, [CLUSTER, c_int]),
    "ns_cluster_idle_servers_on_leaf": (c_int, [CLUSTER, c_int]),
    "ns_cluster_gpu_is_free": (c_int, [CLUSTER, c_int]),
    "ns_cluster_gpu_job_count": (c_int, [CLUSTER, c_int]),
    "ns_cluster_gpu_free_memory_mb": (c_double, [CLUSTER, c_int]),
    "ns_cluster_free_links_between": (c_int, [CLUSTER, c_int, c_int]),
    "ns_cluster_link_is_reserved": (c_int, [CLUSTER, c_int, c_int, c_int]),
    "ns_cluster_job_count": (c_int, [CLUSTER]),
    "ns_cluster_is_committed": (c_int, [CLUSTER, JOB]),
    # core.h: placements
    "ns_placement_new": (PLACEMENT, []),
    "ns_placement_free": (None, [PLACEMENT]),
    "ns_placement_add_gpu": (c_int, [PLACEMENT, c_int]),
    "ns_placement_clear": (None, [PLACEMENT]),
    "ns_placement_gpu_count": (c_size_t, [PLACEMENT]),
    "ns_placement_gpu": (c_int, [PLACEMENT, c_size_t]),
    "ns_placement_bind": (c_int, [PLACEMENT, CLUSTER]),
    "ns_placement_server_count": (c_int, [PLACEMENT]),
    "ns_placement_tier": (c_int, [PLACEMENT]),
    "ns_cluster_commit": (c_int, [CLUSTER, JOB, PLACEMENT]),
    "ns_cluster_release": (c_int, [CLUSTER, JOB]),
    "ns_cluster_job_placement": (c_int, [CLUSTER, JOB, PLACEMENT]),
    # cassini.h
    "ns_cassini_opts_new": (CASSINI_OPTS, []),
    "ns_cassini_opts_free": (None, [CASSINI_OPTS]),
    "ns_cassini_opts_set_angle_step_deg": (c_int, [CASSINI_OPTS, c_double]),
    "ns_cassini_opts_set_time_quantum_ms": (c_int, [CASSINI_OPTS, c_double]),
    "ns_cassini_opts_set_threads": (c_int, [CASSINI_OPTS, c_int]),
    "ns_cassini_opts_angle_step_deg": (c_double, [CASSINI_OPTS]),
    "ns_cassini_opts_time_quantum_ms": (c_double, [CASSINI_OPTS]),
    "ns_cassini_opts_threads": (c_int, [CASSINI_OPTS]),
    "ns_cassini_opts_set_drift_fraction": (c_int, [CASSINI_OPTS, c_double]),
    "ns_cassini_opts_drift_fraction": (c_double, [CASSINI_OPTS]),
    "ns_cassini_score": (c_int, [LINK, CASSINI_OPTS, _dbl_p, _dbl_p, c_size_t]),
    "ns_cassini_score_at": (c_int, [LINK, CASSINI_OPTS, _dbl_p, c_size_t, _dbl_p]),
    "ns_cassini_link_perimeter": (c_int, [LINK, CASSINI_OPTS, _dbl_p, _dbl_p]),
    "ns_affinity_new": (AFFINITY, []),
    "ns_affinity_free": (None, [AFFINITY]),
    "ns_affinity_add_edge": (c_int, [AFFINITY, JOB, LINK, c_double]),
    "ns_affinity_has_loop": (c_int, [AFFINITY]),
    "ns_affinity_solve": (c_int, [AFFINITY]),
    "ns_affinity_shift_ms": (c_int, [AFFINITY, JOB, _dbl_p]),
    "ns_candidate_new": (CANDIDATE, []),
    "ns_candidate_free": (None, [CANDIDATE]),
    "ns_candidate_add": (c_int, [CANDIDATE, JOB, LINK]),
    "ns_cassini_rank": (c_int, [POINTER(CANDIDATE), c_size_t, CASSINI_OPTS, _size_p, _dbl_p]),
    "ns_candidate_shift_ms": (c_int, [CANDIDATE, JOB, _dbl_p]),
    "ns_cassini_candidate_from_cluster": (c_int, [CANDIDATE, CLUSTER, JOB, PLACEMENT]),
    "ns_cassini_readjust": (c_int, [CANDIDATE, CASSINI_OPTS, POINTER(JOB), _dbl_p, c_size_t,
                                    _size_p]),
    # adadual.h
    "ns_comm_time_ms": (c_double, [c_double, c_double, c_double, c_int, c_uint64]),
    "ns_adadual_decide": (c_int, [c_double, c_double, c_uint64, _int_p, _u64_p, c_size_t,
                                  _int_p]),
    "ns_adadual_threshold": (c_double, [c_double, c_double]),
    "ns_allreduce_cost": (c_int, [c_int, c_int, c_double, c_double, c_double, _dbl_p, _dbl_p]),
    "ns_allreduce_algo_cost": (c_int, [c_int, c_int, c_double, c_double, c_double, _dbl_p,
                                       _dbl_p]),
    "ns_contention_fit": (c_int, [_int_p, _u64_p, _dbl_p, c_size_t, _dbl_p, _dbl_p, _dbl_p,
                                  _dbl_p]),
    # lwf.h
    "ns_cluster_set_gpu_workload_ms": (c_int, [CLUSTER, c_int, c_double]),
    "ns_cluster_gpu_workload_ms": (c_double, [CLUSTER, c_int]),
    "ns_lwf_place": (c_int, [CLUSTER, JOB, c_int, PLACEMENT]),
    "ns_place_first_fit": (c_int, [CLUSTER, JOB, PLACEMENT]),
    "ns_place_list_scheduling": (c_int, [CLUSTER, JOB, PLACEMENT]),
    "ns_place_random": (c_int, [CLUSTER, JOB, c_uint64, PLACEMENT]),
    # titan.h
    "ns_titan_opts_new": (TITAN_OPTS, []),
    "ns_titan_opts_free": (None, [TITAN_OPTS]),
    "ns_titan_opts_set_seed": (c_int, [TITAN_OPTS, c_uint64]),
    "ns_titan_opts_set_pair_bandwidth_fn": (c_int, [TITAN_OPTS, TITAN_PAIR_FN, c_void_p]),
    "ns_titan_opts_set_phase_budget_ms": (c_int, [TITAN_OPTS, c_double]),
    "ns_titan_place": (c_int, [CLUSTER, JOB, TITAN_OPTS, PLACEMENT]),
    "ns_collective_traffic": (c_int, [c_int, c_int, c_uint64, c_int, c_int, c_int, _u64_p]),
    "ns_collective_phase_count": (c_int, [c_int, c_int]),
    "ns_collective_cross_machine_bytes": (c_int, [JOB, PLACEMENT, _u64_p]),
    # vclos.h
    "ns_vclos_opts_new": (VCLOS_OPTS, []),
    "ns_vclos_opts_free": (None, [VCLOS_OPTS]),
    "ns_vclos_opts_set_solver": (c_int, [VCLOS_OPTS, c_int]),
    "ns_vclos_opts_set_time_limit_ms": (c_int, [VCLOS_OPTS, c_double]),
    "ns_vclos_opts_set_power_of_two": (c_int, [VCLOS_OPTS, c_int]),
    "ns_vclos_place": (c_int, [CLUSTER, JOB, VCLOS_OPTS, PLACEMENT]),
    "ns_vclos_place_ex": (c_int, [CLUSTER, JOB, VCLOS_OPTS, PLACEMENT, _int_p]),
    "ns_placement_virtual_leaves": (c_int, [PLACEMENT]),
    "ns_placement_virtual_spines": (c_int, [PLACEMENT]),
    "ns_placement_link_count": (c_int, [PLACEMENT]),
    "ns_placement_link": (c_int, [PLACEMENT, c_size_t, _int_p, _int_p]),
    "ns_vclos_route": (c_int, [CLUSTER, c_int, c_int, _int_p]),
    "ns_vclos_route_links": (c_int, [CLUSTER, c_int, c_int, _int_p, _int_p, _int_p]),
    "ns_cluster_ocs_free_leaf_ports": (c_int, [CLUSTER, c_int, c_int]),
    "ns_cluster_ocs_free_spine_ports": (c_int, [CLUSTER, c_int, c_int]),
    # dally.h
    "ns_delay_tuner_new": (DELAY_TUNER, [c_double, c_double, c_double]),
    "ns_delay_tuner_free": (None, [DELAY_TUNER]),
    "ns_delay_tuner_record": (c_int, [DELAY_TUNER, c_int, c_int, c_double, c_double]),
    "ns_delay_tuner_timers": (c_int, [DELAY_TUNER, c_int, c_double, _dbl_p, _dbl_p]),
    "ns_delay_tuner_set_manual": (c_int, [DELAY_TUNER, c_int]),
    "ns_delay_tuner_sample_count": (c_int, [DELAY_TUNER, c_int, c_int, c_double, _size_p]),
    "ns_delay_tuner_checkpoint": (c_int, [DELAY_TUNER]),
    "ns_delay_tuner_rollback": (c_int, [DELAY_TUNER]),
    "ns_delay_tuner_commit": (c_int, [DELAY_TUNER]),
    "ns_delay_tuner_swap": (c_int, [DELAY_TUNER, DELAY_TUNER]),
    "ns_dally_timers": (c_int, [DELAY_TUNER, CLUSTER, c_int, c_double, _dbl_p, _dbl_p]),
    "ns_dally_offer": (c_int, [DELAY_TUNER, CLUSTER, JOB, c_double, c_double, PLACEMENT,
                               _int_p]),
    "ns_place_best_fit": (c_int, [CLUSTER, JOB, PLACEMENT]),
    "ns_place_tiresias": (c_int, [CLUSTER, JOB, c_uint64, PLACEMENT]),
    "ns_dally_priority": (c_double, [c_uint64, c_uint64, c_double, c_double]),
    "ns_dally_job_priority": (c_double, [JOB, c_double]),
    "ns_dally_offer_order": (c_int, [_dbl_p, c_size_t, _size_p]),
    # policy.h
    "ns_policy_preset_count": (c_int, []),
    "ns_policy_preset_name": (c_char_p, [c_int]),
    "ns_policy_preset_description": (c_char_p, [c_int]),
    "ns_policy_preset_find": (c_int, [c_char_p]),
    "ns_policy_preset_parts": (c_int, [c_int, _int_p, _int_p, _int_p, _int_p, _int_p, _int_p,
                                       _int_p]),
    "ns_policy_new": (POLICY, [c_char_p]),
    "ns_policy_free": (None, [POLICY]),
    "ns_policy_name": (c_char_p, [POLICY]),
    "ns_policy_set_order": (c_int, [POLICY, c_int]),
    "ns_policy_set_placement": (c_int, [POLICY, c_int]),
    "ns_policy_set_kappa": (c_int, [POLICY, c_int]),
    "ns_policy_set_admission": (c_int, [POLICY, c_int, c_int]),
    "ns_policy_set_cassini": (c_int, [POLICY, c_int, c_int]),
    "ns_policy_set_backfill": (c_int, [POLICY, c_int]),
    "ns_policy_set_seed": (c_int, [POLICY, c_uint64]),
    "ns_policy_set_skew_bytes": (c_int, [POLICY, c_uint64]),
    "ns_policy_set_dally_timers": (c_int, [POLICY, c_double, c_double, c_double]),
    "ns_policy_set_cassini_drift": (c_int, [POLICY, c_double]),
    "ns_policy_set_dally_lease": (c_int, [POLICY, c_double]),
    "ns_policy_dally_lease_of": (c_double, [POLICY]),
    "ns_policy_lease_ms": (c_int, [POLICY, c_uint64, _dbl_p, _dbl_p]),
    "ns_policy_set_place_fn": (c_int, [POLICY, POLICY_PLACE_FN, c_void_p]),
    "ns_policy_order_of": (c_int, [POLICY]),
    "ns_policy_placement_of": (c_int, [POLICY]),
    "ns_policy_admission_of": (c_int, [POLICY, _int_p]),
    "ns_policy_uses_cassini": (c_int, [POLICY]),
    "ns_policy_backfills": (c_int, [POLICY]),
    "ns_policy_tuner": (DELAY_TUNER, [POLICY]),
    "ns_policy_cassini_opts": (CASSINI_OPTS, [POLICY]),
    "ns_policy_save": (c_int, [POLICY, c_char_p, c_size_t, _size_p]),
    "ns_policy_load": (c_int, [POLICY, c_char_p, c_size_t]),
    "ns_queue_new": (QUEUE, []),
    "ns_queue_free": (None, [QUEUE]),
    "ns_queue_clear": (None, [QUEUE]),
    "ns_queue_count": (c_size_t, [QUEUE]),
    "ns_queue_truncate": (c_int, [QUEUE, c_size_t]),
    "ns_queue_add": (c_int, [QUEUE, JOB, c_uint64, c_double]),
    "ns_queue_set_ideal_ms": (c_int, [QUEUE, c_size_t, c_double]),
    "ns_queue_set_nw_sens": (c_int, [QUEUE, c_size_t, c_double]),
    "ns_queue_set_waiting_since": (c_int, [QUEUE, c_size_t, c_double]),
    "ns_queue_add_running": (c_int, [QUEUE, JOB, c_uint64, c_double]),
    "ns_queue_set_attained_ms": (c_int, [QUEUE, c_size_t, c_double]),
    "ns_queue_set_running": (c_int, [QUEUE, c_size_t, c_int]),
    "ns_queue_is_running": (c_int, [QUEUE, c_size_t]),
    "ns_decision_suspend_count": (c_size_t, [DECISION]),
    "ns_decision_suspend_job": (c_size_t, [DECISION, c_size_t]),
    "ns_decision_renew_count": (c_size_t, [DECISION]),
    "ns_decision_renew_job": (c_size_t, [DECISION, c_size_t]),
    "ns_policy_set_las_queues": (c_int, [POLICY, c_int, _dbl_p]),
    "ns_policy_clone": (POLICY, [POLICY]),
    "ns_policy_set_preset": (c_int, [POLICY, c_char_p]),
    "ns_policy_kappa_of": (c_int, [POLICY]),
    "ns_policy_admit": (c_int, [POLICY, c_uint64, _int_p, c_size_t, _int_p, POINTER(c_uint64),
                                c_size_t, c_double, c_double, _int_p]),
    "ns_policy_set_starvation": (c_int, [POLICY, c_double]),
    "ns_policy_set_gittins_samples": (c_int, [POLICY, _dbl_p, c_size_t]),
    "ns_decision_new": (DECISION, []),
    "ns_decision_free": (None, [DECISION]),
    "ns_decision_job_count": (c_size_t, [DECISION]),
    "ns_decision_start_count": (c_size_t, [DECISION]),
    "ns_decision_start_job": (c_size_t, [DECISION, c_size_t]),
    "ns_decision_placement": (PLACEMENT, [DECISION, c_size_t]),
    "ns_decision_copy_placement": (c_int, [DECISION, c_size_t, PLACEMENT]),
    "ns_decision_shift_ms": (c_int, [DECISION, c_size_t, JOB, _dbl_p]),
    "ns_decision_has_shifts": (c_int, [DECISION, c_size_t]),
    "ns_decision_status": (c_int, [DECISION, c_size_t]),
    "ns_decision_next_ms": (c_double, [DECISION]),
    "ns_decision_retry_ms": (c_double, [DECISION, c_size_t]),
    "ns_policy_order_key": (c_int, [POLICY, QUEUE, c_size_t, _dbl_p]),
    "ns_policy_place": (c_int, [POLICY, CLUSTER, QUEUE, c_size_t, c_double, DECISION]),
    "ns_policy_decide": (c_int, [POLICY, CLUSTER, QUEUE, c_double, DECISION]),
    "ns_policy_preempt": (c_int, [POLICY, CLUSTER, QUEUE, c_double, DECISION]),
    "ns_policy_started": (c_int, [POLICY, JOB, c_double]),
    "ns_policy_finished": (c_int, [POLICY, JOB, c_double]),
    "ns_policy_suspended": (c_int, [POLICY, JOB, c_double]),
    "ns_policy_progress": (c_int, [POLICY, JOB, c_double, c_double, c_double]),
    "ns_policy_set_cassini_drift_rule": (c_int, [POLICY, c_int]),
    "ns_policy_report_iteration": (c_int, [POLICY, JOB, c_double, c_double]),
    "ns_policy_report_shifted": (c_int, [POLICY, JOB, c_double]),
    "ns_policy_report_allreduce": (c_int, [POLICY, CLUSTER, JOB, c_double, DECISION, _dbl_p]),
    "ns_decision_readjust_shift_ms": (c_int, [DECISION, JOB, _dbl_p]),
    "ns_policy_readjust_count": (c_uint64, [POLICY]),
    # sim.h
    "ns_sim_policy_count": (c_int, []),
    "ns_sim_policy_name": (c_char_p, [c_int]),
    "ns_sim_model_count": (c_int, []),
    "ns_sim_model_profile": (c_int, [c_int, POINTER(c_char_p), _u64_p, _dbl_p, _dbl_p, _dbl_p]),
    "ns_sim_policy_description": (c_char_p, [c_int]),
    "ns_sim_opts_new": (SIM_OPTS, []),
    "ns_sim_opts_free": (None, [SIM_OPTS]),
    "ns_sim_opts_set_policy": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_policy_name": (c_int, [SIM_OPTS, c_char_p]),
    "ns_sim_opts_policy_name": (c_char_p, [SIM_OPTS]),
    "ns_sim_opts_set_order": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_placement": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_kappa": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_admission": (c_int, [SIM_OPTS, c_int, c_int]),
    "ns_sim_opts_set_cassini": (c_int, [SIM_OPTS, c_int, c_int]),
    "ns_sim_opts_set_network": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_phase_window": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_cassini_drift": (c_int, [SIM_OPTS, c_double]),
    "ns_sim_opts_set_cluster": (c_int, [SIM_OPTS, c_int, c_int, c_int, c_int, c_int, c_double]),
    "ns_sim_opts_set_bandwidth": (c_int, [SIM_OPTS, c_double, c_double]),
    "ns_sim_opts_set_contention": (c_int, [SIM_OPTS, c_double, c_double, c_double]),
    "ns_sim_opts_set_seed": (c_int, [SIM_OPTS, c_uint64]),
    "ns_sim_opts_set_dally": (c_int, [SIM_OPTS, c_double, c_double, c_double]),
    "ns_sim_opts_set_skew_threshold": (c_int, [SIM_OPTS, c_uint64]),
    "ns_sim_opts_set_gpu_sharing": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_backfill": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_dally_preemption": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_dally_lease": (c_int, [SIM_OPTS, c_double]),
    "ns_sim_opts_set_las_queues": (c_int, [SIM_OPTS, c_int, POINTER(c_double)]),
    "ns_sim_opts_set_starvation": (c_int, [SIM_OPTS, c_double]),
    "ns_sim_opts_set_preemption_overhead": (c_int, [SIM_OPTS, c_double]),
    "ns_sim_opts_set_gittins_samples": (c_int, [SIM_OPTS, POINTER(c_double), c_size_t]),
    "ns_sim_opts_set_place_fn": (c_int, [SIM_OPTS, SIM_PLACE_FN, c_void_p]),
    "ns_sim_opts_set_contention_curve": (c_int, [SIM_OPTS, POINTER(c_double), POINTER(c_double),
                                                 c_size_t]),
    "ns_sim_opts_set_default_contention_curve": (c_int, [SIM_OPTS]),
    "ns_sim_opts_load_contention_curve": (c_int, [SIM_OPTS, c_char_p]),
    "ns_sim_opts_contention_factor": (c_double, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_allreduce_latency": (c_int, [SIM_OPTS, c_double]),
    "ns_sim_opts_set_nics": (c_int, [SIM_OPTS, c_int, c_double]),
    "ns_sim_opts_set_gpu_memory": (c_int, [SIM_OPTS, c_double]),
    "ns_sim_opts_set_cassini_drift_rule": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_dally_new_jobs": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_vclos_routing": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_opts_set_allreduce": (c_int, [SIM_OPTS, c_int]),
    "ns_sim_new": (SIM, [SIM_OPTS]),
    "ns_sim_free": (None, [SIM]),
    "ns_sim_add_job": (c_int, [SIM, c_char_p, c_double, c_int, c_uint64, c_double, c_uint64,
                               c_double]),
    "ns_sim_add_model_job": (c_int, [SIM, c_char_p, c_double, c_int, c_uint64, c_int]),
    "ns_sim_set_job_allreduce": (c_int, [SIM, c_int, c_int]),
    "ns_sim_load_default_workload": (c_int, [SIM]),
    "ns_sim_load_trace": (c_int, [SIM, c_char_p, c_int]),
    "ns_sim_scale_arrivals": (c_int, [SIM, c_double]),
    "ns_sim_keep_first": (c_int, [SIM, c_int]),
    "ns_sim_set_progress": (c_int, [SIM, SIM_PROGRESS_FN, c_void_p]),
    "ns_sim_run": (c_int, [SIM]),
    "ns_sim_cancel": (c_int, [SIM]),
    "ns_sim_metric_name": (c_char_p, [c_int]),
    "ns_sim_metric": (c_int, [SIM, c_int, _dbl_p]),
    "ns_sim_job_count": (c_int, [SIM]),
    "ns_sim_skipped_count": (c_int, [SIM]),
    "ns_sim_job_result": (c_int, [SIM, c_int, _dbl_p, _dbl_p, _dbl_p, _int_p]),
    "ns_sim_job_name": (c_char_p, [SIM, c_int]),
    "ns_sim_job_model": (c_char_p, [SIM, c_int]),
    "ns_sim_add_model_profile": (c_int, [SIM, c_char_p, c_double, c_double, c_uint64, c_double]),
    "ns_sim_load_models": (c_int, [SIM, c_char_p]),
    "ns_sim_added_profile_count": (c_int, [SIM]),
    "ns_sim_added_profile_name": (c_char_p, [SIM, c_int]),
    "ns_sim_job_gpus": (c_int, [SIM, c_int]),
    "ns_sim_job_preemptions": (c_int, [SIM, c_int]),
    "ns_sim_job_nw_sens": (c_int, [SIM, c_int, _dbl_p]),
    "ns_sim_job_wait_iter": (c_int, [SIM, c_int, _dbl_p, _dbl_p]),
    "ns_sim_write_jobs_csv": (c_int, [SIM, c_char_p]),
}


class MissingSymbolError(NotImplementedError):
    """The loaded libnetsched does not export this function (older build, or
    the module has not been merged yet)."""


def _candidates() -> tuple[list[str], bool]:
    env = os.environ.get(ENV_VAR)
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    repo_lib = os.path.normpath(os.path.join(here, "..", "..", "..", "lib", SONAME))
    found = [repo_lib] if os.path.exists(repo_lib) else []
    try:
        from ._libdir import LIBDIR  # written by `make install-python`
        installed = os.path.join(LIBDIR, SONAME)
        if os.path.exists(installed):
            found.append(installed)
    except ImportError:
        pass
    return found + [SONAME], False


def _load() -> tuple[ctypes.CDLL, str]:
    paths, from_env = _candidates()
    errors = []
    for path in paths:
        try:
            return ctypes.CDLL(path), path
        except OSError as exc:
            errors.append("%s: %s" % (path, exc))
            if from_env:
                break  # an explicit choice must not silently fall back
    raise ImportError("netsched: cannot load libnetsched (%s); build it with `make`, "
                      "install it, or set %s to its path" % ("; ".join(errors), ENV_VAR))


def _missing(name: str) -> Callable[..., NoReturn]:
    def stub(*_args: object) -> NoReturn:
        raise MissingSymbolError("%s is not exported by %s (libnetsched %s); this build "
                                 "lacks the module" % (name, path, _version_or_unknown()))
    stub.__name__ = name
    return stub


class _Lib:
    """Attribute access to the table's functions, typed."""

    if TYPE_CHECKING:
        # The functions are set from _TABLE when the library loads: ctypes
        # foreign functions, whose arguments ctypes converts and checks.
        def __getattr__(self, name: str) -> Any: ...


cdll, path = _load()
lib = _Lib()
_MISSING: list[str] = []
for _name, (_restype, _argtypes) in _TABLE.items():
    try:
        _fn = getattr(cdll, _name)
    except AttributeError:
        _MISSING.append(_name)
        setattr(lib, _name, _missing(_name))
        continue
    _fn.restype = _restype
    _fn.argtypes = _argtypes
    setattr(lib, _name, _fn)


def _version_or_unknown() -> str:
    return str(lib.ns_version().decode()) if has("ns_version") else "unknown"


def has(name: str) -> bool:
    """True if the loaded library exports `name` (a function of the table)."""
    if name not in _TABLE:
        raise KeyError("%s is not a libnetsched function known to these bindings" % name)
    return name not in _MISSING


def missing_symbols() -> list[str]:
    """Functions of the table that the loaded library does not export."""
    return list(_MISSING)


def table() -> dict[str, tuple[Any, list[Any]]]:
    """The signature table: {name: (restype, argtypes)} (a copy)."""
    return {k: (r, list(a)) for k, (r, a) in _TABLE.items()}


def address(handle_ptr: Pointer) -> int:
    """Integer address of a typed handle pointer (0 for NULL)."""
    return ctypes.cast(handle_ptr, c_void_p).value or 0
