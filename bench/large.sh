#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A trace.dat of gigabytes: tlbscope report against the bare libtracecmd iteration
# (bench/floor.c) on it, as a ratio, with the throughput, then export --format perfetto
# against report; memory sampled every 0.1 s
# through each run: anonymous memory (the heap: tlbscope's state and the libraries') apart
# from file-backed pages (libtracecmd leaves the pages of the file it has read mapped, so
# in the floor those follow the file's size; they are page cache, dropped under memory
# pressure; tlbscope reads an uncompressed buffer itself and maps none of it).
# Flat means report's anonymous memory at a quarter of its run is what it is at the end.
# Without an argument it records one of this machine first (root; `tlbscope record`
# under hackbench, LARGE_SECONDS long, default 480: about 1.5 GB).  Nothing is asserted.
#   usage: bench/large.sh [TRACE.dat]
set -eu
. "$(dirname "$0")/lib.sh"
trace=${1:-}
if [ -z "$trace" ]; then
	trace=$work/large.dat
	"$prog" record -o "$trace" -m 65536 -D "${LARGE_SECONDS:-480}" -- \
		sh -c 'while :; do hackbench -g 8 -l 3000; hackbench -T -g 8 -l 3000; done' \
		> /dev/null
fi
# run CMD..., sampling /proc/PID/status; prints "wall user peak_anon_kib peak_file_kib"
# and leaves the samples (seconds anon_kib) in $work/samples
sample() {
	local start end pid
	start=$(date +%s.%N)
	"$@" > /dev/null 2>&1 &
	pid=$!
	: > "$work/samples"
	while kill -0 "$pid" 2> /dev/null; do
		awk -v t="$(date +%s.%N)" -v s="$start" '/RssAnon/ { a = $2 } /RssFile/ { f = $2 }
			END { if (a != "") printf "%.1f %d %d\n", t - s, a, f }' \
			"/proc/$pid/status" >> "$work/samples" 2> /dev/null || true
		sleep 0.1
	done
	wait "$pid"
	end=$(date +%s.%N)
	awk -v w="$(echo "$end - $start" | bc)" '{ if ($2 > a) a = $2; if ($3 > f) f = $3 }
		END { printf "%.2f %d %d\n", w, a, f }' "$work/samples"
}
size=$(stat -c %s "$trace")
events=$("$prog" info --json "$trace" | jq .total_events)
read -r fw fa ff <<< "$(sample "$floor" "$trace")"
read -r rw ra rf <<< "$(sample "$prog" report "$trace")"
printf 'trace: %s (%s bytes, %s events)\n' "$trace" "$size" "$events"
printf '%-44s %8s s %12s KiB %12s KiB\n' "" wall "peak anon" "peak file" \
	"floor: libtracecmd iteration" "$fw" "$fa" "$ff" \
	"tlbscope report" "$rw" "$ra" "$rf"
printf 'report / floor: %.2f (goal <= 1.5)\n' "$(echo "$rw / $fw" | bc -l)"
printf 'throughput: %.0f MB/s, %.2f M events/s\n' "$(echo "$size / $rw / 1000000" | bc -l)" \
	"$(echo "$events / $rw / 1000000" | bc -l)"
# WHO's anonymous memory along the run just sampled: at each quarter of the samples
quarters() {
	local n t a
	n=$(wc -l < "$work/samples")
	printf '%s anon memory at each quarter of its run (s: KiB):' "$1"
	for q in 1 2 3 4; do
		read -r t a _ <<< "$(sed -n "$(( (n * q + 3) / 4 ))p" "$work/samples")"
		printf '  %s: %s' "$t" "$a"
	done
	echo
}
quarters report
# export --format perfetto into a file (one pass and the trace's beginning), against report
read -r ew ea ef <<< "$(sample "$prog" export --format perfetto -o "$work/large.pftrace" \
	"$trace")"
printf '%-44s %8s s %12s KiB %12s KiB\n' "tlbscope export --format perfetto" "$ew" "$ea" "$ef"
printf 'export perfetto / report: %.2f (goal <= 1.5), %s bytes written\n' \
	"$(echo "$ew / $rw" | bc -l)" "$(stat -c %s "$work/large.pftrace")"
quarters export
rm -f "$work/large.pftrace"
