#!/bin/bash
# completion.sh SRCDIR PCTR - the bash completion of pctr (TAP): every
# subcommand offered; for each, the options offered after "-" are exactly
# the long options of its getopt table in tools/cmd_SUB.c (or, for stat,
# tools/stat_options.c); event names
# after -e, the last item of a comma list.
set -u
src=$1 pctr=$2
n=0 fail=0
ok() { # STATUS DESCRIPTION DETAILS
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		echo "# $3"
		fail=1
	fi
}
# what the completion offers for the words "$@", the last being completed
offer() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_pctr
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
# the long options of a getopt table: { "name", ..._argument, ...
table() {
	f=$src/tools/cmd_$1.c
	[ -f "$src/tools/$1_options.c" ] && f=$src/tools/$1_options.c
	grep -oE '^[[:space:]]*\{ "[a-z-]+", (no|required|optional)_argument' \
		"$f" | sed -E 's/.*"([a-z-]+)".*/--\1/' |
		sort | tr '\n' ' '
}
pctr() { "$pctr" "$@"; }
. "$src/tools/pctr.bash-completion"

subs="list stat info profile script merge mpirun"
echo "1..$(($(echo $subs | wc -w) + 5))"
got=$(offer pctr '')
# record and report are modes of profile (its table, each a part of it)
want=$(printf '%s\n' $subs record report help --version --help | sort |
	tr '\n' ' ')
[ "$got" = "$want" ]
ok $? "the subcommands" "offered '$got', want '$want'"
for s in $subs; do
	got=$(offer pctr "$s" --)
	want=$(table "$s")
	[ -n "$want" ] && [ "$got" = "$want" ]
	ok $? "pctr $s: its options, as its getopt table" \
		"offered '$got', table '$want'"
done
got=$(offer pctr help st)
[ "$got" = "stat " ]
ok $? "pctr help: the subcommands" "offered '$got'"
got=$(offer pctr stat -e task-clock,page-fa)
[ "$got" = "task-clock,page-faults " ]
ok $? "an event after a comma" "offered '$got'"
got=$(offer pctr profile --call-graph '')
[ "$got" = "dwarf dwarf, fp " ]
ok $? "profile --call-graph: its methods" "offered '$got'"
got=$(offer pctr stat -e task-clock -- ech)
case " $got" in *" echo "*) r=0 ;; *) r=1 ;; esac
ok $r "a command after --" "offered '$got'"
exit $fail
