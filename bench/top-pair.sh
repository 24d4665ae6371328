#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two builds of live `tlbscope top` at once, under one load (root): each reads its own
# tracefs instance, so both see the same events while the load, the host's placement of
# the CPUs and the interrupts are the same for both.  Run one after the other, a build's
# CPU per event moved by up to 2x from run to run on a virtual machine; side by side, the
# ratio is what is left.  The build started second came out cheaper in most trials (by up
# to a fifth), so the rounds alternate which starts first and the answer is the geometric
# mean of B/A over them.  Each round prints each build's CPU per event it read over
# TOP_SECONDS (default 15) from its 3rd snapshot on: the time it ran, in ns from
# /proc/PID/schedstat (utime + stime of /proc/PID/stat, in clock ticks, where the kernel
# has no schedstat: a tick is 10 ms, some 5 % of what top uses in 15 s).
# Builds that read different events (one leaves some in the kernel) compare by the CPU
# each used over the same window, the last ratio.  Nothing is asserted.
#   usage: [TOP_LOAD=CMD] [TOP_SECONDS=N] bench/top-pair.sh A B [ROUNDS (default 4)]
[ $# -ge 2 ] || { echo "usage: bench/top-pair.sh A B [ROUNDS]" >&2; exit 2; }
a=$1 b=$2 rounds=${3:-4}
window=${TOP_SECONDS:-15}
load_cmd=${TOP_LOAD:-perf bench sched pipe -l 200000}
hz=$(getconf CLK_TCK)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# ns top has run
cpu() {
	if [ -r "/proc/$1/schedstat" ]; then
		cut -d' ' -f1 "/proc/$1/schedstat"
	else
		awk -v hz="$hz" '{ printf "%.0f\n", ($14 + $15) * 1e9 / hz }' "/proc/$1/stat"
	fi
}
shots() { local n; n=$(grep -sc '^elapsed' "$1"); echo "${n:-0}"; }
events() { grep '^elapsed' "$1" | tail -1 | sed -n 's/.*, \([0-9]*\) events.*/\1/p'; }

# one round: $1 started first, then $2; prints "cpu_ns events" of each, in that order
round() {
	setsid sh -c 'echo $$ > "$1"; while :; do sh -c "$2"; done' sh "$dir/load" \
		"$load_cmd" > /dev/null 2>&1 &
	local load=$! p1 p2 c1 c2 e1 e2
	sleep 1
	"$1" top -b -d 1 -n $((window + 4)) > "$dir/1" 2> "$dir/1.err" &
	p1=$!
	"$2" top -b -d 1 -n $((window + 4)) > "$dir/2" 2> "$dir/2.err" &
	p2=$!
	until [ "$(shots "$dir/1")" -ge 3 ] && [ "$(shots "$dir/2")" -ge 3 ]; do
		# a top that has exited (not root, say) is said, and the round reads nothing
		if ! kill -0 $p1 2> /dev/null || ! kill -0 $p2 2> /dev/null; then
			echo "top-pair: a top exited before its 3rd snapshot:" >&2
			cat "$dir/1.err" "$dir/2.err" >&2
			kill $p1 $p2 2> /dev/null
			kill -TERM -- -"$(cat "$dir/load")" 2> /dev/null
			wait
			echo "0 0 0 0"
			return
		fi
		sleep 0.05
	done
	c1=$(cpu $p1) c2=$(cpu $p2) e1=$(events "$dir/1") e2=$(events "$dir/2")
	sleep "$window"
	echo "$(($(cpu $p1) - c1)) $(($(events "$dir/1") - e1))" \
	     "$(($(cpu $p2) - c2)) $(($(events "$dir/2") - e2))"
	wait $p1 $p2
	kill -TERM -- -"$(cat "$dir/load")" 2> /dev/null
	wait $load 2> /dev/null
}

for i in $(seq "$rounds"); do
	if [ $((i % 2)) = 1 ]; then
		read -r ca ea cb eb <<< "$(round "$a" "$b")"
	else
		read -r cb eb ca ea <<< "$(round "$b" "$a")"
	fi
	echo "$ca $ea $cb $eb $([ $((i % 2)) = 1 ] && echo A || echo B)"
done | awk '$2 == 0 || $4 == 0 { printf "round %d: no events read\n", NR; next } {
	ua = $1 / 1e3 / $2; ub = $3 / 1e3 / $4
	printf "round %d (%s first): A %.3f us/event (%d events), B %.3f us/event " \
	       "(%d events), B/A %.3f an event, %.3f in CPU\n",
	       NR, $5, ua, $2, ub, $4, ub / ua, $3 / $1
	s += log(ub / ua); sc += log($3 / $1); n++
} END {
	if (n)
		printf "B/A over %d rounds (geometric mean): %.3f an event, %.3f in CPU\n",
		       n, exp(s / n), exp(sc / n)
}'
