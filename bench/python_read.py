#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""python_read.py - what the Python binding adds to a read.

In one process, on the same open sets (1 and 4 software events counting
this thread), round-robin trial by trial:

  c_read          pctr_set_read() alone, in a C loop (Set._bench_read)
  c_values        pctr_set_read_values() alone, in a C loop
  py_read         s.read() from a Python loop
  py_values       s.read_values() from a Python loop
  perf_counter_ns time.perf_counter_ns() from a Python loop
  loop            the Python loop alone, calling a no-op C method: the
                  clear() of an empty list, called as s.read() is (a
                  METH_NOARGS method) and allocating nothing
  py_c1, py_c0    s._bench_read(1) and s._bench_read(0) from a Python
                  loop: the same call, with one library read and with
                  none (the control below)

The estimator is bench/harness.h's (nanoBench's): each trial times n and
2n repetitions; over the trials the median and the minimum of each are
taken, then subtracted and divided by n, so fixed costs (the clock reads,
the set-up) cancel.  The Python cases include the loop's own cost per
repetition: "added" is py_read - c_read - loop, what the binding adds to
the library's read, and "perf_counter_ns" is reported net of the loop as
well, so the two are compared on equal terms.

The control: py_c1 - py_c0 is what one library read costs when a Python
loop calls it, all the Python-side work being the same in both; less
c_read (the same read back to back in C) it is what the system adds to
the Python side's work for following a read, with none of the binding's
read code in it.  Where reads are system calls, "added" is to be read
against it.

With --instructions, each case runs instead under callgrind at N and 2N
repetitions (PYTHONHASHSEED=0, so that start-up is the same) and the
user-space instructions of one repetition are the difference over N: a
figure that load does not move.  The system call itself is not counted.

With --events hardware the sets count instructions:u (1 and 4 of them),
read in user space where there is a PMU: bench/python_read_guest.sh runs
it so in the x86-64 guest, whose clock counts instructions.

usage: python_read.py [-t TRIALS] [-o FILE.md] [--events software|hardware]
                      [--instructions [-n N]]
Needs the package (PYTHONPATH=build/bindings/python).  Prints a Markdown
table; -o writes it to FILE.md as well.
"""
import argparse
import functools
import os
import re
import statistics
import subprocess
import sys
import time

import pctr

# --events: software ones, always read with read(2), or hardware ones,
# read in user space where the machine has a PMU (the x86-64 guest:
# bench/python_read_guest.sh)
EVENT_SETS = {
    "software": {1: "task-clock",
                 4: "task-clock,context-switches,page-faults,cpu-migrations"},
    "hardware": {1: "instructions:u",
                 4: "instructions:u,instructions:u,instructions:u,"
                    "instructions:u"}}
EVENTS = dict(EVENT_SETS["software"])
TARGET_NS = 2_000_000        # n repetitions take at least 2 ms
# The loop's no-op.  Not s.__sizeof__, which makes and frees an int (the
# set is over 256 bytes): 120 instructions that the loop's figure then
# took away from what a read adds.
NOOP = [].clear


def py_loop(fn):
    def run(n):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        return time.perf_counter_ns() - t0
    return run


def cases_for(k, s):
    return [("c_read", k, lambda n: s._bench_read(n)),
            ("c_values", k, lambda n: s._bench_read(n, True)),
            ("py_read", k, py_loop(s.read)),
            ("py_values", k, py_loop(s.read_values)),
            ("py_c1", k, py_loop(functools.partial(s._bench_read, 1))),
            ("py_c0", k, py_loop(functools.partial(s._bench_read, 0)))]


def calibrate(run):
    n = 16
    while run(n) < TARGET_NS:
        n *= 2
    return n


def measure(cases, trials):
    ns = [calibrate(c[2]) for c in cases]
    t1 = [[] for _ in cases]
    t2 = [[] for _ in cases]
    for _ in range(trials):
        for i, c in enumerate(cases):
            t1[i].append(c[2](ns[i]))
            t2[i].append(c[2](2 * ns[i]))
    out = {}
    for i, (name, k, _) in enumerate(cases):
        med = (statistics.median(t2[i]) - statistics.median(t1[i])) / ns[i]
        low = (min(t2[i]) - min(t1[i])) / ns[i]
        out[(name, k)] = (med, low, ns[i])
    return out


def run_one(case, k, n):
    """n repetitions of one case, for callgrind to count"""
    s = pctr.Set(EVENTS[k])
    s.open()
    s.enable()
    fn = {"c_read": lambda: s._bench_read(n),
          "c_values": lambda: s._bench_read(n, True),
          "py_read": lambda: py_loop(s.read)(n),
          "py_values": lambda: py_loop(s.read_values)(n),
          "loop": lambda: py_loop(NOOP)(n),
          "perf_counter_ns": lambda: py_loop(time.perf_counter_ns)(n)}
    fn[case]()
    s.close()


def instructions(case, k, n):
    env = dict(os.environ, PYTHONHASHSEED="0")
    ir = []
    for reps in (n, 2 * n):
        p = subprocess.run(["valgrind", "--tool=callgrind",
                            "--callgrind-out-file=/dev/null", sys.executable,
                            __file__, "--one", case, str(k), str(reps)],
                           env=env, capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", p.stderr)
        if p.returncode or not m:
            sys.exit("python_read.py: callgrind failed: " + p.stderr[-500:])
        ir.append(int(m.group(1)))
    return (ir[1] - ir[0]) / n


def main_instructions(a):
    rows = {}
    for case in ("loop", "perf_counter_ns"):
        rows[(case, 0)] = instructions(case, 1, a.n)
    for k in EVENTS:
        for case in ("c_read", "py_read", "c_values", "py_values"):
            rows[(case, k)] = instructions(case, k, a.n)
    loop = rows[("loop", 0)]
    lines = ["| events | C read | Python read | added | C read_values | "
             "Python read_values | added |", "|---|---|---|---|---|---|---|"]
    for k in EVENTS:
        c, p = rows[("c_read", k)], rows[("py_read", k)]
        cv, pv = rows[("c_values", k)], rows[("py_values", k)]
        lines.append("| %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |" % (
            k, c, p, p - c - loop, cv, pv, pv - cv - loop))
    lines += ["", "perf_counter_ns(): %.0f net of the loop; the Python "
              "loop: %.0f per repetition.  User-space instructions per "
              "call (callgrind, N = %d and 2N)." % (
                  rows[("perf_counter_ns", 0)] - loop, loop, a.n)]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-t", "--trials", type=int, default=31)
    ap.add_argument("-o", "--output")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("-n", type=int, default=20000)
    ap.add_argument("--events", choices=sorted(EVENT_SETS),
                    default="software")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    EVENTS.clear()
    EVENTS.update(EVENT_SETS[a.events])
    if a.one:
        return run_one(a.one[0], int(a.one[1]), int(a.one[2]))
    if a.instructions:
        text = main_instructions(a)
        sys.stdout.write(text)
        if a.output:
            with open(a.output, "w") as f:
                f.write(text)
        return
    try:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    except OSError:
        pass
    sets = {}
    for k, ev in EVENTS.items():
        s = pctr.Set(ev)
        s.open()
        s.enable()
        sets[k] = s
    cases = [("loop", 0, py_loop(NOOP)),
             ("perf_counter_ns", 0, py_loop(time.perf_counter_ns))]
    for k, s in sets.items():
        cases += cases_for(k, s)
    r = measure(cases, a.trials)
    path = sets[1].read().path
    loop = r[("loop", 0)]
    pcn = r[("perf_counter_ns", 0)]
    pcn_net = (pcn[0] - loop[0], pcn[1] - loop[1])
    lines = ["| events | C read | Python read | added | "
             "C read_values | Python read_values | added |",
             "|---|---|---|---|---|---|---|"]
    for k in EVENTS:
        c, p = r[("c_read", k)], r[("py_read", k)]
        cv, pv = r[("c_values", k)], r[("py_values", k)]
        add = (p[0] - c[0] - loop[0], p[1] - c[1] - loop[1])
        addv = (pv[0] - cv[0] - loop[0], pv[1] - cv[1] - loop[1])
        lines.append("| %d | %s | %s | %s | %s | %s | %s |" % (
            k, fmt(c), fmt(p), fmt(add), fmt(cv), fmt(pv), fmt(addv)))
    lines += ["", "| events | Python call, one read | the same call, "
              "no read | one read from Python | C read | what the system "
              "adds |", "|---|---|---|---|---|---|"]
    for k in EVENTS:
        c1, c0, c = r[("py_c1", k)], r[("py_c0", k)], r[("c_read", k)]
        one = (c1[0] - c0[0], c1[1] - c0[1])
        lines.append("| %d | %s | %s | %s | %s | %s |" % (
            k, fmt(c1), fmt(c0), fmt(one), fmt(c),
            fmt((one[0] - c[0], one[1] - c[1]))))
    lines += ["", "perf_counter_ns(): %s net of the loop (%s with it); "
              "the Python loop: %s per repetition." % (
                  fmt(pcn_net), fmt(pcn), fmt(loop)),
              "Read path: %s; Python %s; %d trials; figures are "
              "median / minimum ns per call." % (
                  path, sys.version.split()[0], a.trials)]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    for s in sets.values():
        s.close()


def fmt(x):
    return "%.0f / %.0f" % (x[0], x[1])


if __name__ == "__main__":
    main()
