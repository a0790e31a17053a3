/*
 * src/vclos/take.c - appending free GPUs to a placement: from one server
 * (Stage 0) or whole idle servers of a leaf (Stages 1-3 of vClos and
 * OCS-vClos). Free/idle counts come from core.
 */
#include "vclos/internal.h"

/* Appends up to `want` free GPUs of `server`; returns how many. */
int vc_take_gpus(const ns_cluster *c, int server, int want, ns_placement *p) {
  int got = 0;
  for (int g = server * c->gpus_per_server; g < (server + 1) * c->gpus_per_server && got < want;
       g++)
    if (nsi_gpu_free(c, g)) {
      if (ns_placement_add_gpu(p, g) < 0)
        return NS_ENOMEM;
      got++;
    }
  return got;
}

/* Appends the GPUs of the lowest `servers` idle servers of `leaf`, at most
   `gpus` GPUs in all. */
int vc_take_idle_servers(const ns_cluster *c, int leaf, int servers, int gpus,
                         ns_placement *p) {
  for (int sv = leaf * c->servers_per_leaf;
       sv < (leaf + 1) * c->servers_per_leaf && servers > 0 && gpus > 0; sv++)
    if (nsi_free_gpus_on_server(c, sv) == c->gpus_per_server) {
      int got = vc_take_gpus(c, sv, gpus < c->gpus_per_server ? gpus : c->gpus_per_server, p);
      if (got < 0)
        return got;
      gpus -= got;
      servers--;
    }
  return NS_OK;
}
