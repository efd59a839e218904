#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""profile_overhead.py PCTR WORK [TRIALS] - what sampling costs a
CPU-bound program, pctr profile beside perf record, as a markdown section.

WORK is bench/profile_work (a fixed amount of user-mode arithmetic that
prints its own wall and CPU time over the timed part).  Each trial runs
every case once, in an order rotated from trial to trial, so that other
load on the machine falls on all cases alike:

  bare                      WORK alone
  pctr profile              at its default frequency (1000 Hz)
  pctr profile -F 4000      perf record's default frequency
  pctr profile -g           with call chains
  pctr profile --call-graph dwarf   user stacks copied and unwound
  perf record               at its default frequency (4000 Hz)
  perf record -F 1000
  perf record -g
  perf record --call-graph dwarf   (perf unwinds later, in perf report:
                            its own CPU here leaves that out)

Estimators, per case, over the trials:
  * slowdown, CPU: median of WORK's own CPU time over the timed part,
    divided by the bare runs' median, less 1.  The sampling interrupts and
    the writing of samples are charged to the sampled task, so this is
    the cost inside the program, and it hardly moves with other load;
  * slowdown, wall: the same with WORK's wall time over the timed part
    (what a user waits for, but it carries the machine's load);
  * the profiler's own CPU time (user + system of the whole command less
    WORK's), the cost to the rest of the machine: start-up, reading the
    ring, naming symbols, writing the report.

Target (issue "pctr profile"): under 5% slowdown at the default
frequency on a CPU-bound program.  Needs perf_event_paranoid <= 2 for
user-mode sampling of one's own process (the default).
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile


def run(cmd):
    """WORK's (wall, cpu) ns and the command's children CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        return None
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "work_ns":
            cpu = (after.ru_utime - before.ru_utime +
                   after.ru_stime - before.ru_stime)
            return int(f[1]), int(f[3]), cpu
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: profile_overhead.py PCTR WORK [TRIALS]")
    pctr, work = sys.argv[1], sys.argv[2]
    trials = int(sys.argv[3]) if len(sys.argv) > 3 else 11
    perf = shutil.which("perf")
    tmp = tempfile.mkdtemp()
    data = os.path.join(tmp, "perf.data")
    cases = [
        ("bare", [work]),
        ("`pctr profile` (1000 Hz)", [pctr, "profile", "-o", os.devnull, "--", work]),
        ("`pctr profile -F 4000`", [pctr, "profile", "-F", "4000", "-o", os.devnull, "--", work]),
        ("`pctr profile -g` (1000 Hz)", [pctr, "profile", "-g", "-o", os.devnull, "--", work]),
        ("`pctr profile --call-graph dwarf` (1000 Hz)", [pctr, "profile", "--call-graph", "dwarf", "-o", os.devnull, "--", work]),
    ]
    if perf:
        cases += [
            ("`perf record` (4000 Hz)", [perf, "record", "-q", "-o", data, "--", work]),
            ("`perf record -F 1000`", [perf, "record", "-q", "-F", "1000", "-o", data, "--", work]),
            ("`perf record -g` (4000 Hz)", [perf, "record", "-q", "-g", "-o", data, "--", work]),
            ("`perf record --call-graph dwarf` (4000 Hz)", [perf, "record", "-q", "--call-graph", "dwarf", "-o", data, "--", work]),
        ]
    res = {name: [] for name, _ in cases}
    run([work])  # warm the page cache
    for t in range(trials):
        k = t % len(cases)
        for name, cmd in cases[k:] + cases[:k]:
            r = run(cmd)
            if r:
                res[name].append(r)
    shutil.rmtree(tmp, ignore_errors=True)

    bare = res["bare"]
    if not bare:
        sys.exit("profile_overhead.py: %s did not run" % work)
    bw = statistics.median(r[0] for r in bare)
    bc = statistics.median(r[1] for r in bare)
    bt = statistics.median(r[2] for r in bare)
    print("Sampling overhead on a CPU-bound program (bench/profile_work, "
          "%.2f s of CPU), %d trials, median; load average at the end %s"
          % (bc / 1e9, trials, " ".join(open("/proc/loadavg").read().split()[:3])))
    print()
    print("| case | runs | slowdown, CPU | slowdown, wall | profiler's own CPU (ms) |")
    print("|---|---:|---:|---:|---:|")
    verdict = None
    for name, _ in cases:
        rs = res[name]
        if not rs:
            print("| %s | 0 | did not run | | |" % name)
            continue
        w = statistics.median(r[0] for r in rs)
        c = statistics.median(r[1] for r in rs)
        own = statistics.median(r[2] for r in rs) - bt
        if name == "bare":
            print("| %s | %d | (%.1f ms CPU) | (%.1f ms wall) | |"
                  % (name, len(rs), c / 1e6, w / 1e6))
            continue
        sc, sw = 100 * (c / bc - 1), 100 * (w / bw - 1)
        print("| %s | %d | %+.2f%% | %+.2f%% | %.1f |" % (name, len(rs), sc, sw, own * 1e3))
        if name.startswith("`pctr profile` ("):
            verdict = sc
    if verdict is not None:
        print()
        print("pctr profile at its default frequency: %+.2f%% CPU slowdown "
              "(target < 5%%): %s" % (verdict, "met" if verdict < 5 else "NOT met"))


if __name__ == "__main__":
    main()
