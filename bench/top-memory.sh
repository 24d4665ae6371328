#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tlbscope top's memory, live, while processes come and go (root): a shell loop runs
# /bin/true (a new process and address space each time, some hundreds a second) for
# TOP_SECONDS (default 60); top's resident set (VmRSS) is printed every 5 seconds, with the
# processes the loop ran by then.  Memory that grows with the processes seen shows as a
# line that climbs; flat is the aim.  Nothing is asserted.
#   usage: [TOP_SECONDS=N] bench/top-memory.sh [TLBSCOPE]
prog=${1:-./tlbscope}
seconds=${TOP_SECONDS:-60}
out=$(mktemp)
count="$out.count"
trap 'kill "$loop" "$pid" 2> /dev/null; wait 2> /dev/null; rm -f "$out" "$out.err" "$count"' EXIT

"$prog" top -b -d 1 > "$out" 2> "$out.err" &
pid=$!
for _ in $(seq 50); do
	grep -q '^tlbscope top' "$out" && break
	if ! kill -0 "$pid" 2> /dev/null; then
		echo "top-memory: $prog top exited before its first snapshot:" >&2
		cat "$out.err" >&2
		exit 1
	fi
	sleep 0.1
done
# the loop counts its processes in a file, read at each sample
bash -c 'n=0; while :; do /bin/true; n=$((n + 1)); [ $((n % 100)) = 0 ] && echo $n > "$1"; done' \
	sh "$count" &
loop=$!
echo "seconds  processes  VmRSS(KiB)"
for ((s = 0; s <= seconds; s += 5)); do
	[ "$s" -gt 0 ] && sleep 5
	if ! kill -0 "$pid" 2> /dev/null; then
		echo "top-memory: $prog top exited at ${s}s:" >&2
		cat "$out.err" >&2
		exit 1
	fi
	printf '%7d  %9s  %10s\n' "$s" "$(cat "$count" 2> /dev/null || echo 0)" \
		"$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")"
done
