# bench/plot.gp - the plots of bench/RESULTS.md, from the .dat tables that
# bench/report.py writes.  Run in the data directory:
#   gnuplot -e "outdir='bench'" bench/plot.gp
if (!exists("outdir")) outdir = "."
have(f) = system("test -s " . f . " && echo 1 || echo 0") eq "1"

set terminal svg size 760,440 dynamic enhanced font "sans,12" background "white"
set datafile missing "NaN"
set key top left reverse Left noautotitle box opaque
set grid ytics lc rgb "#dddddd"
set border 3
set tics nomirror

# ---- 1. one read of K events ------------------------------------------------
if (have("read.dat")) {
	set output outdir . "/read.svg"
	set title "One read of K software events (minimum over trials)"
	set xlabel "events in the set"
	set ylabel "ns per read (log scale)"
	set logscale xy 2
	set logscale y 10
	set xrange [0.8:40]
	set yrange [0.5:*]
	set xtics (1, 2, 4, 8, 16, 32)
	plot "read.dat" u 1:5 w lp lw 2 pt 9 lc rgb "#c0392b" t "one read(2) per event", \
	     "" u 1:7 w p pt 5 ps 1.2 lc rgb "#8e44ad" t "PAPI\\_read (anchors.md, earlier run)", \
	     "" u 1:2 w lp lw 3 pt 7 lc rgb "#2471a3" t "pctr\\_set\\_read", \
	     "" u 1:4 w lp lw 2 dt 2 pt 6 lc rgb "#111111" t "raw read(2) of the group", \
	     "" u 1:6 w lp lw 2 pt 13 lc rgb "#27ae60" t "floor: seqlock + offset (no counter here)"
	unset logscale
	unset xrange
	unset yrange
	unset xtics
	set xtics
}

# ---- 2. empty region ---------------------------------------------------------
if (have("region.dat")) {
	set output outdir . "/region.svg"
	set title "An empty measured region (median)"
	set xlabel ""
	set ylabel "ns per region (log scale)"
	set logscale y 10
	set yrange [1:*]
	set style data histogram
	set style histogram clustered gap 1
	set style fill solid 0.85 border -1
	set boxwidth 0.9
	set xtics rotate by -25 scale 0 font ",10"
	set key top left
	plot "region.dat" u 2:xtic(1) t "1 event" lc rgb "#aed6f1", \
	     "" u 3 t "4 events" lc rgb "#3498db", \
	     "" u 4 t "8 events" lc rgb "#1a5276"
	unset logscale
	unset yrange
	set xtics norotate font ",12"
	set style data linespoints
}

# ---- 3. the guest: instructions per read -----------------------------------
if (have("guest.dat")) {
	set output outdir . "/guest.svg"
	set title "Instructions of one read, user mode, emulated arm64 PMU (exact)"
	set ylabel "instructions"
	set style data histogram
	set style histogram clustered gap 1
	set style fill solid 0.85 border -1
	set xtics rotate by -20 scale 0 font ",10"
	set yrange [0:*]
	set key top left
	plot "guest.dat" u 2:xtic(1) t "1 event" lc rgb "#a9dfbf", \
	     "" u 3 t "4 events" lc rgb "#1e8449", \
	     "" u 0:2:(sprintf("%d", $2)) w labels offset -1.6,0.7 font ",9" notitle, \
	     "" u 0:3:(sprintf("%d", $3)) w labels offset 1.6,0.7 font ",9" notitle
	unset yrange
	set xtics norotate font ",12"
	set style data linespoints
}

# ---- 4. start-up ------------------------------------------------------------
if (have("startup.dat")) {
	set output outdir . "/startup.svg"
	set title "Whole-process start-up: COMMAND -e task-clock -- true"
	set ylabel "ms (bar: median, point: minimum)"
	set style fill solid 0.85 border -1
	set boxwidth 0.6
	set yrange [0:*]
	set xrange [-0.6:*]
	set xtics scale 0
	set key top left
	plot "startup.dat" u 0:2:xtic(1) w boxes lc rgb "#5dade2" t "median", \
	     "" u 0:3 w p pt 7 ps 1.2 lc rgb "#1b2631" t "minimum", \
	     "" u 0:2:(sprintf("%.2f ms", $2)) w labels offset 0,0.8 notitle
	unset yrange
	unset xrange
}

# ---- 5. thread scaling ------------------------------------------------------
if (have("scale.dat")) {
	set output outdir . "/scale.svg"
	set title "Counting a process with inheritance: slowdown of a fixed workload"
	set xlabel "threads"
	set ylabel "counted / bare run time"
	set logscale x 2
	set xrange [0.8:80]
	set xtics (1, 8, 64)
	set yrange [0.8:*]
	set style fill empty
	plot 1 w l lc rgb "#999999" dt 3 t "no slowdown", \
	     "scale.dat" u 1:2 w lp lw 3 pt 7 lc rgb "#2471a3" t "minima", \
	     "" u 1:3 w lp lw 1 pt 6 dt 2 lc rgb "#7fb3d5" t "medians"
}
