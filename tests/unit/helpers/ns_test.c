#include "ns_test.h"

#include <stdlib.h>
#include <unistd.h>

const char *ns_test_data_path(const char *relative) {
  static char path[4096];
  const char *dir = getenv("NS_DATA_DIR");
  if (dir == NULL || *dir == '\0')
    dir = "../shared/data";
  snprintf(path, sizeof path, "%s/%s", dir, relative);
  if (access(path, R_OK) != 0) {
    printf("[  SKIP    ] %s not found (set NS_DATA_DIR to ../shared/data)\n", path);
    return NULL;
  }
  return path;
}

double ns_test_metric(const ns_sim *s, ns_sim_metric_id m) {
  double v = NAN;
  assert_int_equal(ns_sim_metric(s, m, &v), NS_OK);
  return v;
}

double ns_test_jct_ms(const ns_sim *s, int job) {
  double a, st, f;
  assert_int_equal(ns_sim_job_result(s, job, &a, &st, &f, NULL), NS_OK);
  return f - a;
}

int ns_test_place_spread(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  int need = ns_job_gpus(job), gps = ns_cluster_gpus_per_server(c);
  int servers = ns_cluster_server_count(c);
  for (int k = 0; k < gps && need > 0; k++)
    for (int sv = 0; sv < servers && need > 0; sv++) {
      int g = sv * gps + k;
      if (ns_cluster_gpu_is_free(c, g) == 1)
        ns_placement_add_gpu(out, g), need--;
    }
  if (need > 0) {
    ns_placement_clear(out);
    return NS_ENOSPACE;
  }
  return NS_OK;
}

int ns_test_place_cross(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  int per_leaf = ns_cluster_gpu_count(c) / ns_cluster_leaf_count(c);
  for (int leaf = 0; leaf < 2 && ns_job_gpus(job) == 2; leaf++)
    for (int g = leaf * per_leaf; g < (leaf + 1) * per_leaf; g++)
      if (ns_cluster_gpu_is_free(c, g) == 1) {
        ns_placement_add_gpu(out, g);
        break;
      }
  if (ns_placement_gpu_count(out) != 2) {
    ns_placement_clear(out);
    return NS_ENOSPACE;
  }
  return NS_OK;
}

void ns_test_temp_file(char *path, const char *text) {
  strcpy(path, "/tmp/ns_test_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}
