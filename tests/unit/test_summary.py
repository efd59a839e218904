#!/usr/bin/env python3
"""scripts/summary.py on small fixture logs: what make check reports.

Each case writes the files check.sh would leave (meson testlogs, test
lists, TAP streams), runs the summary and checks its tier lines, its last
line and its exit status.  TAP output, one line per case.
"""
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'scripts'))
import summary  # noqa: E402

LAST = re.compile(r'^\d+ passed, \d+ failed, \d+ skipped$')


def meson_log(d, stage, tests, listed=None):
    """tests: (pretty name, result, returncode, stdout)."""
    with open(os.path.join(d, stage + '.json'), 'w') as f:
        for name, res, rc, out in tests:
            f.write(json.dumps({'name': name, 'result': res,
                                'returncode': rc, 'stdout': out}) + '\n')
    names = listed if listed is not None else [t[0] for t in tests]
    with open(os.path.join(d, stage + '.list'), 'w') as f:
        f.write(''.join(n + '\n' for n in names))


def tap_file(d, stage, text):
    with open(os.path.join(d, stage + '.tap'), 'w') as f:
        f.write(text)


def run(d, expect, ci=False):
    out = io.StringIO()
    argv = ['--expect', expect, d] + (['--ci'] if ci else [])
    env = os.environ.pop('CI', None)
    try:
        with contextlib.redirect_stdout(out):
            rc = summary.main(argv)
    finally:
        if env is not None:
            os.environ['CI'] = env
    lines = out.getvalue().splitlines()
    assert LAST.match(lines[-1]), lines[-1]
    return rc, lines


def tier(lines, name):
    for ln in lines:
        if ln.startswith(name + ':') and 'passed' in ln.split(':', 1)[1][:30]:
            return ln
    raise AssertionError('no line for tier %s in %r' % (name, lines))


def expect_counts(line, p, f, s):
    want = '%d passed, %d failed, %d skipped' % (p, f, s)
    assert want in line, '%r lacks %r' % (line, want)


OK3 = '1..3\nok 1 - a\nok 2 - b\nok 3 - c\n'


def case_all_pass(d):
    meson_log(d, 'fast', [
        ('pctr:unit / test_event', 'OK', 0, OK3),
        ('pctr:sys+script / test_cli', 'OK', 0, '1..1\nok 1 - x\n'),
        ('pctr:compat / test_pmc', 'OK', 0, '1..2\nok 1 - a\nok 2 - b # SKIP no such thing\n'),
        ('pctr:tool / tool_sh', 'OK', 0, 'no tap here\n'),
    ])
    rc, lines = run(d, 'unit,sys,compat,tool,repro')
    assert rc == 0, lines
    expect_counts(tier(lines, 'unit'), 3, 0, 0)
    expect_counts(tier(lines, 'sys'), 1, 0, 0)
    expect_counts(tier(lines, 'compat'), 1, 0, 1)
    expect_counts(tier(lines, 'tool'), 1, 0, 0)
    assert 'no tests defined' in tier(lines, 'repro'), lines
    assert lines[-1] == '6 passed, 0 failed, 1 skipped', lines


def case_tier_did_not_run(d):
    meson_log(d, 'fast', [('pctr:unit / t', 'OK', 0, OK3)])
    rc, lines = run(d, 'unit,hw')
    assert rc == 0, lines
    assert 'did not run' in tier(lines, 'hw'), lines
    expect_counts(tier(lines, 'hw'), 0, 0, 1)
    assert lines[-1] == '3 passed, 0 failed, 1 skipped', lines
    rc, lines = run(d, 'unit,hw', ci=True)
    assert rc == 1, lines
    assert 'did not run' in tier(lines, 'hw'), lines
    expect_counts(tier(lines, 'hw'), 0, 1, 0)
    assert lines[-1] == '3 passed, 1 failed, 0 skipped', lines


def case_stage_without_log_names_every_tier(d):
    rc, lines = run(d, 'unit,sys,compat,tool,repro,asan,valgrind,fuzz,hw',
                    ci=True)
    assert rc == 1
    for t in summary.ALL_TIERS:
        assert 'did not run' in tier(lines, t), (t, lines)
    assert lines[-1] == '0 passed, 9 failed, 0 skipped', lines


def case_tier_skipped_as_a_whole(d):
    tap_file(d, 'hw', '1..0 # SKIP hardware tests cannot run: no QEMU\n')
    rc, lines = run(d, 'hw')
    assert rc == 0, lines
    assert 'skipped as a whole: hardware tests cannot run: no QEMU' in \
        tier(lines, 'hw'), lines
    assert lines[-1] == '0 passed, 0 failed, 1 skipped', lines
    rc, lines = run(d, 'hw', ci=True)
    assert rc == 1, lines
    assert lines[-1] == '0 passed, 1 failed, 0 skipped', lines


def case_todo_known_defect_fails(d):
    meson_log(d, 'fast', [('pctr:unit / t', 'OK', 0,
                           '1..2\nok 1 - a\nnot ok 2 - b # TODO QEMU bug\n')])
    rc, lines = run(d, 'unit')
    assert rc == 1, lines
    expect_counts(tier(lines, 'unit'), 1, 1, 0)
    assert any('known defect (QEMU bug): still a failure' in ln
               for ln in lines), lines


def case_todo_unexpected_pass_fails(d):
    meson_log(d, 'fast', [('pctr:unit / t', 'FAIL', 1,
                           '1..2\nok 1 - a\nok 2 - b # TODO QEMU bug\n')])
    rc, lines = run(d, 'unit')
    assert rc == 1, lines
    expect_counts(tier(lines, 'unit'), 1, 1, 0)
    assert any('remove the TODO' in ln for ln in lines), lines


def case_crash_counts_every_missing_case(d):
    meson_log(d, 'fast', [('pctr:sys / t', 'ERROR', -11,
                           '1..5\nok 1 - a\nok 2 - b\n')])
    rc, lines = run(d, 'sys')
    assert rc == 1, lines
    expect_counts(tier(lines, 'sys'), 2, 3, 0)


def case_failure_after_all_passed(d):
    # LeakSanitizer at exit, or a timeout after the last case
    meson_log(d, 'asan', [('pctr:unit / t', 'FAIL', 23, OK3),
                          ('pctr:sys / u', 'TIMEOUT', -15, OK3)])
    rc, lines = run(d, 'asan')
    assert rc == 1, lines
    expect_counts(tier(lines, 'asan'), 6, 2, 0)


def case_listed_never_reported(d):
    meson_log(d, 'valgrind', [('pctr:unit / t', 'OK', 0, OK3)],
              listed=['pctr:unit / t', 'pctr:sys / gone'])
    rc, lines = run(d, 'valgrind')
    assert rc == 1, lines
    expect_counts(tier(lines, 'valgrind'), 3, 1, 0)
    assert any('gone' in ln and 'never reported' in ln for ln in lines)


def case_exit_code_tests(d):
    meson_log(d, 'fast', [('pctr:tool / a', 'OK', 0, ''),
                          ('pctr:tool / b', 'SKIP', 77, ''),
                          ('pctr:tool / c', 'FAIL', 1, 'oops\n'),
                          ('pctr:tool / d', 'EXPECTEDFAIL', 1, '')])
    rc, lines = run(d, 'tool')
    assert rc == 1, lines
    # an expected failure (meson's should_fail) is a failure here
    expect_counts(tier(lines, 'tool'), 1, 2, 1)


def case_program_skipped_whole(d):
    meson_log(d, 'fast', [('pctr:sys / a', 'SKIP', 0, '1..0 # SKIP no PMU\n'),
                          ('pctr:sys / b', 'OK', 0, OK3)])
    rc, lines = run(d, 'sys', ci=True)
    assert rc == 0, lines
    expect_counts(tier(lines, 'sys'), 3, 0, 1)


def case_bail_out(d):
    tap_file(d, 'fuzz', '1..3\nok 1 - a\nBail out! disk full\n')
    rc, lines = run(d, 'fuzz')
    assert rc == 1, lines
    expect_counts(tier(lines, 'fuzz'), 1, 2, 0)
    assert any('bailed out: disk full' in ln for ln in lines), lines


def case_hw_cannot_run_in_ci(d):
    # what tests/hw/run.sh writes when it cannot run and CI=true
    tap_file(d, 'hw', 'not ok 1 - hardware tests cannot run: no QEMU\n1..1\n')
    meson_log(d, 'fast', [('pctr:unit / t', 'OK', 0, OK3)])
    rc, lines = run(d, 'unit,hw', ci=True)
    assert rc == 1, lines
    expect_counts(tier(lines, 'hw'), 0, 1, 0)
    assert lines[-1] == '3 passed, 1 failed, 0 skipped', lines


def case_output_that_only_looks_like_tap(d):
    # an exit-code test that prints "ok", and a TAP test whose output holds
    # a nested, indented stream: neither adds cases
    meson_log(d, 'fast', [('pctr:tool / a', 'FAIL', 1, 'ok so far\nnot ok\n'),
                          ('pctr:tool / b', 'OK', 0,
                           '1..1\n    not ok 1 - inner\nok 1 - outer\n')])
    rc, lines = run(d, 'tool')
    assert rc == 1, lines
    expect_counts(tier(lines, 'tool'), 1, 1, 0)


def case_reasons_are_printed(d):
    # a CI log keeps only its tail: the assertion lines and a sanitizer's
    # verdict of the failed programs come with the summary, a passing
    # program's comments do not
    meson_log(d, 'asan', [
        ('pctr:sys / test_fork', 'FAIL', 1,
         '1..2\nok 1 - a\n# tests/sys/test_fork.c:256: 90 < 95\n'
         'not ok 2 - b\n'),
        ('pctr:sys / test_ok', 'OK', 0, '1..1\n# x.c:1: fine\nok 1 - a\n'),
        ('pctr:sys / test_leak', 'FAIL', 1,
         '1..1\nok 1 - a\n==1==ERROR: LeakSanitizer: detected leaks\n'),
    ])
    rc, lines = run(d, 'asan')
    assert rc == 1, lines
    assert '  test_fork: # tests/sys/test_fork.c:256: 90 < 95' in lines, lines
    assert any('test_leak: ==1==ERROR: LeakSanitizer' in ln
               for ln in lines), lines
    assert not any('fine' in ln for ln in lines), lines
    expect_counts(tier(lines, 'asan'), 3, 2, 0)


def case_nothing_at_all_fails(d):
    meson_log(d, 'fast', [])
    rc, lines = run(d, 'unit')
    assert rc == 1, lines
    assert 'no tests defined' in tier(lines, 'unit'), lines


def case_stage_times_and_guest_kernels(d):
    # check.sh's "times": how long each stage took, the QEMU builds and
    # dependency installs inside them; the hw TAP names each guest's kernel
    with open(os.path.join(d, 'times'), 'w') as f:
        f.write('start 1700000000\ndeps 75 \nfast 372 \n'
                'hw-aarch64 801 QEMU built\nhw-x86_64 65 \n')
    meson_log(d, 'fast', [('pctr:unit / t', 'OK', 0, OK3)])
    tap_file(d, 'hw-aarch64', '# guest kernel: linux-image-6.1.0-50-arm64 '
             '(6.1.176-1)\nok 1 - a\n1..1\n')
    tap_file(d, 'hw-x86_64', 'ok 1 - a\n1..1\n')
    rc, lines = run(d, 'unit,hw-aarch64,hw-x86_64')
    assert rc == 0, lines
    assert ('time: deps 1m15s, fast 6m12s, hw-aarch64 13m21s (QEMU built), '
            'hw-x86_64 1m05s; 21m53s in all') in lines, lines
    assert ('guest kernel: hw-aarch64 linux-image-6.1.0-50-arm64 '
            '(6.1.176-1), hw-x86_64 (not reported)') in lines, lines


def case_stage_beside_the_others_is_not_added(d):
    # hw-prepare runs beside fast and asan: the total is the clock's
    with open(os.path.join(d, 'times'), 'w') as f:
        f.write('start 1700000000\nfast 600 \nasan 300 \n'
                'hw-prepare 500 beside the stages before\nhw-x86_64 100 \n'
                'end 1700001000\n')
    meson_log(d, 'fast', [('pctr:unit / t', 'OK', 0, OK3)])
    rc, lines = run(d, 'unit')
    assert rc == 0, lines
    assert ('time: fast 10m00s, asan 5m00s, hw-prepare 8m20s (beside the '
            'stages before), hw-x86_64 1m40s; 16m40s in all') in lines, lines


CASES = [v for k, v in sorted(globals().items()) if k.startswith('case_')]


def main():
    failed = 0
    print('1..%d' % len(CASES))
    for i, fn in enumerate(CASES, 1):
        with tempfile.TemporaryDirectory() as d:
            try:
                fn(d)
                print('ok %d - %s' % (i, fn.__name__[5:]))
            except Exception:
                failed += 1
                for ln in traceback.format_exc().splitlines():
                    print('# ' + ln)
                print('not ok %d - %s' % (i, fn.__name__[5:]))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
