#!/usr/bin/env python3
"""Count test cases across meson test logs and TAP files.

Reads DIR/*.json (meson's testlog.json, one JSON object per line, with each
test program's TAP output in "stdout") and DIR/*.tap; prints one line per
stage and a last line "N passed, N failed, N skipped".  Exit 1 if any case
failed or a stage ran nothing at all.
"""
import json
import os
import re
import sys

TAP = re.compile(r'^(not ok|ok)\b[^#]*(#\s*(\w+))?', re.I)


def count_tap(text, tally):
    seen = False
    for line in text.splitlines():
        m = TAP.match(line.strip())
        if not m:
            continue
        seen = True
        directive = (m.group(3) or '').upper()
        if directive == 'SKIP':
            tally['skipped'] += 1
        elif m.group(1).lower() == 'ok' or directive == 'TODO':
            tally['passed'] += 1
        else:
            tally['failed'] += 1
    return seen


def main(d):
    total = {'passed': 0, 'failed': 0, 'skipped': 0}
    bad = False
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        stage = {'passed': 0, 'failed': 0, 'skipped': 0}
        if name.endswith('.json'):
            with open(path) as f:
                for line in f:
                    try:
                        t = json.loads(line)
                    except ValueError:
                        continue
                    res = t.get('result', '')
                    if not count_tap(t.get('stdout') or '', stage):
                        # a program without TAP output counts as one case
                        key = {'OK': 'passed', 'SKIP': 'skipped',
                               'EXPECTEDFAIL': 'passed'}.get(res, 'failed')
                        stage[key] += 1
                    elif res not in ('OK', 'SKIP', 'EXPECTEDFAIL'):
                        stage['failed'] += 1 if stage['failed'] == 0 else 0
        elif name.endswith('.tap'):
            with open(path) as f:
                count_tap(f.read(), stage)
        else:
            continue
        label = name.rsplit('.', 1)[0]
        print('%-10s %d passed, %d failed, %d skipped' %
              (label + ':', stage['passed'], stage['failed'], stage['skipped']))
        for k in total:
            total[k] += stage[k]
        if stage['passed'] + stage['failed'] == 0 and stage['skipped'] == 0:
            bad = True
    print('%d passed, %d failed, %d skipped' %
          (total['passed'], total['failed'], total['skipped']))
    return 1 if total['failed'] or bad or total['passed'] == 0 else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else 'build/check-logs'))
