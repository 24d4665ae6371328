#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# tlbscope record on this machine's tracefs: the trace.dat it writes is read alike by
# trace-cmd and tlbscope, and tracefs is left exactly as it was (tracefs_state: the top
# level, events, filters, kptr_restrict) after a normal run, SIGINT, SIGTERM, a failing
# command and bad usage; a SIGKILLed run's instance is removed by the next; under strace,
# nothing is written outside the instance.  Needs root and tracefs.
T=record
. "$(dirname "$0")/../lib.sh"

# usage errors need neither root nor tracefs
for args in "-x" "-d 0" "-D 0" "-d abc" "-b 1" "-m 1" "-C x" "-o" "--" "stray" "-o x.dat no-such-command -x" \
	"--kprobes-via" "--kprobes-via ring"; do
	# shellcheck disable=SC2086
	tls record $args > /dev/null 2>&1
	same "bad usage 'record $args' exits 2" 2 $?
done
check "record --help exits 0 and shows -o" sh -c "'$prog' record --help | grep -q -- --output"

need_tracefs "live recording" trace-cmd hackbench jq

# Other tracefs users (a concurrent `make check`: tests/fixtures/capture.sh, another
# record.sh) may come and go in instances of their own, named tlbscope-*: tracefs_state
# (tests/lib.sh) leaves those out, and ours (tlbscope-<pid of each record run>) are checked
# by name.
state() {
	tracefs_state
	for p in $pids; do [ -e $tr/instances/tlbscope-$p ] && echo "left behind: tlbscope-$p"; done
}
pids=""
# rec ARGS...: tlbscope record in the background (so that its pid, and instance name, are
# known), waited for; returns its exit status
rec() { ${TLBSCOPE_WRAP:-} "$prog" record "$@" & pids="$pids $!"; wait $!; }
# two `make check` at once: their record.sh runs take turns (the workloads would skew each other)
if command -v flock > /dev/null; then
	exec 9> /tmp/tlbscope-record-test.lock
	flock -w 300 9
fi
switches_tc() { trace-cmd report "$1" 2> /dev/null | grep -c ' sched_switch: '; }
tc_reads() { trace-cmd report "$1" > /dev/null 2>&1; }
before=$(state)

# a normal run under hackbench
rec -o "$tmp/r.dat" -- hackbench -g 2 -l 100 > /dev/null 2> "$tmp/r.err"
rc=$?
same "record -- hackbench exits 0" 0 $rc
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/r.err"
check "record -- hackbench wrote the file" [ -s "$tmp/r.dat" ]
tc=$(switches_tc "$tmp/r.dat")
check "trace-cmd report reads it: $tc sched_switch lines" [ "${tc:-0}" -gt 0 ]
ours=$(tls report --json "$tmp/r.dat" | jq '.totals.switches')
same "tlbscope report: switches = trace-cmd report's" "$tc" "$ours"
check "stderr names the instance" grep -q "instance tlbscope-" "$tmp/r.err"
check "stderr counts lost events" grep -q "lost" "$tmp/r.err"
if [ ! -e $tr/kprobe_events ]; then
	check "no kprobe_events: says which probes are not added" \
		grep -q "kprobes not added.*switch_mm.*sbi_remote_sfence_vma_asid" "$tmp/r.err"
fi
same "tracefs is as it was after record -- hackbench" "$before" "$(state)"
# the clock option holds the trace_clock file, as trace-cmd writes it: libtracecmd parses
# one of 0 bytes from uninitialized memory and then may print raw nanoseconds
clock=$(trace-cmd dump --options "$tmp/r.dat" 2> /dev/null | grep -A1 'Option TRACECLOCK' | tail -1)
same "the clock option lists the clocks of trace_clock" "$(tr -d '[]' < $tr/trace_clock)" \
	"$(tr -d '[]' <<< "$clock")"
same "trace-cmd report prints seconds on every line" 0 \
	"$(trace-cmd report "$tmp/r.dat" 2> /dev/null | grep -c '\[[0-9]*\] *[0-9]\{9,\}:')"
# the machine as record saw it: a CPU with the hypervisor flag is a VM, whose timings tune
# never prices; the marker survives the JSON lines
marker=$(trace-cmd report "$tmp/r.dat" 2> /dev/null | sed -n 's/.*tlbscope-machine: //p' | head -1)
check "record's trace says what machine it is: ${marker:-nothing}" [ -n "$marker" ]
if grep -q '^flags.* hypervisor\( \|$\)' /proc/cpuinfo; then
	same "... a VM, by the CPU's hypervisor flag" "vm (the CPU's hypervisor flag in /proc/cpuinfo)" "$marker"
fi
vm=$(tls tune --json "$tmp/r.dat" 2> /dev/null | jq -r '.machine | "\(.vm) \(.how)"')
case $marker in
vm*) check "tune: a VM, as record saw ($vm)" grep -q '^true tlbscope record saw ' <<< "$vm" ;;
*) check "tune: record saw no VM, so tune decides from the trace ($vm)" \
	grep -q "tlbscope record's look\|^true " <<< "$vm" ;;
esac
same "tune of its JSON lines: the same machine" "$vm" \
	"$(tls events "$tmp/r.dat" 2> /dev/null | tls tune --json - 2> /dev/null | jq -r '.machine | "\(.vm) \(.how)"')"
# a record killed with SIGKILL cannot clean up itself: its guard (a process of its own)
# removes its instance and says so
"$prog" record -o "$tmp/k.dat" -b 64 > /dev/null 2> "$tmp/kill.err" &
kp=$!
for _ in $(seq 50); do [ -d $tr/instances/tlbscope-$kp ] && break; sleep 0.1; done
{ kill -KILL $kp; wait $kp; } 2> /dev/null
for _ in $(seq 100); do [ -d $tr/instances/tlbscope-$kp ] || break; sleep 0.1; done
check "SIGKILLed record: its guard removes tlbscope-$kp" [ ! -e $tr/instances/tlbscope-$kp ]
for _ in $(seq 50); do grep -q "removed its" "$tmp/kill.err" && break; sleep 0.1; done
check "... and says so" grep -q \
	"process $kp ended without cleaning up (killed?); removed its instance tlbscope-$kp" \
	"$tmp/kill.err"
# with the guard killed first, the instance stays: the next record removes it (its pid is
# gone), and leaves alone the instance of a live process and other tools' instances
"$prog" record -o "$tmp/k.dat" -b 64 > /dev/null 2>&1 &
kp=$!
for _ in $(seq 50); do [ -d $tr/instances/tlbscope-$kp ] && break; sleep 0.1; done
guard=$(pgrep -P $kp)
check "record has a guard process" [ -n "$guard" ]
{ kill -KILL $guard $kp; wait $kp; } 2> /dev/null
check "SIGKILLed record and guard leave tlbscope-$kp behind" [ -d $tr/instances/tlbscope-$kp ]
sleep 600 & live=$!
mkdir $tr/instances/tlbscope-$live $tr/instances/tlbscope-capture-$kp
"$prog" record -o "$tmp/k2.dat" -b 64 -d 100ms > /dev/null 2> "$tmp/k.err"
check "the next record removes it" [ ! -e $tr/instances/tlbscope-$kp ]
check "... and says so" grep -q "removed the tracefs instance tlbscope-$kp left by process $kp" \
	"$tmp/k.err"
check "... keeping a live process's tlbscope-$live and tlbscope-capture-$kp" \
	[ -d $tr/instances/tlbscope-$live -a -d $tr/instances/tlbscope-capture-$kp ]
rmdir $tr/instances/tlbscope-$live $tr/instances/tlbscope-capture-$kp
kill $live; wait $live 2> /dev/null
# an instance in use is left, whatever its name says (a run in a pid namespace of its own
# has a pid that does not exist here): the kernel refuses to remove it, tracing stays on
busy=$(sh -c 'echo $$')
mkdir $tr/instances/tlbscope-$busy
sleep 60 < $tr/instances/tlbscope-$busy/per_cpu/cpu0/trace_pipe_raw &
holder=$!
"$prog" record -o "$tmp/b.dat" -b 64 -d 100ms > /dev/null 2> "$tmp/busy.err"
check "an instance in use, tlbscope-$busy, is left" [ -d $tr/instances/tlbscope-$busy ]
same "... with its tracing on" 1 "$(cat $tr/instances/tlbscope-$busy/tracing_on)"
check "... and said so" grep -q "the instance tlbscope-$busy is in use" "$tmp/busy.err"
{ kill $holder; wait $holder; } 2> /dev/null
rmdir $tr/instances/tlbscope-$busy

# what record writes, from its system calls: nothing in tracefs outside its own instance
# and nothing in /proc/sys, whatever the machine's state
if command -v strace > /dev/null; then
	guest_strace "$tmp/rec.strace" "$prog" record -o "$tmp/s.dat" -b 256 -d 200ms \
		> /dev/null 2>&1
	same "record under strace exits 0" 0 $?
	check "... and wrote a file trace-cmd reads" tc_reads "$tmp/s.dat"
	# on riscv64 record adds and removes its kprobes at the top level: kprobe_events, or
	# dynamic_events where libtracefs (1.8) writes them; only there
	kp='^$'
	[ "$(uname -m)" = riscv64 ] && [ -e $tr/kprobe_events ] && kp="\"$tr/(kprobe|dynamic)_events\""
	same "record under strace: nothing written in tracefs outside its instance (and the kprobe files), nor in /proc/sys" \
		"" "$(guest_writes "$tmp/rec.strace" 'tlbscope-[0-9]+' | grep -v -E "$kp")"
else
	skip "record under strace: nothing written outside its instance" "strace not installed"
fi

# Wait until the record whose stderr is file $1 says it is recording: a signal sent
# during its set-up (slow under valgrind or load) tests something else.
recording() {
	for _ in $(seq 600); do
		grep -q "record: recording" "$1" 2> /dev/null && return 0
		sleep 0.1
	done
	return 1
}

# a signal mid-run stops recording, writes the file, removes everything
for sig in INT TERM; do
	# not through a function: a backgrounded function is a subshell, $! would be its pid
	${TLBSCOPE_WRAP:-} "$prog" record -o "$tmp/$sig.dat" -- sleep 60 > /dev/null \
		2> "$tmp/$sig.err" &
	pid=$!
	pids="$pids $pid"
	recording "$tmp/$sig.err"
	start=$(date +%s)
	kill -$sig $pid
	wait $pid
	rc=$?
	took=$(($(date +%s) - start))
	same "SIG$sig: record exits 0" 0 $rc
	# not a timing test: it must stop because of the signal, not when the command ends
	check "SIG$sig: the signal stops record before its command ends (took $took s of 60)" \
		[ $took -lt 55 ]
	check "SIG$sig: trace-cmd reads the file" [ "$(switches_tc "$tmp/$sig.dat")" -gt 0 ]
	same "tracefs is as it was after SIG$sig mid-run" "$before" "$(state)"
done

# a second signal aborts (the command ignores the first), still cleaning up
${TLBSCOPE_WRAP:-} "$prog" record -o "$tmp/abort.dat" -- sh -c 'trap "" INT; sleep 3' \
	> /dev/null 2> "$tmp/abort.err" &
pid=$!
pids="$pids $pid"
recording "$tmp/abort.err"
kill -INT $pid
sleep 0.5
kill -INT $pid
wait $pid
same "second SIGINT aborts with status 2" 2 $?
check "aborted run wrote no file" [ ! -e "$tmp/abort.dat" ]
same "tracefs is as it was after an aborted run" "$before" "$(state)"

# a failing command: a warning, the trace is written, status 0
rec -o "$tmp/false.dat" -- false > /dev/null 2> "$tmp/false.err"
same "record -- false exits with false's status, as perf record does" 1 $?
check "record -- false warns about the status" grep -q "exited with status 1" "$tmp/false.err"
check "record -- false wrote a readable file" tc_reads "$tmp/false.dat"
same "tracefs is as it was after a failing command" "$before" "$(state)"

# a command that cannot run: status 2, nothing left behind
rec -o "$tmp/none.dat" -- /nonexistent/command > /dev/null 2>&1
same "record -- /nonexistent/command exits 2" 2 $?
same "tracefs is as it was after a command that cannot run" "$before" "$(state)"

# -d, -C, -b
rec -o "$tmp/d.dat" -d 1 -b 1024 > /dev/null 2>&1
same "record -d 1 -b 1024 exits 0" 0 $?
check "record -d 1 wrote a readable file" tc_reads "$tmp/d.dat"
rec -o "$tmp/c.dat" -C 0 -- hackbench -g 1 -l 50 > /dev/null 2>&1
same "record -C 0 exits 0" 0 $?
# (trace-cmd 3.3 prints the latency flags, "d.h..", between the CPU and the timestamp)
cpus=$(trace-cmd report "$tmp/c.dat" 2> /dev/null |
	grep -oE '\[[0-9]{3}\] +([.a-zA-Z0-9]{4,6} +)?[0-9]+\.[0-9]+:' | cut -c1-5 | sort -u)
same "record -C 0: events from CPU 0 only" "[000]" "$cpus"
same "tracefs is as it was after -d and -C" "$before" "$(state)"

# tracefs not mounted (a machine without systemd): mounted at /sys/kernel/tracing, said so
why=$(without_tracefs_why)
if [ -z "$why" ]; then
	without_tracefs ${TLBSCOPE_WRAP:-} "$prog" record -o "$tmp/m.dat" -d 0.3 > /dev/null \
		2> "$tmp/m.err" &
	pids="$pids $!"
	wait $!
	same "record with tracefs not mounted exits 0" 0 $?
	check "... says it mounted tracefs at /sys/kernel/tracing" grep -qx \
		"tlbscope: record: tracefs was not mounted; mounted it at /sys/kernel/tracing" \
		"$tmp/m.err"
	check "... and wrote a readable file" tc_reads "$tmp/m.dat"
	same "tracefs is as it was after record mounted its own" "$before" "$(state)"
else
	skip "record with tracefs not mounted" "$why"
fi

# errors that name what
rec -o "$tmp/x.dat" -C 500 -d 1 > /dev/null 2> "$tmp/cpu.err"
same "record -C 500 exits 2" 2 $?
check "record -C 500 says the CPU does not exist" grep -q "does not exist" "$tmp/cpu.err"
rec -o /nonexistent-dir/x.dat -d 1 > /dev/null 2> "$tmp/dir.err"
same "record into a missing directory exits 2" 2 $?
if command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$prog" record -d 1 \
		> /dev/null 2> "$tmp/root.err"
	same "record as a normal user exits 2" 2 $?
	check "record as a normal user says it needs root" \
		grep -q "tlbscope: record: needs root (tracefs)" "$tmp/root.err"
else
	skip "record as a normal user" "setpriv not installed"
fi
mkdir "$tmp/small"
if mount -t tmpfs -o size=256k tmpfs "$tmp/small" 2> /dev/null; then
	rec -o "$tmp/small/full.dat" -- hackbench -g 2 -l 200 > /dev/null 2> "$tmp/full.err"
	same "record onto a full disk exits 2" 2 $?
	check "record onto a full disk says so" grep -q "No space left on device" "$tmp/full.err"
	umount "$tmp/small"
fi
same "tracefs is as it was after the error cases" "$before" "$(state)"
# kernel symbols a process may not read (no CAP_SYSLOG, as with kptr_restrict 2): left out
# and said so, the setting itself untouched (no writer of ours opens /proc/sys)
if command -v setpriv > /dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	setpriv --bounding-set=-syslog "$prog" record -o "$tmp/nosyms.dat" -b 256 -d 100ms \
		> /dev/null 2> "$tmp/nosyms.err"
	same "record without CAP_SYSLOG exits 0" 0 $?
	check "... says kallsyms shows no addresses" grep -q "shows this process no addresses" \
		"$tmp/nosyms.err"
	check "... and trace-cmd reads the file" tc_reads "$tmp/nosyms.dat"
else
	skip "record without CAP_SYSLOG" "no setpriv, or perf_event_paranoid lets it read kallsyms"
fi

# --kprobes-via perf: perf record of the instance's events beside it, the command its
# workload (on riscv64 the kprobes too, which a kernel's ring buffer may drop)
if command -v perf > /dev/null; then
	rec -o "$tmp/p.dat" --kprobes-via perf -- hackbench -g 2 -l 50 > /dev/null 2> "$tmp/p.err"
	rc=$?
	same "record --kprobes-via perf -- hackbench exits 0" 0 $rc
	[ $rc = 0 ] || sed 's/^/#   /' "$tmp/p.err"
	check "... wrote p.dat and p.perf.data" [ -s "$tmp/p.dat" -a -s "$tmp/p.perf.data" ]
	check "... says perf record wrote p.perf.data" \
		grep -q "perf record wrote $tmp/p.perf.data" "$tmp/p.err"
	ps=$(tls report --json "$tmp/p.perf.data" 2> /dev/null | jq '.totals.switches')
	check "tlbscope report reads p.perf.data: ${ps:-no} switches" [ "${ps:-0}" -gt 0 ]
	rec -o "$tmp/p2.dat" --kprobes-via perf -- sh -c 'exit 3' > /dev/null 2>&1
	same "record --kprobes-via perf: the command's exit status through perf" 3 $?
	# without a command perf runs until record stops it, and is gone before the kprobes
	rec -o "$tmp/p3.dat" --kprobes-via perf -D 1s > /dev/null 2> "$tmp/p3.err"
	same "record --kprobes-via perf -D 1s exits 0" 0 $?
	check "... wrote p3.perf.data" [ -s "$tmp/p3.perf.data" ]
	check "... no kprobe left in use" sh -c "! grep -q 'cannot remove kprobe' '$tmp/p3.err'"
	# -D counts from when perf records: a perf slow to set up (seconds under QEMU's TCG,
	# where a SIGTERM at -D 1s's end came in its set-up and it wrote nothing) is waited for
	mkdir -p "$tmp/slow"
	printf '#!/bin/sh\nsleep 3\nexec %s "$@"\n' "$(command -v perf)" > "$tmp/slow/perf"
	chmod +x "$tmp/slow/perf"
	PATH=$tmp/slow:$PATH rec -o "$tmp/p4.dat" --kprobes-via perf -D 1s > /dev/null 2> "$tmp/p4.err"
	same "record --kprobes-via perf -D 1s, perf 3 s slow to start: exits 0" 0 $?
	ps=$(tls report --json "$tmp/p4.perf.data" 2> /dev/null | jq '.totals.switches')
	check "... its perf.data has switches (${ps:-none})" [ "${ps:-0}" -gt 0 ]
	check "... says when perf recorded" grep -q "record: perf records (its set-up took" "$tmp/p4.err"
	same "tracefs is as it was after --kprobes-via perf" "$before" "$(state)"
else
	skip "record --kprobes-via perf" "perf not installed"
fi
