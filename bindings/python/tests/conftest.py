# SPDX-License-Identifier: MIT
"""Helpers of the tests of the Python package pctr: real work with known
counts, as tests/sys/helpers.h does it for the C tests."""
import mmap
import os

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
    end = os.times()[0] + ns / 1e9
    t0 = __import__("time").thread_time_ns()
    while __import__("time").thread_time_ns() - t0 < ns:
        pass


@pytest.fixture
def tool():
    return os.environ.get("PCTR", "pctr")
