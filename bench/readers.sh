#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The text and JSON-lines readers against mawk in instructions (callgrind), which the load of
# other processes does not change: report of the first LINES (300000) lines of a trace as
# `trace-cmd report` text and as `tlbscope events` JSON lines, mawk '/sched_switch/{n++}' on
# the same text, and of each report the part that is the reader (the format's next(), with
# its line splitting, parsing and decoding; callgrind --toggle-collect) and the rest (the
# input checks, the timeline, the analyses, the output): the rest alone bounds what any
# reader can reach.
# BEFORE=PROGRAM (another build) adds its two reports, measured on the same lines.
#   usage: [BEFORE=PROGRAM] [LINES=N] bench/readers.sh TRACE.dat
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
prog=$top/tlbscope
trace=${1:?usage: bench/readers.sh TRACE.dat}
lines=${LINES:-300000}
command -v valgrind > /dev/null || { echo "bench/readers.sh: valgrind is not installed"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$prog" events "$trace" 2> /dev/null | head -n "$lines" > "$work/ev.jsonl"
trace-cmd report "$trace" 2> /dev/null | head -n "$lines" > "$work/trace.txt"

# instructions of "$@": the total, then (for tlbscope) those inside the reader function $fn
# and what it calls (a second run collecting only there: --toggle-collect)
count() {	# count FN PROGRAM ARGS...
	local fn=$1 total reader=0

	shift
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" > /dev/null 2> "$work/err"
	total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/err")
	if [ "$fn" != - ]; then
		valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$fn" \
			"$@" > /dev/null 2> "$work/err"
		reader=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/err")
	fi
	echo "$total $reader"
}
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
mil() { echo "$1 / 1000000" | bc -l | xargs printf '%.1fM'; }

read -r m _ <<< "$(count - mawk '/sched_switch/ { n++ } END { print n }' "$work/trace.txt")"
read -r xt xr <<< "$(count ftext_next "$prog" report "$work/trace.txt")"
read -r jt jr <<< "$(count jsonl_next "$prog" report "$work/ev.jsonl")"
if [ -n "${BEFORE:-}" ]; then
	read -r bxt bxr <<< "$(count ftext_next "$BEFORE" report "$work/trace.txt")"
	read -r bjt bjr <<< "$(count jsonl_next "$BEFORE" report "$work/ev.jsonl")"
fi
n=$(wc -l < "$work/trace.txt")
printf 'trace: %s, its first %d lines: text %d bytes, JSON lines %d bytes\n' "$trace" "$n" \
	"$(stat -c %s "$work/trace.txt")" "$(stat -c %s "$work/ev.jsonl")"
printf '%-44s %10s %10s %10s %8s %8s\n' instructions total reader rest "/ mawk" "rest/mawk"
row() {	# row LABEL TOTAL READER
	printf '%-44s %10s %10s %10s %8s %8s\n' "$1" "$(mil "$2")" "$(mil "$3")" \
		"$(mil $(($2 - $3)))" "$(ratio "$2" "$m")" "$(ratio $(($2 - $3)) "$m")"
}
printf '%-44s %10s\n' "mawk '/sched_switch/{n++}' on the text" "$(mil "$m")"
row "tlbscope report of the text" "$xt" "$xr"
row "tlbscope report of the JSON lines" "$jt" "$jr"
if [ -n "${BEFORE:-}" ]; then
	row "before: report of the text" "$bxt" "$bxr"
	row "before: report of the JSON lines" "$bjt" "$bjr"
fi
# what each goal leaves the reader: goal x mawk minus the rest, per line
printf 'reader budget per line: text %d instructions for <= 2.5x (now %d), JSON %d for <= 2x (now %d)\n' \
	$(((m * 5 / 2 - (xt - xr)) / n)) $((xr / n)) $(((m * 2 - (jt - jr)) / n)) $((jr / n))
