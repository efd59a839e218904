#!/usr/bin/env python3
"""libpctr-mpi under Open MPI's mpirun, 4 ranks on this machine.

mpi_ranks touches (rank + 1) * 64 fresh pages, in region "touch" when built
with regions; page faults are a software event, counted exactly, so the
region's figures over the ranks are known: total 640, min 64 (rank 0),
max 256 (rank 3), mean 160, imbalance 1.6.  The library is linked into one
build of the program and preloaded into the other, which knows nothing of
pctr: there the whole run is the one region.

usage: test_mpi_lib.py BUILD_DIR (meson passes it).  TAP, one line a case.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

BUILD = sys.argv[1] if len(sys.argv) > 1 else 'build'
LIB = os.path.join(BUILD, 'mpi', 'libpctr-mpi.so')
LINKED = os.path.join(BUILD, 'tests', 'mpi', 'mpi_ranks_linked')
PLAIN = os.path.join(BUILD, 'tests', 'mpi', 'mpi_ranks_plain')
FORTRAN = {b: os.path.join(BUILD, 'tests', 'mpi', 'mpi_ranks_%s_linked' % b)
           for b in ('mpi', 'f08')}
FORTRAN_PLAIN = os.path.join(BUILD, 'tests', 'mpi', 'mpi_ranks_f08_plain')
RUN = 'MPI_Init..MPI_Finalize'


class Skip(Exception):
    """a case that cannot run here: its one line says why"""


def fortran(prog):
    if not os.path.exists(prog):
        raise Skip('no Fortran MPI programs: gfortran or mpifort missing')
    return prog
PAGES = 64


def mpirun(prog, env, args=(), preload=False, timeout=120, says=True):
    e = dict(os.environ, **env)
    # Under AddressSanitizer (make check's asan stage): no leak check in
    # the ranks.  Open MPI keeps what MPI_Init allocates and unloads its
    # plugins before exit, so LeakSanitizer reports its blocks with the
    # frames of whatever was mapped there since (libpctr's among them):
    # nothing a suppression can name.  This library's own code that
    # allocates (blob.c, report.c) is checked with leaks on by
    # tests/unit/test_mpi_blob.c.
    asan = e.get('ASAN_OPTIONS', '')
    e['ASAN_OPTIONS'] = (asan + ':' if asan else '') + 'detect_leaks=0'
    if os.getuid() == 0:
        # Open MPI refuses root unless told
        e['OMPI_ALLOW_RUN_AS_ROOT'] = '1'
        e['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM'] = '1'
    cmd = ['mpirun', '-n', '4', '--oversubscribe']
    for k in env:
        cmd += ['-x', k]
    if preload:
        e['LD_PRELOAD'] = os.path.abspath(LIB)
        cmd += ['-x', 'LD_PRELOAD']
    cmd += [prog] + list(args)
    p = subprocess.run(cmd, env=e, capture_output=True, text=True,
                       timeout=timeout)
    assert p.returncode == 0, (p.returncode, p.stdout, p.stderr[-3000:])
    assert not says or 'ranks 4' in p.stdout, p.stdout
    return p


def json_run(prog, preload=False, args=(), says=True):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'job.json')
        p = mpirun(prog, {'PCTR_EVENTS': 'page-faults:u',
                          'PCTR_REPORT': 'json:' + out}, args, preload,
                   says=says)
        with open(out) as f:
            return json.load(f), p


def region(rep, name):
    for r in rep['regions']:
        if r['name'] == name:
            return r
    raise AssertionError('no region %r in %r' % (name, rep['regions']))


def case_linked_region_exact_over_ranks():
    check_touch_exact(*json_run(LINKED))


def check_touch_exact(rep, p):
    assert rep['schema'] == 'pctr-mpi-regions/1' and rep['size'] == 4, rep
    pf = region(rep, 'touch')['events']['page-faults:u']
    print('# touch, page-faults:u over ranks: %r' % pf)
    assert pf == {'ranks': 4, 'total': 640, 'min': 64, 'mean': 160,
                  'max': 256, 'max_rank': 3, 'imbalance': 1.6}, pf
    # the whole run holds the region and the rest of each rank's work
    whole = region(rep, RUN)['events']['page-faults:u']
    assert whole['ranks'] == 4 and whole['min'] > PAGES, whole
    assert whole['total'] > 640, whole
    assert [r['rank'] for r in rep['ranks']] == [0, 1, 2, 3], rep['ranks']
    for r in rep['ranks']:
        assert r['run_s'] > 0 and 0 <= r['mpi_s'] <= r['run_s'], r
    # each process's own report at exit is cancelled: one report only
    assert 'region' not in p.stderr, p.stderr


def case_preloaded_into_a_program_without_pctr():
    rep, _ = json_run(PLAIN, preload=True)
    names = [r['name'] for r in rep['regions']]
    assert names == [RUN], names
    pf = region(rep, RUN)['events']['page-faults:u']
    print('# whole run, page-faults:u over ranks: %r' % pf)
    # rank 3 touches 192 pages more than rank 0; start-up differs by a few
    assert pf['ranks'] == 4 and pf['max_rank'] == 3, pf
    assert pf['min'] > PAGES and pf['max'] > 4 * PAGES, pf


def case_fortran_use_mpi_region_exact_over_ranks():
    check_touch_exact(*json_run(fortran(FORTRAN['mpi'])))


def case_fortran_use_mpi_f08_region_exact_over_ranks():
    check_touch_exact(*json_run(fortran(FORTRAN['f08'])))


def case_fortran_only_intercepted_calls():
    # mpi_intercepted.f90: every MPI call of the program is libpctr-mpi's,
    # so the program itself needs no MPI library (--as-needed drops them);
    # the job still runs, and its report is written (it prints nothing)
    prog = fortran(os.path.join(BUILD, 'tests', 'mpi', 'mpi_intercepted'))
    rep, _ = json_run(prog, says=False)
    assert rep['size'] == 4 and [r['name'] for r in rep['regions']] == \
        [RUN], rep


def case_fortran_preloaded_into_a_program_without_pctr():
    rep, _ = json_run(fortran(FORTRAN_PLAIN), preload=True)
    assert [r['name'] for r in rep['regions']] == [RUN], rep['regions']
    pf = region(rep, RUN)['events']['page-faults:u']
    print('# Fortran, whole run, page-faults:u over ranks: %r' % pf)
    assert pf['ranks'] == 4 and pf['max_rank'] == 3, pf
    assert pf['min'] > PAGES and pf['max'] > 4 * PAGES, pf


def case_fortran_time_inside_mpi():
    # as time_inside_mpi: Fortran's MPI_BARRIER is timed too
    for prog in (FORTRAN['mpi'], FORTRAN['f08']):
        rep, _ = json_run(fortran(prog), args=['sleep'])
        ranks = rep['ranks']
        print('# %s in MPI: %s' % (os.path.basename(prog),
                                   ['%.3f' % r['mpi_s'] for r in ranks]))
        assert ranks[0]['outside_mpi_s'] >= 0.2, ranks[0]
        for r in ranks[1:]:
            assert r['mpi_s'] >= 0.1, r


def case_text_report_on_stderr_by_default():
    p = mpirun(PLAIN, {'PCTR_EVENTS': 'page-faults:u'}, preload=True)
    assert 'region "%s", measured by 4 of 4 ranks' % RUN in p.stderr, \
        p.stderr
    assert 'time inside blocking MPI calls' in p.stderr, p.stderr
    assert 'page-faults:u' in p.stderr, p.stderr


def case_time_inside_mpi():
    # rank 0 sleeps 200 ms between two barriers: outside MPI; the others
    # wait for it inside MPI_Barrier.  Their wait is the sleep less how
    # much later than rank 0 they left the first barrier (milliseconds;
    # half the sleep is the bound, for a loaded machine).
    rep, _ = json_run(PLAIN, preload=True, args=['sleep'])
    ranks = rep['ranks']
    print('# in MPI: %s; outside: %s' % (
        ['%.3f' % r['mpi_s'] for r in ranks],
        ['%.3f' % r['outside_mpi_s'] for r in ranks]))
    assert ranks[0]['outside_mpi_s'] >= 0.2, ranks[0]
    for r in ranks[1:]:
        assert r['mpi_s'] >= 0.1, r


def case_bad_destination_is_said_and_text_written():
    p = mpirun(PLAIN, {'PCTR_EVENTS': 'page-faults:u',
                       'PCTR_REPORT': 'csv:/tmp/pctr-mpi-no.csv'},
               preload=True)
    assert "PCTR_REPORT=csv:/tmp/pctr-mpi-no.csv: the job's report is " \
        "text:FILE, json:FILE" in p.stderr, p.stderr
    assert 'region "%s"' % RUN in p.stderr, p.stderr
    assert not os.path.exists('/tmp/pctr-mpi-no.csv')


def case_fifo_destination_refused_not_waited_on():
    # a FIFO with no reader would hold rank 0's open, so MPI_Finalize, for
    # ever: refused as the region report refuses it, the report written
    # to standard error instead.  A job takes a few seconds here; 60 s is
    # the bound on a loaded machine.
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, 'fifo')
        os.mkfifo(fifo)
        try:
            p = mpirun(PLAIN, {'PCTR_EVENTS': 'page-faults:u',
                               'PCTR_REPORT': 'json:' + fifo},
                       preload=True, timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError('the job hung on PCTR_REPORT=json:FIFO')
        assert "'%s': it is a FIFO" % fifo in p.stderr, p.stderr
        assert 'regular files only' in p.stderr, p.stderr
        assert p.stderr.count('it is a FIFO') == 1, p.stderr
        assert '"schema":"pctr-mpi-regions/1"' in p.stderr, p.stderr


CASES = [v for k, v in sorted(globals().items()) if k.startswith('case_')]


def main():
    if not shutil.which('mpirun'):
        print('1..0 # SKIP no mpirun (Debian: openmpi-bin)')
        return 1 if os.environ.get('CI') == 'true' else 0
    failed = 0
    print('1..%d' % len(CASES), flush=True)
    for i, fn in enumerate(CASES, 1):
        try:
            fn()
            print('ok %d - %s' % (i, fn.__name__[5:]), flush=True)
        except Skip as why:
            print('ok %d - %s # SKIP %s' % (i, fn.__name__[5:], why),
                  flush=True)
            if os.environ.get('CI') == 'true':
                failed += 1
        except Exception:
            failed += 1
            for ln in traceback.format_exc().splitlines():
                print('# ' + ln)
            print('not ok %d - %s' % (i, fn.__name__[5:]), flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
