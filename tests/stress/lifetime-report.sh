#!/bin/sh
# Summarise the lifetime stress runs of `make stress` from their serial
# logs: per run its parameters, outcome, load/unload cycles per module,
# rmmod wait times and the command that replays it; then the ops per kind
# and the cycles per module over all runs.
#   lifetime-report.sh LOGDIR > REPORT
dir=$1
echo "# make stress: lifetime stress report ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
total=0
for log in "$dir"/lifetime-*.log; do
	[ -e "$log" ] || continue
	name=$(basename "$log" .log)
	echo
	echo "## $name"
	# The measured run is the last 'stress lifetime' of the log.
	awk '
	/stress: lifetime: refmode=.* cpus=/ { hdr = $0; n = 0; delete t; nm = 0; delete md }
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
