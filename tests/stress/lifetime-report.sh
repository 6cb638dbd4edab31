#!/bin/sh
# Summarise the lifetime stress runs of `make stress` from their serial
# logs: per run its parameters, outcome, load/unload cycles per module,
# rmmod wait times and the command that replays it; then the ops per kind
# and the cycles per module over all runs.
#   lifetime-report.sh LOGDIR [PLOTDIR] > REPORT
# With PLOTDIR, one line per run goes to PLOTDIR/lifetime-runs.dat (its
# ops/s and rmmod wait times) and gnuplot ($GNUPLOT, default gnuplot)
# draws PLOTDIR/lifetime-ops.png and PLOTDIR/lifetime-rmmod-wait.png from
# it (PLOTDIR/lifetime-plots.gp); without gnuplot, or when it fails, the
# report says the plots were skipped and is otherwise the same.
dir=$1 plotdir=$2
dat=${plotdir:+$plotdir/lifetime-runs.dat}
if [ -n "$dat" ]; then
	mkdir -p "$plotdir" && rm -f "$plotdir"/lifetime-ops.png \
		"$plotdir"/lifetime-rmmod-wait.png "$plotdir"/lifetime-plots.log
	{ echo "# lifetime stress runs (tests/stress/lifetime-report.sh), one line per run;"
	  echo "# ops/s and elapsed s from the run's last progress line, waits in us, ? = none"
	  echo "# idx run label cpus refmode modref result ops elapsed_s ops_per_s unloads wait_min wait_median wait_p99 wait_max"
	} > "$dat" || exit 1
fi
echo "# make stress: lifetime stress report ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
total=0 idx=0
for log in "$dir"/lifetime-*.log; do
	[ -e "$log" ] || continue
	name=$(basename "$log" .log)
	idx=$((idx + 1))
	echo
	echo "## $name"
	# The measured run is the last 'stress lifetime' of the log.
	awk -v dat="$dat" -v idx=$idx -v name="$name" '
	/stress: lifetime: refmode=.* cpus=/ { hdr = $0; n = 0; delete t; nm = 0; delete md
		prog = cyc = wait = peer = legacy = pass = "" }
	/stress: lifetime: run: / { run = $0 }
	/stress: lifetime: [a-z-]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$/ { t[n++] = $0 }
	/stress: lifetime: module / { md[nm++] = $0 }
	/stress: lifetime: cycles: / { cyc = $0 }
	/stress: lifetime: [0-9]+\/[0-9]+ load\/unload cycles|stress: lifetime: [0-9]+\/?[0-9]* ops, / { prog = $0 }
	/stress: lifetime: rmmod wait/ { wait = $0 }
	/stress: lifetime: rmmod tcp: / { peer = $0 }
	/stress: lifetime: refmode=legacy: / { legacy = $0 }
	/stress: lifetime: (PASS|replay)/ { last = $0 }
	/stress: lifetime: PASS/ { pass = $0 }
	/stress: FAIL|stress: E[A-Z]+:|KERNEL PANIC|EXCEPTION|invariant:/ { fails = fails "\n  " $0 }
	END {
		sub(/^.*stress: lifetime: /, "", hdr); print "config: " hdr
		sub(/^.*stress: lifetime: run: /, "", run); print "run:    " run
		for (i = 0; i < n; i++) { s = t[i]; sub(/^.*stress: lifetime: /, "", s); print "  " s }
		if (prog != "") { sub(/^.*stress: lifetime: /, "", prog); print "last progress: " prog }
		if (cyc != "") { sub(/^.*stress: lifetime: /, "", cyc); print cyc }
		for (i = 0; i < nm; i++) { s = md[i]; sub(/^.*stress: lifetime: /, "", s); print "  " s }
		sub(/^.*stress: lifetime: /, "", wait); print wait
		if (peer != "") { sub(/^.*stress: lifetime: /, "", peer); print peer }
		if (legacy != "") { sub(/^.*stress: lifetime: /, "", legacy); print legacy }
		print (pass != "" && fails == "") ? "result: PASS" : "result: FAIL" fails
		if (dat != "")
			print idx, name, datarow(hdr, cyc, prog, wait, pass != "" && fails == "") >> dat
	}
	# the number between KEY and UNIT in s ("p99 285482 us"), or ?
	function num(s, key, unit,    re) {
		re = key " [0-9]+ " unit
		if (match(s, re) == 0) return "?"
		return substr(s, RSTART + length(key) + 1, RLENGTH - length(key) - length(unit) - 2)
	}
	# the data file columns after idx and run: label cpus refmode modref
	# result ops elapsed ops/s unloads min median p99 max
	function datarow(hdr, cyc, prog, wait, ok,    cpus, rm, mr, r, ops) {
		cpus = "?"
		if (match(hdr, /cpus=[0-9]+/)) cpus = substr(hdr, RSTART + 5, RLENGTH - 5)
		rm = hdr; sub(/^refmode=/, "", rm); sub(/ .*/, "", rm)
		mr = hdr; sub(/^.*modref=/, "", mr); sub(/ .*/, "", mr)
		if (rm == "" || mr == "") rm = mr = "?"
		r = cpus "cpu:" rm "/" mr " " cpus " " rm " " mr " " (ok ? "PASS" : "FAIL")
		# ops done: from the cycles line of the report, else (a run cut short)
		# the count of its last progress line
		ops = num(cyc, "in", "ops")
		if (ops == "?" && match(prog, /^[0-9]+\/?[0-9]* ops,/))
			ops = substr(prog, 1, match(prog, /[^0-9]/) - 1)
		else if (ops == "?")
			ops = num(prog, ",", "ops,")
		r = r " " ops
		r = r " " num(prog, ",", "s elapsed") " " num(prog, ",", "ops/s")
		if (wait ~ /: [0-9]+ unloads, /)
			return r " " num(wait, ":", "unloads") " " num(wait, "min", "us") \
				" " num(wait, "median", "us") " " num(wait, "p99", "us") \
				" " num(wait, "max", "us")
		# "no unloads"; none at all: the run did not get to its report
		return r (wait ~ /no unloads/ ? " 0" : " ?") " ? ? ? ?"
	}' "$log"
	# the measured run: ops= or (make stress-long) cycles=, with its
	# modules, mix, hold time and time bound
	seed=$(sed -n 's/.*stress: lifetime: run: stress lifetime seed=\([0-9]*\) \(ops\|cycles\)=\([0-9]*\) secs=\([0-9]*\) workers=[0-9]* holdmax=\([0-9]*\) .* mods=\([^ ]*\) mix=\([^ ]*\)$/\1 \2 \3 \4 \5 \6 \7/p' "$log" | tail -n 1)
	cfg=$(sed -n 's/^stress: lifetime: refmode=\([a-z]*\) modref=\([a-z]*\) cpus=\([0-9]*\)$/\1 \2 \3/p' "$log" | tail -n 1)
	set -- $seed $cfg
	if [ $# -eq 10 ] && [ "$2" = ops ]; then
		echo "replay: make stress SEED=$1 OPS=$3 SMP=${10} REFMODE=$8 MODREF=$9"
	elif [ $# -eq 10 ]; then
		echo "replay: make stress SEED=$1 CYCLES=$3 SMP=${10} REFMODE=$8 MODREF=$9 LT_MODS=$6 LT_MIX=$7 LT_ARGS='holdmax=$5 secs=$4'"
	fi
done
echo
echo "## ops per kind, all runs"
for log in "$dir"/lifetime-*.log; do
	[ -e "$log" ] || continue
	awk '/stress: lifetime: refmode=.* cpus=/ { n = 0; delete t }
	/stress: lifetime: [a-z-]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$/ { s = $0; sub(/^.*stress: lifetime: /, "", s); t[n++] = s }
	END { for (i = 0; i < n; i++) print t[i] }' "$log"
done | awk '{ c[$1] += $2; e[$1] += $3; j[$1] += $4; f[$1] += $5; tot += $2; ft += $5 }
END { printf "%-10s %8s %8s %8s %8s\n", "op", "count", "errors", "injected", "failures";
	for (k in c) printf "%-10s %8d %8d %8d %8d\n", k, c[k], e[k], j[k], f[k] | "sort";
	close("sort");
	printf "total: %d lifetime ops, %d failures\n", tot, ft }'
echo
echo "## load/unload cycles per module, all runs"
for log in "$dir"/lifetime-*.log; do
	[ -e "$log" ] || continue
	awk '/stress: lifetime: refmode=.* cpus=/ { n = 0; delete t }
	/stress: lifetime: module / { s = $0; sub(/^.*stress: lifetime: module /, "", s); t[n++] = s }
	END { for (i = 0; i < n; i++) print t[i] }' "$log"
done | awk '{ l[$1] += $2; u[$1] += $4; tl += $2; tu += $4 }
END { printf "%-10s %8s %8s\n", "module", "loads", "unloads";
	for (k in l) printf "%-10s %8d %8d\n", k, l[k], u[k] | "sort";
	close("sort");
	printf "total: %d load/unload cycles (%d loads)\n", tu, tl }'

# ---- plots: PLOTDIR/lifetime-runs.dat drawn by gnuplot ----
[ -n "$dat" ] || exit 0
echo
echo "## plots"
gnuplot=${GNUPLOT:-gnuplot}
# which plots have a figure to draw: a run with ops/s, a run with waits
have=$(awk '!/^#/ && $10 ~ /^[0-9]+$/ { o = 1 } !/^#/ && $11 ~ /^[0-9]+$/ && $11 > 0 { w = 1 }
	END { print (o ? "ops" : "") " " (w ? "wait" : "") }' "$dat")
nruns=$idx
{
	cat <<'GP'
set grid ytics
set xtics noenhanced
set datafile missing "?"
set bmargin 5
# a run: its CPUs, refmode/modref, what it did (FAIL if it failed)
run(what) = strcol(4)." cpu".(strcol(4) eq "1" ? "" : "s")."\n".strcol(5)."/".strcol(6)."\n".what.(strcol(7) eq "FAIL" ? " FAIL" : "")
GP
	# 800 pixels wide, 130 a run beyond 6
	w=$((nruns > 6 ? nruns * 130 : 800))
	echo "set terminal pngcairo size $w,480 font \",10\""
	echo "set xrange [0.5:$nruns.5]"
	case $have in ops*) cat <<'GP'
set output "lifetime-ops.png"
set title "lifetime stress: ops/s per run (its last progress line)"
set ylabel "ops/s"
set yrange [0:*]
set key off
set style fill solid 0.8 border -1
set boxwidth 0.6
set offsets 0, 0, graph 0.1, 0
plot "lifetime-runs.dat" using 1:10:xtic(run(strcol(8)." ops")) with boxes lc rgb "#4477aa", \
	"" using 1:10:10 with labels offset 0,0.8
GP
	esac
	case $have in *wait) cat <<'GP'
set output "lifetime-rmmod-wait.png"
set title "lifetime stress: rmmod wait per run (min, median, p99, max)"
set ylabel "ms (log scale)"
set logscale y
set offsets 0, 0, 0, 0
set yrange [*:*]
set key above
plot "lifetime-runs.dat" using 1:($12/1000):(0):(($15-$12)/1000):xtic(run(strcol(11) eq "" || strcol(11) eq "?" ? "no report" : strcol(11)." unloads")) \
		with vectors nohead lc rgb "gray" notitle, \
	"" using 1:($12/1000) with points pt 9 ps 1.5 title "min", \
	"" using 1:($13/1000) with points pt 7 ps 1.5 title "median", \
	"" using 1:($14/1000) with points pt 5 ps 1.5 title "p99", \
	"" using 1:($15/1000) with points pt 11 ps 1.5 title "max"
GP
	esac
} > "$plotdir/lifetime-plots.gp"
echo "data: $dat (one line per run), gnuplot script: $plotdir/lifetime-plots.gp"
if [ "$have" = " " ]; then
	echo "plots skipped: no run has ops/s (a progress line) or an unload"
elif ! command -v "$gnuplot" > /dev/null 2>&1; then
	echo "plots skipped: gnuplot not found (make stress and make stress-lifetime install gnuplot-nox)"
elif ! (cd "$plotdir" && "$gnuplot" lifetime-plots.gp) > "$plotdir/lifetime-plots.log" 2>&1; then
	rm -f "$plotdir"/lifetime-ops.png "$plotdir"/lifetime-rmmod-wait.png
	echo "plots skipped: gnuplot failed ($plotdir/lifetime-plots.log)"
else
	case $have in ops*) echo "plot: $plotdir/lifetime-ops.png (ops/s per run)" ;;
	*) echo "plot skipped: lifetime-ops.png (no run printed a progress line: progress=0)" ;; esac
	case $have in *wait) echo "plot: $plotdir/lifetime-rmmod-wait.png (rmmod wait per run: min, median, p99, max)" ;;
	*) echo "plot skipped: lifetime-rmmod-wait.png (no run unloaded a module)" ;; esac
fi
