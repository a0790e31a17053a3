#!/usr/bin/env python3
"""CASSINI from Python: how compatible are jobs that share a link, and how
far should each be time-shifted so their Up phases interleave?

Run from a checkout after `make`:
    PYTHONPATH=bindings/python python3 examples/python/cassini_link.py
"""

from netsched import Cluster, Job, Link, Placement, cassini

LINK_GBPS = 50.0


def updown(name, iteration_ms, up_ms, gbps, gpus=8):
    """Communicates at `gbps` for up_ms, then computes for the rest."""
    return Job(name, gpus, iteration_ms=iteration_ms,
               phases=[(up_ms, gbps), (iteration_ms - up_ms, 0.0)])


def main():
    # Two VGG16-like jobs (255 ms iterations, 114 ms of all-reduce at full
    # rate) and a ResNet-like job that barely uses the network.
    with updown("vgg16-a", 255, 114, LINK_GBPS) as a, \
            updown("vgg16-b", 255, 114, LINK_GBPS) as b, \
            updown("resnet50", 100, 20, 5.0) as r:
        # One link carrying both VGG jobs: CASSINI finds the rotation of their
        # unified circles that keeps the link under capacity (Table 1).
        with Link("leaf0-spine1", LINK_GBPS, [a, b]) as link:
            score, shifts = cassini.score(link)
            print("link %s: score %.3f" % (link.name, score))
            for job, shift in zip(link.jobs, shifts):
                print("  %-9s start %6.1f ms late" % (job.name, shift))

        # Two candidate placements for the ResNet job: next to one VGG job,
        # or sharing both uplinks with both VGG jobs. Algorithm 2 ranks them
        # by mean link score and solves the chosen one's unique time-shifts.
        with Link("up0", LINK_GBPS) as up0, Link("up1", LINK_GBPS) as up1, \
                cassini.Candidate([(a, up0), (r, up0), (b, up1)]) as spread, \
                cassini.Candidate([(a, up0), (b, up0), (r, up0)]) as packed, \
                cassini.Options(angle_step_deg=5, threads=2) as opts:
            best, scores = cassini.rank([spread, packed], opts)
            chosen = [spread, packed][best]
            print("candidate scores: spread %.3f, packed %.3f -> %s"
                  % (scores[0], scores[1], ["spread", "packed"][best]))
            for job in (a, b, r):
                print("  %-9s shift %6.1f ms" % (job.name, chosen.shift_ms(job)))

    # The same decision without describing links: a 2-leaf cluster (one
    # spine, two 2-GPU servers per leaf); job "x" runs across the leaves on
    # GPUs 0 and 4. The library finds the links each placement of "y" would
    # share with it (NIC ports, ECMP leaf-spine links) and CASSINI ranks them.
    with Cluster.leaf_spine(2, 1, 2, 2, 1, LINK_GBPS) as cl, \
            updown("x", 255, 160, LINK_GBPS, gpus=2) as x, \
            updown("y", 255, 160, LINK_GBPS, gpus=2) as y, \
            Placement([0, 4]) as px, Placement([1, 5]) as across, \
            Placement([1, 3]) as inside:
        cl.commit(x, px)
        with cassini.Candidate.from_cluster(cl, y, across) as c0, \
                cassini.Candidate.from_cluster(cl, y, inside) as c1:
            best, scores = cassini.rank([c0, c1])
            print("y across the leaves %.3f, inside leaf 0 %.3f -> %s"
                  % (scores[0], scores[1], ["across", "inside"][best]))
            cassini.rank([c0])  # suppose y had to go across: its shifts
            print("  across: x shift %.1f ms; x now takes 280 ms -> %d job re-adjusted, "
                  "x shift %.1f ms" % (c0.shift_ms(x), c0.readjust({x: 280.0}),
                                        c0.shift_ms(x)))
        cl.release(x)


if __name__ == "__main__":
    main()
