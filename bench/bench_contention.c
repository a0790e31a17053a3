/*
 * bench/bench_contention.c - the phase model's contention loss against the
 * HKBU measurements (network-model issue): for each of the 48 (k, size) rows
 * of ../shared/data/contention/allreduce-latency-vs-concurrency.csv, k
 * identical 2-GPU jobs whose all-reduces collide in lock-step (one GPU on
 * each of 2 servers, one NIC each), with alpha and the link rate fitted to
 * -single.csv, under the default contention curve and under the ideal one
 * (plain max-min). Prints measured, simulated and their ratio per row, then
 * the mean and worst |error|. tests/unit/test_sim_contention.c asserts the
 * bound (mean <= 12 %, worst <= 40 %); this prints the table for
 * bench/RESULTS.md. Skips (exit 0) when the data is absent.
 */
#include <math.h>
#include <netsched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
  int k;
  double bytes, us;
} row;

static int read_rows(const char *dir, const char *name, row *out, int cap) {
  char path[4096];
  snprintf(path, sizeof path, "%s/contention/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  char line[256];
  int n = 0;
  if (fgets(line, sizeof line, f) == NULL) { /* header */
    fclose(f);
    return -1;
  }
  while (n < cap && fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "%d,%lf,%lf", &out[n].k, &out[n].bytes, &out[n].us) == 3)
      n++;
  fclose(f);
  return n;
}

/* One GPU per server, round robin (every job on both servers' NICs). */
static int spread(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  int need = ns_job_gpus(job), gps = ns_cluster_gpus_per_server(c);
  for (int k = 0; k < gps && need > 0; k++)
    for (int sv = 0; sv < ns_cluster_server_count(c) && need > 0; sv++)
      if (ns_cluster_gpu_is_free(c, sv * gps + k) == 1)
        ns_placement_add_gpu(out, sv * gps + k), need--;
  return need > 0 ? NS_ENOSPACE : NS_OK;
}

/* The simulated all-reduce (ms) of k lock-step jobs of `bytes`; < 0 on error. */
static double simulate(int k, double bytes, double alpha, double gbps, int ideal) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = NULL;
  double t = -1;
  if (o && ns_sim_opts_set_place_fn(o, spread, NULL) == NS_OK &&
      ns_sim_opts_set_cluster(o, 1, 0, 2, 16, 0, gbps) == NS_OK &&
      ns_sim_opts_set_allreduce_latency(o, alpha) == NS_OK &&
      (!ideal || ns_sim_opts_set_contention_curve(o, NULL, NULL, 0) == NS_OK) &&
      (s = ns_sim_new(o)) != NULL) {
    int ok = 1;
    for (int j = 0; j < k && ok; j++) {
      char name[16];
      snprintf(name, sizeof name, "j%d", j);
      ok = ns_sim_add_job(s, name, 0, 2, 1, 1.0, (uint64_t)bytes, 0) == j;
    }
    double fin = 0, arr = 0;
    if (ok && ns_sim_run(s) == NS_OK &&
        ns_sim_job_result(s, 0, &arr, NULL, &fin, NULL) == NS_OK)
      t = fin - arr - 1.0;
  }
  ns_sim_free(s);
  ns_sim_opts_free(o);
  return t;
}

int main(void) {
  const char *dir = getenv("NS_DATA_DIR");
  row single[32], conc[64];
  int n1 = dir ? read_rows(dir, "allreduce-latency-single.csv", single, 32) : -1;
  int n2 = dir ? read_rows(dir, "allreduce-latency-vs-concurrency.csv", conc, 64) : -1;
  if (n1 < 2 || n2 < 1) {
    printf("bench_contention: skipped (NS_DATA_DIR/contention/ not present)\n");
    return 0;
  }
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (int i = 0; i < n1; i++)
    mx += single[i].bytes / n1, my += single[i].us / 1e3 / n1;
  for (int i = 0; i < n1; i++) {
    sxy += (single[i].bytes - mx) * (single[i].us / 1e3 - my);
    sxx += (single[i].bytes - mx) * (single[i].bytes - mx);
  }
  double beta = sxy / sxx, alpha = my - beta * mx, gbps = 8.0 / (beta * 1e6);
  printf("contention: alpha %.2f ms, beta %.3f ms per 1e6 B (link %.3f Gbps) from -single.csv\n",
         alpha, beta * 1e6, gbps);
  printf("| k | MiB | measured ms | default curve ms | ratio | ideal max-min ms | ratio |\n");
  printf("|---|---|---|---|---|---|---|\n");
  double sum[2] = {0, 0}, worst[2] = {0, 0};
  for (int r = 0; r < n2; r++) {
    double m = conc[r].us / 1e3, t[2];
    for (int c = 0; c < 2; c++) {
      t[c] = simulate(conc[r].k, conc[r].bytes, alpha, gbps, c);
      if (t[c] < 0) {
        fprintf(stderr, "bench_contention: run failed: %s\n", ns_last_error());
        return 1;
      }
      double e = fabs(t[c] - m) / m;
      sum[c] += e;
      worst[c] = e > worst[c] ? e : worst[c];
    }
    printf("| %d | %.0f | %.1f | %.1f | %.2f | %.1f | %.2f |\n", conc[r].k,
           conc[r].bytes / 1048576.0, m, t[0], t[0] / m, t[1], t[1] / m);
  }
  printf("mean |error|: default curve %.1f %%, ideal %.1f %%; worst: %.1f %%, %.1f %%\n",
         100 * sum[0] / n2, 100 * sum[1] / n2, 100 * worst[0], 100 * worst[1]);
  return 0;
}
