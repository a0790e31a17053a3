#!/usr/bin/env python3
"""vClos from Python: give each job an isolated virtual Clos (its own
leaf-spine links), commit it, and route its traffic.

Run from a checkout after `make`:
    PYTHONPATH=bindings/python python3 examples/python/vclos_cluster.py
"""

import netsched
from netsched import Cluster, Job, vclos


def main():
    # 4 racks of 2 servers x 4 GPUs, 4 spines, one 100 Gbps link per
    # leaf-spine pair.
    with Cluster.leaf_spine(leaves=4, spines=4, servers_per_leaf=2, gpus_per_server=4,
                            links_per_pair=1, link_gbps=100.0) as cluster, \
            vclos.Options(use_milp=False) as opts:
        jobs = [Job("bert-%d" % i, n) for i, n in enumerate((8, 2, 8, 16))]
        for job in jobs:
            try:
                p = vclos.place(cluster, job, opts)
            except netsched.NoSpaceError as e:
                print("%-7s %2d GPUs: waits (%s)" % (job.name, job.gpus, e))
                continue
            cluster.commit(job, p)
            print("%-7s %2d GPUs: %s, virtual Clos %d x %d, links %s"
                  % (job.name, job.gpus, p.gpus, p.virtual_leaves, p.virtual_spines,
                     p.links))
            if p.link_count:
                src, dst = p[0], p[-1]
                print("         GPU %d -> GPU %d goes through spine %d"
                      % (src, dst, vclos.route(cluster, src, dst)))
        print("free GPUs left: %d of %d" % (cluster.free_gpu_count, cluster.gpu_count))
        for job in jobs:
            if cluster.is_committed(job):
                cluster.release(job)
            job.close()


if __name__ == "__main__":
    main()
