"""The TAP runner of the Python tests here: every function named case_*
of a module, each in a temporary directory of its own, one line a case,
a traceback as comments for a case that fails."""
import sys
import tempfile
import traceback


def run(module_globals):
    cases = [v for k, v in sorted(module_globals.items())
             if k.startswith('case_')]
    failed = 0
    print('1..%d' % len(cases), flush=True)
    for i, fn in enumerate(cases, 1):
        with tempfile.TemporaryDirectory() as d:
            try:
                fn(d)
                print('ok %d - %s' % (i, fn.__name__[5:]), flush=True)
            except Exception:
                failed += 1
                for ln in traceback.format_exc().splitlines():
                    print('# ' + ln)
                print('not ok %d - %s' % (i, fn.__name__[5:]), flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit('tap.py is imported by the tests, not run')
