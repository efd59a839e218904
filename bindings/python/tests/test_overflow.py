# SPDX-License-Identifier: MIT
"""Overflow notification with a Python callback: real page faults and
task-clock, counted exactly; exceptions of the callback; bad input."""
import errno
import threading

import pytest

import pctr
from conftest import spin_ns, touch_pages


def test_every_hundred_page_faults():
    hits = []
    s = pctr.Set("page-faults")
    s.overflow("page-faults", 100, hits.append)
    s.open()
    s.enable()
    touch_pages(1000)
    s.disable()
    n = s.read()["page-faults"].value
    stats = s.overflow_stats()
    s.close()               # hands out what is still pending
    assert 1000 <= n < 1100
    assert len(hits) == n // 100
    assert stats == (len(hits), 0, 0)
    assert [h.seq for h in hits] == list(range(1, len(hits) + 1))
    assert all(h.count == h.seq * 100 and h.period == 100 for h in hits)
    assert {h.tid for h in hits} == {threading.get_native_id()}


def test_task_clock_in_another_thread_of_the_process():
    hits = []
    s = pctr.Set("task-clock")
    s.overflow(0, 1_000_000, hits.append)
    s.open(target="process")
    s.enable()
    t = threading.Thread(target=spin_ns, args=(30_000_000,))
    t.start()
    t.join()
    s.disable()
    s.close()
    # the spinning thread is named in its overflows: 30 ms of task-clock
    # at 1 ms give 30, or 29 where the last period's timer had not fired
    # yet when the thread ended; each carries its own sequence
    mine = [h for h in hits if h.tid == t.native_id]
    assert len(mine) >= 29
    assert [h.seq for h in mine] == list(range(1, len(mine) + 1))
    assert all(h.count == h.seq * 1_000_000 for h in mine)


def test_oneshot_stops_at_the_first():
    hits = []
    s = pctr.Set("page-faults")
    s.overflow("page-faults", 50, hits.append, oneshot=True)
    s.open()
    s.enable()
    touch_pages(500)
    s.close()
    assert len(hits) == 1 and hits[0].count == 50


def test_callback_exception_raised_by_close():
    def boom(o):
        raise RuntimeError("from the callback")

    s = pctr.Set("page-faults")
    s.overflow("page-faults", 10, boom)
    s.open()
    s.enable()
    touch_pages(100)
    with pytest.raises(RuntimeError, match="from the callback"):
        s.close()


def test_bad_overflow_settings():
    s = pctr.Set("page-faults")
    with pytest.raises(KeyError):
        s.overflow("task-clock", 10, print)
    with pytest.raises(TypeError):
        s.overflow(0, 10, None)
    with pytest.raises(pctr.Error) as e:
        s.overflow(0, 0, print)
    assert e.value.errno == errno.EINVAL
    s.open()
    with pytest.raises(pctr.Error) as e:
        s.overflow(0, 10, print)
    assert e.value.errno == errno.EBUSY
    s.close()


def test_overflow_refused_for_another_process():
    import os
    s = pctr.Set("page-faults")
    s.overflow(0, 10, print)
    with pytest.raises(pctr.Error) as e:
        s.open(pid=os.getppid())
    assert e.value.errno == errno.EOPNOTSUPP
    s.close()
