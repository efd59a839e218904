# subpage.awk - pctr-CMD(1) from pctr(1): "man pctr-stat" as "man perf-stat".
#
#   awk -f subpage.awk -v cmd=record -v opts=record -v what="..." \
#       -v also="pctr-report perf-record" pctr.1
#
# pctr(1) stays the one place each command is written: this page takes
# from it the command's SYNOPSIS lines (".B pctr CMD" up to its ".br"), its
# DESCRIPTION subsection (".SS pctr CMD"), its OPTIONS subsection (".SS
# OPTS"), the EXIT STATUS and FILES sections whole, and the lines of
# EXAMPLES that run "pctr CMD"; SEE ALSO names pctr(1) and the pages of
# @also.
function flush_sub() { sub_on = 0 }
# "perf-record" as man(7) spells it: "perf\-record"
function roff(name,	parts, n, i, s) {
	n = split(name, parts, "-")
	s = parts[1]
	for (i = 2; i <= n; i++)
		s = s "\\-" parts[i]
	return s
}
function see_also(	pages, n, i) {
	n = split(also, pages, " ")
	print ".SH SEE ALSO"
	print ".BR pctr (1)" (n ? "," : ".")
	for (i = 1; i <= n; i++)
		print ".BR " roff(pages[i]) " (1)" (i < n ? "," : ".")
	print "The JSON and CSV layouts are described in"
	print ".IR " docdir "/json-schema.md ."
}
BEGIN { up = toupper(cmd) }
/^\.TH / {
	sub(/^\.TH PCTR /, ".TH PCTR-" up " ")
	print
	print ".SH NAME"
	print "pctr-" cmd " \\- " what
	next
}
/^\.SH / {
	sect = substr($0, 5)
	gsub(/"/, "", sect)
	sub_on = 0
	if (sect == "SYNOPSIS" || sect == "DESCRIPTION" || sect == "OPTIONS" ||
	    sect == "EXAMPLES")
		pending = sect
	else
		pending = ""
	if (sect == "EXIT STATUS" || sect == "FILES") {
		print
		whole = 1
	} else {
		whole = 0
	}
	if (sect == "SEE ALSO") {
		if (examples)
			print ".fi"
		see_also()
	}
	next
}
whole { print; next }
pending == "EXAMPLES" {
	if ($0 ~ "^(sudo )?pctr " cmd "( |$)") {
		if (!examples++)
			print ".SH EXAMPLES\n.nf"
		print
	}
	next
}
pending == "SYNOPSIS" {
	if ($0 ~ "^\\.B pctr " cmd "$" || (cmd == "list" && $0 ~ /^\.B pctr \\-l$/)) {
		if (!syn) print ".SH SYNOPSIS"
		syn = 1
		sub_on = 1
	} else if ($0 ~ /^\.B pctr/) {
		sub_on = 0
	}
	if (sub_on) print
	next
}
/^\.SS / {
	name = substr($0, 5)
	gsub(/"/, "", name)
	if (pending == "DESCRIPTION" && name == "pctr " cmd) {
		print ".SH DESCRIPTION"
		sub_on = 1
		next
	}
	if (pending == "OPTIONS" && name == opts) {
		print ".SH OPTIONS"
		sub_on = 1
		next
	}
	sub_on = 0
	next
}
sub_on { print }
