#!/bin/sh
# modversion.sh FC - the module file version of the Fortran compiler FC
# ("15" for gfortran 8 to 14), read from a module it compiles: the
# directory its .mod files go to (Debian's fortran/gfortran-mod-N).
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf 'module pctr_probe\nend module\n' >"$d/p.f90"
(cd "$d" && "$@" -c p.f90)
gzip -dc "$d/pctr_probe.mod" | head -c 64 | sed -n "s/^GFORTRAN module version '\([0-9]*\)'.*/\1/p"
