# A thin wrapper around Meson.  "make demo", "make check" and the other test
# targets install the Debian packages they need first (as root, or through
# sudo), so a fresh Debian 12 machine with git and build-essential needs
# nothing else.  "make", "make all" and "make install" never install
# packages: "make deps" does, for a user who has not got them.
BUILD      ?= build
ASAN_BUILD ?= build-asan
PREFIX     ?= /usr/local
MESON      ?= meson
NINJA      ?= ninja

.PHONY: all deps check check-fast check-asan check-valgrind check-hw demo \
	install bench fuzz stress soak clean deb check-package abi-update

# the goals that build through "all" and install the build packages first
DEPS_GOALS = demo check-fast check-valgrind bench stress

all:
	$(if $(filter $(DEPS_GOALS),$(MAKECMDGOALS)),@scripts/deps.sh build)
	@command -v $(MESON) >/dev/null && command -v $(NINJA) >/dev/null || \
		{ echo "pctr: meson or ninja is missing: make deps installs" \
		       "the build dependencies" >&2; exit 1; }
	@test -f $(BUILD)/build.ninja || $(MESON) setup $(BUILD) -Dlibdir=lib
	$(NINJA) -C $(BUILD)

deps:
	@scripts/deps.sh build

# Every test: unit, system, compat, tool, repro; again under ASan/UBSan;
# the leak check; a short fuzz run; the emulated-PMU guest (which builds the
# patched QEMU once, tests/hw/qemu).  Ends with one line per tier and a last
# line "N passed, N failed, N skipped" (tests/README.md).  With CI=true a
# tier that cannot run fails.
check:
	@scripts/check.sh --deps check all

check-fast: all
	@scripts/check.sh fast

check-asan:
	@scripts/deps.sh check
	@scripts/check.sh asan

check-valgrind: all
	@scripts/check.sh valgrind

check-hw:
	@scripts/check.sh hw

# The main job: count a bundled workload and print a report.
demo: all
	$(BUILD)/tools/pctr stat -r 3 -- $(BUILD)/examples/workload

# ...and says where the Python package went (PYTHONPATH for python3)
install: all
	$(MESON) configure $(BUILD) -Dprefix=$(abspath $(PREFIX)) -Dlibdir=lib
	$(MESON) install -C $(BUILD) --quiet
	@$(MESON) introspect --installed $(BUILD) | python3 -c \
		'import json, os, sys; d = [os.path.dirname(os.path.dirname(p)) \
		for p in json.load(sys.stdin).values() \
		if os.path.basename(p) == "__init__.py" and "/pctr/" in p]; \
		d and print("pctr: the Python package is in", d[0] + ";", \
		"PYTHONPATH=" + d[0], "python3 -c \"import pctr\"")'

# The Debian packages (debian/), in the parent directory as usual.
deb:
	@scripts/deps.sh package
	dpkg-buildpackage -us -uc -b

# Build the packages, install them in a fresh Debian 12 chroot, build and
# run programs there with pkg-config (tests/pkg/chroot-test.sh).
check-package:
	@scripts/deps.sh package
	@scripts/check.sh package

# Record an intended ABI change: regenerate abi/*.abi (tests/pkg/abi-check.sh)
abi-update:
	@scripts/deps.sh check
	@abi/update.sh

bench: all
	@scripts/deps.sh bench
	@bench/run.sh

fuzz:
	@scripts/deps.sh check
	@scripts/check.sh fuzz

# Load: pctr stat -a -I 10 and pctr profile on a busy machine (tests/README.md).
stress: all
	@BUILD=$(BUILD) tests/stress/run.sh $(STRESS_SECONDS)

# make check SOAK_RUNS times (default 5) under a CPU and process load: a
# test that fails in any run is a failing test (scripts/soak.sh).
soak:
	@scripts/deps.sh check
	@BUILD=$(BUILD) scripts/soak.sh $(SOAK_RUNS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-*
