#!/bin/sh
# Generate the lifetime stress scenarios of `make stress` from
# tests/stress/lifetime.scn.in, one per run "CPUs:refmode:modref":
#   lifetime-gen.sh OUTDIR OPS SEED REFMODE MODREF RUN...
# SEED, REFMODE, MODREF may be "" (a seed from the clock; each run's own
# refmode and modref).  Writes OUTDIR/scn/lifetime-smpN-REFMODE.scn and
# OUTDIR/profiles/ltN.profile (N CPUs, both NICs on user networking).
# From the environment (make stress-long):
#   LT_CYCLES  run until that many load/unload cycles (cycles=, not ops=)
#   LT_MODS    the modules (mods=a,b,..; default: the engine's)
#   LT_MIX     op weights (mix=OP:W,..) on top of the defaults
#   LT_ARGS    more k=v parameters of the measured run (secs=, holdmax=)
set -e
out=$1 ops=$2 seed=$3 refmode=$4 modref=$5
shift 5
mods="e1000 virtio_net netsim tcp sockproto chain_a chain_b chain_c"
[ -n "$LT_MODS" ] && mods=$(echo "$LT_MODS" | tr , ' ')
[ "$LT_MODS" = all ] && mods="e1000 virtio_net netsim tcp sockproto chain_a chain_b chain_c hello params busy selfput"
amount="ops=$ops" secs=$(( ops / 5 + 300 ))
if [ -n "$LT_CYCLES" ]; then
	# Generous: about 1 cycle/s at worst (measured: docs/stress.md).
	amount="cycles=$LT_CYCLES" secs=$(( LT_CYCLES + 600 ))
fi
modsarg=${LT_MODS:+mods=$LT_MODS}
# secs= bounds the run: the generous limits follow it.
lsecs=$(echo " $LT_ARGS" | sed -n 's/.* secs=\([0-9]*\).*/\1/p')
[ -n "$lsecs" ] && [ "$lsecs" -lt "$secs" ] && secs=$(( lsecs + 600 ))
for run in "$@"; do
	n=${run%%:*}
	rest=${run#*:}
	r=${refmode:-${rest%%:*}}
	m=${modref:-${rest#*:}}
	s=${seed:-$(( ($(date +%s) + n) % 1000000 + 1 ))}
	pre="" mix="" uaf="reject use-after-unload"
	if [ "$r" = pinned ]; then
		# Modules are never removed: load them all first.
		mix="mix=dhcp:0 "
		for mod in $mods; do pre="$pre\\nsend insmod $mod\\nprompt"; done
		# No dhcp op (its client would outlive the run, devices being
		# never removed): one lease before the start state, so the
		# udp and tcp ops have a route, and the router's ARP entry
		# (which stays: devices are never removed) made before it too.
		case " $mods " in *" e1000 "*)
			pre="$pre\\nsend dhcp eth0\\nexpect -t 60 ^dhcp: eth0: bound\\nprompt"
			pre="$pre\\nsend ping -c 1 10.0.2.2\\nexpect -t 30 ^1 packets transmitted, 1 received\\nprompt" ;;
		esac
	fi
	[ "$r" = legacy ] && uaf="# legacy: caught destructor calls are reported"
	mix="$mix${LT_MIX:+mix=$LT_MIX}"
	printf '# make stress: lifetime runs on %s CPU(s)\nsmp %s\nmem 256M\nnic both\nboot direct\nnet user\n' \
		"$n" "$n" > "$out/profiles/lt$n.profile"
	# Generous: TCG on a busy host can be slow; progress lines show speed.
	sed -e "s/@SMP@/$n/g" -e "s/@REFMODE@/$r/g" -e "s/@MODREF@/$m/g" \
	    -e "s/@SEED@/$s/g" -e "s/@AMOUNT@/$amount/g" -e "s/@MIX@/$mix/g" \
	    -e "s/@MODS@/$modsarg/g" -e "s/@ARGS@/$LT_ARGS/g" \
	    -e "s/@RUN_SECS@/$secs/g" -e "s/@LIMIT@/$(( secs + 400 ))/g" \
	    -e "s/@TRAFFIC_SECS@/$secs/g" -e "s/@REJECT_UAF@/$uaf/" \
	    -e "s|@PRELOAD@|$pre|" tests/stress/lifetime.scn.in |
		sed 's/\\n/\n/g' > "$out/scn/lifetime-smp$n-$r.scn"
done
