#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""count.py - the twin of count.c in Python: count events around a piece
of work in this thread and print them.

  count.py [EVENTS]     default "task-clock,page-faults,instructions:u"

On a machine without a hardware PMU, hardware events cannot be counted;
the program then says why and counts the software events alone.
"""
import errno
import mmap
import sys

import pctr


def work():
    size = 16 << 20
    m = mmap.mmap(-1, size)
    for i in range(0, size, 4096):
        m[i] = 1
    m.close()


def open_set(events):
    s = pctr.Set(events)
    s.open()
    return s


def main(argv):
    events = argv[1] if len(argv) > 1 else \
        "task-clock,page-faults,instructions:u"
    try:
        try:
            s = open_set(events)
        except pctr.Error as e:
            if e.errno != errno.ENODEV or len(argv) > 1:
                raise
            print("count: %s" % e.strerror, file=sys.stderr)
            s = open_set("task-clock,page-faults")
    except pctr.Error as e:
        print("count: %s" % e.strerror, file=sys.stderr)
        return 1
    s.enable()
    before = s.read()
    work()
    after = s.read()
    d = after - before
    for name, c in d.items():
        print("%20.0f  %s" % (c.scaled, name))
    print("%20d  ns elapsed (%s read)" % (
        d.ns, "user-space" if after.path != "syscall" else "syscall"))
    s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
