#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# tlbscope record where other kprobes exist before it starts: three of another group and,
# on riscv64, one under a name record would add itself (tlbscope/flush_tlb_all).  record must
# not crash (libtracefs 1.8.1's tracefs_dynevent_get() freed a list that is not
# NULL-terminated from the third probe on), must use that probe and leave it, remove the ones
# it added, and leave tracefs as it was after a normal run and after failures.  Needs root,
# tracefs and kprobe events.
T=record-kprobes
. "$(dirname "$0")/../lib.sh"

need_tracefs "record with kprobes already defined" trace-cmd
if [ ! -e $tr/kprobe_events ]; then
	skip "record with kprobes already defined" \
		"this kernel has no kprobe events ($tr/kprobe_events: CONFIG_KPROBE_EVENTS is off)"
	exit 0
fi

# the probes of others: functions every kernel has, no arguments, at +0 or (riscv64, whose
# kprobes refuse an ftrace patch site) +8; whichever the kernel takes, until there are three
ours=""
cleanup() {
	for p in $ours; do echo "-:$p" >> $tr/kprobe_events; done 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
nforeign=0
for fn in vfs_read vfs_write do_sys_openat2 kernel_clone do_exit ksys_read ksys_write \
	do_sys_poll schedule_timeout; do
	[ $nforeign = 3 ] && break
	for at in "$fn" "$fn+8"; do
		if echo "p:tlbscopetest/$fn $at" >> $tr/kprobe_events 2> /dev/null; then
			ours="$ours tlbscopetest/$fn"
			nforeign=$((nforeign + 1))
			break
		fi
	done
done
if [ $nforeign -lt 3 ]; then
	skip "record with kprobes already defined" "the kernel took only $nforeign of the probes"
	exit 0
fi
riscv=0
if [ "$(uname -m)" = riscv64 ]; then
	riscv=1
	# one of record's own names, defined before it starts: it must use it and leave it
	off=0
	grep -qx 'flush_tlb_all' $tr/available_filter_functions 2> /dev/null && off=8
	if echo "p:tlbscope/flush_tlb_all flush_tlb_all+$off" >> $tr/kprobe_events 2> /dev/null
	then
		ours="$ours tlbscope/flush_tlb_all"
	else
		riscv=0
	fi
fi
ndefined=$(grep -c '^[pr]' $tr/kprobe_events)
check "$ndefined kprobes defined before record starts" [ "$ndefined" -ge 3 ]
before=$(tracefs_state)
crashed() { grep -q -i -E 'segmentation fault|invalid pointer|double free|core dumped|abort' "$1"; }

# a normal run, its kprobes watched while it records
${TLBSCOPE_WRAP:-} "$prog" record -o "$tmp/r.dat" -b 256 -- sleep 3 > /dev/null 2> "$tmp/r.err" &
pid=$!
for _ in $(seq 100); do grep -q "record: recording" "$tmp/r.err" 2> /dev/null && break; sleep 0.1; done
during=$(grep -c '^[pr]:tlbscope/' $tr/kprobe_events)
wait $pid
rc=$?
same "record with $ndefined kprobes defined exits 0" 0 $rc
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/r.err"
check "... without a crash" eval '! crashed "$tmp/r.err"'
check "... and trace-cmd reads its file" trace-cmd report "$tmp/r.dat" > /dev/null 2>&1
if [ $riscv = 1 ]; then
	check "riscv64: it uses the tlbscope/flush_tlb_all defined before it, saying so" \
		grep -q "kprobe tlbscope/flush_tlb_all already exists; using it" "$tmp/r.err"
	check "riscv64: it adds kprobes of its own while recording ($during tlbscope/ probes)" \
		[ "$during" -gt 1 ]
else
	skip "record uses a tlbscope/ kprobe defined before it" "$(uname -m): record adds no kprobes"
fi
same "tracefs is as it was (the others' kprobes kept, its own removed)" "$before" "$(tracefs_state)"

# failures after the kprobes were added: the output cannot be written, a full disk
rec_fail() { ${TLBSCOPE_WRAP:-} "$prog" record "$@" > /dev/null 2> "$tmp/f.err"; }
rec_fail -o /nonexistent-dir/x.dat -b 256 -d 200ms
same "record into a missing directory exits 2" 2 $?
check "... without a crash" eval '! crashed "$tmp/f.err"'
same "tracefs is as it was after it" "$before" "$(tracefs_state)"
mkdir "$tmp/small"
if mount -t tmpfs -o size=64k tmpfs "$tmp/small" 2> /dev/null; then
	rec_fail -o "$tmp/small/full.dat" -b 256 -- sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done'
	same "record onto a full disk exits 2" 2 $?
	check "... without a crash" eval '! crashed "$tmp/f.err"'
	umount "$tmp/small"
	same "tracefs is as it was after it" "$before" "$(tracefs_state)"
else
	skip "record onto a full disk" "cannot mount a tmpfs"
fi
# a second SIGINT aborts mid-run
${TLBSCOPE_WRAP:-} "$prog" record -o "$tmp/a.dat" -- sh -c 'trap "" INT; sleep 3' \
	> /dev/null 2> "$tmp/a.err" &
pid=$!
for _ in $(seq 100); do grep -q "record: recording" "$tmp/a.err" 2> /dev/null && break; sleep 0.1; done
kill -INT $pid; sleep 0.5; kill -INT $pid
wait $pid
same "a second SIGINT aborts with status 2" 2 $?
same "tracefs is as it was after it" "$before" "$(tracefs_state)"
# SIGKILL mid-run: nothing in the process survives; its guard removes the instance and the
# kprobes it added (the others' kept)
${TLBSCOPE_WRAP:-} "$prog" record -o "$tmp/k.dat" -- sleep 30 > /dev/null 2> "$tmp/k.err" &
pid=$!
for _ in $(seq 100); do grep -q "record: recording" "$tmp/k.err" 2> /dev/null && break; sleep 0.1; done
{ kill -KILL $pid; wait $pid; } 2> /dev/null
for _ in $(seq 100); do grep -q "removed its" "$tmp/k.err" && break; sleep 0.1; done
check "SIGKILLed record: its guard says what it removed" grep -q \
	"process $pid ended without cleaning up (killed?); removed its instance tlbscope-$pid" \
	"$tmp/k.err"
[ $riscv = 1 ] && check "... the kprobes it added among them" grep -q "tlbscope-$pid and [0-9]* kprobes (tlbscope/)" "$tmp/k.err"
same "tracefs is as it was after it" "$before" "$(tracefs_state)"
echo "1..$n"
