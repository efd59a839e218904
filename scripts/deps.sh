#!/bin/sh
# deps.sh PROFILE - install the Debian 12 packages a make target needs
# (profiles: build, check, bench, and qemu for tests/hw/qemu/build.sh).
# Installs only what is missing; as root with apt-get, otherwise through
# sudo; says exactly what to install when it can do neither.
set -e
profile=${1:-build}

# libjson-c-dev: pctr merge and pctr mpirun read reports with json-c;
# gfortran: module pctr (bindings/fortran) and its tests
pkgs="meson ninja-build pkg-config libpfm4-dev libelf-dev libdw-dev libjson-c-dev gfortran"
# the Python package (bindings/python): a C extension
pkgs="$pkgs python3-dev"
# the Debian packages (debian/), lintian, and the chroot that tests them
package="dpkg-dev debhelper fakeroot lintian debootstrap libopenmpi-dev dh-python"
# tests/hw/qemu/build.sh: Debian's QEMU source, patched, built for TCG only
qemu_build="dpkg-dev xz-utils patch python3 gcc libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev"
case $profile in
build) ;;
check) pkgs="$pkgs valgrind clang libclang-rt-14-dev util-linux procps python3"
	# objcopy: test_profile strips a copy of its workload
	pkgs="$pkgs binutils abigail-tools man-db $qemu_build"
	# pctr mpirun's tests run Open MPI's mpirun; the MPI library's headers
	# for what is built on MPI itself
	pkgs="$pkgs openmpi-bin libopenmpi-dev"
	# tests/mpi/test_two_hosts.py: hosts made of network namespaces
	pkgs="$pkgs iproute2"
	# tests/tool/test_flame.py renders pctr profile --svg in a browser
	pkgs="$pkgs chromium"
	# tests/tool/test_flame_click.py clicks it (chromedriver, selenium)
	pkgs="$pkgs chromium-driver python3-selenium"
	# test_profile reads pctr profile --perf-data with perf report
	pkgs="$pkgs linux-perf"
	# tests/locale_de.h builds de_DE.UTF-8 from its sources (localedef)
	pkgs="$pkgs locales"
	# the Python package's tests: pytest, pip install --no-build-isolation
	# (setuptools), and its DataFrame of regions (pandas)
	pkgs="$pkgs python3-pytest python3-pip python3-setuptools python3-pandas" ;;
package) pkgs="$pkgs $package" ;;
qemu) pkgs="$qemu_build" ;;
bench) pkgs="$pkgs gnuplot-nox linux-perf libpapi-dev hyperfine python3" ;;
*) echo "deps.sh: unknown profile '$profile'" >&2; exit 2 ;;
esac

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	run=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	run=sudo
else
	echo "pctr: these Debian packages are needed:$missing" >&2
	echo "pctr: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "pctr: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# the machine may be shared: wait for another apt-get instead of failing
$run apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
$run apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
