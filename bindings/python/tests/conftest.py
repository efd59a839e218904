# SPDX-License-Identifier: MIT
"""Helpers of the tests of the Python package pctr: real work with known
counts, as tests/sys/helpers.h does it for the C tests."""
import mmap
import os
import shutil
import sys
import time

import pytest

PAGE = mmap.PAGESIZE


def touch_pages(n):
    """Touch n fresh anonymous pages: n page faults, no more (the mapping
    is new, and the loop allocates nothing that is not reused)."""
    m = mmap.mmap(-1, n * PAGE)
    for i in range(0, n * PAGE, PAGE):
        m[i] = 1
    m.close()


def spin_ns(ns):
    """Burn ns of this thread's CPU time."""
    t0 = time.thread_time_ns()
    while time.thread_time_ns() - t0 < ns:
        pass


@pytest.fixture
def tool():
    """The pctr command: the build's ($PCTR), else the one in PATH."""
    t = os.environ.get("PCTR") or shutil.which("pctr")
    if not t:
        pytest.skip("the pctr command is not built here (-Dtools=false)")
    return t


class TapReport:
    """With $PCTR_TAP set (meson runs the tests so, with -p no:terminal):
    one TAP line per test, so that make check counts them one by one; a
    failure's report follows as "# " lines."""

    def __init__(self):
        self.n = 0
        self.phases = {}

    def pytest_collectreport(self, report):
        if report.failed:
            print("Bail out! cannot collect %s" % report.nodeid)
            for line in report.longreprtext.splitlines():
                print("# " + line)

    def pytest_collection_finish(self, session):
        print("1..%d" % len(session.items), flush=True)

    def pytest_runtest_logreport(self, report):
        self.phases.setdefault(report.nodeid, []).append(report)
        if report.when != "teardown":
            return
        reports = self.phases.pop(report.nodeid)
        self.n += 1
        name = report.nodeid.split("/")[-1]
        failed = [r for r in reports if r.failed]
        skipped = [r for r in reports if r.skipped]
        if failed:
            print("not ok %d - %s" % (self.n, name))
            for r in failed:
                for line in r.longreprtext.splitlines():
                    print("# " + line)
        elif skipped:
            why = skipped[0].longrepr
            why = why[2] if isinstance(why, tuple) else str(why)
            print("ok %d - %s # SKIP %s" % (
                self.n, name, why.replace("Skipped: ", "", 1)))
        else:
            print("ok %d - %s" % (self.n, name))
        sys.stdout.flush()


def pytest_configure(config):
    if os.environ.get("PCTR_TAP"):
        # the terminal plugin (off) registers this, which the assertion
        # messages read
        if not hasattr(config.option, "verbose"):
            config.option.verbose = 0
        config.pluginmanager.register(TapReport(), "pctr-tap")
