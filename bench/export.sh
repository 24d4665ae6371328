#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tlbscope export as ratios (never asserted): the time of export --format perfetto against
# report's on the same trace (goal <= 1.5; into a file export reads a trace.dat once and its
# flush requests and IPIs twice, into a pipe all of it twice: both measured, see
# tlbscope-export(1)), its
# size against the Chrome JSON's (goal <= 1/4), deflated and
# --uncompressed, with peak memory; then memory flat in trace length (the perfetto export
# of a quarter, a half and the whole of the trace's events as JSON lines).  Best of 3 runs.
# Without arguments: the largest corpus trace and a recording of this machine (root;
# `tlbscope record` of hackbench, EXPORT_SECONDS long, default 15: about 30 MB).
#   usage: bench/export.sh [TRACE...]
set -eu
. "$(dirname "$0")/lib.sh"
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
	traces=("$(ls -S "$top"/corpus/traces/*/trace.dat | head -1)" "$work/rec.dat")
	"$prog" record -o "$work/rec.dat" -m 65536 -D "${EXPORT_SECONDS:-15}" -- \
		sh -c 'while :; do hackbench -g 8 -l 2000; hackbench -T -g 8 -l 2000; done' \
		> /dev/null 2>&1
fi
measure() {	# prints "seconds maxrss_kb" of the best of 3 runs
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
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
for t in "${traces[@]}"; do
	events=$("$prog" info --json "$t" | jq .total_events)
	read -r rt rm <<< "$(measure "$prog" report "$t")"
	read -r ct cm <<< "$(measure "$prog" export -o "$work/c.json" "$t")"
	read -r pt pm <<< "$(measure "$prog" export --format perfetto -o "$work/p.pftrace" "$t")"
	read -r ut um <<< "$(measure "$prog" export --format perfetto --uncompressed \
		-o "$work/u.pftrace" "$t")"
	read -r qt qm <<< "$(measure sh -c '"$1" export --format perfetto "$2" | cat > /dev/null' \
		sh "$prog" "$t")"
	cs=$(stat -c %s "$work/c.json") ps=$(stat -c %s "$work/p.pftrace")
	us=$(stat -c %s "$work/u.pftrace")
	printf 'trace: %s (%s bytes, %s events)\n' "$t" "$(stat -c %s "$t")" "$events"
	printf '%-46s %8s s %9s KiB %12s bytes\n' \
		"tlbscope report" "$rt" "$rm" "" \
		"tlbscope export --format chrome" "$ct" "$cm" "$cs" \
		"tlbscope export --format perfetto" "$pt" "$pm" "$ps" \
		"tlbscope export --format perfetto --uncompressed" "$ut" "$um" "$us" \
		"tlbscope export --format perfetto | cat (2 passes)" "$qt" "$qm" ""
	printf '%-58s %6s   goal\n' ratio now
	printf '%-58s %6s   <= 1.5\n' "time, export perfetto / report" "$(ratio "$pt" "$rt")"
	printf '%-58s %6s\n' "time, export perfetto into a pipe / report" "$(ratio "$qt" "$rt")"
	printf '%-58s %6s\n' "time, export chrome / report" "$(ratio "$ct" "$rt")"
	printf '%-58s %6s   <= 0.25\n' "size, perfetto / chrome JSON" "$(ratio "$ps" "$cs")"
	printf '%-58s %6s\n' "size, perfetto --uncompressed / chrome JSON" "$(ratio "$us" "$cs")"
	printf '%-58s %6s\n' "peak memory, export perfetto / report" "$(ratio "$pm" "$rm")"
	echo
done
# memory flat in trace length: the last trace's events as JSON lines, cut
"$prog" events "${traces[-1]}" > "$work/ev.jsonl" 2> /dev/null
lines=$(wc -l < "$work/ev.jsonl")
for part in 4 2 1; do
	head -n $((lines / part)) "$work/ev.jsonl" > "$work/part.jsonl"
	read -r xt xm <<< "$(measure "$prog" export --format perfetto -o "$work/x.pftrace" \
		"$work/part.jsonl")"
	printf 'export --format perfetto of 1/%d of the events as JSON lines (%d lines): %s s %s KiB\n' \
		"$part" $((lines / part)) "$xt" "$xm"
done
