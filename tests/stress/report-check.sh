#!/bin/sh
# Check tests/stress/lifetime-report.sh and its plots on the sample logs
# of tests/stress/sample/ (tests/scenarios/stress-report.scn):
#   report-check.sh OUTDIR
# 1. The data file's runs (comment lines aside) are tests/stress/sample/
#    expected.dat: figures read off the logs' last run by hand.
# 2. With gnuplot: both PNGs are made and the report names them; without:
#    the report says the plots were skipped, and no PNG is left.
# 3. With a gnuplot that fails (GNUPLOT=false) or is missing: the plots
#    are skipped and said so, the tables are those of run 1.
# Every failure says what differs and exits 1.
out=$1
sample=tests/stress/sample
fail() {
	echo "report-check: $*" >&2
	exit 1
}
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"

tests/stress/lifetime-report.sh $sample/logs "$out/plots" > "$out/report.txt" ||
	fail "lifetime-report.sh exited $?"
grep -v '^#' "$out/plots/lifetime-runs.dat" | diff $sample/expected.dat - ||
	fail "$out/plots/lifetime-runs.dat differs from $sample/expected.dat (above)"
grep -qx 'total: 1500 lifetime ops, 0 failures' "$out/report.txt" ||
	fail "$out/report.txt: no 'total: 1500 lifetime ops, 0 failures'"
[ "$(grep -c '^result: PASS' "$out/report.txt")" = 5 ] ||
	fail "$out/report.txt: not 5 runs PASS"
[ "$(grep -c '^result: FAIL' "$out/report.txt")" = 1 ] ||
	fail "$out/report.txt: not 1 run FAIL (the cut log)"
if command -v gnuplot > /dev/null 2>&1; then
	for p in lifetime-ops lifetime-rmmod-wait; do
		f=$out/plots/$p.png
		[ "$(head -c 4 "$f" 2> /dev/null | od -An -c | tr -d ' ')" = '211PNG' ] ||
			fail "$f: not made, or not a PNG ($out/plots/lifetime-plots.log)"
		grep -q "^plot: $f " "$out/report.txt" || fail "$out/report.txt does not name $f"
	done
else
	echo "report-check: gnuplot not installed: the PNGs are not checked"
	grep -q '^plots skipped: gnuplot not found' "$out/report.txt" ||
		fail "$out/report.txt: no 'plots skipped: gnuplot not found' without gnuplot"
fi

# Tables without the date line and the plots section.
tables() {
	sed -e 1d -e '/^## plots$/,$d' "$1"
}
n=0
for g in false /nonexistent/gnuplot; do
	n=$((n + 1))
	GNUPLOT=$g tests/stress/lifetime-report.sh $sample/logs "$out/plots-$n" \
		> "$out/report-skip.txt" || fail "GNUPLOT=$g: lifetime-report.sh exited $?"
	case $g in
	false) why='gnuplot failed' ;;
	*) why='gnuplot not found' ;;
	esac
	grep -q "^plots skipped: $why" "$out/report-skip.txt" ||
		fail "GNUPLOT=$g: no 'plots skipped: $why' in $out/report-skip.txt"
	! ls "$out/plots-$n"/*.png > /dev/null 2>&1 || fail "GNUPLOT=$g: a PNG is left"
	tables "$out/report.txt" > "$out/t1" && tables "$out/report-skip.txt" > "$out/t2"
	diff "$out/t1" "$out/t2" || fail "GNUPLOT=$g: the tables differ (above)"
done
echo "report-check: ok"
