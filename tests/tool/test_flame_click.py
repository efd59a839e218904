#!/usr/bin/python3
"""pctr report --svg: the flame graph clicked in a real browser.

pctr record -g samples examples/hotspots (hot_three() three times as long
as hot_one(), side by side); pctr report --svg draws the recording.
Debian's headless chromium, driven by chromedriver (python3-selenium),
opens the file alone and clicks as a user would: on hot_one's box (it
spreads over the whole width, hot_three's goes, main's stays below at
full width), on "Reset Zoom" (every box back where it was), on
"Search" (the prompt answered with a regular expression: the matching
boxes coloured, the share of samples under them said, as computed here
from the boxes' own counts), on "Search" again (cleared), and Escape.

usage: test_flame_click.py BUILD_DIR.  TAP, one line a case.
"""
import os
import re
import shutil
import subprocess
import sys

import tap  # tests/tool/tap.py

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'build')
PCTR = os.environ.get('PCTR', os.path.join(BUILD, 'tools', 'pctr'))
HOTSPOTS = os.path.join(BUILD, 'examples', 'hotspots')
FULL = 1180.0  # the graph's width less its margins (flame.c)


def graph(d):
    data = os.path.join(d, 'perf.data')
    svg = os.path.join(d, 'flame.svg')
    p = subprocess.run([PCTR, 'record', '-g', '-e', 'task-clock:u', '-o',
                        data, '--', HOTSPOTS, '300'],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr)
    p = subprocess.run([PCTR, 'report', '-i', data, '--svg', svg, '-o',
                        os.devnull], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr)
    return svg


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    o = webdriver.ChromeOptions()
    # as root the browser needs --no-sandbox; nothing here is untrusted
    for a in ('--headless', '--no-sandbox', '--disable-gpu',
              '--window-size=1300,900'):
        o.add_argument(a)
    return webdriver.Chrome(service=Service(shutil.which('chromedriver')),
                            options=o)


def frames(drv):
    """every box: name, samples, depth, shown, x, width (as laid out)"""
    return drv.execute_script('''
        return Array.from(document.querySelectorAll('g.frame')).map(g => {
          const r = g.querySelector('rect');
          return {name: g.getAttribute('data-name'),
                  n: +g.getAttribute('data-samples'),
                  depth: +g.getAttribute('data-depth'),
                  shown: getComputedStyle(g).display !== 'none',
                  x: parseFloat(r.getAttribute('x')),
                  w: parseFloat(r.getAttribute('width')),
                  fill: r.getAttribute('fill')};
        });''')


def one(fs, prefix):
    f = [x for x in fs if x['name'].startswith(prefix)]
    assert len(f) == 1, (prefix, f)
    return f[0]


def box(drv, prefix):
    from selenium.webdriver.common.by import By
    for g in drv.find_elements(By.CSS_SELECTOR, 'g.frame'):
        if g.get_attribute('data-name').startswith(prefix):
            return g.find_element(By.TAG_NAME, 'rect')
    raise AssertionError('no box ' + prefix)


def case_click_zooms_reset_restores(d):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    svg = graph(d)
    drv = browser()
    try:
        drv.get('file://' + svg)
        before = frames(drv)
        h1, h3 = one(before, 'hot_one'), one(before, 'hot_three')
        assert h3['w'] > 2 * h1['w'], (h1, h3)
        box(drv, 'hot_one').click()
        z = frames(drv)
        z1, z3 = one(z, 'hot_one'), one(z, 'hot_three')
        print('# hot_one %.1f px, zoomed %.1f px; hot_three %s' %
              (h1['w'], z1['w'], 'hidden' if not z3['shown'] else 'shown'))
        assert abs(z1['w'] - FULL) < 0.5 and abs(z1['x'] - 10) < 0.5, z1
        assert not z3['shown'], z3
        for f in z:  # callers below: full width; nothing else beside
            if f['shown'] and f['depth'] < z1['depth']:
                assert abs(f['w'] - FULL) < 0.5, f
            if f['shown'] and f['depth'] == z1['depth']:
                assert f['name'] == z1['name'], f
        callers = [f for f in z if f['shown'] and f['depth'] < z1['depth']]
        assert len(callers) == z1['depth'], callers
        reset = drv.find_element(By.ID, 'unzoom')
        assert reset.is_displayed()
        reset.click()
        after = frames(drv)
        for a, b in zip(before, after):
            assert a['shown'] == b['shown'] and \
                abs(a['x'] - b['x']) < 0.01 and \
                abs(a['w'] - b['w']) < 0.01, (a, b)
        assert not drv.find_element(By.ID, 'unzoom').is_displayed()
        # Escape resets too
        box(drv, 'hot_three').click()
        assert not one(frames(drv), 'hot_one')['shown']
        ActionChains(drv).send_keys(Keys.ESCAPE).perform()
        assert one(frames(drv), 'hot_one')['shown']
    finally:
        drv.quit()


def case_search_colours_and_says_the_share(d):
    from selenium.webdriver.common.by import By
    svg = graph(d)
    drv = browser()
    try:
        drv.get('file://' + svg)
        before = frames(drv)
        drv.find_element(By.ID, 'search').click()
        alert = drv.switch_to.alert
        alert.send_keys('^hot_one')
        alert.accept()
        fs = frames(drv)
        total = one(fs, 'all')['n']
        hit = [f for f in fs if re.search('^hot_one', f['name'])]
        want = 100.0 * sum(f['n'] for f in hit) / total
        said = drv.find_element(By.ID, 'matched').text
        print('# %s; %d boxes match, %.2f%% of %d samples' %
              (said, len(hit), want, total))
        assert said == 'Matched: %.2f%%' % want, (said, want)
        for f in fs:
            coloured = f['fill'] == 'rgb(230,0,230)'
            assert coloured == (f in hit), f
        assert drv.find_element(By.ID, 'search').text == 'Reset Search'
        drv.find_element(By.ID, 'search').click()
        assert [f['fill'] for f in frames(drv)] == \
            [f['fill'] for f in before]
        assert drv.find_element(By.ID, 'matched').text == ''
        # a caller and its callee match: their samples once
        h1 = one(fs, 'hot_one')
        up = [f for f in fs if f['depth'] == h1['depth'] - 1 and
              f['x'] <= h1['x'] and f['x'] + f['w'] >= h1['x'] + h1['w']]
        assert len(up) == 1, up
        drv.find_element(By.ID, 'search').click()
        alert = drv.switch_to.alert
        alert.send_keys('^(%s|hot_one.*)$' % re.escape(up[0]['name']))
        alert.accept()
        want = 100.0 * up[0]['n'] / total
        said = drv.find_element(By.ID, 'matched').text
        assert said == 'Matched: %.2f%%' % want, (said, want)
    finally:
        drv.quit()


def main():
    try:
        import selenium  # noqa: F401
    except ImportError:
        print('1..0 # SKIP no python3-selenium (scripts/deps.sh check)')
        return 1 if os.environ.get('CI') == 'true' else 0
    if not shutil.which('chromedriver'):
        print('1..0 # SKIP no chromedriver (Debian: chromium-driver)')
        return 1 if os.environ.get('CI') == 'true' else 0
    return tap.run(globals())


if __name__ == '__main__':
    sys.exit(main())
