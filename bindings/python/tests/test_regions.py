# SPDX-License-Identifier: MIT
"""Regions: the decorator and the with block, threads, nesting errors,
statistics as plain objects and as a pandas DataFrame."""
import errno
import sys
import threading

import pytest

import pctr
from conftest import touch_pages


@pytest.fixture(scope="module", autouse=True)
def regions_on():
    # before any region of this process; keep 100 intervals
    pctr.region_init("page-faults,task-clock", keep=100)


def region_of(name):
    return next(r for r in pctr.regions() if r.name == name)


@pctr.region("py-solve")
def solve(n):
    touch_pages(n)


def test_decorator_counts_each_call():
    for _ in range(5):
        solve(100)
    r = region_of("py-solve")
    pf = r.counts["page-faults"]
    assert (pf.n, pf.total, pf.min, pf.max) == (5, 500, 100, 100)
    assert r.counts["task-clock"].n == 5 and r.time.n == 5
    assert r.per_second["page-faults"].mean > 0
    assert r.threads == 1


def test_with_block_and_nesting():
    def nested():
        with pctr.region("py-outer"):
            touch_pages(10)
            with pctr.region("py-inner"):
                touch_pages(20)

    # once first: the inner region is named on its first entry, inside
    # the outer one, which counts what naming it allocates (a page fault
    # in some runs under the sanitizers' allocator)
    nested()
    inner = region_of("py-inner").counts["page-faults"]
    outer = region_of("py-outer").counts["page-faults"]
    nested()
    assert region_of("py-inner").counts["page-faults"].total - \
        inner.total == 20
    assert region_of("py-outer").counts["page-faults"].total - \
        outer.total == 30


def test_threads_merge_at_exit():
    def work():
        with pctr.region("py-threads"):
            touch_pages(200)

    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    r = region_of("py-threads")
    assert r.threads == 3
    assert r.counts["page-faults"].n == 3
    assert r.counts["page-faults"].total == 600


def test_ending_the_wrong_region_raises():
    a, b = pctr.region("py-a"), pctr.region("py-b")
    a.__enter__()
    b.__enter__()
    with pytest.raises(pctr.Error) as e:
        a.__exit__(None, None, None)
    assert e.value.errno == errno.EINVAL
    b.__exit__(None, None, None)
    a.__exit__(None, None, None)


def test_init_after_a_region_raises():
    with pctr.region("py-late"):
        pass
    with pytest.raises(pctr.Error) as e:
        pctr.region_init("task-clock")
    assert e.value.errno == errno.EALREADY


def test_dataframe():
    pandas = pytest.importorskip("pandas", reason="needs python3-pandas")
    solve(10)
    df = pctr.regions_dataframe()
    assert isinstance(df, pandas.DataFrame)
    row = df[(df.region == "py-solve") & (df.event == "page-faults")]
    assert len(row) == 1
    assert row.iloc[0]["n"] == region_of("py-solve").counts["page-faults"].n


def test_dataframe_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="python3-pandas"):
        pctr.regions_dataframe()
    assert pctr.regions()       # the plain objects need nothing
