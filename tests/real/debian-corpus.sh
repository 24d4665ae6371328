#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian riscv64 runs (corpus/debian/traces/*/: real workloads recorded by tlbscope in a
# Debian 13 guest on Debian's own kernel, plain virt, so SBI remote fences): record's
# trace.dat (tracepoints; the kernel dropped its kprobe events) and, where the run went
# through perf (record --kprobes-via perf), perf's events as `perf script` text.  report
# reads both; tune of the perf text counts the CPUs the header declares (not 512: a header
# read only with the events came too late for tune's tables), its kernel check is n/a with
# the reason (the remote flushes are SBI fences, which no event shows: not "DIFFERENT"),
# and tune --verify finds its sweep equal to the direct replays.
T=debian-corpus
. "$(dirname "$0")/../lib.sh"

runs=$top/corpus/debian/traces
if ! command -v jq > /dev/null || ! command -v xz > /dev/null; then
	skip "all" "jq or xz not installed (make check installs them as root)"
	exit 0
fi
if ! ls "$runs"/*/trace.dat > /dev/null 2>&1; then
	skip "all" "no corpus/debian/traces in this tree"
	exit 0
fi
for d in "$runs"/*/; do
	name=$(basename "$d")
	sw=$(tls report --json "$d/trace.dat" 2> /dev/null | jq '.totals.switches')
	check "$name: report of record's trace.dat: ${sw:-no} switches" [ "${sw:-0}" -gt 0 ]
	[ -e "$d/perf.txt.xz" ] || continue
	xz -dc "$d/perf.txt.xz" > "$tmp/perf.txt"
	tls report --json "$tmp/perf.txt" > "$tmp/r.json" 2> /dev/null
	same "$name: report of the perf text exits 0" 0 $?
	req=$(jq '.totals.flush_requests' "$tmp/r.json")
	check "$name: ... the kprobes' flush requests through perf: ${req:-none}" [ "${req:-0}" -gt 0 ]
	tls report "$tmp/perf.txt" 2> /dev/null | tr -s ' \n' ' ' > "$tmp/r.txt"
	check "$name: ... the kernel check is n/a, the remote flushes being SBI fences, not DIFFERENT" \
		grep -q "kernel check: n/a ([0-9]* kernel flush targets; .* SBI remote fences" "$tmp/r.txt"
	declared=$(sed -n 's/^# nrcpus avail : \([0-9]*\)$/\1/p' "$tmp/perf.txt" | head -1)
	cpus=$(tls tune --json - < "$tmp/perf.txt" 2> /dev/null | jq '.input.cpus')
	same "$name: tune of the perf text on stdin: the header's $declared CPUs" "$declared" "$cpus"
	tls tune --verify "$tmp/perf.txt" > "$tmp/v.txt" 2>&1
	same "$name: tune --verify: the sweep equals every direct replay (exit 0)" 0 $?
done
echo "1..$n"
