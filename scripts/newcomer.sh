#!/bin/bash
# newcomer.sh - do what a new user does: on a fresh Debian 12 with git, sudo
# and build-essential, clone pctr and run the commands of the README's first
# code block (make demo, make check).  Reports, per command, its exit status,
# its duration and the last lines of its summary; the full output is in a
# log file it names.  Exit status 1 if any command failed.
#
# usage: scripts/newcomer.sh [options] [COMMIT]
#   COMMIT           what to clone from this repository (default HEAD)
#   --load N         run N CPU spinners and a loop building the project (on
#                    the host) beside the commands
#   --container      run the commands in new mount and PID namespaces with a
#                    private /proc, as a container does (unshare --mount
#                    --pid --fork --mount-proc)
#   --reuse-caches   bind-mount this machine's /var/tmp on the chroot's, with
#                    its /var/tmp/pctr-qemu-* and /var/tmp/pctr-hw (the
#                    patched QEMU build and the guest kernels).  NOT a fresh
#                    run: it skips the QEMU build (about 4 minutes on 2
#                    CPUs) and the kernel downloads of a new user's make
#                    check, and builds what is missing into this machine's
#                    caches.
#   --keep           keep the chroot (it is deleted otherwise)
#   --user           run the commands as an ordinary user with sudo rights
#                    (default: as root)
#
# Needs root (debootstrap, chroot, mounts) and Debian's package mirror (the
# one apt uses here, from /etc/apt/sources.list*).  The minimal Debian 12
# (debootstrap --variant=minbase, then apt-get install git sudo
# build-essential) is cached as a tarball under /var/tmp/pctr-newcomer and
# built only when missing; every run unpacks a new copy of it.
set -u
# all of it in one compound command, read whole before it runs: a run
# takes half an hour, and the file may change under it (a checkout)
{
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PCTR_NEWCOMER_CACHE:-/var/tmp/pctr-newcomer}
suite=bookworm
base=$cache/$suite-minbase-git-sudo-build-essential.tar
load=0 container=0 reuse=0 keep=0 as_user=0 commit=HEAD

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--load) [ $# -ge 2 ] || usage; load=$2; shift ;;
	--load=*) load=${1#--load=} ;;
	--container) container=1 ;;
	--reuse-caches) reuse=1 ;;
	--keep) keep=1 ;;
	--user) as_user=1 ;;
	-h|--help) usage ;;
	-*) echo "newcomer.sh: unknown option $1" >&2; usage ;;
	*) commit=$1 ;;
	esac
	shift
done
case $load in ''|*[!0-9]*) echo "newcomer.sh: --load wants a number, not '$load'" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "newcomer.sh: run as root (debootstrap, chroot and mounts need it)" >&2; exit 2; }
for p in debootstrap unshare chroot git; do
	command -v $p >/dev/null 2>&1 ||
		{ echo "newcomer.sh: $p is missing (apt-get install debootstrap util-linux git)" >&2; exit 2; }
done
sha=$(git -C "$top" rev-parse --verify "$commit^{commit}") ||
	{ echo "newcomer.sh: no commit '$commit' in $top" >&2; exit 2; }
gitdir=$(cd "$top" && cd "$(git rev-parse --git-common-dir)" && pwd)

mkdir -p "$cache/logs"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
logdir=$cache/logs/$stamp
mkdir -p "$logdir"
log=$logdir/newcomer.log
say() { echo "$*" | tee -a "$log"; }
: >"$log"

# ---- the mirror apt uses here ---------------------------------------------

# The first Debian archive URI of /etc/apt/sources.list and sources.list.d
# (one-line .list and deb822 .sources files) that is not the security one.
mirror() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
}
url=$(mirror | grep -v -e security -e '^file:' | head -n1)
url=${url:-http://deb.debian.org/debian}

# ---- the cached minimal Debian 12 -------------------------------------------

build_base() {
	local tmp=$cache/base.tmp
	rm -rf "$tmp"
	say "newcomer: building $base (debootstrap --variant=minbase $suite $url; once)"
	debootstrap --variant=minbase "$suite" "$tmp" "$url" >>"$log" 2>&1 ||
		{ say "newcomer: debootstrap failed (log: $log)"; return 1; }
	# no service starts in a chroot (as in container images)
	printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
	chmod 755 "$tmp/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null
	unshare --mount --propagation private sh -c '
		mount -t proc proc "$1/proc" &&
		chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y git sudo build-essential &&
		chroot "$1" apt-get clean' sh "$tmp" >>"$log" 2>&1 ||
		{ say "newcomer: apt-get install git sudo build-essential failed (log: $log)"; return 1; }
	tar -C "$tmp" -cf "$base.tmp" . && mv "$base.tmp" "$base" && rm -rf "$tmp"
}

exec 9>"$cache/lock"
flock 9
if [ ! -f "$base" ]; then
	build_base || exit 1
fi
flock -u 9

# ---- a fresh copy, the clone ------------------------------------------------

root=$(mktemp -d "$cache/root.XXXXXX")
pids=
cleanup() {
	local p
	for p in $pids; do kill -- -"$p" 2>/dev/null; done
	wait 2>/dev/null
	if [ "$keep" = 1 ]; then
		echo "newcomer: the chroot is kept in $root"
	else
		# the mounts lived in the commands' own mount namespace: nothing
		# of the host is mounted below $root here
		if findmnt -rn -o TARGET | grep -q "^$root/"; then
			echo "newcomer: something is still mounted below $root: left in place" >&2
		else
			rm -rf "$root"
		fi
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf"
home=/root
if [ "$as_user" = 1 ]; then
	chroot "$root" useradd -m -s /bin/bash newcomer
	echo 'newcomer ALL=(ALL) NOPASSWD: ALL' >"$root/etc/sudoers.d/newcomer"
	chmod 440 "$root/etc/sudoers.d/newcomer"
	home=/home/newcomer
fi

# in_chroot SCRIPT: run SCRIPT with sh in the chroot, /proc, /sys and /dev
# mounted in a mount namespace of its own (with --container, also a PID
# namespace and a /proc of its own)
in_chroot() {
	local ns="--mount --propagation private" proc=1
	if [ "$container" = 1 ]; then
		ns="$ns --pid --fork --mount-proc=$root/proc"
		proc=0
	fi
	unshare $ns sh -c '
		root=$1 proc=$2 reuse=$3 src=$4; shift 4
		set -e
		[ "$proc" = 1 ] && mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"
		mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"
		# the whole of /var/tmp: the QEMU build locks its cache
		# entries there, and one may be under way on the host
		[ "$reuse" = 1 ] && mount --bind /var/tmp "$root/var/tmp"
		mkdir -p "$root/mnt/pctr.git"
		mount --bind -o ro "$src" "$root/mnt/pctr.git" 2>/dev/null ||
			mount --bind "$src" "$root/mnt/pctr.git"
		set +e
		exec chroot "$root" "$@"' sh "$root" "$proc" "$reuse" "$gitdir" "$@"
}

run_as() { # SCRIPT: as root or as the user, from the clone
	if [ "$as_user" = 1 ]; then
		in_chroot su - newcomer -c "cd $home/pctr && $1"
	else
		in_chroot sh -c "export HOME=$home; cd $home/pctr && $1"
	fi
}

say "newcomer: Debian $suite (minbase, git, sudo, build-essential) from $url in $root"
say "newcomer: commit $sha$([ "$reuse" = 1 ] && echo ', REUSING the host QEMU and kernel caches (not a fresh run)')$([ "$container" = 1 ] && echo ', in a container (private /proc and PIDs)')$([ "$load" -gt 0 ] && echo ", load: $load spinner(s) and a build loop")"
# cloned by root (git refuses a repository another user owns), then
# given to the user
in_chroot sh -c "git clone -q /mnt/pctr.git $home/pctr && git -C $home/pctr checkout -q --detach $sha &&
	{ [ $as_user = 0 ] || chown -R newcomer: $home/pctr; }" >>"$log" 2>&1 ||
	{ say "newcomer: git clone of $sha failed (log: $log)"; exit 1; }

# ---- the README's first code block ---------------------------------------

# every line of the first fenced block, comments and blank lines dropped
cmds=$(awk '/^```/ { if (inb) exit; inb = 1; next } inb' "$root$home/pctr/README.md" |
	sed 's/[[:space:]]#.*//; s/^#.*//; s/[[:space:]]*$//' | grep -v '^$')
[ -n "$cmds" ] || { say "newcomer: README.md has no commands in its first code block"; exit 1; }

# ---- load beside it --------------------------------------------------------

if [ "$load" -gt 0 ]; then
	i=0
	while [ "$i" -lt "$load" ]; do
		setsid sh -c 'while :; do :; done' &
		pids="$pids $!"
		i=$((i + 1))
	done
	# a build beside it: the project compiled over and over on the host
	git clone -q "$gitdir" "$root.load" && git -C "$root.load" checkout -q --detach "$sha"
	setsid sh -c 'cd "$1" || exit; while :; do
		rm -rf b; meson setup b -Dlibdir=lib >/dev/null 2>&1 && ninja -C b >/dev/null 2>&1 || sleep 1
	done' sh "$root.load" >/dev/null 2>&1 &
	pids="$pids $!"
	trap 'cleanup; rm -rf "$root.load"' EXIT
fi

# ---- the commands ------------------------------------------------------------

failed=0 n=0
results=
while IFS= read -r cmd; do
	n=$((n + 1))
	out=$logdir/cmd$n.log
	say "newcomer: \$ $cmd   (output: $out)"
	t0=$(date +%s)
	run_as "$cmd" </dev/null >"$out" 2>&1
	rc=$?
	t=$(($(date +%s) - t0))
	[ "$rc" = 0 ] || failed=1
	cat "$out" >>"$log"
	line=$(printf '%s: exit %d, %dm%02ds' "$cmd" "$rc" $((t / 60)) $((t % 60)))
	results="$results$line
"
	# the summary: from make check's "== summary" on, else the last lines
	if grep -q '^== summary' "$out"; then
		sed -n '/^== summary/,$p' "$out" | grep -v '^== summary' | tail -n 25
	else
		tail -n 8 "$out"
	fi | sed 's/^/    /' | tee -a "$log"
done <<EOF
$cmds
EOF

say "newcomer: results (commit ${sha:0:12}$([ "$reuse" = 1 ] && echo ', caches reused')$([ "$container" = 1 ] && echo ', container')$([ "$load" -gt 0 ] && echo ", --load $load"))"
printf '%s' "$results" | sed 's/^/  /' | tee -a "$log"
say "newcomer: full log: $log"
exit $failed
}
