#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# A fresh capture of this machine's kernel under hackbench, in a tracefs instance of our
# own: tlbscope agrees with trace-cmd on it, trace.dat and text agree, and tracefs is left
# exactly as it was (tracefs_state: the top level, events, filters, kptr_restrict), also
# after a SIGINT in the middle of a capture and a SIGKILL; under strace, nothing is written
# outside the instance.  top's live reader reads a buffer event for event as the kernel
# has it, drained or while the load writes.  Needs root and tracefs; says "skipped"
# otherwise.
T=live-tracefs
. "$(dirname "$0")/../lib.sh"

need_tracefs "capture" trace-cmd hackbench jq
# capture.sh writes the trace.dat with tests/tools/extract.c
extract=${TLBSCOPE_BUILD:-$top/build}/tests/extract
[ -x "$extract" ] || { skip "capture" "$extract not built (make unit)"; exit 0; }
export TLBSCOPE_EXTRACT=$extract

# capture.sh names its instance after its pid: checked by name, the others by
# tracefs_state (tests/lib.sh), which holds the top level, events, filters, kptr_restrict
state() {
	tracefs_state
	for p in $pids; do
		[ -e $tr/instances/tlbscope-capture-$p ] && echo "left behind: tlbscope-capture-$p"
	done
}
pids=""
before=$(state)
"$fx/capture.sh" "$tmp/live" 4096 0 -- hackbench -g 2 -l 100 &
pid=$!
pids="$pids $pid"
wait $pid
same "capture.sh exits 0" 0 $?
check "capture wrote a trace.dat and its text" [ -s "$tmp/live.dat" -a -s "$tmp/live.txt" ]
same "tracefs is as it was after the capture" "$before" "$(state)"
check "the capture's instance is gone" [ ! -e $tr/instances/tlbscope-capture-$pid ]

# what the capture wrote, seen by its system calls: nothing outside its instance, whatever
# the machine's state (a freshly booted one included, where the comparison above would
# also see the top-level buffer expanded)
if command -v strace > /dev/null; then
	guest_strace "$tmp/cap.strace" "$fx/capture.sh" "$tmp/traced" 256 0 -- sleep 0.2
	same "capture under strace exits 0" 0 $?
	check "... and its log has the instance's calls" grep -q "tlbscope-capture-" "$tmp/cap.strace"
	same "capture under strace: nothing written in tracefs outside its instance, nor in /proc/sys" \
		"" "$(guest_writes "$tmp/cap.strace" 'tlbscope-capture-[0-9]+')"
else
	skip "capture under strace: nothing written outside its instance" "strace not installed"
fi

tc=$(trace-cmd report "$tmp/live.dat" 2>/dev/null | grep -c ' sched_switch: ')
ours=$(tls report --json "$tmp/live.dat" | jq '.totals.switches')
same "live trace.dat: switches = trace-cmd report's" "$tc" "$ours"
if why=$(tlb_flush_fired); then
	check "live trace.dat: hackbench made flush requests" \
		[ "$(tls report --json "$tmp/live.dat" | jq '.totals.flush_requests')" -gt 0 ]
else
	skip "live trace.dat: hackbench made flush requests" "$why"
fi
a=$(tls report --json "$tmp/live.dat" | jq -S '.totals, .events')
b=$(tls report --json "$tmp/live.txt" | jq -S '.totals, .events')
same "live: trace.dat and tracefs text give the same totals and events" "$a" "$b"

# SIGINT while the workload runs: the capture's instance is removed all the same
"$fx/capture.sh" "$tmp/int" 1024 0 -- sleep 5 &
pid=$!
pids="$pids $pid"
sleep 1
kill -INT $pid
wait $pid 2> /dev/null
same "tracefs is as it was after a SIGINT mid-capture" "$before" "$(state)"
check "the interrupted capture's instance is gone" [ ! -e $tr/instances/tlbscope-capture-$pid ]

# SIGKILL: no trap runs and the instance stays; the next capture.sh removes it, its pid gone
"$fx/capture.sh" "$tmp/kill" 256 0 -- sleep 3 &
pid=$!
pids="$pids $pid"
I=$tr/instances/tlbscope-capture-$pid
for _ in $(seq 50); do [ -e $I/tracing_on ] && break; sleep 0.1; done
sleep 0.3
{ kill -KILL $pid; wait $pid; } 2> /dev/null
check "a SIGKILLed capture leaves tlbscope-capture-$pid behind" [ -d $I ]
"$fx/capture.sh" "$tmp/next" 256 0 -- true 2> "$tmp/next.err"
same "the next capture exits 0" 0 $?
check "... removes tlbscope-capture-$pid" [ ! -e $I ]
check "... and says so" grep -q \
	"removed the instance tlbscope-capture-$pid left by process $pid, which is gone" "$tmp/next.err"
same "tracefs is as it was after a SIGKILLed capture and the next one" "$before" "$(state)"

# top's live reader (parsers/live.c) against the kernel, through tests/tools/live-drain.c:
# the buffer of a capture on the mono clock drained by it is, event for event (CPU and
# timestamp to the microsecond), the instance's 'trace' file, with or without events
# overwritten; read while the load runs (the writer on the sub-buffers read), it reads
# what the kernel says it handed over, in order, and says what was overwritten
drain=${TLBSCOPE_BUILD:-$top/build}/tests/live-drain
if [ ! -x "$drain" ]; then
	skip "live reader against the kernel" "$drain not built (make unit)"
	exit 0
fi
# "CPU SECONDS.MICROSECONDS" of each event of a 'trace' file, sorted
stamps() {
	awk '/^#/ { next } {
		c = ""
		for (i = 1; i <= NF; i++) {
			if (c == "" && $i ~ /^\[[0-9]+\]$/) { c = substr($i, 2, length($i) - 2) + 0; continue }
			if (c != "" && $i ~ /^[0-9]+\.[0-9]+:$/) { print c, substr($i, 1, length($i) - 1); break }
		}
	}' "$1" | sort
}
# the "cpu N: ..." lines of live-drain whose counts $2 and $3 differ, or whose losses are
# not the overrun (equal to it, or "unknown" where there was some); nothing when all agree
disagree() {
	awk -v a="$2" -v b="$3" '/^cpu [0-9]+:/ {
		for (i = 3; i < NF; i += 2) v[$i] = $(i + 1)
		lost_ok = v["lost"] == v["overrun"] || (v["lost"] == "unknown" && v["overrun"] > 0)
		if (v[a] != v[b] || !lost_ok) print
	}' "$1"
}
for kb in 4096 16; do
	TLBSCOPE_CAPTURE_CLOCK=mono TLBSCOPE_CAPTURE_DRAIN=$drain \
		"$fx/capture.sh" "$tmp/drain$kb" $kb 0 -- hackbench -g 2 -l 200 > "$tmp/drain$kb.out"
	same "live reader, a ${kb} KiB buffer drained: exits 0" 0 $?
	nev=$(stamps "$tmp/drain$kb.txt" | wc -l)
	over=$(awk '/^cpu/ { n += $6 } END { print n + 0 }' "$tmp/drain$kb.out")
	check "... it held events ($nev)" [ "$nev" -gt 0 ]
	[ $kb = 16 ] && check "... and the load overwrote some ($over)" [ "$over" -gt 0 ]
	same "... the events read are the 'trace' file's, CPU and time" \
		"$(stamps "$tmp/drain$kb.txt")" "$(sort "$tmp/drain$kb.drain")"
	same "... each CPU's events read are its entries, its losses its overrun" \
		"" "$(disagree "$tmp/drain$kb.out" entries read)"
done
same "tracefs is as it was after the live reader's drains" "$before" "$(state)"
# read every 10 ms while the load writes, then the rest; 64 KiB a CPU read every 0.5 s: lost
"$drain" --live 3 -- hackbench -g 4 -l 100000 > "$tmp/live-read.out" 2> "$tmp/live-read.err"
same "live reader under hackbench: exits 0" 0 $?
sed 's/^/#   /' "$tmp/live-read.out"
check "... read events ($(awk '/^cpu [0-9]/ { n += $4 } END { print n + 0 }' "$tmp/live-read.out"))" \
	[ "$(awk '/^cpu [0-9]/ { n += $4 } END { print n + 0 }' "$tmp/live-read.out")" -gt 0 ]
same "... each CPU's events read are what the kernel handed over, its losses its overrun" \
	"" "$(disagree "$tmp/live-read.out" read kernel-read)"
same "... none left, none out of order" "" \
	"$(awk '/^cpu [0-9]/ && ($(NF - 2) != 0 || $NF != 0)' "$tmp/live-read.out")"
"$drain" --live 3 64 500 -- hackbench -g 4 -l 100000 > "$tmp/live-lost.out" 2> /dev/null
same "live reader, 64 KiB read every 0.5 s: exits 0" 0 $?
over=$(awk '/^cpu [0-9]/ { n += $10 } END { print n + 0 }' "$tmp/live-lost.out")
check "... the load overwrote events ($over)" [ "$over" -gt 0 ]
same "... each CPU's events read are what the kernel handed over, its losses its overrun" \
	"" "$(disagree "$tmp/live-lost.out" read kernel-read)"
same "tracefs is as it was after the live reader's runs" "$before" "$(state)"
