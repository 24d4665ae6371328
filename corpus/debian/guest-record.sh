#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest (make -C corpus/debian record): tlbscope built from the share's src.tar, its
# record tests run on Debian's kernel, then real workloads recorded into the share's
# runs/NAME/: rt-tests hackbench and stress-ng, by record (ftrace) and, for the kprobes
# the distribution kernel drops from the ftrace buffer, by perf record of the same probes
# while record's exist.  usage: guest-record.sh [quick]
set -u
share=/mnt/share
cd /root || exit 1
rm -rf tlbscope && mkdir tlbscope && tar -C tlbscope -xf $share/src.tar || exit 1
cd tlbscope || exit 1
t0=$(date +%s)
make -j"$(nproc)" tlbscope unit > build.log 2>&1 || { tail -40 build.log; exit 1; }
echo "== guest: built in $(($(date +%s) - t0)) s"
for t in tests/real/record-kprobes.sh tests/real/record-tgid.sh tests/real/record.sh; do
	echo "== guest: $t"
	TLBSCOPE_BUILD=$PWD/build "$t" > test.out 2>&1
	echo "$(grep -c '^ok' test.out) ok, $(grep -c '^not ok' test.out) not ok; not ok and skips:"
	grep -E '^(not ok|ok .*# SKIP)|^#' test.out | head -40
done
[ "${1:-}" = quick ] && exit 0

# run NAME COMMAND...: COMMAND recorded by record and, in it, by perf on the same kprobes
run() {
	name=$1
	shift
	out=$share/runs/$name
	rm -rf "$out" && mkdir -p "$out"
	echo "== guest: $name: $*"
	./tlbscope record -o "$out/trace.dat" -- "$@" > "$out/workload.txt" 2> "$out/record.txt"
	echo "record exited $?"; cat "$out/record.txt"
	./tlbscope record -o "$out/record-perf.dat" -- perf record -q -a -o "$out/perf.data" \
		-e 'tlbscope:*' -e sched:sched_switch -e sched:sched_process_fork \
		-e sched:sched_process_exec -e sched:sched_process_exit -e task:task_newtask \
		-e ipi:ipi_send_cpu -e ipi:ipi_send_cpumask -e csd:csd_queue_cpu \
		-e csd:csd_function_entry -e csd:csd_function_exit -- "$@" \
		> /dev/null 2> "$out/record-perf.txt"
	echo "record -- perf record exited $?"; grep -v '^$' "$out/record-perf.txt" | tail -5
	rm -f "$out/record-perf.dat"
	./tlbscope report "$out/trace.dat" > "$out/report.txt" 2>&1
	./tlbscope report "$out/perf.data" > "$out/report-perf.txt" 2>&1
	echo "report (ftrace):"; sed -n '1,14p' "$out/report.txt"
	echo "report (perf):"; sed -n '1,14p' "$out/report-perf.txt"
	ls -la "$out"
}
uname -a > $share/runs.uname 2>&1
run hackbench-debian-sbi-4cpu hackbench -g 4 -l 100
run stress-tlb-debian-sbi-4cpu stress-ng --tlb-shootdown 4 --timeout 10s --metrics-brief
run stress-mmap-debian-sbi-4cpu stress-ng --mmap 4 --timeout 10s --metrics-brief
