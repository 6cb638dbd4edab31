#!/bin/sh
# bg-loop.sh PIDFILE SECS COMMAND [ARG..]: run COMMAND again and again
# (0.2 s apart when it fails) for SECS seconds, detached from the
# harness: host traffic while a stress scenario runs.  Stop it early
# with `kill $(cat PIDFILE)` (timeout passes the signal on).
#
# The harness kills a `host` command's process group as soon as the
# command returns, so this returns only once the loop is in a session of
# its own: a loop still in the group at that moment would die at once
# (and did: most of make stress's traffic clients never ran).
pidfile=$1 secs=$2
shift 2
setsid timeout "$secs" sh -c 'while :; do "$@" || sleep 0.2; done' sh "$@" \
	< /dev/null > /dev/null 2>&1 &
pid=$!
echo "$pid" > "$pidfile"
while [ "$(ps -o sid= -p "$pid" | tr -d ' ')" != "$pid" ]; do
	kill -0 "$pid" 2> /dev/null || { echo "bg-loop: $1 exited at once"; exit 1; }
	sleep 0.05
done
