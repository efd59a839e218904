#!/usr/bin/env python3
"""Two hosts made of network namespaces, one Open MPI job across them.

Each host is a network namespace with its own UTS name (pctr-hN-PID), the
two joined by a veth pair (10.77.N.1 and 10.77.N.2, N from the pid).
mpirun runs in the first; it starts the second host's daemon through a
plm_rsh_agent script that enters that namespace (no ssh), and every byte
between them goes over TCP on the veth (oob and btl tcp only).  The two
share one file system, as hosts with a shared /tmp do; a second agent
gives the second host a $TMPDIR of its own (a tmpfs mounted over it in a
mount namespace; in a chroot, where / cannot be made private, once a
probe shows that the mount stays in that namespace), as most clusters
have.

- libpctr-mpi: mpi_ranks with regions, 2 ranks a host: the report names
  each rank's host and region "touch" is exact over the ranks (640, 64 on
  rank 0 to 256 on rank 3, imbalance 1.6).
- pctr mpirun: mpi_pages 500 (freestanding, 3 start-up faults), 2 ranks a
  host: each rank's page-faults:u exact (503, 1003, 1503, 2003), each on
  its host; the ranks' counts come back in files of the launcher's
  directory.  Again with the second host's own $TMPDIR, where that
  directory is not: its ranks' counts come on stderr with the key.

Needs root (namespaces, links); usage: test_two_hosts.py BUILD_DIR.  TAP.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'build')
PCTR = os.path.join(BUILD, 'tools', 'pctr')
RANKS = os.path.join(BUILD, 'tests', 'mpi', 'mpi_ranks_linked')
PAGES = os.path.join(BUILD, 'tests', 'tool', 'mpi_pages')
TAG = os.getpid()
NET = '10.77.%d' % (TAG % 250)
HOSTS = [('pctr-h0-%d' % TAG, NET + '.1'), ('pctr-h1-%d' % TAG, NET + '.2')]

AGENT = '''#!/bin/sh
# plm_rsh_agent: called as "agent [options] HOST COMMAND"; runs COMMAND
# in HOST's namespace, under that host's name
while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
host=$1; shift
case $host in
%s
*) echo "agent: no host $host" >&2; exit 255 ;;
esac
exec nsenter --net="/run/netns/$ns" unshare --uts /bin/sh -c "hostname $ns; $*"
'''

# the same, with a $TMPDIR of the host's own: UNSHARE from own_tmp_unshare()
OWN_TMP = AGENT.replace('unshare --uts /bin/sh -c "hostname $ns; $*"',
                        'UNSHARE /bin/sh -c '
                        '"mount -t tmpfs tmpfs $TMPDIR; hostname $ns; $*"')


def root_is_a_mount():
    with open('/proc/self/mountinfo') as f:
        return any(ln.split()[4] == '/' for ln in f)


def own_tmp_unshare(d):
    """The unshare that gives a host a $TMPDIR of its own.  It makes /
    private, which it cannot where / is not a mount point (a chroot):
    there the mount namespace keeps the mounts' propagation, once a probe
    has shown that a mount made in one reaches no other namespace."""
    if root_is_a_mount():
        return 'unshare --uts --mount'
    unshare = 'unshare --uts --mount --propagation unchanged'
    probe = os.path.join(d, 'probe')
    os.mkdir(probe)
    p = subprocess.Popen(unshare.split() + [
        'sh', '-c', 'mount -t tmpfs tmpfs "$1" && echo up && read x', 'sh',
        probe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    up = p.stdout.readline().strip() == 'up'
    leaked = os.stat(probe).st_dev != os.stat(d).st_dev
    p.communicate('')
    if leaked:
        subprocess.run(['umount', probe])
    os.rmdir(probe)
    if not up:
        raise RuntimeError('a tmpfs in a mount namespace of its own: %s '
                           'failed' % unshare)
    if leaked:
        raise RuntimeError('/ is not a mount point (a chroot) and the file '
                           'system holding it is a shared mount: a mount '
                           'made in a namespace of its own reaches the '
                           'others (make it private: mount '
                           '--make-rprivate on it, outside the chroot)')
    return unshare


# Commands run in a host's namespace through nsenter, not "ip netns exec"
# or "ip -n": those also remount / as a slave in a mount namespace of
# their own, which fails where / is not a mount point (a chroot).
def in_ns(n):
    return ['nsenter', '--net=/run/netns/' + n]


def sh(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError('%s: exit status %d: %s' % (
            ' '.join(cmd), p.returncode,
            ' '.join(p.stderr.split()) or 'no message'))


def hosts_up(d):
    (n0, a0), (n1, a1) = HOSTS
    for n, _ in HOSTS:
        sh('ip', 'netns', 'add', n)
    sh('ip', 'link', 'add', 'pv0-%d' % TAG, 'netns', n0, 'type', 'veth',
       'peer', 'name', 'pv1-%d' % TAG, 'netns', n1)
    for (n, a), dev in zip(HOSTS, ['pv0-%d' % TAG, 'pv1-%d' % TAG]):
        sh(*in_ns(n), 'ip', 'addr', 'add', a + '/24', 'dev', dev)
        sh(*in_ns(n), 'ip', 'link', 'set', dev, 'up')
        sh(*in_ns(n), 'ip', 'link', 'set', 'lo', 'up')
    agent = os.path.join(d, 'agent.sh')
    with open(agent, 'w') as f:
        f.write(AGENT % '\n'.join('%s) ns=%s ;;' % (a, n)
                                  for n, a in HOSTS))
    os.chmod(agent, 0o755)
    with open(agent_own_tmp(d), 'w') as f:
        f.write(OWN_TMP.replace('UNSHARE', own_tmp_unshare(d)) %
                '\n'.join('%s) ns=%s ;;' % (a, n) for n, a in HOSTS))
    os.chmod(agent_own_tmp(d), 0o755)
    return agent


def agent_own_tmp(d):
    return os.path.join(d, 'agent-own-tmp.sh')


def hosts_down():
    for n, _ in HOSTS:
        subprocess.run(['ip', 'netns', 'del', n], capture_output=True)


def mpi_args(agent):
    net = NET + '.0/24'
    return ['--host', '%s:2,%s:2' % (HOSTS[0][1], HOSTS[1][1]),
            '--mca', 'plm_rsh_agent', agent,
            '--mca', 'oob_tcp_if_include', net,
            '--mca', 'btl', 'tcp,self', '--mca', 'btl_tcp_if_include', net]


def on_first_host(cmd, env):
    e = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1',
             OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', **env)
    # no leak check in ranks under AddressSanitizer: test_mpi_lib.py says why
    asan = e.get('ASAN_OPTIONS', '')
    e['ASAN_OPTIONS'] = (asan + ':' if asan else '') + 'detect_leaks=0'
    inner = 'hostname %s; exec "$@"' % HOSTS[0][0]
    p = subprocess.run(in_ns(HOSTS[0][0]) + ['unshare',
                        '--uts', 'sh', '-c', inner, 'sh'] + cmd,
                       env=e, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
    return p


def case_library_across_two_hosts(agent, d):
    out = os.path.join(d, 'job.json')
    on_first_host(['mpirun', '-n', '4'] + mpi_args(agent) +
                  ['-x', 'PCTR_EVENTS', '-x', 'PCTR_REPORT', RANKS],
                  {'PCTR_EVENTS': 'page-faults:u',
                   'PCTR_REPORT': 'json:' + out})
    with open(out) as f:
        rep = json.load(f)
    hosts = [(r['rank'], r['host']) for r in rep['ranks']]
    print('# ranks on hosts: %r' % hosts)
    assert hosts == [(0, HOSTS[0][0]), (1, HOSTS[0][0]),
                     (2, HOSTS[1][0]), (3, HOSTS[1][0])], hosts
    touch = [g for g in rep['regions'] if g['name'] == 'touch'][0]
    pf = touch['events']['page-faults:u']
    print('# touch over the hosts: %r' % pf)
    assert pf == {'ranks': 4, 'total': 640, 'min': 64, 'mean': 160,
                  'max': 256, 'max_rank': 3, 'imbalance': 1.6}, pf


def case_pctr_mpirun_across_two_hosts(agent, d):
    pctr_mpirun_two_hosts(agent, d, {})


def case_pctr_mpirun_second_host_own_tmp(agent, d):
    tmp = os.path.join(d, 'tmp')
    os.mkdir(tmp)
    pctr_mpirun_two_hosts(agent_own_tmp(d), d, {'TMPDIR': tmp})
    assert os.listdir(tmp) == [], os.listdir(tmp)


def pctr_mpirun_two_hosts(agent, d, env):
    out = os.path.join(d, 'pm.json')
    margs = []
    for a in mpi_args(agent)[2:]:
        margs += ['--mpirun-arg', a]
    p = on_first_host([PCTR, 'mpirun', '-n', '4', '--host',
                       mpi_args(agent)[1]] + margs +
                      ['--json', '-o', out, '-e', 'page-faults:u', '--',
                       PAGES, '500'], env)
    with open(out) as f:
        rep = json.load(f)
    got = [(r['rank'], r['host'], r['counts']['page-faults:u'])
           for r in rep['ranks']]
    print('# ranks, hosts, page faults: %r' % got)
    assert rep['missing'] == [], rep
    assert 'pctr mpirun:' not in p.stderr, p.stderr
    assert got == [(0, HOSTS[0][0], 503), (1, HOSTS[0][0], 1003),
                   (2, HOSTS[1][0], 1503), (3, HOSTS[1][0], 2003)], got


CASES = [v for k, v in sorted(globals().items()) if k.startswith('case_')]


def cannot(why):
    print('1..0 # SKIP ' + why)
    return 1 if os.environ.get('CI') == 'true' else 0


def main():
    if os.getuid() != 0:
        return cannot('network namespaces need root')
    for prog in ('mpirun', 'ip', 'unshare', 'nsenter'):
        if not shutil.which(prog):
            return cannot('no %s' % prog)
    failed = 0
    print('1..%d' % len(CASES), flush=True)
    with tempfile.TemporaryDirectory() as d:
        try:
            try:
                agent = hosts_up(d)
            except RuntimeError as e:
                print('Bail out! the two hosts could not be made: %s' % e)
                return 1
            for i, fn in enumerate(CASES, 1):
                try:
                    fn(agent, d)
                    print('ok %d - %s' % (i, fn.__name__[5:]), flush=True)
                except Exception:
                    failed += 1
                    for ln in traceback.format_exc().splitlines():
                        print('# ' + ln)
                    print('not ok %d - %s' % (i, fn.__name__[5:]),
                          flush=True)
        finally:
            hosts_down()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
