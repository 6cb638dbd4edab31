#!/bin/sh
# The UDP echo path of this tree against another commit's, side by side
# (make bench-ab; docs/bench.md, "Comparing two trees").
#
#   udp-ab.sh OUT REF DEV BOOTS   build REF (git archive) in OUT/ref, then
#                                 BOOTS alternating boots of each tree's
#                                 bench-boot -u 1 -n 6 on DEV; every
#                                 round's windowed stack and bounce
#                                 frames/s go to OUT/rounds.txt; then -s
#   udp-ab.sh -s FILE             per tree in FILE ("TREE STACK BOUNCE"
#                                 lines): the rounds' stack/bounce ratios'
#                                 median and quartiles, the rates' medians
#
# One run's ratio (the median of its rounds) moves by +-0.05 on a busy
# two-core host; a round's two windowed phases run back to back, so
# pooling rounds from alternating boots compares the trees under the
# same load.  Nothing here passes or fails on a time.
set -eu

usage() {
	echo "usage: udp-ab.sh OUT REF DEV BOOTS | udp-ab.sh -s FILE" >&2
	exit 2
}

# Per tree: the sorted ratios, then their median and the values at a
# quarter and three quarters of the way (nearest rank below), and the
# rates' medians.  Lines that are not "TREE STACK BOUNCE" are skipped.
summary() {
	[ -r "$1" ] || { echo "udp-ab: $1: cannot read" >&2; exit 2; }
	tmp=$(mktemp -d)
	for t in $(awk 'NF == 3 && $3 > 0 { print $1 }' "$1" | sort -u); do
		# the tree's rounds as ratio, stack, bounce; each column sorted
		awk -v t="$t" '$1 == t && NF == 3 && $3 > 0 { print $2 / $3, $2, $3 }' \
			"$1" > "$tmp/rounds"
		for c in 1 2 3; do
			cut -d' ' -f$c "$tmp/rounds" | sort -n > "$tmp/col$c"
		done
		awk -v t="$t" -v s="$tmp/col2" -v b="$tmp/col3" '
			function q(a, n, f) { return a[int(f * (n - 1)) + 1] }
			function med(a, n) {
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			{ r[NR] = $1 }
			END {
				while ((getline v < s) > 0) st[++ns] = v
				while ((getline v < b) > 0) bo[++nb] = v
				printf "bench-ab: %s: %d rounds, stack/bounce frames/s " \
				    "median %.3f (quartiles %.3f-%.3f); stack %.0f, " \
				    "bounce %.0f frames/s (medians)\n", t, NR, med(r, NR),
				    q(r, NR, 0.25), q(r, NR, 0.75), med(st, ns), med(bo, nb)
			}' "$tmp/col1"
	done
	rm -rf "$tmp"
}

[ $# -ge 1 ] || usage
if [ "$1" = -s ]; then
	[ $# -eq 2 ] || usage
	summary "$2"
	exit 0
fi
[ $# -eq 4 ] || usage
out=$1 ref=$2 dev=$3 boots=$4
case $boots in '' | *[!0-9]*) usage ;; esac
case $dev in e1000 | virtio_net) ;; *)
	echo "udp-ab: DEV must be e1000 or virtio_net, not '$dev'" >&2
	exit 2 ;;
esac
commit=$(git rev-parse --verify -q "$ref^{commit}") ||
	{ echo "udp-ab: '$ref' is not a commit" >&2; exit 2; }
mkdir -p "$out"
if [ "$(cat "$out/ref.commit" 2>/dev/null)" != "$commit" ]; then
	rm -rf "$out/ref" "$out/ref.commit"
	mkdir -p "$out/ref"
	git archive "$commit" | tar -x -C "$out/ref"
	echo "udp-ab: building $ref ($commit) in $out/ref"
	make -C "$out/ref" all > "$out/ref-build.log" 2>&1 ||
		{ echo "udp-ab: building $ref failed: $out/ref-build.log" >&2; exit 1; }
	echo "$commit" > "$out/ref.commit"
fi
: > "$out/rounds.txt"
i=0
while [ "$i" -lt "$boots" ]; do
	# each tree boots first as often as second
	order="ref this"
	[ $((i % 2)) -eq 1 ] && order="this ref"
	for t in $order; do
		if [ $t = ref ]; then b=$out/ref/build; else b=build; fi
		"$b/host/bench-boot" -u 1 -n 6 -d "$dev" -a "netautoload=0 netdev_track=1" \
			-i "$b/modules/e1000.ko,$b/modules/virtio_net.ko" \
			"$b/modref.elf" > "$out/boot-$t.txt" 2>&1 ||
			{ echo "udp-ab: bench-boot failed: $out/boot-$t.txt" >&2; exit 1; }
		sed -n 's/^bench: udp-round: .*frames\/s stack \([0-9]*\) bounce \([0-9]*\) .*/\1 \2/p' \
			"$out/boot-$t.txt" | sed "s/^/$t /" >> "$out/rounds.txt"
	done
	i=$((i + 1))
done
echo "udp-ab: $dev, $boots boot(s) of each, this tree against $ref ($commit):"
summary "$out/rounds.txt"
