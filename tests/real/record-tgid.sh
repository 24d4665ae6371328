#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# The task table of tlbscope record (tlbscope-record(1), "The task table"): a real record of
# hackbench on this machine has one "tlbscope-tgid:" print event per task when tracing
# started, trace-cmd report shows them, and tlbscope report - on the trace.dat and on
# trace-cmd's text of it - guesses no address space and no kernel thread by name; rows
# agree with /proc; a small buffer (-m 64) and --cpu lose no row; a thread's exec (it takes
# its leader's pid) is no inconsistent switch; tracefs is left as it was.  Needs root and
# tracefs.  (The rows' parsing, a malformed one included:
# tests/cli/hand-tgid-*.)
T=record-tgid
. "$(dirname "$0")/../lib.sh"

need_tracefs "task table of a live recording" trace-cmd hackbench jq

pids=""
state() {
	tracefs_state
	for p in $pids; do [ -e $tr/instances/tlbscope-$p ] && echo "left behind: tlbscope-$p"; done
}
rec() { ${TLBSCOPE_WRAP:-} "$prog" record "$@" & pids="$pids $!"; wait $!; }
# "task table: N tasks" of a record's stderr
rows_said() { sed -n 's/.*record: task table: \([0-9]*\) tasks.*/\1/p' "$1"; }
# the same lock as record.sh: concurrent recordings would skew each other's workloads
if command -v flock > /dev/null; then
	exec 9> /tmp/tlbscope-record-test.lock
	flock -w 300 9
fi
before=$(state)

# a hackbench run: every task older than the trace named by a row
rec -o "$tmp/h.dat" -- hackbench -g 2 -l 100 > /dev/null 2> "$tmp/h.err"
same "record -- hackbench exits 0" 0 $?
rows=$(rows_said "$tmp/h.err")
check "stderr says the table's size: ${rows:-none} tasks" [ "${rows:-0}" -gt 0 ]
tls report --json "$tmp/h.dat" > "$tmp/h.json"
ev() { jq -r ".evidence.$1" "$tmp/h.json"; }
lost=$(jq '.lost_events' "$tmp/h.json")
same "report: no guessed address space" 0 "$(ev mms_guessed)"
same "report: no guess-pid" 0 "$(ev '"mms_identified"."guess-pid"')"
same "report: no kernel thread recognized by name" 0 "$(ev kthreads_by_name)"
if [ "$lost" = 0 ]; then
	same "report: every row read ($rows)" "$rows" "$(ev tgid_markers)"
else
	check "report: rows read ($(ev tgid_markers) of $rows, $lost events lost)" \
		[ "$(ev tgid_markers)" -gt 0 ]
fi
same "report: no malformed row" 0 "$(ev tgid_markers_malformed)"
check "report: some address space identified by tgid" [ "$(ev mms_identified.tgid)" -gt 0 ]
tls report "$tmp/h.dat" > "$tmp/h.txt"
check "report text names the task table" grep -q "tgid: from the trace's task table" "$tmp/h.txt"

# trace-cmd reads the rows as print events, and its text gives tlbscope the same answer
trace-cmd report "$tmp/h.dat" > "$tmp/h.tc" 2> "$tmp/h.tc.err"
same "trace-cmd report exits 0" 0 $?
same "trace-cmd report shows every row" "$(ev tgid_markers)" \
	"$(grep -c ' print: .*tracing_mark_write: tlbscope-tgid: ' "$tmp/h.tc")"
check "trace-cmd report does not warn about the file" \
	sh -c "! grep -qi 'unknown\|warning' '$tmp/h.tc.err'"
tls report --json "$tmp/h.tc" > "$tmp/tc.json"
same "report of trace-cmd's text: no guessed address space" 0 \
	"$(jq .evidence.mms_guessed "$tmp/tc.json")"
same "report of trace-cmd's text: the same rows" "$(ev tgid_markers)" \
	"$(jq .evidence.tgid_markers "$tmp/tc.json")"

# rows agree with /proc: this shell's process, kthreadd (pid 2) a kernel thread
check "the row of this shell ($$) names its own process" \
	grep -q "tlbscope-tgid: pid=$$ tgid=$$ comm=" "$tmp/h.tc"
if [ "$(cat /proc/2/comm 2> /dev/null)" = kthreadd ]; then
	check "the row of kthreadd says kthread=1" \
		grep -q "tlbscope-tgid: pid=2 tgid=2 kthread=1 comm=kthreadd" "$tmp/h.tc"
else
	skip "the row of kthreadd says kthread=1" "pid 2 is not kthreadd here (a pid namespace?)"
fi
# a thread of a multi-threaded process: its tgid is the process's
thr=$(for t in /proc/[0-9]*/task/[0-9]*; do p=${t#/proc/}; p=${p%%/*}; id=${t##*/}
	[ "$p" != "$id" ] && { echo "$id $p"; break; }; done)
if [ -n "$thr" ] && grep -q "tlbscope-tgid: pid=${thr% *} " "$tmp/h.tc"; then
	check "a thread's row (${thr% *}) names its process (${thr#* })" \
		grep -q "tlbscope-tgid: pid=${thr% *} tgid=${thr#* } " "$tmp/h.tc"
else
	skip "a thread's row names its process" "no thread found alive through the recording"
fi
same "tracefs is as it was after the recording" "$before" "$(state)"

# a small buffer: the writer waits for the stream instead of losing rows.  The load's
# threads live until killed; they are waited for up to 300 s (1500 threads take long to
# start under an emulator)
load=""
if command -v python3 > /dev/null; then
	python3 -c '
import threading, time
e = threading.Event()
for _ in range(1500):
    threading.Thread(target=e.wait, daemon=True).start()
print("ready", flush=True)
time.sleep(3600)' > "$tmp/threads.out" &
	load=$!
	for _ in $(seq 1500); do
		grep -q ready "$tmp/threads.out" && break
		kill -0 $load 2> /dev/null || break
		sleep 0.2
	done
fi
rec -o "$tmp/small.dat" -m 64 -d 100ms > /dev/null 2> "$tmp/small.err"
same "record -m 64 exits 0" 0 $?
srows=$(rows_said "$tmp/small.err")
smarks=$(tls report --json "$tmp/small.dat" | jq .evidence.tgid_markers)
# 64 KiB on a busy machine may overrun with other tasks' events too: then never silently
if [ "$srows" = "$smarks" ] || ! grep -q "events lost" "$tmp/small.err"; then
	same "record -m 64: every row of its ${srows:-no} tasks recorded" "$srows" "$smarks"
else
	ok "record -m 64: $smarks of $srows rows recorded, the overrun reported on stderr"
fi
# The writer waits when a quarter of the buffer (16 KiB) is unread; the stream's reader
# takes it every 100 ms.  A writer slower than twice that (320 KiB/s: a slow machine's
# /proc under QEMU's TCG) finds it taken each time and need not wait; a faster one must.
rate=$(sed -n 's/.*task table: [0-9]* tasks, \([0-9.]*\) KiB in \([0-9.]*\) ms.*/\1 \2/p' \
	"$tmp/small.err" | awk '{ printf "%d", ($2 > 0 ? $1 * 1000 / $2 : 0) }')
what="${srows:-no} rows at ${rate:-?} KiB/s, 1500 more threads"
if [ -z "$load" ]; then
	skip "... waiting for the stream to drain" "python3 not installed for a many-threaded load"
elif ! grep -q ready "$tmp/threads.out"; then
	skip "... waiting for the stream to drain" "python3 did not start 1500 threads in 300 s"
elif grep -q "waiting for the stream to drain" "$tmp/small.err"; then
	ok "... waiting for the stream to drain ($what)"
elif [ "${srows:-0}" -ge 1500 ] && [ "${rate:-0}" -lt 320 ]; then
	ok "... no wait needed: the stream kept up with a writer that slow ($what)"
else
	not_ok "... waiting for the stream to drain ($what)"
fi
[ -n "$load" ] && { kill $load; wait $load; } 2> /dev/null

# --cpu: the rows are written on a recorded CPU (a write elsewhere is refused)
last=$(($(nproc) - 1))
if [ $last -gt 0 ]; then
	taskset -c 0 "$prog" record -o "$tmp/cpu.dat" -C $last -d 100ms > /dev/null \
		2> "$tmp/cpu.err" & pids="$pids $!"
	wait $!
	same "record -C $last (started on CPU 0) exits 0" 0 $?
	crows=$(rows_said "$tmp/cpu.err")
	same "record -C $last: every row of its ${crows:-no} tasks recorded" "$crows" \
		"$(tls report --json "$tmp/cpu.dat" | jq .evidence.tgid_markers)"
	check "... with no refused write" sh -c "! grep -q refused '$tmp/cpu.err'"
else
	skip "record -C: rows written on a recorded CPU" "one CPU only"
fi
same "tracefs is as it was after -m 64 and -C" "$before" "$(state)"

# Execs by threads that are not their process's leader: de_thread() gives the thread its
# leader's pid before the exec's event (old_pid the thread's own), so the kernel switches
# from that pid while the thread's pid was the last switched to.  Those switches are not
# counted as inconsistent; every other one still is.  Counted here from the events alone:
# per CPU the pid switched to last, and the pairs (that pid, the switch's prev_pid) that an
# exec names as (old_pid, pid).
if [ -x "$exec_thread" ]; then
	rec -o "$tmp/x.dat" -- "$exec_thread" 50 > /dev/null 2> "$tmp/x.err"
	same "record -- exec-thread 50 exits 0" 0 $?
	tls events "$tmp/x.dat" 2> /dev/null | jq -r 'select(.kind == "switch" or .kind == "exec")
		| [.kind, .cpu, .prev_pid // .exec_pid, .next_pid // .old_pid] | @tsv' |
		awk -F'\t' '$1 == "switch" {
			if ($2 in cur && $3 >= 0 && $3 != cur[$2]) { mis++; pair[cur[$2] " " $3]++ }
			cur[$2] = $4
		}
		$1 == "exec" && $3 != $4 { execs++; ex[$4 " " $3] = 1 }
		END { for (k in ex) thread += pair[k]; print execs + 0, mis + 0, thread + 0 }' \
		> "$tmp/x.counts"
	read -r execs mis thread < "$tmp/x.counts"
	counted=$(tls report --json "$tmp/x.dat" 2> /dev/null | jq '.evidence.input_checks |
		.switch_inconsistent + .switch_inconsistent_after_loss')
	check "the trace has the threads' execs ($execs, of 50) and their switches ($thread)" \
		sh -c "[ ${execs:-0} -gt 0 ] && [ ${thread:-0} -gt 0 ]"
	same "switches counted inconsistent: the events' $mis less the $thread of the threads" \
		$((mis - thread)) "$counted"
	same "tracefs is as it was after exec-thread" "$before" "$(state)"
else
	skip "non-leader execs are no inconsistent switches" "$exec_thread not built (make unit)"
fi
