#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `tlbscope report` of each trace.dat against the floor (bench/floor.c: libtracecmd opens
# the file and iterates every record with a callback that does nothing), as ratios: the
# instructions callgrind counts (the same on a busy machine) and the best of 3 wall times.
# One row per trace; the goals are <= 1.3 on the corpus, <= 1.0 on captures of this machine.
#   usage: bench/floor-ratio.sh TRACE.dat...
set -eu
. "$(dirname "$0")/lib.sh"
if [ $# = 0 ]; then
	echo "usage: bench/floor-ratio.sh TRACE.dat..." >&2
	exit 2
fi
command -v valgrind > /dev/null || { echo "bench/floor-ratio.sh: needs valgrind" >&2; exit 2; }
instructions() {	# callgrind's total of instructions of CMD...
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null |
		awk '/refs:/ { gsub(",", "", $NF); print $NF }'
}
wall() {	# best of 3 wall times of CMD..., seconds
	local best=999999 t t0
	for _ in 1 2 3; do
		t0=$EPOCHREALTIME
		"$@" > /dev/null 2>&1 || true
		t=$(echo "$EPOCHREALTIME - $t0" | bc)
		if [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	printf '%.3f\n' "$best"
}
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
printf '%-40s %9s %13s %13s %6s %8s %8s %6s\n' trace KiB "report Ir" "floor Ir" ratio \
	"report s" "floor s" ratio
for t in "$@"; do
	ri=$(instructions "$prog" report "$t")
	fi=$(instructions "$floor" "$t")
	rw=$(wall "$prog" report "$t")
	fw=$(wall "$floor" "$t")
	# a corpus run by its directory's name, any other file by its own
	name=$(basename "$t")
	[ "$name" = trace.dat ] && name=$(basename "$(dirname "$t")")
	printf '%-40s %9s %13s %13s %6s %8s %8s %6s\n' "${name:0:40}" \
		$(( $(stat -c %s "$t") / 1024 )) "$ri" "$fi" "$(ratio "$ri" "$fi")" "$rw" "$fw" \
		"$(ratio "$rw" "$fw")"
done
