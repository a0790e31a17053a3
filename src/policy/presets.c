/*
 * src/policy/presets.c - the named policy presets (netsched-sim --list,
 * ns_sim_policy_name, netsched-slurm --policy): one table, read by
 * ns_policy_new and by the simulator's options.
 *
 * Presets pair each paper's policy with the baselines it is compared
 * against: placement comparisons (ff, ls, rand, lwf-1) under FIFO as in the
 * LWF-kappa paper's Table IV setting, communication admission (srsf-1,
 * srsf-2, ada-srsf) under SRSF ordering with LWF-1 placement as in its
 * Table V, Dally against Tiresias-style consolidation and best-fit, vClos
 * and Titan against the network-agnostic first-fit, CASSINI against its base.
 */
#include <string.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

static const nsp_preset presets[] = {
    {"ff", "FIFO, first-fit, backfilling (Tiresias's fjf)", NS_POLICY_ORDER_FIFO,
     NS_POLICY_PLACE_FIRST_FIT, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"ls", "FIFO, list scheduling (least workload)", NS_POLICY_ORDER_FIFO,
     NS_POLICY_PLACE_LIST_SCHEDULING, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"rand", "FIFO, random GPUs", NS_POLICY_ORDER_FIFO, NS_POLICY_PLACE_RANDOM, 1,
     NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"best-fit", "FIFO, best-fit consolidation (Elasticflow-style)", NS_POLICY_ORDER_FIFO,
     NS_POLICY_PLACE_BEST_FIT, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"tiresias", "FIFO, Tiresias-style skew consolidation", NS_POLICY_ORDER_FIFO,
     NS_POLICY_PLACE_TIRESIAS, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"lwf-1", "FIFO, LWF-kappa with kappa = 1", NS_POLICY_ORDER_FIFO, NS_POLICY_PLACE_LWF, 1,
     NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"srsf-ff", "SRSF order, first-fit", NS_POLICY_ORDER_SRSF, NS_POLICY_PLACE_FIRST_FIT, 1,
     NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"sjf-ff", "SJF order, first-fit", NS_POLICY_ORDER_SJF, NS_POLICY_PLACE_FIRST_FIT, 1,
     NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"srsf-1", "SRSF order, LWF-1, SRSF(1) admission", NS_POLICY_ORDER_SRSF, NS_POLICY_PLACE_LWF,
     1, NS_POLICY_ADMIT_SRSF, 1, 0, 0},
    {"srsf-2", "SRSF order, LWF-1, SRSF(2) admission", NS_POLICY_ORDER_SRSF, NS_POLICY_PLACE_LWF,
     1, NS_POLICY_ADMIT_SRSF, 2, 0, 0},
    {"ada-srsf", "SRSF order, LWF-1, AdaDUAL admission", NS_POLICY_ORDER_SRSF,
     NS_POLICY_PLACE_LWF, 1, NS_POLICY_ADMIT_ADADUAL, 1, 0, 0},
    {"titan", "FIFO, Titan non-idle-machine placement", NS_POLICY_ORDER_FIFO,
     NS_POLICY_PLACE_TITAN, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"vclos", "FIFO, vClos isolated virtual Clos", NS_POLICY_ORDER_FIFO, NS_POLICY_PLACE_VCLOS, 1,
     NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"ocs-vclos", "FIFO, OCS-vClos (OCS layer enabled)", NS_POLICY_ORDER_FIFO,
     NS_POLICY_PLACE_OCS_VCLOS, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"dally",
     "measured Nw_sens order, Dally delay scheduling (auto-tuned timers), Nw_sens re-offers at "
     "lease expiry",
     NS_POLICY_ORDER_NW_SENS, NS_POLICY_PLACE_DALLY, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"dally-manual",
     "measured Nw_sens order, Dally delay scheduling (fixed timers), Nw_sens re-offers at lease "
     "expiry",
     NS_POLICY_ORDER_NW_SENS, NS_POLICY_PLACE_DALLY_MANUAL, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"cassini-ff", "FIFO, first-fit + CASSINI ranking and time-shifts", NS_POLICY_ORDER_FIFO,
     NS_POLICY_PLACE_FIRST_FIT, 1, NS_POLICY_ADMIT_ALL, 1, 1, 0},
    {"cassini-lwf-1", "FIFO, LWF-1 + CASSINI ranking and time-shifts", NS_POLICY_ORDER_FIFO,
     NS_POLICY_PLACE_LWF, 1, NS_POLICY_ADMIT_ALL, 1, 1, 0},
    {"fifo", "strict FIFO, first-fit, no backfilling (head-of-line blocking; Tiresias's fifo)",
     NS_POLICY_ORDER_FIFO, NS_POLICY_PLACE_FIRST_FIT, 1, NS_POLICY_ADMIT_ALL, 1, 0, 1},
    {"2d-las", "Tiresias's discretised 2D-LAS, preemptive, first-fit (its simulator's dlas-gpu)",
     NS_POLICY_ORDER_2D_LAS, NS_POLICY_PLACE_FIRST_FIT, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
    {"2d-gittins", "Tiresias's discretised 2D-Gittins, preemptive, first-fit (dlas-gpu-gittins)",
     NS_POLICY_ORDER_2D_GITTINS, NS_POLICY_PLACE_FIRST_FIT, 1, NS_POLICY_ADMIT_ALL, 1, 0, 0},
};
#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

const nsp_preset *nsp_preset_at(int i) { return i >= 0 && i < NPRESETS ? &presets[i] : NULL; }

int ns_policy_preset_count(void) { return NPRESETS; }

const char *ns_policy_preset_name(int i) {
  return (i >= 0 && i < NPRESETS) ? presets[i].name : "";
}

const char *ns_policy_preset_description(int i) {
  return (i >= 0 && i < NPRESETS) ? presets[i].desc : "";
}

int nsp_preset_find(const char *name, const char *fn) {
  NSI_TRY(nsi_check_ptr(name, fn, "preset"));
  for (int i = 0; i < NPRESETS; i++)
    if (strcmp(name, presets[i].name) == 0)
      return i;
  const char *names[NPRESETS];
  for (int i = 0; i < NPRESETS; i++)
    names[i] = presets[i].name;
  return nsi_fail_unknown_name(fn, "preset", name, "policy", names, NPRESETS);
}

int ns_policy_preset_find(const char *name) { return nsp_preset_find(name, "ns_policy_preset_find"); }

int ns_policy_preset_parts(int i, ns_policy_order *order, ns_policy_placement *placement,
                           int *kappa, ns_policy_admission *admission, int *admit_n,
                           int *cassini, int *backfill) {
  NSI_TRY(nsi_check_int(i, 0, NPRESETS - 1, "ns_policy_preset_parts", "i"));
  const nsp_preset *p = &presets[i];
  if (order != NULL)
    *order = p->order;
  if (placement != NULL)
    *placement = p->placement;
  if (kappa != NULL)
    *kappa = p->kappa;
  if (admission != NULL)
    *admission = p->admission;
  if (admit_n != NULL)
    *admit_n = p->n;
  if (cassini != NULL)
    *cassini = p->cassini;
  if (backfill != NULL)
    *backfill = !p->strict;
  return NS_OK;
}
