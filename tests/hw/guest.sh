# tests/hw/guest.sh - sourced by run.sh and run-in-guest.sh: what a guest of
# each architecture needs (QEMU, Debian's kernel, PID 1) and one boot.
#
#   guest_setup ARCH        x86_64 or aarch64; 1 with $guest_error set if
#                           the guest cannot run here
#   guest_boot WORK LOG ARGS
#                           boots WORK/root (its /hw/plan: see hw_init.c)
#                           as the initramfs, PID 1 added, console to LOG;
#                           ARGS are more kernel parameters.  Returns
#                           QEMU's status (124: timed out), and says how
#                           it ended in $guest_why (guest_run_limited).
#
# The arm64 guest: Debian's qemu-system-aarch64, "-machine virt -cpu max",
# whose PMUv3 counts instructions exactly under -icount shift=0.  The x86-64
# guest: qemu-system-x86_64 built with tests/hw/qemu/*.patch (the Intel
# architectural PMU for TCG), "-cpu max,vendor=GenuineIntel,pmu=on" so that
# the kernel takes its Intel architectural-perfmon path, with the qboot
# firmware of Debian's qemu-system-data.
#
# environment: PCTR_HW_CACHE, PCTR_HW_QEMU, PCTR_HW_KERNEL, PCTR_HW_TIMEOUT,
#   PCTR_HW_STALL, PCTR_HW_QEMU_ARGS (see run-in-guest.sh -h).

guest_cache=${PCTR_HW_CACHE:-/var/tmp/pctr-hw}
guest_src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Debian's kernel for ARCH into the cache: whatever the linux-image-ARCH
# metapackage depends on.  The amd64 one also gives its msr module.
guest_fetch_kernel() { # ARCH
	local deb_arch meta img link tmp pkg deb ver

	case $1 in
	aarch64) deb_arch=arm64 img=Image link=Image ;;
	x86_64) deb_arch=amd64 img=vmlinuz link=vmlinuz-amd64 ;;
	esac
	guest_kernel=${PCTR_HW_KERNEL:-$guest_cache/$link}
	[ -f "$guest_kernel" ] && return 0
	[ -n "${PCTR_HW_KERNEL:-}" ] && { guest_error="PCTR_HW_KERNEL=$PCTR_HW_KERNEL does not exist"; return 1; }
	mkdir -p "$guest_cache" || { guest_error="cannot create $guest_cache"; return 1; }
	meta=linux-image-$deb_arch:$deb_arch
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	pkg=${pkg%:"$deb_arch"}
	[ -n "$pkg" ] || { guest_error="no $deb_arch kernel package known to apt (dpkg --add-architecture $deb_arch; apt-get update)"; return 1; }
	# the unsigned amd64 image is the same kernel, without the EFI signature
	[ "$deb_arch" = amd64 ] && pkg=$pkg-unsigned
	tmp=$(mktemp -d "$guest_cache/fetch.XXXXXX") || { guest_error="cannot write to $guest_cache"; return 1; }
	if ! (cd "$tmp" && apt-get download "$pkg:$deb_arch" >"$tmp/log" 2>&1 &&
		dpkg-deb -x ./*.deb x); then
		rm -rf "$tmp"
		guest_error="apt-get download $pkg:$deb_arch failed"
		return 1
	fi
	deb=$(ls "$tmp"/*.deb)
	ver=$(ls "$tmp"/x/boot/ | sed -n 's/^vmlinuz-//p' | head -n1)
	if [ "$(od -An -tx1 -N2 "$tmp/x/boot/vmlinuz-$ver" | tr -d ' ')" = 1f8b ]; then
		gunzip -c "$tmp/x/boot/vmlinuz-$ver" >"$guest_cache/$img-$ver"
	else
		cp "$tmp/x/boot/vmlinuz-$ver" "$guest_cache/$img-$ver"
	fi
	find "$tmp/x/lib/modules" -name msr.ko -exec cp {} "$guest_cache/msr-$ver.ko" \;
	ln -sfn "$img-$ver" "$guest_kernel"
	echo "# guest kernel: $pkg ($(dpkg-deb -f "$deb" Version))" >&2
	rm -rf "$tmp"
}

# The patched QEMU of tests/hw/qemu/build.sh (built once, then cached)
guest_find_qemu() { # BINARY
	local dir

	dir=$("$guest_src/qemu/build.sh" -q "${1#qemu-system-}-softmmu") &&
		[ -x "$dir/$1" ] && echo "$dir/$1"
}

# PID 1 for ARCH, compiled from hw_init.c when it is newer than the cache
guest_build_init() { # ARCH
	local cc=gcc

	[ "$1" = aarch64 ] && cc=aarch64-linux-gnu-gcc
	[ "$1" = x86_64 ] && [ "$(uname -m)" != x86_64 ] && cc=x86_64-linux-gnu-gcc
	guest_init=$guest_cache/hw_init-$1
	[ "$guest_init" -nt "$guest_src/hw_init.c" ] && return 0
	"$cc" -static -O2 -o "$guest_init.tmp" "$guest_src/hw_init.c" ||
		{ guest_error="cannot build PID 1 with $cc"; return 1; }
	mv "$guest_init.tmp" "$guest_init"
}

guest_setup() { # ARCH
	guest_arch=$1
	guest_error=
	case $1 in
	aarch64)
		guest_qemu=${PCTR_HW_QEMU:-$(guest_find_qemu qemu-system-aarch64)}
		guest_console=ttyAMA0
		guest_qemu_args=(-machine virt -cpu max,pauth-impdef=on)
		;;
	x86_64)
		guest_qemu=${PCTR_HW_QEMU:-$(guest_find_qemu qemu-system-x86_64)}
		[ -n "$guest_qemu" ] || {
			guest_error="no qemu-system-x86_64 with the emulated PMU (build it: tests/hw/qemu/build.sh)"
			return 1
		}
		# nmi_watchdog=0: the hard-lockup detector would hold fixed
		# counter 1 (cycles) for itself, in every guest
		guest_console="ttyS0 nmi_watchdog=0"
		# vendor: TCG's "max" CPU says AuthenticAMD; the kernel
		# takes the architectural-perfmon path on Intel only
		# firmware: qboot from qemu-system-data (Debian's QEMU source
		# has none), which boots -kernel straight away; no VGA ROM
		guest_qemu_args=(-machine q35 -cpu max,vendor=GenuineIntel,pmu=on
			-L /usr/share/qemu -bios qboot.rom -vga none)
		;;
	*)
		guest_error="unknown architecture $1"
		return 1
		;;
	esac
	command -v "$guest_qemu" >/dev/null 2>&1 || { guest_error="no $guest_qemu"; return 1; }
	guest_fetch_kernel "$1" || return 1
	guest_build_init "$1" || return 1
	guest_extra=
	[ "$1" = x86_64 ] && guest_extra=$(ls "$guest_cache"/msr-*.ko 2>/dev/null | head -n1)
	return 0
}

# The CPU time process PID has used so far, in clock ticks (its
# /proc/PID/stat, utime + stime); nothing once it is gone
guest_cpu_ticks() { # PID
	local stat

	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	# the fields after the command's name, split (numbers and a letter)
	# shellcheck disable=SC2086
	set -- ${stat##*) }
	echo $((${12} + ${13}))
}

# Run QEMU (the arguments) until it exits, or until it has used
# PCTR_HW_TIMEOUT seconds of CPU, or used none for PCTR_HW_STALL seconds
# (default 120) of the host's time.  The limit is the guest's CPU time,
# not the host's clock: under -icount the guest's work is fixed, every
# guest instruction costs the host the same, so the CPU it needs does not
# depend on the load and only the clock time it takes does (a clock limit,
# even one scaled by the load average at the boot, cannot follow a load
# that changes while the guest runs).  A guest that stops running
# (an idle guest that waits for nothing) uses no CPU and is stopped by the
# second limit.  Sets guest_why: how QEMU ended, after how long, with how
# much CPU.  Returns QEMU's status, 124 when a limit stopped it.
guest_run_limited() { # QEMU ARGS...
	local limit=${PCTR_HW_TIMEOUT:-600} stall=${PCTR_HW_STALL:-120}
	local hz pid cpu=0 last=0 since=$SECONDS start=$SECONDS status why=

	hz=$(getconf CLK_TCK)
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		cpu=$(guest_cpu_ticks "$pid") || break
		if [ "$cpu" -ge $((limit * hz)) ]; then
			why="timed out: its QEMU used $((cpu / hz)) s of CPU, the limit (PCTR_HW_TIMEOUT=$limit)"
		elif [ "$cpu" -gt "$last" ]; then
			last=$cpu since=$SECONDS
		elif [ $((SECONDS - since)) -ge "$stall" ]; then
			why="timed out: its QEMU used no CPU for ${stall} s (PCTR_HW_STALL), $((cpu / hz)) s of CPU in all"
		fi
		if [ -n "$why" ]; then
			kill -TERM "$pid" 2>/dev/null
			sleep 5
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			guest_why="$why, in $((SECONDS - start)) s"
			return 124
		fi
	done
	wait "$pid"
	status=$?
	guest_why="ended: QEMU exited with status $status after $((SECONDS - start)) s, $((last / hz)) s of CPU or more (limit: PCTR_HW_TIMEOUT=$limit s of CPU)"
	return "$status"
}

guest_boot() { # WORK LOG KERNEL-ARGS
	local work=$1 log=$2 cmdline status

	mkdir -p "$work/root/hw" "$work/root/dev" "$work/root/proc" \
		"$work/root/sys" "$work/root/tmp"
	cp "$guest_init" "$work/root/init"
	[ -n "$guest_extra" ] && cp "$guest_extra" "$work/root/hw/msr.ko"
	# a short initrd (a full disk) boots a kernel with no init, which
	# panics and, with -no-reboot, exits 0: say so instead
	if ! (cd "$work/root" && find . -print0 | cpio --null -o -H newc --quiet) >"$work/initrd"; then
		echo "guest_boot: cannot write $work/initrd" >"$log"
		guest_why="could not start: cannot write $work/initrd"
		return 125
	fi
	# randomize_kstack_offset=off: every syscall costs the same number of
	# kernel instructions, so kernel-inclusive figures are repeatable.
	# norandmaps: so does an exec; with each process's layout randomized,
	# an exec's kernel work moved by steps of about 3,100 instructions in
	# the x86-64 guest (test_hw_perf stat_kernel_agrees)
	cmdline="console=$guest_console panic=-1 loglevel=3 rdinit=/init randomize_kstack_offset=off norandmaps $3"
	# shellcheck disable=SC2086
	guest_run_limited "$guest_qemu" "${guest_qemu_args[@]}" \
		-icount shift=0,sleep=off -m 512M -smp "${guest_smp:-1}" -display none -monitor none \
		-serial stdio -nic none -no-reboot -kernel "$guest_kernel" \
		-initrd "$work/initrd" -append "$cmdline" ${PCTR_HW_QEMU_ARGS:-} \
		</dev/null >"$work/console" 2>&1
	status=$?
	tr -d '\r' <"$work/console" >"$log"
	return "$status"
}
