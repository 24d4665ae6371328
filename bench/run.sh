#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Speed and memory of `tlbscope report` against `trace-cmd report > /dev/null` on the same
# trace.dat, as ratios (never as assertions).  With no argument it captures a large trace
# of this machine first (root and tracefs needed).
#   usage: bench/run.sh [TRACE.dat]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
prog=$top/tlbscope
trace=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$trace" ]; then
	trace=$work/big.dat
	"$top/tests/fixtures/capture.sh" "$work/big" 131072 0 -- \
		sh -c 'hackbench -g 8 -l 2000; hackbench -T -g 8 -l 2000'
	trace=$work/big.dat
fi
measure() {	# prints "seconds maxrss_kb" of the best of 3 runs
	local best_t=999999 best_m=0 t m
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$work/t" "$@" > /dev/null 2>&1
		read -r t m < "$work/t"
		if [ "$(echo "$t < $best_t" | bc)" = 1 ]; then best_t=$t; best_m=$m; fi
	done
	echo "$best_t $best_m"
}
events=$("$prog" info --json "$trace" | jq .total_events)
read -r tt tm <<< "$(measure trace-cmd report "$trace")"
read -r ot om <<< "$(measure "$prog" report "$trace")"
read -r it im <<< "$(measure "$prog" info "$trace")"
printf 'trace: %s (%s bytes, %s events)\n' "$trace" "$(stat -c %s "$trace")" "$events"
printf '%-34s %8s s %9s KiB\n' "trace-cmd report > /dev/null" "$tt" "$tm" \
	"tlbscope report" "$ot" "$om" "tlbscope info" "$it" "$im"
printf 'time ratio tlbscope report / trace-cmd report: %.2f\n' "$(echo "$ot / $tt" | bc -l)"
printf 'memory ratio: %.2f\n' "$(echo "$om / $tm" | bc -l)"
# memory is flat in trace length: the normalized stream of the same trace, cut at a
# quarter, a half and the whole (the JSON-lines reader streams, as the text reader does)
"$prog" events "$trace" > "$work/ev.jsonl"
lines=$(wc -l < "$work/ev.jsonl")
for part in 4 2 1; do
	head -n $((lines / part)) "$work/ev.jsonl" > "$work/part.jsonl"
	read -r pt pm <<< "$(measure "$prog" report "$work/part.jsonl")"
	printf 'tlbscope report on 1/%d of the events as JSON lines (%d lines): %s s %s KiB\n' \
		"$part" $((lines / part)) "$pt" "$pm"
done

# the tuner: the whole default grid (18 x 9 points, one pass) against one point, and
# against a direct replay of one point
read -r gt gm <<< "$(measure "$prog" tune "$trace")"
read -r pt pm <<< "$(measure "$prog" tune --threshold 6 --queue 32 "$trace")"
read -r dt dm <<< "$(measure "$prog" tune --threshold 6 --queue 32 --direct 6,32 "$trace")"
printf 'tlbscope tune, default grid (162 points): %s s %s KiB\n' "$gt" "$gm"
printf 'tlbscope tune, one point (T=6 Q=32):      %s s %s KiB\n' "$pt" "$pm"
printf 'tlbscope tune, one point + direct replay:  %s s %s KiB\n' "$dt" "$dm"
printf 'grid / one point: %.2f\n' "$(echo "$gt / $pt" | bc -l)"
