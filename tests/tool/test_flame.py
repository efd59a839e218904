#!/usr/bin/env python3
"""pctr profile --svg: the flame graph rendered by a real browser.

examples/hotspots spends three times as long in hot_three() as in
hot_one(), side by side under main.  pctr profile -g --svg writes the
flame graph; Debian's headless chromium renders it (inline in a page whose
script measures every box as laid out, and alone, to a screenshot).  At
the depth of hot_three its box must be the widest, wider than hot_one's;
the root spans the width; each box's <title>, what the browser shows on
hover, gives the name, the samples and the share.

usage: test_flame.py BUILD_DIR.  TAP, one line a case.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import tap  # tests/tool/tap.py

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'build')
PCTR = os.environ.get('PCTR', os.path.join(BUILD, 'tools', 'pctr'))
HOTSPOTS = os.path.join(BUILD, 'examples', 'hotspots')
SVG_NS = '{http://www.w3.org/2000/svg}'

PAGE = '''<!DOCTYPE html><html><body style="margin:0">%s
<pre id="out"></pre>
<script>
const rows = {};
for (const g of document.querySelectorAll('g.frame')) {
  const r = g.querySelector('rect').getBoundingClientRect();
  const d = g.dataset.depth, name = g.dataset.name;
  (rows[d] = rows[d] || []).push({name: name, w: r.width,
                                  title: g.querySelector('title').textContent});
}
document.getElementById('out').textContent = JSON.stringify(rows);
</script></body></html>'''


def browser():
    for b in ('chromium', 'chromium-browser', 'google-chrome'):
        if shutil.which(b):
            return b
    return None


def chromium(*args):
    # as root the browser needs --no-sandbox; nothing here is untrusted
    p = subprocess.run([browser(), '--headless', '--no-sandbox',
                        '--disable-gpu', '--no-first-run',
                        '--user-data-dir=' + tempfile.mkdtemp()] +
                       list(args), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    return p.stdout


def profile(d):
    svg = os.path.join(d, 'flame.svg')
    p = subprocess.run([PCTR, 'profile', '-g', '-e', 'task-clock:u',
                        '--svg', svg, '-o', os.path.join(d, 'report.txt'),
                        '--', HOTSPOTS, '300'],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr)
    return svg


def case_hot_function_widest_as_rendered(d):
    svg = profile(d)
    ET.parse(svg)  # well-formed XML, or this raises
    with open(svg) as f:
        body = re.sub(r'^<\?xml[^>]*\?>', '', f.read())
    page = os.path.join(d, 'page.html')
    with open(page, 'w') as f:
        f.write(PAGE % body)
    dom = chromium('--dump-dom', 'file://' + page)
    m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    assert m, dom[-2000:]
    rows = json.loads(html.unescape(m.group(1)))
    depth = [k for k, v in rows.items()
             if any(b['name'].startswith('hot_three') for b in v)]
    assert len(depth) == 1, rows
    row = sorted(rows[depth[0]], key=lambda b: -b['w'])
    print('# at depth %s, as rendered: %s' % (
        depth[0], ', '.join('%s %.1f px' % (b['name'], b['w'])
                            for b in row[:4])))
    assert row[0]['name'].startswith('hot_three'), row
    one = [b for b in row if b['name'].startswith('hot_one')]
    assert one and row[0]['w'] > 2 * one[0]['w'], row
    root = rows['0'][0]
    assert root['name'] == 'all' and abs(root['w'] - 1180) < 1, root
    # what hover shows: name, samples, share
    assert re.match(r'hot_three\S* \(\d+ samples, \d+\.\d\d%\)$',
                    row[0]['title']), row[0]


def case_svg_alone_renders(d):
    svg = profile(d)
    shot = os.path.join(d, 'shot.png')
    chromium('--screenshot=' + shot, '--window-size=1200,400',
             'file://' + svg)
    with open(shot, 'rb') as f:
        head = f.read(8)
    assert head == b'\x89PNG\r\n\x1a\n', head
    assert os.path.getsize(shot) > 2000, os.path.getsize(shot)
    root = ET.parse(svg).getroot()
    assert root.tag == SVG_NS + 'svg', root.tag
    # self-contained: no reference to anything outside the file
    text = open(svg).read()
    assert 'href' not in text and '<image' not in text, 'external reference'


def case_unwritable_file_fails(d):
    p = subprocess.run([PCTR, 'profile', '-e', 'task-clock:u', '--svg',
                        '/nonexistent/dir/f.svg', '-o', os.devnull, '--',
                        HOTSPOTS, '10'], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode != 0, p
    assert '--svg /nonexistent/dir/f.svg' in p.stderr, p.stderr


def main():
    if not browser():
        print('1..0 # SKIP no headless browser (Debian: chromium)')
        return 1 if os.environ.get('CI') == 'true' else 0
    return tap.run(globals())


if __name__ == '__main__':
    sys.exit(main())
