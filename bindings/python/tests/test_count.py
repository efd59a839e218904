# SPDX-License-Identifier: MIT
"""pctr.count() and pctr.Set on this thread: counts, times, scaling,
reads, and the errors."""
import errno
import time

import pytest

import pctr
from conftest import spin_ns, touch_pages


def test_count_page_faults_exactly():
    with pctr.count("task-clock,page-faults") as c:
        touch_pages(1000)
    pf = c["page-faults"]
    assert pf.value == 1000
    # one group, never multiplexed: running is enabled, bounds are exact
    assert pf.running == pf.enabled > 0
    assert pf.scaled == pf.low == pf.high == 1000.0
    assert c[1] == pf
    assert c["task-clock"].value > 0
    assert c.result.path == "syscall"   # software events: read(2)
    assert c.state == "closed"


def test_counts_only_inside_the_block():
    s = pctr.count("page-faults")
    touch_pages(300)            # before: not open
    with s:
        touch_pages(200)
    touch_pages(300)            # after: closed
    assert s["page-faults"].value == 200


def test_task_clock_counts_ns():
    with pctr.count("task-clock") as c:
        spin_ns(20_000_000)
    # task-clock can come out a few us short of the thread's CPU clock
    # when the thread is switched within the spin (repro_cpu_clock_short):
    # 5% below the spin, as the compat tests' spin bounds
    assert c["task-clock"].value >= 19_000_000
    assert c["task-clock"].enabled >= c["task-clock"].value


def test_read_while_counting_and_difference():
    s = pctr.Set("page-faults,task-clock")
    s.open()
    a = s.read()
    assert a["page-faults"].value == 0 and a["page-faults"].enabled == 0
    s.enable()
    b = s.read()
    touch_pages(500)
    c = s.read()
    d = c - b
    assert d["page-faults"].value == 500
    assert d.tsc == c.tsc - b.tsc > 0
    assert d.ns > 0
    s.disable()
    e = s.read()
    assert s.read_values() == e.values()
    touch_pages(100)
    assert s.read()["page-faults"].value == e["page-faults"].value
    s.reset()
    assert s.read()["page-faults"].value == 0
    s.close()


def test_a_kept_reading_never_changes():
    # reads reuse the set's last Reading once nothing else holds it: one
    # that is held, however, keeps its counts through later reads
    s = pctr.Set("page-faults")
    s.open()
    s.enable()
    kept, values = [], []
    for i in range(5):
        touch_pages(10)
        r = s.read()
        if i % 2:
            kept.append(r)
            values.append(r.values)     # a bound method holds it too
        del r
        s.read()
    counts = [k["page-faults"].value for k in kept]
    assert counts[1] - counts[0] == 20
    assert [v() for v in values] == [(c,) for c in counts]
    assert len({id(k) for k in kept}) == 2
    s.close()


def test_reading_is_a_mapping():
    with pctr.count("task-clock,page-faults") as c:
        touch_pages(10)
    r = c.result
    assert list(r) == ["task-clock", "page-faults"] == list(r.keys())
    assert len(r) == 2 and "page-faults" in r and "cycles" not in r
    assert r.values()[1] == 10
    assert dict(r.items())["page-faults"].value == 10
    assert r[-1] == r["page-faults"]
    with pytest.raises(KeyError, match="not an event of this set"):
        r["cycles"]
    with pytest.raises(IndexError):
        r[2]


def test_difference_of_other_sets_refused():
    a, b = pctr.Set("page-faults"), pctr.Set("page-faults")
    a.open(), b.open()
    with pytest.raises(ValueError, match="different sets"):
        a.read() - b.read()
    a.close(), b.close()


def test_bounds_of_a_difference():
    # a difference of readings has no rates of its own: its bounds are
    # its value when the event never left the counter, else unknown
    s = pctr.Set("page-faults")
    s.open()
    s.enable()
    a = s.read()
    touch_pages(10)
    d = s.read() - a
    assert d[0].low == d[0].high == d[0].value == 10
    s.close()


def test_unknown_event_raises_with_the_why():
    with pytest.raises(pctr.Error) as e:
        pctr.count("page-faultz")
    assert e.value.errno == errno.ENOENT
    assert isinstance(e.value, OSError)
    assert "page-faultz" in e.value.strerror
    assert "page-faults" in e.value.strerror   # the closest known name


def test_malformed_list_adds_nothing():
    s = pctr.Set("task-clock")
    with pytest.raises(pctr.Error) as e:
        s.add("page-faults,nosuch")
    assert e.value.errno == errno.ENOENT
    assert s.names == ("task-clock",)
    s.close()


def test_hardware_event_without_pmu_raises_enodev():
    if pctr.machine().has_pmu:
        pytest.skip("this machine has a PMU: hardware events count here")
    with pytest.raises(pctr.Error) as e:
        with pctr.count("task-clock,instructions:u"):
            pass
    assert e.value.errno == errno.ENODEV
    assert "no hardware PMU" in e.value.strerror
    assert e.value.strerror == str(e.value).split("] ", 1)[1]
    # and software events still work afterwards
    with pctr.count("page-faults") as c:
        touch_pages(5)
    assert c["page-faults"].value == 5


def test_state_errors():
    s = pctr.Set("page-faults")
    with pytest.raises(pctr.Error) as e:
        s.read()
    assert e.value.errno == errno.EBADFD
    s.open()
    with pytest.raises(pctr.Error) as e:
        s.add("task-clock")
    assert e.value.errno == errno.EBUSY
    with pytest.raises(pctr.Error) as e:
        s.open()
    assert e.value.errno == errno.EBUSY
    s.close()
    assert s.state == "closed"
    with pytest.raises(pctr.Error) as e:
        s.read()
    assert e.value.errno == errno.EBADFD and "closed" in e.value.strerror
    s.close()                   # twice is fine


def test_bad_targets():
    s = pctr.Set("page-faults")
    with pytest.raises(ValueError, match="target must be"):
        s.open("nowhere")
    with pytest.raises(ValueError, match="needs pid"):
        s.open("tid")
    with pytest.raises(ValueError, match="takes no pid"):
        s.open("process", pid=1)
    with pytest.raises(pctr.Error) as e:
        s.open(pid=2**22 + 12345)     # above pid_max: no such process
    assert e.value.errno == errno.ESRCH
    s.open()                    # a failed open leaves the set openable
    s.close()


def test_error_is_raised_from_exit_after_block_error():
    # an exception in the block passes through; the set is closed
    s = pctr.count("page-faults")
    with pytest.raises(ZeroDivisionError):
        with s:
            1 / 0
    assert s.state == "closed"


def test_strerror():
    assert "perf_event_paranoid" in pctr.strerror(errno.EACCES)
    assert pctr.strerror(-errno.ENODEV) == pctr.strerror(errno.ENODEV)


def test_help_shows_docstrings():
    import pydoc
    text = pydoc.render_doc(pctr, renderer=pydoc.plaintext)
    for s in ("count(events", "pctr_strerror()", "Reading.path", "region"):
        assert s in text
    assert "enabled and running" in pydoc.render_doc(pctr.Set.read,
                                                     renderer=pydoc.plaintext)
