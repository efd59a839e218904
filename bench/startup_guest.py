#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""startup_guest.py - whole-process time of commands, taking turns.

Each argument is LABEL=COMMAND (COMMAND's words separated by commas).
Every round runs each command N times in turn (os.posix_spawn, output to
/dev/null, waitpid), timing each run with time.perf_counter_ns(); the
runs of all rounds are pooled per command: median and minimum, and each
command's median and minimum over those of the command labelled 'perf'
when there is one.  Run by bench/startup_guest.sh in the x86-64 guest,
whose clock counts instructions: there the figures are exact counts of
the work of the spawn, the command and the wait.

usage: startup_guest.py [-r ROUNDS] [-n N] LABEL=CMD[,ARG...]...
"""
import argparse
import os
import statistics
import sys
import time


def run(argv, null):
    acts = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=acts)
    _, status = os.waitpid(pid, 0)
    t = time.perf_counter_ns() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("startup_guest.py: %s exited with %d" %
                 (" ".join(argv), os.waitstatus_to_exitcode(status)))
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-r", "--rounds", type=int, default=5)
    ap.add_argument("-n", type=int, default=10)
    ap.add_argument("commands", nargs="+")
    a = ap.parse_args()
    cmds = [(c.split("=", 1)[0], c.split("=", 1)[1].split(","))
            for c in a.commands]
    null = os.open("/dev/null", os.O_WRONLY)
    times = {label: [] for label, _ in cmds}
    for label, argv in cmds:    # warm-up: the page cache, the loader
        run(argv, null)
    for _ in range(a.rounds):
        for label, argv in cmds:
            times[label] += [run(argv, null) for _ in range(a.n)]
    ref = times.get("perf")
    print("| command | median | min | median vs perf | min vs perf |")
    print("|---|---:|---:|---:|---:|")
    for label, argv in cmds:
        t = times[label]
        med, low = statistics.median(t), min(t)
        rel = ("%.3f | %.3f" % (med / statistics.median(ref), low / min(ref))
               if ref else "- | -")
        print("| `%s` (%s) | %.0f | %.0f | %s |" % (
            " ".join(argv), label, med, low, rel))
    print("\n%d rounds of %d runs each, taking turns; figures in the guest "
          "clock's ns." % (a.rounds, a.n))


if __name__ == "__main__":
    main()
