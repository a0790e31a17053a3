#!/usr/bin/env python3
"""vClos from Python: give each job an isolated virtual Clos (whole idle
servers plus its own leaf-spine links), commit it, and route its traffic.

Run from a checkout after `make`:
    PYTHONPATH=bindings/python python3 examples/python/vclos_cluster.py
"""

import netsched
from netsched import Cluster, Job, vclos


def describe(cluster, job, p):
    where = "one server" if p.server_count == 1 else "%d servers" % p.server_count
    line = "%-7s %2d GPUs on %s: %s" % (job.name, job.gpus, where, p.gpus)
    if p.link_count:
        line += "\n        virtual Clos %d leaves x %d spines, links (leaf, spine) %s" % (
            p.virtual_leaves, p.virtual_spines, p.links)
    return line


def main():
    # 4 racks of 2 servers x 4 GPUs, 4 spines, one 100 Gbps link per
    # leaf-spine pair. Another tenant keeps one GPU busy on the second
    # server of every rack, so no rack can host an 8-GPU job alone.
    with Cluster.leaf_spine(leaves=4, spines=4, servers_per_leaf=2, gpus_per_server=4,
                            links_per_pair=1, link_gbps=100.0) as cluster, \
            vclos.Options(use_milp=False) as opts:
        cluster.occupy([4, 12, 20, 28])
        jobs = [Job("bert-%d" % i, n) for i, n in enumerate((8, 2, 8, 8))]
        for job in jobs:
            try:
                p = vclos.place(cluster, job, opts)
            except netsched.NoSpaceError as e:
                print("%-7s %2d GPUs: waits (%s)" % (job.name, job.gpus, e))
                continue
            cluster.commit(job, p)
            print(describe(cluster, job, p))
            if p.link_count:
                # source routing: GPU on port i of its leaf uses virtual spine i
                src = p[0]
                dst = next(g for g in p if cluster.leaf_of_server(cluster.server_of_gpu(g)) !=
                           cluster.leaf_of_server(cluster.server_of_gpu(src)))
                print("        GPU %d -> GPU %d crosses spine %d"
                      % (src, dst, vclos.route(cluster, src, dst)))
        print("free GPUs left: %d of %d" % (cluster.free_gpu_count, cluster.gpu_count))
        for job in jobs:
            if cluster.is_committed(job):
                cluster.release(job)
            job.close()


if __name__ == "__main__":
    main()
