#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A fresh capture of this machine's kernel under hackbench, in a tracefs instance of our
# own: tlbscope agrees with trace-cmd on it, trace.dat and text agree, and tracefs is left
# exactly as it was (instances, dynamic events, enabled top-level events), also after a
# SIGINT in the middle of a capture.  Needs root and tracefs; says "skipped" otherwise.
T=live-tracefs
. "$(dirname "$0")/../lib.sh"

need_tracefs "capture" trace-cmd hackbench jq

# the top level's settings; instances of other tracers may come and go meanwhile, so ours
# is checked by its name (capture.sh names it after its pid).  buffer_size_kb reads
# "7 (expanded: 1408)" on a kernel where nothing has traced since boot, until the top-level
# buffer is first used: an unchanged line proves that nobody used it.
state() {
	cat $tr/dynamic_events $tr/set_event $tr/tracing_on $tr/buffer_size_kb $tr/current_tracer \
		$tr/trace_options $tr/buffer_total_size_kb
}
before=$(state)
"$fx/capture.sh" "$tmp/live" 4096 0 -- hackbench -g 2 -l 100 &
pid=$!
wait $pid
check "capture wrote a trace.dat and its text" [ -s "$tmp/live.dat" -a -s "$tmp/live.txt" ]
same "tracefs is as it was after the capture" "$before" "$(state)"
check "the capture's instance is gone" [ ! -e $tr/instances/tlbscope-capture-$pid ]

# what the capture wrote, seen by the kernel's own account of its system calls: nothing
# outside its instance, whatever the machine's state (a freshly booted one included)
if command -v strace > /dev/null; then
	strace -f -qq -e trace=openat,mkdir,rmdir,unlink,truncate -o "$tmp/cap.strace" \
		"$fx/capture.sh" "$tmp/traced" 256 0 -- sleep 0.2
	w=$(guest_writes "$tmp/cap.strace" 'tlbscope-capture-[0-9]+')
	same "capture under strace: nothing written in tracefs outside its instance" "" "$w"
else
	skip "capture under strace: nothing written outside its instance" "strace not installed"
fi

tc=$(trace-cmd report "$tmp/live.dat" 2>/dev/null | grep -c ' sched_switch: ')
ours=$(tls report --json "$tmp/live.dat" | jq '.totals.switches')
same "live trace.dat: switches = trace-cmd report's" "$tc" "$ours"
check "live trace.dat: hackbench made flush requests" \
	[ "$(tls report --json "$tmp/live.dat" | jq '.totals.flush_requests')" -gt 0 ]
a=$(tls report --json "$tmp/live.dat" | jq -S '.totals, .events')
b=$(tls report --json "$tmp/live.txt" | jq -S '.totals, .events')
same "live: trace.dat and tracefs text give the same totals and events" "$a" "$b"

# SIGINT while the workload runs: the capture's instance is removed all the same
"$fx/capture.sh" "$tmp/int" 1024 0 -- sleep 5 &
pid=$!
sleep 1
kill -INT $pid
wait $pid 2> /dev/null
same "tracefs is as it was after a SIGINT mid-capture" "$before" "$(state)"
check "the interrupted capture's instance is gone" [ ! -e $tr/instances/tlbscope-capture-$pid ]
