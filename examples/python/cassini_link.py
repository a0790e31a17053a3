#!/usr/bin/env python3
"""CASSINI from Python: how compatible are jobs that share a link, and how
far should each be time-shifted so their Up phases interleave?

Run from a checkout after `make`:
    PYTHONPATH=bindings/python python3 examples/python/cassini_link.py
"""

from netsched import Job, Link, cassini

LINK_GBPS = 50.0


def updown(name, iteration_ms, up_ms, gbps):
    """Communicates at `gbps` for up_ms, then computes for the rest."""
    return Job(name, 8, iteration_ms=iteration_ms,
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


if __name__ == "__main__":
    main()
