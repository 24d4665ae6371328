#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run each libFuzzer harness of `make fuzz` for SECONDS, from the committed seeds plus
# whatever corpus earlier runs grew in BUILD/corpus/, and print one summary line per harness
# (executions, coverage, findings).  Findings (crash-*, leak-*, timeout-*, oom-*) land in
# BUILD/findings/FORMAT/.  Exit 1 when a harness found anything.
#   usage: tests/fuzz/run.sh BUILD SECONDS [PARALLEL]
set -u
build=${1:-build-fuzz} secs=${2:-60} par=${3:-1}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

one() {	# one harness: name, seed folder
	local h=$1 seeds=$2 corpus=$build/corpus/$1 found=$build/findings/$1
	mkdir -p "$corpus" "$found"
	"$build/fuzz-$h" "$corpus" "$seeds" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 \
		-artifact_prefix="$found/" > "$build/fuzz-$h.log" 2>&1
	local rc=$? execs cov ft findings
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz-$h.log")
	cov=$(grep -o 'cov: [0-9]*' "$build/fuzz-$h.log" | tail -1)
	ft=$(grep -o 'ft: [0-9]*' "$build/fuzz-$h.log" | tail -1)
	findings=$(find "$found" -type f | wc -l)
	echo "fuzz-$h: ${secs} s, ${execs:-?} executions, ${cov:-cov: ?}, ${ft:-ft: ?}," \
		"corpus $(find "$corpus" -type f | wc -l) inputs, $findings findings (exit $rc)"
	[ "$findings" = 0 ] && [ $rc = 0 ]
}

status=0
pids=()
for h in tracedat:trace.dat ftrace-text:ftrace-text jsonl:jsonl; do
	if [ "$par" -gt 1 ]; then
		one "${h%%:*}" "tests/fuzz/seeds/${h#*:}" & pids+=($!)
	else
		one "${h%%:*}" "tests/fuzz/seeds/${h#*:}" || status=1
	fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ $status = 0 ] || echo "findings: see $build/findings/ and $build/fuzz-*.log"
exit $status
