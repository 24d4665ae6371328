#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# perf input: a real perf capture of this machine (tests/fixtures/perf/) read as
# perf.data (through `perf script`), as `perf script` text on standard input and in a file,
# with default fields and with -F comm,tid,pid,cpu,time,event,trace --ns: every event
# perf script prints is counted, and the totals agree across the forms.  Kprobes in a
# "group:" of their own: the RISC-V corpus as perf-style text gives the trace-cmd text's
# report.  A fresh capture of this machine when run as root with perf and hackbench.
T=perf
. "$(dirname "$0")/../lib.sh"

command -v jq > /dev/null || { skip "all" "jq not installed (make check installs it as root)"; exit 0; }

# perf script text -> "event count" lines, as perf printed them
perf_counts() {
	awk '$0 !~ /^#/ { for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		ev = $(i + 2); if (ev == "") next; sub(/:$/, "", ev); sub(/^[^:]*:/, "", ev); n[ev]++ }
		END { for (e in n) printf "%s %d\n", e, n[e] }' "$1" | sort
}
tls_counts() { jq -r '.events | to_entries[] | "\(.key) \(.value)"' "$1" | sort; }
# PERF-TEXT INFO-JSON -> "short N": how many of perf's events tlbscope did not count, with
# the events it counted more often than perf printed them named first ("over: name+N")
shortfall() {
	LC_ALL=C join -a 1 -a 2 -e 0 -o 0,1.2,2.2 <(perf_counts "$1" | LC_ALL=C sort) \
		<(tls_counts "$2" | LC_ALL=C sort) |
		awk '{ d = $2 - $3; if (d < 0) over = over " " $1 "+" -d; else short += d }
		     END { printf "%sshort %d\n", over == "" ? "" : "over:" over " ", short }'
}
totals() { jq -c '.totals' "$1"; }

# perf script text of the fixture, without perf
script=$(unxz_fx perf/x86-hackbench.script.xz)
tls info --json "$script" > "$tmp/script-info.json"
same "perf script text (default fields): every event perf printed is counted" \
	"$(perf_counts "$script")" "$(tls_counts "$tmp/script-info.json")"
same "perf script text: nothing skipped" "0" "$(jq .malformed_skipped "$tmp/script-info.json")"
tls report --json - < "$script" > "$tmp/script-stdin.json"
tls report --json "$script" > "$tmp/script-file.json"
same "perf script text: the same report from standard input and from a file" \
	"$(totals "$tmp/script-file.json")" "$(totals "$tmp/script-stdin.json")"
same "perf script text: switches are perf's sched_switch lines" \
	"$(grep -c 'sched:sched_switch:' "$script")" "$(jq .totals.switches "$tmp/script-file.json")"
check "perf script text: flush IPIs counted from csd_queue_cpu" \
	[ "$(jq -r .evidence.flush_ipi_source "$tmp/script-file.json")" = csd_queue_cpu ]
same "perf script text: no kernel cpumask on x86, so kernel_flush_targets is null" \
	"null" "$(jq .totals.kernel_flush_targets "$tmp/script-file.json")"

# kprobes under perf's "group:event" names: the RISC-V corpus as perf-style text
dat=$top/corpus/traces/hackbench-sbi-4cpu/trace.dat
if command -v trace-cmd > /dev/null && [ -f "$dat" ]; then
	trace-cmd report "$dat" 2> /dev/null > "$tmp/sbi.txt"
	# (trace-cmd 3.3's latency flags, "d.h..", before the timestamp dropped too)
	sed -E '/^cpus=/d
		s/^( *)(.*)-([0-9]+) +\[([0-9]+)\] +([.a-zA-Z0-9]{4,6} +)?([0-9]+\.[0-9]+): +([a-z_0-9]+): +/\1\2 \3 [\4] \6: grp:\7: /' \
		"$tmp/sbi.txt" > "$tmp/sbi-perf.txt"
	tls report --json "$tmp/sbi.txt" > "$tmp/sbi.json"
	tls report --json "$tmp/sbi-perf.txt" > "$tmp/sbi-perf.json"
	same "corpus as perf-style text (kprobes in a group): the trace-cmd text's totals and check" \
		"$(jq -cS '.totals, .evidence.kernel_check' "$tmp/sbi.json")" \
		"$(jq -cS '.totals, .evidence.kernel_check' "$tmp/sbi-perf.json")"
	same "corpus as perf-style text: read as perf script" "perf-script" \
		"$(jq -r .input.format "$tmp/sbi-perf.json")"
else
	skip "corpus as perf-style text" "trace-cmd or the corpus is missing"
fi

if ! command -v perf > /dev/null || ! perf --version > /dev/null 2>&1; then
	skip "perf.data" "perf not installed (Debian package linux-perf; make check installs it as root)"
	exit 0
fi

# compare one perf.data's every reading with what perf script prints
check_data() {	# NAME FILE
	local name=$1 data=$2
	perf script -i "$data" 2> /dev/null > "$tmp/$name.txt"
	perf script -i "$data" -F comm,tid,pid,cpu,time,event,trace --ns 2> /dev/null > "$tmp/$name-F.txt"
	tls info --json "$data" > "$tmp/$name-info.json"
	st=$?
	check "$name: tlbscope info reads the perf.data (exit $st)" [ "$st" = 0 ]
	# perf.data can hold a record twice (a fresh capture here once had a sched_switch of an
	# exiting task twice, byte for byte): the input's checks skip such a record and say so,
	# so each event is perf's count less what the checks reported skipping, never more
	same "$name: perf.data: every event perf script prints is counted, or skipped and reported" \
		"short $(jq '.input_checks | [.pid_out_of_range, .cpu_out_of_range,
			.time_backwards, .duplicate] | add' "$tmp/$name-info.json")" \
		"$(shortfall "$tmp/$name.txt" "$tmp/$name-info.json")"
	# what the input's checks skipped or found, and perf's counts against ours
	echo "# $name: input checks $(jq -c '.input_checks' "$tmp/$name-info.json")"
	[ "$(perf_counts "$tmp/$name.txt")" = "$(tls_counts "$tmp/$name-info.json")" ] ||
		diff <(perf_counts "$tmp/$name.txt") <(tls_counts "$tmp/$name-info.json") |
		sed 's/^/#   /'
	same "$name: perf.data: the kernel's uname from perf's header" \
		"$(perf script -i "$data" --header-only 2> /dev/null | sed -n 's/^# os release : //p')" \
		"$(jq -r .kernel "$tmp/$name-info.json")"
	tls report --json "$data" > "$tmp/$name-data.json"
	perf script -i "$data" 2> /dev/null | tls report --json - > "$tmp/$name-pipe.json"
	tls report --json "$tmp/$name-F.txt" > "$tmp/$name-F.json"
	tls report --json - < "$data" > "$tmp/$name-stdin.json"
	# perf script's default fields have no PID column: a thread is taken for a process of
	# its own, so (on a machine running threaded programs besides the capture) more
	# address spaces and mm switches, never fewer; every other total is the same
	same "$name: report of perf.data = of 'perf script | tlbscope report -'" \
		"$(jq -c '.totals | del(.mms, .mm_switches)' "$tmp/$name-data.json")" \
		"$(jq -c '.totals | del(.mms, .mm_switches)' "$tmp/$name-pipe.json")"
	check "$name: without perf's PID column, no fewer address spaces and mm switches" \
		[ "$(jq -s '.[0].totals.mms <= .[1].totals.mms and
			.[0].totals.mm_switches <= .[1].totals.mm_switches' \
			"$tmp/$name-data.json" "$tmp/$name-pipe.json")" = true ]
	same "$name: report of perf.data = of 'perf script -F comm,tid,pid,cpu,time,event,trace --ns' text" \
		"$(totals "$tmp/$name-data.json")" "$(totals "$tmp/$name-F.json")"
	same "$name: perf.data on standard input = perf.data by name" \
		"$(totals "$tmp/$name-data.json")" "$(totals "$tmp/$name-stdin.json")"
	# a task seen only as a switch's next task has no event of its own: it may stay a guess
	check "$name: -F ...pid: processes from the PID column, fewer guessed than without it" \
		[ "$(jq -s '.[0].evidence.mms_identified.tgid > 0 and
			.[0].evidence.mms_guessed <= .[1].evidence.mms_guessed' \
			"$tmp/$name-F.json" "$tmp/$name-pipe.json")" = true ]
}

data=$(unxz_fx perf/x86-hackbench.data.xz)
check_data fixture "$data"

# a capture in which perf wrote one record twice: skipped once, reported with its place,
# the line of the perf script text tlbscope reads (which that line is, checked with perf)
dup=$(unxz_fx perf/x86-duplicate.data.xz)
check_data duplicate "$dup"
same "duplicate: the repeated sched_switch is the one record the checks skipped" \
	'{"duplicate":1,"skipped":1}' \
	"$(jq -c '.input_checks | {duplicate, skipped: (.pid_out_of_range + .cpu_out_of_range
		+ .time_backwards + .duplicate)}' "$tmp/duplicate-info.json")"
tls info "$dup" 2>&1 > /dev/null | grep 'exact repeats' > "$tmp/dup.err"
place=$(sed -n 's/.*(first: perf script line \([0-9]*\): cpu 0 at 81114.335977 s: switch again)$/\1/p' \
	"$tmp/dup.err")
check "duplicate: warned with its perf script line, CPU and time (${place:-none})" [ -n "$place" ]
perf script -i "$dup" -F comm,tid,pid,cpu,time,event,trace --ns --header --show-lost-events \
	2> /dev/null > "$tmp/dup-F.txt"
same "duplicate: that line of perf script's text repeats the line before it" \
	"$(sed -n "$((${place:-2} - 1))p" "$tmp/dup-F.txt")" "$(sed -n "${place:-1}p" "$tmp/dup-F.txt")"

# a cut perf.data: perf script's own message, exit 2
head -c 3000 "$data" > "$tmp/cut.data"
tls report "$tmp/cut.data" > /dev/null 2> "$tmp/err"
st=$?
check "a cut perf.data: exit 2 with perf script's message naming the file (exit $st)" \
	sh -c "[ $st = 2 ] && grep -q 'cut.data: perf script failed' '$tmp/err'"
check "a cut perf.data: the message names the perf command that says more, not a -v of ours" \
	sh -c "grep -qF \"'perf script -v -i $tmp/cut.data' says more\" '$tmp/err' &&
	       ! grep -q 'rerun with -v' '$tmp/err'"

# a fresh capture of this machine
if [ "$(id -u)" != 0 ] || ! command -v hackbench > /dev/null; then
	skip "fresh perf capture" "needs root and hackbench (rt-tests)"
	exit 0
fi
if ! perf record -q -a -e sched:sched_switch -e sched:sched_process_fork \
	-e sched:sched_process_exec -e sched:sched_process_exit -e task:task_newtask \
	-e 'ipi:*' -e 'csd:*' -e tlb:tlb_flush -o "$tmp/live.data" -- hackbench -g 2 -l 50 \
	> /dev/null 2> "$tmp/rec.err"; then
	skip "fresh perf capture" "perf record failed: $(head -1 "$tmp/rec.err")"
	exit 0
fi
check_data live "$tmp/live.data"
