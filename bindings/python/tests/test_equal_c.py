# SPDX-License-Identifier: MIT
"""Python's numbers and messages equal the C library's for the same work:
examples/count.py against examples/count (16 MiB touched: 4096 pages)."""
import os
import subprocess
import sys

import pytest

import pctr
from conftest import touch_pages

# examples/count instrumented: AddressSanitizer's malloc and shadow pages
# fault too, on top of its 16 MiB
plain_c = pytest.mark.skipif(
    bool(os.environ.get("PCTR_SANITIZED")),
    reason="examples/count is sanitized here: its shadow memory faults too")

COUNT = os.environ["PCTR_COUNT"]
COUNT_PY = os.environ["PCTR_COUNT_PY"]


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    lines = {}
    for line in p.stdout.splitlines():
        value, name = line.split(None, 1)
        lines[name] = value
    return p.returncode, lines, p.stderr


@plain_c
def test_count_py_twins_count_c():
    rc_c, c, err_c = run([COUNT])
    rc_py, py, err_py = run([sys.executable, COUNT_PY])
    assert rc_c == rc_py == 0
    # the same lines, in the same order; the same no-PMU message
    assert list(c) == list(py)
    assert c["page-faults"] == py["page-faults"] == "4096"
    assert err_c == err_py
    if not pctr.machine().has_pmu:
        assert "no hardware PMU" in err_py


def test_count_py_bad_event_as_c():
    rc_c, _, err_c = run([COUNT, "page-faultz"])
    rc_py, _, err_py = run([sys.executable, COUNT_PY, "page-faultz"])
    assert rc_c == rc_py == 1
    assert err_c == err_py and err_py.startswith("count: unknown event")


@plain_c
def test_same_work_same_count_in_process():
    _, c, _ = run([COUNT, "page-faults"])
    with pctr.count("page-faults") as py:
        touch_pages(4096)
    assert py["page-faults"].value == int(c["page-faults"]) == 4096
