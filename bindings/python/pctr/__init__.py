# SPDX-License-Identifier: MIT
"""pctr - CPU performance counters from Python, over libpctr.

Count events around a piece of code::

    import pctr
    with pctr.count("task-clock,page-faults") as c:
        work()
    print(c["page-faults"].value, c["task-clock"].enabled)

Each count is a pctr.Count: the raw value, the enabled and running times
(ns), the scaled estimate value * enabled / running and its bounds (low,
high).  c.read() reads while counting; Reading.path says whether the read
was done in user space or with a system call.

Sets count this thread (the default), this process and its future threads
(target="process"), another process (pid=N), a thread (tid=N), whole CPUs
(cpus=[0, 1]) or a command (command=["make"]).

Errors raise pctr.Error, an OSError whose errno is libpctr's and whose
text is pctr_strerror()'s: why the call failed and what to do.  A machine
without a hardware PMU is a normal state: software events (task-clock,
page-faults, context-switches) work and hardware ones (cycles,
instructions) raise pctr.Error with errno ENODEV.

Threads: a Set may be shared by threads (its calls take the set's lock);
counting a thread is done by that thread's own set.  The GIL is released
around every call that makes a system call or blocks, so other Python
threads run meanwhile; a read keeps it when there is no other thread to
run (the interpreter's only thread state), which saves the release's
cost, and reads in user space keep it always.

Also here: events() lists events, machine() describes the machine,
region() measures named regions (pctr_region(3)), stat() runs a command
as ``pctr stat --format=pctr-json`` does, Set.overflow() calls a Python
function every N events.
"""

import contextlib
import dataclasses
import errno as _errno
import fnmatch
import json
import os
import shutil
import subprocess
import tempfile
import threading
from typing import (Any, Callable, Dict, List, Optional, Sequence, Tuple,
                    TypeVar, Union)

from . import _pctr
from ._pctr import Count, Error, EventInfo, Overflow, Reading, Summary

__all__ = ["Count", "Error", "EventInfo", "Machine", "Overflow", "Reading",
           "Region", "Set", "Summary", "count", "events", "machine",
           "region", "region_init", "regions", "regions_dataframe", "stat",
           "strerror", "version"]

_TARGETS = {"thread": _pctr.TARGET_THREAD, "process": _pctr.TARGET_PROCESS,
            "pid": _pctr.TARGET_PID, "tid": _pctr.TARGET_TID,
            "cpu": _pctr.TARGET_CPU}

Key = Union[str, int]
F = TypeVar("F", bound=Callable[..., Any])


def strerror(err: int) -> str:
    """pctr_strerror()'s general text for errno err: why and what to do."""
    return _pctr.strerror(err)


class Set(_pctr.Set):
    """A set of events counted together on one target.

    Set("task-clock,page-faults") parses the events; open() opens them,
    stopped, on a target; enable() and disable() start and stop counting;
    read() gives a Reading.  As a context manager it opens (if not yet
    open) and enables on entry, and on exit stops, keeps the last reading
    (s["page-faults"] then reads it) and closes.

    Calls on one set may come from several threads: each takes the set's
    lock, in turn (a close waits for a read under way; later calls raise
    pctr.Error EBADFD).  A set counting a thread (the default target) counts the thread
    that opened it, whichever thread reads it.
    """

    def __init__(self, events: str = "", *, target: str = "thread",
                 pid: Optional[int] = None, cpus: Optional[Sequence[int]] =
                 None, command: Optional[Sequence[str]] = None) -> None:
        super().__init__(events)
        self._target = (target, pid, cpus, command)
        self._callbacks: Dict[int, Callable[[Overflow], Any]] = {}
        self._pump_thread: Optional[threading.Thread] = None
        self._callback_error: Optional[BaseException] = None
        self.pid: Optional[int] = None
        self.returncode: Optional[int] = None
        self.result: Optional[Reading] = None

    def open(self, target: str = "thread", *, pid: Optional[int] = None,
             cpus: Optional[Sequence[int]] = None) -> "Set":
        """Open the counters, stopped, on a target.

        target: "thread" (the calling thread: the fast path), "process"
        (this process, its threads now and later), "pid" or "tid" (with
        pid=N: another process and its threads, or one thread), "cpu"
        (with cpus=[...], or every online CPU; needs perf_event_paranoid
        0 or CAP_PERFMON).  pid=N alone means "pid", cpus=... alone "cpu".
        """
        if pid is not None and target == "thread":
            target = "pid"
        if cpus is not None and target == "thread":
            target = "cpu"
        if target not in _TARGETS:
            raise ValueError("target must be one of %s, not %r"
                             % (", ".join(_TARGETS), target))
        if target in ("pid", "tid") and pid is None:
            raise ValueError("target %r needs pid=N" % target)
        if target in ("thread", "process") and pid is not None:
            raise ValueError("target %r takes no pid" % target)
        self._open(_TARGETS[target], pid or 0, cpus)
        self._start_pump()
        return self

    def open_command(self, argv: Sequence[str]) -> int:
        """Start argv (looked up in PATH) and count it from its exec.

        The counters follow its threads and children.  Returns its pid;
        wait() waits for it.
        """
        self.pid = self._open_command(list(argv))
        self._start_pump()
        return self.pid

    def wait(self) -> int:
        """Wait for the command of open_command(): its exit status, or
        minus the signal that ended it (as subprocess's returncode)."""
        if self.pid is None:
            raise ValueError("no command: open_command() starts one")
        if self.returncode is None:
            self.returncode = self._wait(self.pid)
        return self.returncode

    def index(self, key: Key) -> int:
        """The index of an event given by name or index."""
        names = self.names
        if isinstance(key, int):
            if not -len(names) <= key < len(names):
                raise IndexError("event index %d out of range" % key)
            return key % len(names)
        for i, n in enumerate(names):
            if n == key or (n.endswith(":u") and n[:-2] == key):
                return i
        raise KeyError("%r is not an event of this set, whose events are %r"
                       % (key, names))

    def overflow(self, event: Key, period: int,
                 callback: Callable[[Overflow], Any], *,
                 oneshot: bool = False, freq: bool = False,
                 signo: int = 0) -> None:
        """Call callback(Overflow) every period events of event.

        Before open(), on a set counting this thread or this process.
        callback runs in a thread of the package's, soon after the
        overflow (the library's signal handler hands the overflow over);
        an exception it raises is raised again by close().  freq=True:
        period is a rate in Hz.  oneshot=True: stop at the first overflow.
        signo: the signal used (default SIGIO).  overflow_stats() says how
        many were notified, lost by the kernel, or dropped here.
        """
        idx = self.index(event)
        if not callable(callback):
            raise TypeError("callback must be callable")
        self._overflow(idx, period, oneshot=oneshot, freq=freq, signo=signo)
        self._callbacks[idx] = callback

    def _start_pump(self) -> None:
        if not self._callbacks:
            return
        self._pump_thread = threading.Thread(target=self._run_pump,
                                             name="pctr-overflow",
                                             daemon=True)
        self._pump_thread.start()

    def _run_pump(self) -> None:
        while True:
            batch = self._pump()
            if batch is None:
                return
            for o in batch:
                try:
                    self._callbacks[o.event](o)
                except BaseException as e:  # kept for close()
                    if self._callback_error is None:
                        self._callback_error = e

    def close(self) -> None:
        """Close every counter; hand out the overflows still pending and
        raise the first exception an overflow callback raised."""
        super().close()
        t, self._pump_thread = self._pump_thread, None
        if t is not None:
            t.join()
        e, self._callback_error = self._callback_error, None
        if e is not None:
            raise e

    def __enter__(self) -> "Set":
        if self.state == "new":
            target, pid, cpus, command = self._target
            if command is not None:
                self.open_command(command)
                return self     # counting starts at its exec
            self.open(target, pid=pid, cpus=cpus)
        self.enable()
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            if self.pid is not None:
                self.wait()
            elif self.state == "open":
                self.disable()
            if self.state == "open":
                self.result = self.read()
        finally:
            self.close()

    def __getitem__(self, key: Key) -> Count:
        """The count of an event, by name or index: from the reading kept
        at the end of a with block, or read now while counting."""
        r = self.result if self.result is not None else self.read()
        return r[key]

    def __repr__(self) -> str:
        return "<pctr.Set %s %r>" % (self.state, self.names)


def count(events: str = "task-clock,page-faults", *,
          target: str = "thread", pid: Optional[int] = None,
          cpus: Optional[Sequence[int]] = None,
          command: Optional[Sequence[str]] = None) -> Set:
    """A Set to count events in a with block.

    ::

        with pctr.count("task-clock,page-faults") as c:
            work()
        c["page-faults"].value

    The counters are opened on entry (target as Set.open() takes it, or
    command=argv to start a command and count it until it exits) and
    enabled; on exit they stop, the last reading is kept, and they are
    closed.
    """
    return Set(events, target=target, pid=pid, cpus=cpus, command=command)


# ---- events and the machine ------------------------------------------------

def events(pattern: Optional[str] = None) -> List[EventInfo]:
    """The events this machine offers, as EventInfo(name, source, desc).

    pattern as ``pctr list PATTERN``: with a wildcard (* ? [) a shell
    pattern on the name, case-insensitive; otherwise a case-insensitive
    substring of the name, description or source.
    """
    found = _pctr.event_list()
    if not pattern:
        return found
    p = pattern.lower()
    if any(c in p for c in "*?["):
        return [e for e in found if fnmatch.fnmatchcase(e.name.lower(), p)]
    return [e for e in found
            if p in e.name.lower() or p in e.desc.lower()
            or p in e.source.lower()]


@dataclasses.dataclass(frozen=True)
class Machine:
    """What this machine offers for counting (pctr_machine_get())."""
    has_pmu: bool
    pmus: List[Tuple[str, int]]
    paranoid: Optional[int]       # kernel.perf_event_paranoid
    user_access: Optional[int]    # the user-space read knob, None if none
    tsc_hz: int
    tsc_invariant: Optional[bool]
    virtualized: Optional[bool]
    arch: str
    version: str                  # libpctr's


def _tristate(v: int) -> Optional[bool]:
    return None if v < 0 else bool(v)


def machine() -> Machine:
    """Describe this machine: its PMUs (none is a normal state), the
    kernel's knobs, the timestamp counter."""
    m = _pctr.machine()
    return Machine(has_pmu=m["has_pmu"], pmus=m["pmus"],
                   paranoid=None if m["paranoid"] == -2**31
                   else m["paranoid"],
                   user_access=None if m["user_access"] < 0
                   else m["user_access"],
                   tsc_hz=m["tsc_hz"],
                   tsc_invariant=_tristate(m["tsc_invariant"]),
                   virtualized=_tristate(m["virtualized"]),
                   arch=m["arch"], version=m["version"])


def version() -> str:
    """libpctr's version, "MAJOR.MINOR.PATCH"."""
    return _pctr.machine()["version"]


# ---- regions ---------------------------------------------------------------

_region_lock = threading.Lock()
_region_on = False


def region_init(events: Optional[str] = None, *, keep: int = 0,
                calibrate: int = 1000, drop_disturbed: bool = False) -> None:
    """Configure region measurement (pctr_region_init()) before the first
    region: the events (default "task-clock"; $PCTR_EVENTS replaces
    them), intervals kept for percentiles, empty regions measured to take
    off the overhead, whether disturbed intervals are left out."""
    global _region_on
    with _region_lock:
        _pctr.region_init(events, keep, calibrate, drop_disturbed)
        _region_on = True


def _region_ensure() -> None:
    global _region_on
    with _region_lock:
        if _region_on:
            return
        try:
            _pctr.region_init()
        except Error as e:
            if e.errno != _errno.EALREADY:
                raise
        _region_on = True


class _Flush:
    """Kept in a thread's threading.local: dropped when the thread's state
    is cleared, in that thread, before join() returns, it merges the
    thread's region figures into the process's.  The library merges them
    itself later, when the system thread exits, which join() does not
    wait for."""

    def __del__(self) -> None:
        try:
            _pctr.region_flush()
        except Error:
            pass


_thread = threading.local()


class region(contextlib.ContextDecorator):
    """A named region: ``with pctr.region("solve"):`` or, on a function,
    ``@pctr.region("solve")``.

    Each thread counts its own regions; they nest, innermost ending
    first.  The first region switches measurement on with the defaults of
    region_init() unless it was called.  regions() gives the figures.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._id: Optional[int] = None

    def __enter__(self) -> "region":
        if self._id is None:
            _region_ensure()
            self._id = _pctr.region_id(self.name)
        if not hasattr(_thread, "flush"):
            _thread.flush = _Flush()
        _pctr.region_begin(self._id)
        return self

    def __exit__(self, *exc: Any) -> None:
        _pctr.region_end(self._id)


@dataclasses.dataclass(frozen=True)
class Region:
    """The statistics of one region, merged over the threads that have
    exited and the calling thread (pctr_region_stats()).

    counts[event] is a Summary of the event per interval (n, total, min,
    mean, max, stddev, std_error, ci95_low, ci95_high); per_second[event]
    the rate; time the interval in timestamp counter ticks."""
    name: str
    threads: int
    disturbed: int
    counts: Dict[str, Summary]
    per_second: Dict[str, Optional[Summary]]
    time: Summary


def regions() -> List[Region]:
    """Every region measured so far, in the order of pctr's report."""
    out = []
    for name, threads, stats, disturbed in _pctr.regions():
        time = stats.pop("tsc_ticks")["count"]
        out.append(Region(name=name, threads=threads, disturbed=disturbed,
                          counts={k: v["count"] for k, v in stats.items()},
                          per_second={k: v["per_second"]
                                      for k, v in stats.items()},
                          time=time))
    return out


def regions_dataframe() -> Any:
    """regions() as a pandas.DataFrame, one row per region and event
    (pandas is needed for this call only)."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("pctr.regions_dataframe() needs pandas "
                          "(Debian: python3-pandas); pctr.regions() gives "
                          "the same figures without it") from e
    rows = []
    for r in regions():
        for ev, s in r.counts.items():
            row = {"region": r.name, "event": ev, "threads": r.threads}
            row.update(s._asdict() if hasattr(s, "_asdict") else
                       {f: getattr(s, f) for f in Summary.__match_args__})
            rows.append(row)
    return pandas.DataFrame(rows)


def region_flush() -> None:
    """Merge the calling thread's region figures into the process's now
    (as its exit would)."""
    _pctr.region_flush()


# ---- pctr stat -------------------------------------------------------------

def _pctr_command() -> str:
    tool = os.environ.get("PCTR") or shutil.which("pctr")
    if not tool:
        raise Error(_errno.ENOENT, "pctr.stat() runs the pctr command, "
                    "which is not in PATH: install it (Debian: apt install "
                    "pctr) or set $PCTR to its path")
    return tool


def stat(argv: Sequence[str], events: str = "task-clock,page-faults",
         repeat: int = 1, *, options: Sequence[str] = ()) -> Dict[str, Any]:
    """Run argv repeat times as ``pctr stat --format=pctr-json`` does and return its
    report (schema pctr-stat/1, doc/json-schema.md): per event every
    run's value, enabled and running times, scaled estimate and bounds,
    and statistics; the exit status in report["exit"].

    The events are opened here first, so a bad event raises pctr.Error
    with libpctr's errno and text.  options: more pctr stat options.
    """
    if repeat < 1:
        raise ValueError("repeat must be 1 or more, not %d" % repeat)
    if not argv:
        raise ValueError("argv is empty")
    probe = Set(events)
    try:
        probe.open()
    finally:
        probe.close()
    tool = _pctr_command()
    with tempfile.NamedTemporaryFile("r", prefix="pctr-stat-",
                                     suffix=".json") as out:
        p = subprocess.run([tool, "stat", "--format=pctr-json", "-o",
                            out.name, "-r", str(repeat), "-e", events, *options,
                            "--", *argv], stderr=subprocess.PIPE, text=True)
        text = out.read()
    if not text:
        msg = p.stderr.strip() or "pctr stat exited with %d" % p.returncode
        raise Error(_errno.ENOENT if p.returncode == 127 else _errno.EINVAL,
                    msg)
    return json.loads(text)
