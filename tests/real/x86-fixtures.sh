#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Real traces of an x86_64 6.18 kernel (tests/fixtures/README.md says how each was made):
# tlbscope's counts against trace-cmd's on the same file, the same capture read as
# trace.dat and as tracefs text, tgid-based identity, lost events, JSON round trip, stdin.
T=x86-fixtures
. "$(dirname "$0")/../lib.sh"

if ! command -v trace-cmd > /dev/null || ! command -v jq > /dev/null; then
	skip "all" "trace-cmd or jq not installed (make check installs them as root)"
	exit 0
fi

# trace-cmd report: "<buffer>: comm-pid [cpu] ts: event: ..."; count by event and by cpu
tc_counts() {
	trace-cmd report "$1" 2>/dev/null | awk '
		/^cpus=/ { next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		  # trace-cmd 3.3 puts the latency flags ("d.h..") before the timestamp
		  t = $(i + 1) ~ /:$/ ? i + 1 : i + 2
		  ev = $(t + 1); sub(/:$/, "", ev); if (ev == "") next
		  n[ev]++
		  if (ev == "sched_switch") { c = $i; gsub(/[\[\]]/, "", c); sw[c + 0]++ } }
		END { for (e in n) printf "%s %d\n", e, n[e]
		      for (c in sw) printf "cpu%d %d\n", c, sw[c] }' | sort
}
tls_counts() {
	tls report --json "$1" | jq -r '(.events | to_entries[] | "\(.key) \(.value)"),
		(.cpus[] | select(.switches > 0) | "cpu\(.cpu) \(.switches)")' | sort
}

for f in x86-hackbench.dat x86-threads-tgid.dat x86-lost.dat; do
	same "$f: events by name and sched_switch per CPU = trace-cmd report" \
		"$(tc_counts "$fx/$f")" "$(tls_counts "$fx/$f")"
done

# The same capture as trace.dat and as tracefs text (no tgid column: both carry the same
# facts).  Text timestamps are microseconds, so times compare at that precision.
norm() {
	jq -S 'del(.input, .evidence.malformed_skipped, .evidence.timestamps_as_printed,
		.evidence.input_checks_first)
		| .span.first_ns |= (. / 1000 | floor) | .span.last_ns |= (. / 1000 | floor)
		| .cpus[] |= (del(.kthread_ns, .idle_ns))' "$1"
}
txt=$(unxz_fx x86-hackbench.txt.xz)
tls report --json "$fx/x86-hackbench.dat" > "$tmp/dat.json"
tls report --json "$txt" > "$tmp/txt.json"
same "x86-hackbench: trace.dat and tracefs text give the same report" \
	"$(norm "$tmp/dat.json")" "$(norm "$tmp/txt.json")"
# run times: the text's microsecond stamps may differ by <= 1 us per switch
d=$(jq -s '[.[0].cpus, .[1].cpus] | transpose | map((.[0].idle_ns - .[1].idle_ns | fabs)
	- (.[0].switches * 1000)) | max' "$tmp/dat.json" "$tmp/txt.json")
check "x86-hackbench: idle time equal within timestamp precision" [ "$(echo "$d <= 0" | bc)" = 1 ]

# trace-cmd report --raw-ts prints each timestamp as an integer count ("[001]827787429464:"),
# as it does for the counter and x86-tsc clocks: read as ns, the same report as the
# trace.dat's, to the nanosecond, and a warning that says how they were read
if trace-cmd report --raw-ts "$fx/x86-hackbench.dat" > "$tmp/raw.txt" 2> /dev/null; then
	tls report --json "$tmp/raw.txt" > "$tmp/raw.json" 2> "$tmp/raw.err"
	asdat() { jq -S 'del(.input, .evidence.timestamps_as_printed, .evidence.input_checks_first)' "$1"; }
	same "x86-hackbench: trace-cmd report --raw-ts text gives the trace.dat's report" \
		"$(asdat "$tmp/dat.json")" "$(asdat "$tmp/raw.json")"
	check "... and says the integers were read as nanoseconds" \
		grep -q "integer timestamps .*read as nanoseconds" "$tmp/raw.err"
else
	skip "x86-hackbench: trace-cmd report --raw-ts" "this trace-cmd has no --raw-ts"
fi

# tgid column: threads that existed before the trace are one process, not guesses
tgtxt=$(unxz_fx x86-threads-tgid.txt.xz)
tls report --json "$tgtxt" > "$tmp/tg.json"
tls report --json "$fx/x86-threads-tgid.dat" > "$tmp/tgdat.json"
g_txt=$(jq '.evidence.mms_guessed' "$tmp/tg.json")
g_dat=$(jq '.evidence.mms_guessed' "$tmp/tgdat.json")
check "x86-threads-tgid: tgid column removes guesses ($g_dat in trace.dat -> $g_txt in text)" \
	[ "$g_txt" -lt "$g_dat" ]
hb=$(jq '[.processes[] | select(.comm == "hackbench")] | length' "$tmp/tg.json")
thr=$(grep -o 'hackbench-[0-9]* *( *[0-9]*)' "$tgtxt" | sed 's/.*( *\([0-9]*\))/\1/' | sort -u | wc -l)
same "x86-threads-tgid: one address space per hackbench process (tgids in the text)" "$thr" "$hb"
sw_txt=$(jq '.totals.switches' "$tmp/tg.json")
sw_dat=$(jq '.totals.switches' "$tmp/tgdat.json")
same "x86-threads-tgid: same switches in text and trace.dat" "$sw_dat" "$sw_txt"

# lost events: trace-cmd prints "CPU:N [M EVENTS DROPPED]"
want=$(trace-cmd report "$fx/x86-lost.dat" 2>/dev/null |
	sed -n 's/.*CPU:[0-9]* \[\([0-9]*\) EVENTS DROPPED\].*/\1/p' | awk '{s += $1} END {print s + 0}')
got=$(tls report --json "$fx/x86-lost.dat" | jq '.lost_events')
same "x86-lost.dat: lost events = trace-cmd's EVENTS DROPPED" "$want" "$got"
check "x86-lost.dat: text report says lost events" \
	sh -c "'$prog' report '$fx/x86-lost.dat' | grep -q 'lost events *[1-9]'"
lt=$(unxz_fx x86-lost.txt.xz)
written=$(sed -n 's/.*entries-written: \([0-9]*\)\/\([0-9]*\).*/\2 - \1/p' "$lt" | bc)
got=$(tls report --json "$lt" | jq '.lost_events')
same "x86-lost.txt: lost events = entries-written - entries-in-buffer" "$written" "$got"

# JSON lines round trip: events -> report gives the trace's report
tls events "$fx/x86-hackbench.dat" > "$tmp/ev.jsonl"
# the checks' first places are lines of the JSON there, CPU and time here: counts compared
# (which task-table rows were malformed or corrected a guess: the derivation's, null there)
rt() { jq -S 'del(.input, .evidence.kthreads_by_name, .evidence.requests_mm_from_task,
	.evidence.requests_without_mm, .evidence.input_checks_first,
	.evidence.tgid_markers_malformed, .evidence.tgid_markers_corrected)' "$1"; }
tls report --json "$tmp/ev.jsonl" > "$tmp/rt.json"
same "x86-hackbench: report of 'events' output = report of the trace" \
	"$(rt "$tmp/dat.json")" "$(rt "$tmp/rt.json")"
check "x86-hackbench: events are in time order" \
	sh -c "jq -r 'select(.ts) | .ts' '$tmp/ev.jsonl' | sort -c -n"
# x86's tlb_flush of 0 pages flushed nothing (an ASID up to date, a TLB current): counted
# as no local flush, so the trace without the switches' ones (what live top leaves in the
# kernel, record/events.c) gives the same report but for the event counts
zero='.source == "tlb_flush" and .reason == 0 and .scope == "range" and .pages == null'
nz=$(jq -c "select($zero)" "$tmp/ev.jsonl" | wc -l)
jq -c "select(($zero) | not)" "$tmp/ev.jsonl" > "$tmp/nozero.jsonl"
nocount() { rt "$1" | jq 'del(.events, .evidence.tracepoints.tlb_flush)'; }
tls report --json "$tmp/nozero.jsonl" > "$tmp/nozero.json"
check "x86-hackbench: the capture has 0-page task-switch tlb_flush records ($nz)" [ "$nz" -gt 0 ]
same "x86-hackbench: report without them is the same but for the event counts" \
	"$(nocount "$tmp/rt.json")" "$(nocount "$tmp/nozero.json")"
# a local flush is a task switch's or a local request's tlb_flush that flushed something
want=$(jq -s '[.[] | select(.source == "tlb_flush" and (.reason == 0 or .reason == 2 or
	.reason == 3) and (.scope == "mm" or .pages != null))] | length' "$tmp/ev.jsonl")
same "x86-hackbench: local flushes are the tlb_flush records that flushed" \
	"$want" "$(jq '.totals.local_flushes' "$tmp/dat.json")"

# standard input, spooled for libtracecmd
cat "$fx/x86-hackbench.dat" | tls report --json - > "$tmp/stdin.json"
same "x86-hackbench: '-' reads trace.dat from stdin" \
	"$(jq -S 'del(.input)' "$tmp/dat.json")" "$(jq -S 'del(.input)' "$tmp/stdin.json")"
xz -dc "$fx/x86-hackbench.txt.xz" | tls report --json - > "$tmp/stdin2.json"
same "x86-hackbench: '-' reads text from stdin" \
	"$(jq -S 'del(.input)' "$tmp/txt.json")" "$(jq -S 'del(.input)' "$tmp/stdin2.json")"

# --cpu/--from/--to: windows add up
all=$(jq '.totals.switches' "$tmp/dat.json")
c0=$(tls report --json --cpu 0 "$fx/x86-hackbench.dat" | jq '.totals.switches')
c1=$(tls report --json --cpu 1 "$fx/x86-hackbench.dat" | jq '.totals.switches')
same "x86-hackbench: --cpu 0 + --cpu 1 = all switches" "$all" "$((c0 + c1))"
a=$(tls report --json --to +0.2 "$fx/x86-hackbench.dat" | jq '.totals.switches')
b=$(tls report --json --from +0.2 "$fx/x86-hackbench.dat" | jq '.totals.switches')
same "x86-hackbench: --to +0.2 and --from +0.2 split the switches" "$all" "$((a + b))"
check "x86-hackbench: the window is not empty on either side" [ "$a" -gt 0 -a "$b" -gt 0 ]
