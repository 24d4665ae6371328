#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `tlbscope report -j 1` (one thread) and `-j 2` (the analyses on a thread of their own
# while that is faster, cli/model-thread.c), also with that thread forced on
# (TLBSCOPE_MODEL_THREAD=always) and off (never), against the floor (bench/floor.c:
# libtracecmd iterating every record, doing nothing) on each trace.dat: wall time (best of
# BEST_OF runs, default 5), the CPU time (user + sys) and peak RSS of that best run, and
# the ratios.  Before and after: the load average (on a shared machine the wall times are
# only as good as the CPUs left) and a cache line's round trip between two threads
# (bench/pingpong.c: what the hand-over pays, which on a virtual machine changes with where
# the host puts the virtual CPUs).  Nothing is asserted.
#   usage: [BEST_OF=N] bench/jobs.sh TRACE.dat...
set -eu
. "$(dirname "$0")/lib.sh"
if [ $# = 0 ]; then
	echo "usage: bench/jobs.sh TRACE.dat..." >&2
	exit 2
fi
best=${BEST_OF:-5}
measure() {	# "wall cpu maxrss_kib" of the run of CMD... with the best wall time
	local bw=999999 bc=0 bm=0 t0 w u s m
	for _ in $(seq "$best"); do
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%U %S %M' -o "$work/t" "$@" > /dev/null 2>&1 || true
		w=$(echo "$EPOCHREALTIME - $t0" | bc)
		read -r u s m < "$work/t"
		if [ "$(echo "$w < $bw" | bc)" = 1 ]; then
			bw=$w
			bc=$(echo "$u + $s" | bc)
			bm=$m
		fi
	done
	printf '%.3f %.2f %s\n' "$bw" "$bc" "$bm"
}
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
pingpong=$top/${BUILD:-build}/bench/pingpong
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs), best of $best;" \
	"a cache line's round trip between two threads: $("$pingpong") ns"
printf '%-24s %5s  %-20s %-20s %-20s %6s %6s %6s %6s\n' trace MiB "floor wall/CPU s,RSS" \
	"-j 1 wall/CPU s,RSS" "-j 2 wall/CPU s,RSS" "j1/fl" "j2/fl" "always" "never"
for t in "$@"; do
	read -r fw fc fm <<< "$(measure "$floor" "$t")"
	read -r aw ac am <<< "$(measure "$prog" report -j 1 "$t")"
	read -r bw bc bm <<< "$(measure "$prog" report -j 2 "$t")"
	read -r yw _ _ <<< "$(measure env TLBSCOPE_MODEL_THREAD=always "$prog" report -j 2 "$t")"
	read -r nw _ _ <<< "$(measure env TLBSCOPE_MODEL_THREAD=never "$prog" report -j 2 "$t")"
	name=$(basename "$t")
	[ "$name" = trace.dat ] && name=$(basename "$(dirname "$t")")
	printf '%-24s %5s  %-20s %-20s %-20s %6s %6s %6s %6s\n' "${name:0:24}" \
		"$(( $(stat -c %s "$t") >> 20 ))" "$fw/$fc ${fm}K" "$aw/$ac ${am}K" "$bw/$bc ${bm}K" \
		"$(ratio "$aw" "$fw")" "$(ratio "$bw" "$fw")" "$(ratio "$yw" "$fw")" "$(ratio "$nw" "$fw")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); round trip: $("$pingpong") ns"
echo "always, never: -j 2 with the analyses' thread forced on and off, over the floor"
