# SPDX-License-Identifier: MIT
"""events(), machine() and stat() against the pctr command's own JSON."""
import errno
import json
import subprocess

import pytest

import pctr


def tool_json(tool, *args):
    p = subprocess.run([tool, *args, "--json"], capture_output=True,
                       text=True, check=True)
    return json.loads(p.stdout)


def test_events_as_pctr_list(tool):
    # the library's events; pctr list adds pctr stat's tool events last
    listed = [e for e in tool_json(tool, "list")["events"]
              if e["source"] != "tool"]
    ours = pctr.events()
    assert [(e.source, e.name, e.desc) for e in ours] == \
        [(e["source"], e["name"], e["desc"]) for e in listed]
    pf = [e for e in ours if e.name == "page-faults"][0]
    assert pf.source == "software"


def test_event_patterns(tool):
    assert [e.name for e in pctr.events("page-f*")] == ["page-faults"]
    assert [e.name for e in pctr.events("PAGE-F*")] == ["page-faults"]
    sub = pctr.events("FAULT")      # substring of name, desc or source
    assert "page-faults" in [e.name for e in sub]
    assert "major-faults" in [e.name for e in sub]
    assert pctr.events("no-such-event-here") == []
    listed = tool_json(tool, "list", "fault")["events"]
    assert [e.name for e in sub] == [e["name"] for e in listed]


def test_machine_as_pctr_info(tool):
    info = tool_json(tool, "info")["machine"]
    m = pctr.machine()
    assert m.has_pmu == info["has_pmu"]
    assert m.arch == info["arch"]
    assert m.paranoid == info["perf_event_paranoid"]
    assert m.user_access == info["user_access"]
    assert m.tsc_invariant == info["tsc_invariant"]
    assert [p[0] for p in m.pmus] == [p["name"] for p in info["pmus"]]
    assert abs(m.tsc_hz - info["tsc_hz"]) < info["tsc_hz"] / 1000
    assert m.version == pctr.version()


def test_stat_repeats(tool):
    rep = pctr.stat(["true"], "page-faults,task-clock", repeat=3)
    assert rep["schema"] == "pctr-stat/1"
    assert rep["runs"] == 3
    assert rep["exit"] == {"status": 0, "signal": None}
    assert rep["target"]["argv"] == ["true"]
    assert [e["name"] for e in rep["events"]] == ["page-faults",
                                                  "task-clock"]
    for e in rep["events"]:
        assert len(e["runs"]) == 3 and e["stats"]["n"] == 3
        assert all(r["value"] > 0 for r in e["runs"])
    # the same document as pctr stat's own
    own = subprocess.run([tool, "stat", "--format=pctr-json", "-o", "-",
                          "-r", "3", "-e", "page-faults,task-clock", "--",
                          "true"],
                         capture_output=True, text=True, check=True)
    assert json.loads(own.stdout).keys() == rep.keys()


def test_stat_exit_status(tool):
    rep = pctr.stat(["sh", "-c", "exit 3"], "task-clock")
    assert rep["exit"]["status"] == 3


def test_stat_errors(tool, monkeypatch):
    with pytest.raises(pctr.Error) as e:
        pctr.stat(["true"], "page-faultz")
    assert e.value.errno == errno.ENOENT and "page-faults" in str(e.value)
    if not pctr.machine().has_pmu:
        with pytest.raises(pctr.Error) as e:
            pctr.stat(["true"], "cycles")
        assert e.value.errno == errno.ENODEV
    with pytest.raises(pctr.Error) as e:
        pctr.stat(["/nonexistent/command"], "task-clock")
    assert e.value.errno == errno.ENOENT and "not found" in str(e.value)
    with pytest.raises(ValueError):
        pctr.stat(["true"], repeat=0)
    with pytest.raises(ValueError):
        pctr.stat([])
    monkeypatch.setenv("PCTR", "")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(pctr.Error) as e:
        pctr.stat(["true"], "task-clock")
    assert e.value.errno == errno.ENOENT and "pctr command" in str(e.value)
