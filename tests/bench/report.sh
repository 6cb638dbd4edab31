#!/bin/sh
# make bench's report: reads the serial logs of tests/bench/*.scn and
# bench-boot's output in DIR, writes DIR/report.txt (every bench: line),
# DIR/report.md (tables) and DIR/*.png (gnuplot).  Benchmarks print
# numbers; nothing here judges them.  docs/bench.md explains each figure.
#
#   tests/bench/report.sh DIR
set -eu
dir=$1
logs=$dir/logs
cd "$dir"
grep -h '^bench:' logs/*.log boot.txt typed.txt udp.txt rmmod.txt > report.txt || true

# ---- data files -------------------------------------------------------
# devref single CPU: variant, cycles with modref=atomic, modref=percpu.
awk '
FNR == 1 { m = FILENAME ~ /percpu/ ? 2 : 1 }
/^bench: devref: [a-z\/]+ +[0-9]+ cycles/ {
	v = $3; c[v, m] = $4; if (!(v in seen)) { seen[v] = 1; order[n++] = v }
}
END { for (i = 0; i < n; i++) print order[i], c[order[i], 1], c[order[i], 2] }
' logs/devref-atomic-*.log logs/devref-percpu-*.log > devref.dat

# devref contended: cpus, then kpairs/s and speedup per variant.
awk '
/^bench: devref-contended: .* cpus / {
	v = $3; k = $5; r[v, k] = $8; s[v, k] = $11; sub(/x$/, "", s[v, k])
	if (!(k in ks)) { ks[k] = 1; kl[nk++] = k }
	if (!(v in vs)) { vs[v] = 1; vl[nv++] = v }
}
END {
	printf "# cpus"; for (j = 0; j < nv; j++) printf " %s %s-speedup", vl[j], vl[j]; print ""
	for (i = 0; i < nk; i++) {
		printf "%s", kl[i]
		for (j = 0; j < nv; j++) printf " %s %s", r[vl[j], kl[i]], s[vl[j], kl[i]]
		print ""
	}
}
' logs/devref-contended-*.log > contended.dat

# boot: medians from bench-boot's summary line.
awk '/^bench: boot: / {
	for (i = 1; i <= NF; i++) {
		if ($i == "floor") f = 1
		if ($i == "modref") f = 2
		if ($i == "byte") first[f] = $(i + 1)
		if ($i == "exit") ex = $(i + 1)
		if ($i == "prompt") pr = $(i + 1)
	}
	print "\"floor: first byte\"", first[1]
	print "\"floor: powered off\"", ex
	print "\"modref: first byte\"", first[2]
	print "\"modref: prompt\"", pr
}' boot.txt > boot.dat

# module cycles per second: module, modref=atomic, modref=percpu.
awk '
FNR == 1 { m = FILENAME ~ /percpu/ ? 2 : 1 }
/^modcycle: [a-z0-9_]+: [0-9]+ cycles in / {
	mod = $2; sub(/:$/, "", mod); rate = $8; sub(/\/s,?$/, "", rate)
	c[mod, m] = rate; if (!(mod in seen)) { seen[mod] = 1; order[n++] = mod }
}
END { for (i = 0; i < n; i++) print order[i], c[order[i], 1], c[order[i], 2] }
' logs/modcycle-atomic-*.log logs/modcycle-percpu-*.log > modcycle.dat

# console-typed insmod/rmmod of e1000: mode, rate, then min median p90
# max of insmod and of rmmod (ms).
awk '/^bench: typed: / {
	r = "?"; mr = "?"
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^refmode=/) { r = $i; sub(/^refmode=/, "", r) }
		if ($i ~ /^modref=/) { mr = $i; gsub(/^modref=|[):]/, "", mr) }
		if ($i == "typed" && $(i + 1) == "in") rate = $(i + 4)
		if ($i == "insmod" || $i == "rmmod") {
			v[$i] = $(i + 3) " " $(i + 5) " " $(i + 7) " " $(i + 9)
			gsub(/;/, "", v[$i])
		}
	}
	sub(/\/s;$/, "", rate)
	print r "/" mr, rate, v["insmod"], v["rmmod"]
}' typed.txt > typed.dat

# UDP echo: refmode/devref, then round trips/s on e1000 and virtio_net,
# then the median rtt (ms) on each.
awk '/^bench: udp: / {
	d = $3; r = "?"; dr = "?"
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^refmode=/) { r = $i; sub(/^refmode=/, "", r) }
		if ($i ~ /^devref=/) { dr = $i; gsub(/^devref=|[):]/, "", dr) }
		if ($i == "trips") rate = $(i + 4)
		if ($i == "rtt") med = $(i + 5)
	}
	sub(/\/s,$/, "", rate); m = r "/" dr
	if (!(m in seen)) { seen[m] = 1; order[n++] = m }
	rt[m, d] = rate; md[m, d] = med
}
END {
	for (i = 0; i < n; i++)
		print order[i], rt[order[i], "e1000"], rt[order[i], "virtio_net"], \
		    md[order[i], "e1000"], md[order[i], "virtio_net"]
}' udp.txt > udp.dat

# ---- plots ------------------------------------------------------------
gnuplot <<'GP'
set terminal pngcairo size 800,480 font ",10"
set grid ytics
set key top left
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1

set output "devref.png"
set title "bench devref: one hold/put pair on one CPU (TSC cycles, QEMU TCG)"
set ylabel "cycles per pair"
plot "devref.dat" using 2:xtic(1) title "modref=atomic", \
     "" using 3 title "modref=percpu"

set output "modcycle.png"
set title "modcycle: insmod+rmmod cycles per second, in the guest"
set ylabel "cycles/s"
set logscale y
plot "modcycle.dat" using 2:xtic(1) title "modref=atomic", \
     "" using 3 title "modref=percpu"
unset logscale y

set output "boot.png"
set title "boot: from QEMU start (host clock, ms; median)"
set ylabel "ms"
unset key
plot "boot.dat" using 2:xtic(1) notitle
set key top left
set yrange [0:*]

set output "typed.png"
set title "insmod / rmmod e1000 typed at the console (host clock, ms):\nbox median..p90, whiskers min..max"
set ylabel "ms"
set style fill solid 0.4 border -1
set boxwidth 0.3
set xrange [-0.6:*]
set offsets 0, 0.6, 0, 0
plot "typed.dat" using ($0-0.18):4:3:6:5:xtic(1) with candlesticks title "insmod" whiskerbars, \
     "typed.dat" using ($0+0.18):8:7:10:9 with candlesticks title "rmmod" whiskerbars
set autoscale x
set offsets 0, 0, 0, 0
set style fill solid 0.8 border -1

set output "udp.png"
set title "UDP echo, 64 bytes, one at a time from the host: round trips/s"
set ylabel "round trips/s"
set style data histograms
plot "udp.dat" using 2:xtic(1) title "e1000", "" using 3 title "virtio-net"

set style data linespoints
set output "contended.png"
set title "bench devref contended: every CPU on one device (total rate)"
set xlabel "CPUs"
set ylabel "thousand pairs/s, all CPUs together"
set logscale x 2
set xtics (1, 2, 4, 8)
set xrange [0.8:10]
plot "contended.dat" using 1:2 title "wait/atomic" lw 2, \
     "" using 1:4 title "wait/percpu" lw 2, \
     "" using 1:6 title "owner" lw 2

set output "contended-speedup.png"
set title "bench devref contended: speedup over one CPU (ideal = CPUs)"
set ylabel "speedup"
plot "contended.dat" using 1:3 title "wait/atomic" lw 2, \
     "" using 1:5 title "wait/percpu" lw 2, \
     "" using 1:7 title "owner" lw 2, \
     x title "ideal" dt 2 lc rgb "gray"
GP

# ---- report.md --------------------------------------------------------
{
	echo "# modref benchmark report"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "QEMU TCG: read ratios measured side by side, not absolute cycles (docs/bench.md)."
	echo
	echo "## Boot"
	echo
	echo "![boot](boot.png)"
	echo
	echo "| step | ms from QEMU start (median) |"
	echo "|---|---|"
	sed 's/^"\(.*\)" \(.*\)$/| \1 | \2 |/' boot.dat
	echo
	grep '^bench: boot-run:' boot.txt | sed 's/^bench: boot-run: /    run /'
	echo
	echo "## bench devref: one CPU"
	echo
	echo "![devref](devref.png)"
	echo
	echo "| variant | cycles, modref=atomic | cycles, modref=percpu |"
	echo "|---|---|---|"
	awk '{ print "| " $1 " | " $2 " | " $3 " |" }' devref.dat
	echo
	echo "## bench devref contended: every CPU on one device"
	echo
	echo "![contended](contended.png) ![speedup](contended-speedup.png)"
	echo
	echo "| CPUs | wait/atomic kpairs/s | speedup | wait/percpu kpairs/s | speedup | owner kpairs/s | speedup |"
	echo "|---|---|---|---|---|---|---|"
	awk '!/^#/ { print "| " $1 " | " $2 " | " $3 "x | " $4 " | " $5 "x | " $6 " | " $7 "x |" }' contended.dat
	echo
	echo "## Module load/unload cycles (in-guest modcycle)"
	echo
	echo "![modcycle](modcycle.png)"
	echo
	echo "| module | cycles/s, modref=atomic | cycles/s, modref=percpu |"
	echo "|---|---|---|"
	awk '{ print "| " $1 " | " $2 " | " $3 " |" }' modcycle.dat
	echo
	echo "## Module load/unload typed at the console (e1000, per refmode/modref)"
	echo
	echo "![typed](typed.png)"
	echo
	echo "| refmode/modref | cycles/s | insmod ms min / median / p90 / max | rmmod ms min / median / p90 / max |"
	echo "|---|---|---|---|"
	awk '{ print "| " $1 " | " $2 " | " $3 " / " $4 " / " $5 " / " $6 " | " $7 " / " $8 " / " $9 " / " $10 " |" }' typed.dat
	echo
	echo "## The packet path: UDP echo per refmode/devref"
	echo
	echo "![udp](udp.png)"
	echo
	echo "| refmode/devref | e1000 round trips/s | virtio-net round trips/s | e1000 median rtt ms | virtio-net median rtt ms |"
	echo "|---|---|---|---|---|"
	awk '{ print "| " $1 " | " $2 " | " $3 " | " $4 " | " $5 " |" }' udp.dat
	echo
	echo "## rmmod e1000 under load (8 bound UDP sockets; K holders that keep their reference 500 ms)"
	echo
	echo "| refmode | holders | rmmod, host ms | guest says |"
	echo "|---|---|---|---|"
	awk '/^bench: rmmod-load: / {
		r = "?"
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^refmode=/) { r = $i; gsub(/^refmode=|[):]/, "", r) }
			if ($i == "holders") k = $(i - 1)
			if ($i == "took") h = $(i + 1)
			if ($i == "says") g = $(i + 1) " " $(i + 2)
		}
		print "| " r " | " k " | " h " | " g " |"
	}' rmmod.txt
	echo
	echo "## Not measured yet"
	echo
	echo "The raw bounce loop (the NIC's limit without the stack), TCP bulk, TIME_WAIT in rmmod under load and the"
	echo "Linux guest peer (issue 12): see docs/bench.md."
} > report.md
echo "make bench: report in $dir/report.md"
