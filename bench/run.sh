#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Speed and memory of tlbscope as ratios against floors on the same input (never as
# assertions): trace.dat against a bare libtracecmd iteration (bench/floor.c), the text and
# the JSON lines against mawk counting sched_switch lines in the text, the tuner's whole grid
# against one point, and peak memory against the floor's; then trace-cmd report, and memory
# flat in trace length.  With no argument it captures a large trace of this machine first
# (root and tracefs needed).  BEFORE=PROGRAM (another build of tlbscope, e.g. of the
# commit before a change) adds its text and JSON-lines rows, measured in the same run.
#   usage: [BEFORE=PROGRAM] bench/run.sh [TRACE.dat]
set -eu
. "$(dirname "$0")/lib.sh"
trace=${1:-}
if [ -z "$trace" ]; then
	trace=$work/big.dat
	"$top/tests/fixtures/capture.sh" "$work/big" 131072 0 -- \
		sh -c 'hackbench -g 8 -l 2000; hackbench -T -g 8 -l 2000'
	trace=$work/big.dat
fi
measure() {	# prints "seconds maxrss_kb" of the best of 3 runs (wall time to the microsecond)
	local best_t=999999 best_m=0 t m t0
	for _ in 1 2 3; do
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%M' -o "$work/t" "$@" > /dev/null 2>&1
		t=$(echo "$EPOCHREALTIME - $t0" | bc)
		read -r m < "$work/t"
		if [ "$(echo "$t < $best_t" | bc)" = 1 ]; then best_t=$t; best_m=$m; fi
	done
	printf '%.3f %s\n' "$best_t" "$best_m"
}
events=$("$prog" info --json "$trace" | jq .total_events)
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
# the ratios of issue 13, each against its goal
"$prog" events "$trace" > "$work/ev.jsonl"
trace-cmd report "$trace" > "$work/trace.txt" 2> /dev/null
read -r ft fm <<< "$(measure "$floor" "$trace")"
read -r rt rm <<< "$(measure "$prog" report "$trace")"
read -r xt xm <<< "$(measure "$prog" report "$work/trace.txt")"
read -r jt jm <<< "$(measure "$prog" report "$work/ev.jsonl")"
read -r mt mm <<< "$(measure mawk '/sched_switch/ { n++ } END { print n }' "$work/trace.txt")"
if [ -n "${BEFORE:-}" ]; then
	read -r bxt bxm <<< "$(measure "$BEFORE" report "$work/trace.txt")"
	read -r bjt bjm <<< "$(measure "$BEFORE" report "$work/ev.jsonl")"
fi
read -r gt gm <<< "$(measure "$prog" tune "$trace")"
read -r pt pm <<< "$(measure "$prog" tune --threshold 6 --queue 32 "$trace")"
printf 'trace: %s (%s bytes, %s events; text %s bytes, JSON lines %s bytes)\n' "$trace" \
	"$(stat -c %s "$trace")" "$events" "$(stat -c %s "$work/trace.txt")" \
	"$(stat -c %s "$work/ev.jsonl")"
printf '%-58s %8s s %9s KiB\n' \
	"floor: libtracecmd iteration, empty callback" "$ft" "$fm" \
	"tlbscope report TRACE.dat" "$rt" "$rm" \
	"mawk '/sched_switch/{n++}' on the text" "$mt" "$mm" \
	"tlbscope report of the text (trace-cmd report)" "$xt" "$xm" \
	"tlbscope report of the JSON lines (tlbscope events)" "$jt" "$jm" \
	"tlbscope tune, default grid" "$gt" "$gm" \
	"tlbscope tune, one point" "$pt" "$pm"
[ -n "${BEFORE:-}" ] && printf '%-58s %8s s %9s KiB\n' \
	"before: report of the text" "$bxt" "$bxm" \
	"before: report of the JSON lines" "$bjt" "$bjm"
printf '%-58s %6s   goal\n' ratio now
printf '%-58s %6s   <= 1.5\n' "report trace.dat / floor" "$(ratio "$rt" "$ft")"
printf '%-58s %6s   <= 2.5\n' "report text / mawk on the text" "$(ratio "$xt" "$mt")"
printf '%-58s %6s   <= 2\n' "report JSON lines / mawk on the text" "$(ratio "$jt" "$mt")"
if [ -n "${BEFORE:-}" ]; then
	printf '%-58s %6s\n' "before: report text / mawk on the text" "$(ratio "$bxt" "$mt")"
	printf '%-58s %6s\n' "before: report JSON lines / mawk on the text" "$(ratio "$bjt" "$mt")"
fi
printf '%-58s %6s   <= 1.2\n' "tune whole grid / one point" "$(ratio "$gt" "$pt")"
printf '%-58s %6s   <= 1.3\n' "peak memory, report trace.dat / floor" "$(ratio "$rm" "$fm")"
echo

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
lines=$(wc -l < "$work/ev.jsonl")
for part in 4 2 1; do
	head -n $((lines / part)) "$work/ev.jsonl" > "$work/part.jsonl"
	read -r pt pm <<< "$(measure "$prog" report "$work/part.jsonl")"
	printf 'tlbscope report on 1/%d of the events as JSON lines (%d lines): %s s %s KiB\n' \
		"$part" $((lines / part)) "$pt" "$pm"
done

