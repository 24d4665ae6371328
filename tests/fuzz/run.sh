#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run each libFuzzer harness of `make fuzz` for SECONDS, from the committed seeds plus
# whatever corpus earlier runs grew in BUILD/corpus/, and print one summary line per harness
# (executions, coverage, findings).  Findings (crash-*, leak-*, timeout-*, oom-*) land in
# BUILD/findings/FORMAT/.  Exit 1 when a harness found anything.
# --smoke (make check's short run): the committed seeds only, nothing grown is kept, and
# findings and logs go to BUILD/smoke/ instead.
#   usage: tests/fuzz/run.sh [--smoke] BUILD SECONDS [PARALLEL]
set -u
smoke=
if [ "${1:-}" = --smoke ]; then smoke=1; shift; fi
build=${1:-build-fuzz} secs=${2:-60} par=${3:-1}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
out=$build
if [ -n "$smoke" ]; then
	out=$build/smoke
	rm -rf "$out"
	mkdir -p "$out"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi

one() {	# one harness: name, seed folder
	local h=$1 seeds=$2 corpus=$build/corpus/$1 found=$out/findings/$1 log=$out/fuzz-$1.log
	[ -n "$smoke" ] && corpus=$tmp/$h
	mkdir -p "$corpus" "$found"
	"$build/fuzz-$h" "$corpus" "$seeds" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 \
		-artifact_prefix="$found/" > "$log" 2>&1
	local rc=$? execs cov ft findings
	# the last: a child the harness forks may print its own before it execs
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1)
	findings=$(find "$found" -type f | wc -l)
	echo "fuzz-$h: ${secs} s, ${execs:-?} executions, ${cov:-cov: ?}, ${ft:-ft: ?}," \
		"corpus $(find "$corpus" -type f | wc -l) inputs, $findings findings (exit $rc)"
	[ "$findings" = 0 ] && [ $rc = 0 ]
}

# harness:seed folder (tests/fuzz/seeds/ and tests/fuzz/regressions/ use the same names)
harnesses="tracedat:trace.dat ftrace-text:ftrace-text jsonl:jsonl perf-text:perf-text"
status=0
running=0
for h in $harnesses; do
	if [ "$par" -gt 1 ]; then
		# at most PARALLEL at once: wait for any one to end before the next
		if [ $running -ge "$par" ]; then
			wait -n || status=1
			running=$((running - 1))
		fi
		one "${h%%:*}" "tests/fuzz/seeds/${h#*:}" &
		running=$((running + 1))
	else
		one "${h%%:*}" "tests/fuzz/seeds/${h#*:}" || status=1
	fi
done
while [ $running -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
[ $status = 0 ] || echo "findings: see $out/findings/ and $out/fuzz-*.log"
exit $status
