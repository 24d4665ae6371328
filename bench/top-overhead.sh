#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tlbscope top's own CPU use, live under a load (root): the time it ran between its 3rd
# batch snapshot and TOP_SECONDS (default 9) snapshots later, in ns from /proc/PID/schedstat
# (from utime + stime, in clock ticks, where the kernel has no schedstat), split into user
# and system as utime and stime are (ticks: a longer window reads them finer), and the
# events it read in that window (from the same snapshots).  Prints one line; nothing is
# asserted.  The load is
# hackbench unless TOP_LOAD names another command, run again and again: on a machine where
# hackbench makes fewer than 100k events a second, TOP_LOAD='perf bench sched pipe -l
# 200000' (two tasks waking each other through a pipe) makes more.
#   usage: [TOP_LOAD=CMD] [TOP_SECONDS=N] bench/top-overhead.sh [TLBSCOPE]
prog=${1:-./tlbscope}
window=${TOP_SECONDS:-9}
load_cmd=${TOP_LOAD:-hackbench -g 4 -l 5000}
out=$(mktemp)
# the load goes whole at every exit (see below)
stop_load() { [ -s "$out.pid" ] && kill -TERM -- -"$(cat "$out.pid")" 2> /dev/null; }
trap 'stop_load; rm -f "$out" "$out.pid" "$out.err"' EXIT
# the load in a process group of its own, so that it goes whole at the end (a plain
# background loop leaves its running hackbench and workers behind); the group is named by
# the pid the load writes (setsid forks when it is a group leader already, under job control)
setsid sh -c 'echo $$ > "$1"; while :; do sh -c "$2"; done' sh "$out.pid" "$load_cmd" \
	> /dev/null 2>&1 &
load=$!
sleep 1
"$prog" top -b -d 1 -n $((window + 4)) > "$out" 2> "$out.err" &
pid=$!
hz=$(getconf CLK_TCK)
# "utime stime ran_ns"
cpu() {
	local ran=
	[ -r "/proc/$pid/schedstat" ] && ran=$(cut -d' ' -f1 "/proc/$pid/schedstat")
	awk -v hz="$hz" -v ran="$ran" '{
		printf "%s %s %.0f\n", $14, $15, ran != "" ? ran : ($14 + $15) * 1e9 / hz }' \
		"/proc/$pid/stat"
}
shots() { grep -c '^elapsed' "$out"; }
# wait for snapshot N; a top that has exited (not root, say) is said, not waited for
upto() {
	until [ "$(shots)" -ge "$1" ]; do
		kill -0 $pid 2> /dev/null || { wait $pid; echo "top-overhead: $prog top" \
			"exited ($?) before snapshot $1:" >&2; cat "$out.err" >&2; exit 1; }
		sleep 0.05
	done
}
upto 3
read -r u0 s0 r0 <<< "$(cpu)"; e0=$(grep '^elapsed' "$out" | tail -1)
upto $((window + 3))
read -r u1 s1 r1 <<< "$(cpu)"; e1=$(grep '^elapsed' "$out" | tail -1)
wait $pid
stop_load
wait $load 2> /dev/null
events() { echo "$1" | sed -n 's/.*, \([0-9]*\) events.*/\1/p'; }
secs() { echo "$1" | sed -n 's/^elapsed \([0-9.]*\) s.*/\1/p'; }
awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v ran=$((r1 - r0)) \
    -v ev=$(($(events "$e1") - $(events "$e0"))) \
    -v t0="$(secs "$e0")" -v t1="$(secs "$e1")" -v lost="$(tail -n +1 "$out" |
    grep '^elapsed' | tail -1 | sed 's/.*lost //')" 'BEGIN {
	dt = t1 - t0
	c = ran / 1e9
	fu = u + s > 0 ? u / (u + s) : 0
	printf "window %.1f s: %d events (%.0f/s), %.3f s CPU = %.2f %% of a core, " \
	       "%.3f us/event (user %.3f, system %.3f) -> %.2f %% of a core at 100k " \
	       "events/s; lost %s\n",
	       dt, ev, ev / dt, c, 100 * c / dt, 1e6 * c / ev,
	       1e6 * c * fu / ev, 1e6 * c * (1 - fu) / ev, 100 * 1e5 * c / ev, lost
}'
