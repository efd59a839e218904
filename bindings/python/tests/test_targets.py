# SPDX-License-Identifier: MIT
"""Targets: this process and its future threads, a forked child, another
pid, a command, whole CPUs; threads sharing a set and threads counting
themselves; the GIL released while blocked."""
import errno
import os
import threading
import time

import pytest

import pctr
from conftest import spin_ns, touch_pages


def test_process_counts_threads_started_later():
    with pctr.count("page-faults", target="process") as c:
        ts = [threading.Thread(target=touch_pages, args=(1000,))
              for _ in range(3)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    assert 3000 <= c["page-faults"].value < 6000


def test_thread_target_does_not_count_other_threads():
    with pctr.count("page-faults") as c:
        t = threading.Thread(target=touch_pages, args=(2000,))
        t.start()
        t.join()
        touch_pages(10)
    # the other thread's 2000 are not ours; starting it costs a few
    assert 10 <= c["page-faults"].value < 200


def test_forked_child_by_pid():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        touch_pages(1000)
        os._exit(0)
    os.close(r)
    s = pctr.Set("page-faults,task-clock")
    s.open(pid=pid)
    s.enable()
    os.write(w, b"x")
    os.close(w)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    c = s.read()
    s.close()
    assert 1000 <= c["page-faults"].value < 2000
    assert c["task-clock"].value > 0


def test_process_target_counts_a_child_forked_after_open():
    with pctr.count("page-faults", target="process") as c:
        pid = os.fork()
        if pid == 0:
            touch_pages(1000)
            os._exit(0)
        os.waitpid(pid, 0)
    assert 1000 <= c["page-faults"].value < 2000


def test_command():
    count = os.environ["PCTR_COUNT"]
    with pctr.count("page-faults,task-clock",
                    command=[count, "page-faults"]) as c:
        pass
    assert c.returncode == 0
    # the example touches 16 MiB: 4096 pages, and its start costs more
    assert 4096 <= c["page-faults"].value < 8192
    assert c["task-clock"].value > 0


def test_command_exit_status_and_missing_command():
    s = pctr.Set("page-faults")
    pid = s.open_command(["sh", "-c", "exit 7"])
    assert pid > 0 and s.wait() == 7
    s.close()
    s = pctr.Set("page-faults")
    with pytest.raises(pctr.Error) as e:
        s.open_command(["/nonexistent/command"])
    assert e.value.errno == 2
    s.close()


def test_cpus():
    if os.geteuid() != 0 and pctr.machine().paranoid > 0:
        pytest.skip("whole-CPU counting needs root or "
                    "perf_event_paranoid <= 0")
    s = pctr.Set("task-clock,context-switches")
    s.open(cpus=[0])
    assert s.instances() == [0]
    s.enable()
    time.sleep(0.05)
    c = s.read()
    s.close()
    # a whole CPU's clock runs whether or not we run on it
    assert c["task-clock"].value >= 40_000_000


def test_threads_each_count_themselves_at_once():
    out = {}

    def work(n):
        with pctr.count("page-faults") as c:
            barrier.wait()
            touch_pages(n)
        out[n] = c["page-faults"].value

    sizes = [300, 600, 900, 1200]
    barrier = threading.Barrier(len(sizes))
    ts = [threading.Thread(target=work, args=(n,)) for n in sizes]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for n in sizes:
        assert n <= out[n] < n + 50, (n, out[n])


def test_threads_share_one_set():
    s = pctr.Set("page-faults,task-clock")
    s.open(target="process")
    s.enable()
    errors = []

    def reader():
        last = 0
        try:
            for _ in range(2000):
                v = s.read()["task-clock"].value
                assert v >= last
                last = v
        except BaseException as e:
            errors.append(e)

    ts = [threading.Thread(target=reader) for _ in range(4)]
    for t in ts:
        t.start()
    touch_pages(500)
    for t in ts:
        t.join()
    c = s.read()
    s.close()
    assert not errors
    assert c["page-faults"].value >= 500


def test_close_while_threads_read():
    # the set's lock keeps a close from freeing the set under a read that
    # runs without the GIL: each reader's calls either read or, once the
    # set is closed, raise EBADFD; none crashes (under the sanitizer, none
    # touches freed memory) and none is left waiting
    for _ in range(20):
        s = pctr.Set("task-clock,page-faults,context-switches")
        s.open(target="process")
        s.enable()
        reads = [0] * 4
        out = []

        def reader(i):
            try:
                while True:
                    s.read()["task-clock"].value
                    s.read_values()
                    reads[i] += 1
            except pctr.Error as e:
                out.append(e.errno)
            except BaseException as e:
                out.append(e)

        ts = [threading.Thread(target=reader, args=(i,)) for i in range(4)]
        for t in ts:
            t.start()
        # close while every reader is at work
        while min(reads) < 20 and not out:
            time.sleep(0.0002)
        s.close()
        for t in ts:
            t.join(10)
        assert not any(t.is_alive() for t in ts)
        assert out == [errno.EBADFD] * 4, out
        assert s.state == "closed"


def test_gil_released_while_waiting_for_a_command():
    s = pctr.Set("task-clock")
    s.open_command(["sleep", "0.5"])
    done = []
    t = threading.Thread(target=lambda: done.append(s.wait()))
    # this thread runs Python while the other waits in waitpid(2): its
    # longest stall is a few GIL switch intervals (5 ms), where a wait
    # that held the GIL would stall it (in start(), or in the loop) for
    # the whole 0.5 s
    last = time.monotonic()
    stall = 0.0
    t.start()
    while t.is_alive():
        now = time.monotonic()
        stall = max(stall, now - last)
        last = now
    t.join()
    s.close()
    assert done == [0]
    assert stall < 0.25


def test_instances_of_a_process():
    s = pctr.Set("page-faults")
    s.open(target="process")
    ids = s.instances()
    assert threading.get_native_id() in ids
    s.enable()
    touch_pages(300)
    s.disable()
    i = ids.index(threading.get_native_id())
    mine = s.read_instance(i)
    whole = s.read()
    # this thread's share is the 300 pages, and within the whole
    assert 300 <= mine["page-faults"].value <= whole["page-faults"].value
    assert mine["page-faults"].low == mine["page-faults"].value
    with pytest.raises(IndexError):
        s.read_instance(-1)
    with pytest.raises(pctr.Error):
        s.read_instance(len(ids))
    assert os.fstat(s.fd(0)).st_size == 0      # a perf_event descriptor
    s.close()
