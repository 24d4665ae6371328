#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# perf and tracefs on the same run of this machine: `perf record -k mono` and a
# tracefs instance of our own on the mono clock record the same events with the same
# timestamps, so in perf's window tlbscope must count the same switches, flush requests and
# flush IPIs from perf.data, from `perf script` text and from the instance's trace.dat.
# Needs root, tracefs, perf and hackbench; says "skipped" otherwise.  Leaves tracefs as it was.
T=perf-tracefs
. "$(dirname "$0")/../lib.sh"

need_tracefs "perf and tracefs" perf hackbench jq
extract=${TLBSCOPE_BUILD:-$top/build}/tests/extract
for t in "$extract" "$shootdown"; do
	[ -x "$t" ] || { skip "perf and tracefs" "$t not built (make unit)"; exit 0; }
done

inst=tlbscope-perfcmp-$$
I=$tr/instances/$inst
before=$(tracefs_state)
cleanup() { [ -d "$I" ] && { echo 0 > "$I/tracing_on"; rmdir "$I"; } 2> /dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$I" || { skip "perf and tracefs" "cannot create a tracefs instance"; exit 0; }
echo 0 > "$I/tracing_on"
echo 16384 > "$I/buffer_size_kb"
echo mono > "$I/trace_clock"
events="sched/sched_switch sched/sched_process_fork sched/sched_process_exec
	sched/sched_process_exit task/task_newtask ipi/ipi_send_cpu ipi/ipi_send_cpumask
	csd/csd_queue_cpu csd/csd_function_entry csd/csd_function_exit tlb/tlb_flush"
pe=()
for e in $events; do
	[ -e "$I/events/$e/enable" ] || continue
	echo 1 > "$I/events/$e/enable"
	pe+=(-e "${e%%/*}:${e#*/}")
done
echo 1 > "$I/tracing_on"
# hackbench for switches, shootdown (tests/tools) for flush IPIs, both at once
perf record -q -m 2048 -k mono -a "${pe[@]}" -o "$tmp/run.data" -- \
	sh -c "$shootdown 0.1 & hackbench -g 2 -l 100; wait" > /dev/null 2> "$tmp/rec.err"
st=$?
echo 0 > "$I/tracing_on"
# events the instance's ring buffer overwrote or dropped (the trace.dat cannot say)
tracefs_lost=$(awk '/^(overrun|commit overrun|dropped events):/ { n += $NF } END { print n + 0 }' \
	"$I"/per_cpu/cpu*/stats)
"$extract" "$inst" "$tmp/run.dat" 2> "$tmp/extract.err"
xst=$?
rmdir "$I"
same "tracefs is as it was" "$before" "$(tracefs_state)"
if [ $st != 0 ]; then
	skip "perf and tracefs" "perf record failed: $(head -1 "$tmp/rec.err")"
	exit 0
fi
check "the instance's trace.dat was written (exit $xst)" [ "$xst" = 0 ]

# perf enables and disables its events CPU by CPU: the window is where every CPU's were on,
# from the latest first event of a CPU to the earliest last one.  perf and the instance each
# read the clock for an event, some tens of ns apart, so an edge right at an event could
# count it on one side and not the other: each edge is put in the middle of the widest gap
# between perf's events in the first (last) millisecond inside that span
tls events "$tmp/run.data" > "$tmp/perf.jsonl"
edges=$(jq -rs '[.[] | select(.ts and .cpu >= 0)] as $e
	| ($e | group_by(.cpu) | map(min_by(.ts).ts) | max) as $first
	| ($e | group_by(.cpu) | map(max_by(.ts).ts) | min) as $last
	| [$e[].ts] | sort as $ts
	| def mid($lo; $hi): [$ts[] | select(. >= $lo and . <= $hi)]
		| [range(1; length) as $i | {gap: (.[$i] - .[$i - 1]), at: ((.[$i] + .[$i - 1]) / 2 | floor)}]
		| max_by(.gap).at;
	"\(mid($first; $first + 1000000)) \(mid($last - 1000000; $last))"' "$tmp/perf.jsonl")
win=(--from "${edges% *}ns" --to "${edges#* }ns")
key() { jq -c '{switches: .totals.switches, flush_requests: .totals.flush_requests,
	flush_ipis: .totals.flush_ipis, lost: .lost_events}' "$1"; }
tls report --json "${win[@]}" "$tmp/run.data" > "$tmp/perf-win.json"
tls report --json "${win[@]}" "$tmp/run.dat" > "$tmp/tracefs-win.json"
perf script -i "$tmp/run.data" -F comm,tid,pid,cpu,time,event,trace --ns 2> /dev/null |
	tls report --json "${win[@]}" - > "$tmp/text-win.json"
# a ring buffer that lost events makes the two counts differ by design: no comparison
perf_lost=$(jq -s '[.[] | select(.kind == "lost")] | length' "$tmp/perf.jsonl")
if [ "$tracefs_lost" != 0 ] || [ "$perf_lost" != 0 ]; then
	skip "perf and tracefs on one run" "events lost (tracefs: $tracefs_lost, perf: $perf_lost markers)"
	exit 0
fi
if why=$(tlb_flush_fired); then
	check "perf saw switches, flush requests and IPIs ($(key "$tmp/perf-win.json"))" \
		[ "$(jq '.totals.switches > 0 and .totals.flush_requests > 0' "$tmp/perf-win.json")" = true ]
else
	check "perf saw switches ($(key "$tmp/perf-win.json"))" \
		[ "$(jq '.totals.switches > 0' "$tmp/perf-win.json")" = true ]
	skip "perf saw flush requests" "$why"
fi
same "in perf's window, perf.data = the tracefs instance's trace.dat" \
	"$(key "$tmp/tracefs-win.json")" "$(key "$tmp/perf-win.json")"
same "in perf's window, perf script text = the tracefs instance's trace.dat" \
	"$(key "$tmp/tracefs-win.json")" "$(key "$tmp/text-win.json")"
