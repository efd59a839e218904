#!/usr/bin/env python3
"""Count test cases, tier by tier, from the logs scripts/check.sh keeps.

usage: summary.py [--ci] [--expect TIER,TIER...] [DIR]

DIR (default build/check-logs) holds, for each stage check.sh ran:

  STAGE.json   meson's testlog: one JSON object per test program, whose
               "stdout" is the program's TAP output
  STAGE.list   "meson test --list" of the same selection: the programs that
               must appear in STAGE.json
  STAGE.tap    a TAP stream (fuzz, hw); a hw stream's "# guest kernel: ..."
               line names the kernel its guests booted
  times        "start EPOCH", then "STAGE SECONDS [NOTE]" for each stage
               check.sh timed (deps, fast, ..., hw-x86_64), then "end
               EPOCH": the total is the clock's when both are there (a
               stage beside the others, hw-prepare, is not added)

The "fast" stage is split into one tier per meson suite (unit, sys,
compat, tool, repro); every other stage is one tier.  Prints the failed
cases and the reasons their programs gave (assertion
messages, a sanitizer's verdict: the lines a CI log's tail must keep),
then how long each stage took and the kernels the guests ran, then one
line per tier, then "N passed, N failed, N skipped".

How a case counts:
  ok                      passed
  ok # SKIP               skipped
  not ok                  failed
  not ok # TODO why       failed: a known defect is still a failure (the
                          line names it; its reproducer belongs in
                          tests/repro/, not in a test that passes)
  ok # TODO why           failed: the known defect is gone, the TODO must go
  planned, never reported failed (a crash, a timeout, a bail-out)
  a program without TAP   one case: its exit status
  a program that fails after its cases all passed (a leak found at exit,
  a timeout): one more failed case
  a program of STAGE.list missing from STAGE.json: one failed case

A tier whose stage left no log "did not run": with --ci (or CI=true) that
is one failed case and exit 1, otherwise one skipped case.  A tier that
skipped as a whole ("1..0 # SKIP why") is one skipped case, and a failed
one with --ci.  Exit 1 if anything failed, or if nothing passed or
skipped.
"""
import argparse
import json
import os
import re
import sys

SUITE_TIERS = ('unit', 'sys', 'compat', 'tool', 'repro')
ALL_TIERS = SUITE_TIERS + ('asan', 'valgrind', 'fuzz', 'hw')

PLAN = re.compile(r'^1\.\.(\d+)(?:\s*#\s*(?:skip\w*)\s*(.*))?', re.I)
RESULT = re.compile(r'^(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?([^#]*)(?:#\s*(.*))?',
                    re.I)
DIRECTIVE = re.compile(r'^(skip|todo)\w*\s*(.*)', re.I)
BAIL = re.compile(r'^Bail out!\s*(.*)', re.I)

# meson results for a test without TAP (protocol exitcode)
EXIT_RESULTS = {'OK': 'passed', 'SKIP': 'skipped'}


class Tier:
    def __init__(self, name):
        self.name = name
        self.passed = self.failed = self.skipped = 0
        self.ran = False      # a log of this tier's stage exists
        self.programs = 0     # test programs (or TAP streams) seen
        self.why = ''         # skipped as a whole, or did not run: why
        self.problems = []    # one line per failed case
        self.reasons = []     # what the failed programs said, in order

    def fail(self, what):
        self.failed += 1
        self.problems.append(what)

    def line(self):
        label = '%-9s' % (self.name + ':')
        counts = '%d passed, %d failed, %d skipped' % (
            self.passed, self.failed, self.skipped)
        if not self.ran:
            return '%s %s - did not run: %s' % (label, counts, self.why)
        if self.why:
            return '%s %s - skipped as a whole: %s' % (label, counts,
                                                        self.why)
        if self.programs == 0:
            return '%s %s - no tests defined' % (label, counts)
        return '%s %s' % (label, counts)


def count_tap(text, tier, prog):
    """Count the TAP in @text into @tier; False if it holds no plan."""
    plan = None
    seen = 0
    bailed = None
    for raw in text.splitlines():
        # results start the line: an indented one is a nested stream's
        line = raw.rstrip()
        m = PLAN.match(line)
        if m:
            plan = int(m.group(1))
            if plan == 0:
                tier.why = m.group(2) or 'no reason given'
            continue
        m = BAIL.match(line)
        if m:
            bailed = m.group(1) or 'no reason given'
            break
        m = RESULT.match(line)
        if not m:
            continue
        seen += 1
        ok = m.group(1).lower() == 'ok'
        comment = (m.group(4) or '').strip()
        d = DIRECTIVE.match(comment)
        directive = d.group(1).lower() if d else ''
        why = d.group(2).strip() if d else comment
        name = '%s: %s' % (prog, m.group(3).strip()) if prog else \
            m.group(3).strip()
        if directive == 'skip':
            tier.skipped += 1
        elif directive == 'todo' and ok:
            tier.fail('%s: passed, but is marked TODO (%s): the known '
                      'defect is gone, remove the TODO' %
                      (name, why))
        elif directive == 'todo':
            tier.fail('%s: known defect (%s): still a failure' %
                      (name, why))
        elif ok:
            tier.passed += 1
        else:
            tier.fail(name + (': ' + why if why else ''))
    if plan is None and bailed is None:
        return seen > 0
    missing = plan - seen if plan is not None and plan > seen else 0
    if bailed is not None:
        tier.fail('%s: bailed out: %s' % (prog or tier.name, bailed))
        tier.failed += max(missing - 1, 0)
    elif missing:
        tier.fail('%s: %d of %d planned case(s) never reported' %
                  (prog or tier.name, missing, plan))
        tier.failed += missing - 1
    return True


def tier_of(name, stage):
    """The tier of a meson test "project:suite+suite / name" in @stage."""
    if stage != 'fast':
        return stage
    suites = name.split(' / ', 1)[0].split(':', 1)[-1].split('+') \
        if ' / ' in name else []
    for s in suites:
        if s in SUITE_TIERS:
            return s
    return suites[0] if suites else stage


def count_meson(d, stage, tiers):
    """STAGE.json against STAGE.list into @tiers."""
    logged = {}
    path = os.path.join(d, stage + '.json')
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    t = json.loads(line)
                except ValueError:
                    continue
                logged[t.get('name', '?')] = t
    listed = []
    path = os.path.join(d, stage + '.list')
    if os.path.exists(path):
        with open(path) as f:
            listed = [ln.strip() for ln in f if ln.strip()]
    names = listed + [n for n in logged if n not in listed]
    for tier in tiers.values():
        if tier_of_stage(tier.name) == stage:
            tier.ran = True
    for name in names:
        tier = tiers.setdefault(tier_of(name, stage),
                                Tier(tier_of(name, stage)))
        tier.ran = True
        tier.programs += 1
        count_program(name, logged.get(name), tier)


def count_program(name, t, tier):
    prog = name.split(' / ', 1)[-1]
    if t is None:
        tier.fail('%s: listed, but never reported (meson stopped?)' % prog)
        return
    res = t.get('result', '')
    before = tier.failed
    out = t.get('stdout') or ''
    # meson's TAP protocol needs a plan: without one this is an exit-code
    # test, whatever its output looks like
    if not any(PLAN.match(ln) for ln in out.splitlines()) or \
            not count_tap(out, tier, prog):
        if EXIT_RESULTS.get(res, 'failed') == 'failed':
            tier.fail('%s: %s, exit status %s' %
                      (prog, res, t.get('returncode')))
        elif EXIT_RESULTS[res] == 'skipped':
            tier.skipped += 1
        else:
            tier.passed += 1
        return
    if tier.why and res == 'SKIP':
        # "1..0 # SKIP" of a program: one skipped case, not a tier skip
        tier.why = ''
        tier.skipped += 1
        return
    if res not in ('OK', 'SKIP') and tier.failed == before:
        tier.fail('%s: %s after all its cases passed, exit status %s' %
                  (prog, res, t.get('returncode')))
    if tier.failed > before:
        tier.reasons += reasons(prog, out + '\n' + (t.get('stderr') or ''))


# what a failing program says about why: tests/test.h's "# FILE:LINE: ..."
# assertion lines, a sanitizer's or valgrind's verdict
REASON = re.compile(r'^# [\w./-]+\.[ch]:\d+: |ERROR: \w+Sanitizer|'
                    r'runtime error:|^==\d+== (?:Invalid|Conditional|'
                    r'\d+ bytes in)|TIMEOUT|timed out', re.I)


def reasons(prog, text, most=6):
    found = [ln.strip() for ln in text.splitlines() if REASON.search(ln)]
    cut = ['  %s: ... and %d more' % (prog, len(found) - most)] \
        if len(found) > most else []
    return ['  %s: %s' % (prog, ln[:300]) for ln in found[:most]] + cut


def tier_of_stage(tier):
    return 'fast' if tier in SUITE_TIERS else tier


def minutes(secs):
    return '%dm%02ds' % (secs // 60, secs % 60)


def stage_times(d):
    """ "time: STAGE 1m02s, ...; 12m30s in all" from DIR/times, or None."""
    path = os.path.join(d, 'times')
    if not os.path.exists(path):
        return None
    parts, total, clock = [], 0, {}
    with open(path) as f:
        for line in f:
            w = line.split(None, 2)
            if len(w) < 2 or not w[1].isdigit():
                continue
            if w[0] in ('start', 'end'):
                clock[w[0]] = int(w[1])
                continue
            secs = int(w[1])
            total += secs
            note = ' (%s)' % w[2].strip() if len(w) > 2 and w[2].strip() \
                else ''
            parts.append('%s %s%s' % (w[0], minutes(secs), note))
    if not parts:
        return None
    # a stage beside the others (hw-prepare) is not added: the clock
    if 'start' in clock and 'end' in clock:
        total = clock['end'] - clock['start']
    return 'time: %s; %s in all' % (', '.join(parts), minutes(total))


GUEST_KERNEL = re.compile(r'^#\s*guest kernel:\s*(.*)')


def guest_kernels(d, names):
    """ "guest kernel: TIER KERNEL, ..." from the hw stages' TAP."""
    found = []
    for name in names:
        path = os.path.join(d, name + '.tap')
        if not name.startswith('hw') or not os.path.exists(path):
            continue
        with open(path, errors='replace') as f:
            for line in f:
                m = GUEST_KERNEL.match(line)
                if m:
                    found.append('%s %s' % (name, m.group(1).strip()))
                    break
            else:
                found.append('%s (not reported)' % name)
    return 'guest kernel: ' + ', '.join(found) if found else None


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument('--ci', action='store_true',
                    default=os.environ.get('CI', '') == 'true')
    ap.add_argument('--expect', default=','.join(ALL_TIERS))
    ap.add_argument('dir', nargs='?', default='build/check-logs')
    a = ap.parse_args(argv)
    tiers = {}
    for name in a.expect.split(','):
        if name:
            tiers[name] = Tier(name)
    stages = set()
    for f in sorted(os.listdir(a.dir)) if os.path.isdir(a.dir) else []:
        stage, ext = os.path.splitext(f)
        if ext in ('.json', '.list'):
            stages.add(stage)
        elif ext == '.tap':
            tier = tiers.setdefault(stage, Tier(stage))
            tier.ran = True
            tier.programs += 1
            with open(os.path.join(a.dir, f), errors='replace') as fh:
                if not count_tap(fh.read(), tier, ''):
                    tier.fail('%s: no TAP in %s' % (stage, f))
    for stage in sorted(stages):
        count_meson(a.dir, stage, tiers)
    for tier in tiers.values():
        if not tier.ran:
            tier.why = 'no log in %s' % a.dir
        elif not tier.why or tier.passed + tier.failed + tier.skipped:
            continue
        if a.ci:
            tier.fail('%s (CI=true: every tier must run)' %
                      ('did not run' if not tier.ran else
                       'skipped as a whole'))
        else:
            tier.skipped += 1
    total = [0, 0, 0]
    for tier in tiers.values():
        for p in tier.problems:
            print('FAILED %s: %s' % (tier.name, p))
        for r in tier.reasons:
            print(r)
    for line in (stage_times(a.dir), guest_kernels(a.dir, list(tiers))):
        if line:
            print(line)
    for tier in tiers.values():
        print(tier.line())
        total[0] += tier.passed
        total[1] += tier.failed
        total[2] += tier.skipped
    print('%d passed, %d failed, %d skipped' % tuple(total))
    return 1 if total[1] or not total[0] + total[2] else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
