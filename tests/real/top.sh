#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# tlbscope top: batch replays of real traces agree with `report` and `tune` for the same
# trace; the curses screen under tmux shows the CPU rows and obeys freeze, sort, help, the
# strip, resize and quit, and gives the terminal back; live on this machine's tracefs (root),
# batch snapshots under hackbench show switches and IPIs and tracefs is left as it was, also
# after SIGINT and SIGTERM.
T=top
. "$(dirname "$0")/../lib.sh"
x86=$fx/x86-hackbench.dat
rv=$top/corpus/traces/hackbench-aia-4cpu/trace.dat

for args in "-x" "--speed 0 --replay $x86" "--speed 2" "--threshold 0 --replay $x86" \
	"--queue -1 --replay $x86" "-d 0 --replay $x86" "-n 0 --replay $x86" "stray" "--replay"; do
	# shellcheck disable=SC2086
	tls top $args > /dev/null 2>&1
	same "bad usage 'top $args' exits 2" 2 $?
done
check "top --help exits 0 and shows --replay" sh -c "'$prog' top --help | grep -q -- --replay"

# SWITCHES and IPI_TX of the last snapshot's CPU rows: "cpu switches tx".  Numbers are
# right-aligned under their header: a cell is the last word before its header's end.
rows() {
	awk 'function cell(name,   e, a, k) { e = index(hdr, name) + length(name) - 1
		k = split(substr($0, 1, e), a, " "); return a[k] + 0 }
	     /^ CPU TASK/ { n = 0; delete r; on = 1; hdr = $0; next } on && /^$/ { on = 0 }
	     on { r[n++] = ($1 + 0) " " cell("SWITCHES") " " cell("IPI_TX") }
	     END { for (i = 0; i < n; i++) print r[i] }' "$1"
}
for t in "$x86" "$rv"; do
	name=$(basename "$(dirname "$t")")/$(basename "$t")
	[ -f "$t" ] || { skip "replay $name" "no such trace"; continue; }
	tls top -b --replay "$t" --speed max > "$tmp/b.txt" 2> "$tmp/b.err"
	same "$name: batch replay exits 0" 0 $?
	check "$name: one final snapshot at the end of the trace" \
		[ "$(grep -c '^tlbscope top - replay .* at 100.0% (end)$' "$tmp/b.txt")" = 1 ]
	want=$(tls report --json "$t" | jq -r '.cpus[] | "\(.cpu) \(.switches) \(.flush_ipis_sent)"')
	same "$name: per-CPU switches and IPIs sent = report --json" "$want" "$(rows "$tmp/b.txt")"
	want=$(tls report --json "$t" | jq -r '.totals.switches')
	same "$name: total switches = report --json" "$want" \
		"$(sed -n 's/^totals: switches \([0-9]*\),.*/\1/p' "$tmp/b.txt" | tail -1)"
	# the per-CPU lazy tables of the view replay the same rules as tune's direct replay
	want=$(tls tune --json --direct 6,32 "$t" |
		jq -r '.direct | "\(.evictions) evictions, \(.deferred) deferred, \(.overflows) overflows"')
	got=$(sed -n 's/.*per-CPU tables: \([0-9]* evictions, [0-9]* deferred, [0-9]* overflows\)$/\1/p' \
		"$tmp/b.txt" | tail -1)
	same "$name: per-CPU lazy(6, 32) tables = tune --direct 6,32 ($want)" "$want" "$got"
	want=$(tls tune --json "$t" | jq -r '.models.stock_asid.ipis')
	check "$name: tuner panel's stock_asid IPIs = tune --json ($want)" \
		sh -c "grep '^Tuner: ' '$tmp/b.txt' | tail -1 | grep -q '^Tuner: stock_asid $want flush IPIs'"
done

# Ended mms' ids go to new mms, so that top's memory is that of the processes that live
# (a loop of short commands grew it by 28 MB a minute): every row and figure of the final
# snapshot is the same as with every id kept (TLBSCOPE_TOP_KEEP_MMS).  Of these traces,
# forkexec-aia-4cpu gives 692 ids back, hackbench-aia-4cpu 640, and 12 others 31-463
# (pointer-named mms, lazy kernels, an exit probe among them).
differ=
for t in "$top"/corpus/traces/*/trace.dat "$fx"/*.dat; do
	[ -f "$t" ] || continue
	kept=$(TLBSCOPE_TOP_KEEP_MMS=1 tls top -b --replay "$t" --speed max 2> /dev/null |
		grep -v '^elapsed ')
	given=$(tls top -b --replay "$t" --speed max 2> /dev/null | grep -v '^elapsed ')
	[ -n "$kept" ] && [ "$kept" = "$given" ] || differ="$differ $(basename "$(dirname "$t")")"
done
same "ids given back: each trace's final snapshot as with every id kept" "" "$differ"

tls top --replay "$x86" --speed max > "$tmp/pipe.txt" 2>&1
check "stdout not a tty: batch mode by default" grep -q '^totals: switches 7931,' "$tmp/pipe.txt"
tls top -b -d 0.1 -n 3 --replay "$x86" > "$tmp/n.txt" 2>&1
same "-n 3 -d 0.1 on a 0.4 s trace: 3 snapshots" 3 "$(grep -c '^tlbscope top - ' "$tmp/n.txt")"
xz -dc "$fx/x86-hackbench.txt.xz" | tls top -b --speed max --replay - > "$tmp/stdin.txt" 2>&1
check "--replay - reads ftrace text from stdin" grep -q '^totals: switches 7931,' "$tmp/stdin.txt"
# paced, the events show as their time comes, not 8192 events later: the Debian guest's
# trace (a few hundred events a second) showed switches 0 and no CPU row for 20 s
deb=$top/corpus/debian/traces/stress-fork-debian-sbi-4cpu/trace.dat
if [ -f "$deb" ]; then
	tls top -b -d 0.5 -n 2 --replay "$deb" > "$tmp/paced.txt" 2>&1
	sw=$(sed -n 's/^totals: switches \([0-9]*\),.*/\1/p' "$tmp/paced.txt" | tail -1)
	check "paced replay of a slow trace: switches in the second snapshot (${sw:-none})" \
		[ "${sw:-0}" -gt 0 ]
	check "... and CPU rows" [ -n "$(rows "$tmp/paced.txt")" ]
else
	skip "paced replay of a slow trace" "no $deb in this tree"
fi

# ---- a terminal curses cannot draw on: refused with the reason, never garbage ----
if command -v script > /dev/null; then
	for t in dumb no-such-terminal; do
		TERM=$t script -qec "'$prog' top --replay '$fx/hand/identity.txt'" /dev/null \
			> "$tmp/term.out" 2>&1
		rc=$?
		same "TERM=$t top --replay on a tty exits 2" 2 $rc
		check "... saying why and pointing to -b" \
			grep -q "cannot draw the view: TERM=$t .*use -b" "$tmp/term.out"
	done
else
	skip "TERM=dumb top on a tty" "script (util-linux) not installed"
fi

# ---- interactive, under tmux ----
if ! command -v tmux > /dev/null; then
	skip "interactive screen" "tmux not installed"
else
	s=tlbscope-top-test-$$
	# a server of its own: another suite's tmux (a worktree beside) cannot end this one's
	sock=tlbscope-top-$$
	trap 'tmux -L $sock kill-server 2> /dev/null; rm -rf "$tmp"' EXIT
	# a session kept through the tests: a server whose last session just ended must not
	# take the next new-session with it as it exits (under load it did)
	tmux -L $sock new-session -d -s keep "sleep 600"
	cap() { tmux -L $sock capture-pane -p -t "$s"; }
	# wait_for REGEX: up to 5 s for the pane to show it
	wait_for() {
		for _ in $(seq 50); do cap | grep -q -- "$1" && return 0; sleep 0.1; done
		return 1
	}
	# under a path longer than the screen is wide: the header keeps its state visible
	long=$tmp/a-directory-name-long-enough-that-the-path-of-the-trace-does-not-fit-in-the-header
	mkdir -p "$long" && ln -s "$rv" "$long/trace.dat"
	tmux -L $sock new-session -d -s "$s" -x 120 -y 40 \
		"sh -c '$prog top --replay $long/trace.dat --speed 50; echo DONE; sleep 60'"
	check "screen: CPU table header" wait_for ' CPU TASK .* SW/S .* LOADED'
	check "screen: a long path is elided in its middle, the end of the header stays" \
		wait_for '^tlbscope top - replay .*\.\.\..*/trace\.dat (trace\.dat) .*END OF TRACE'
	cpu_rows() { [ "$(cap | grep -cE '^ +[0-3] .* [0-9]+/6 ')" = 4 ]; }
	wait_rows() { for _ in $(seq 50); do cpu_rows && return 0; sleep 0.1; done; return 1; }
	check "screen: a row per CPU (4), with its lazy table (n/6)" wait_rows
	check "screen: processes panel" wait_for 'STOCK_IPIS LAZY_IPIS'
	check "screen: tuner panel" wait_for 'lazy would have saved'
	tmux -L $sock send-keys -t "$s" p
	check "p: frozen indicator" wait_for '\[FROZEN'
	tmux -L $sock send-keys -t "$s" p
	check "p again: resumed" sh -c "sleep 0.3; ! tmux -L $sock capture-pane -p -t $s | grep -q FROZEN"
	tmux -L $sock send-keys -t "$s" s
	check "s: sort changes to SW/S" wait_for 'sort SW/S'
	tmux -L $sock send-keys -t "$s" s
	check "s again: sort TX/S" wait_for 'sort TX/S'
	tmux -L $sock send-keys -t "$s" h
	check "h: help visible" wait_for 'any key leaves it'
	tmux -L $sock send-keys -t "$s" x
	check "a key leaves help" sh -c "sleep 0.3; ! tmux -L $sock capture-pane -p -t $s | grep -q 'any key leaves'"
	tmux -L $sock send-keys -t "$s" t
	check "t: timeline strip of mm switches" wait_for 'last mm switches'
	tmux -L $sock send-keys -t "$s" t
	check "t again: CPU table" wait_for ' CPU TASK'
	tmux -L $sock resize-window -t "$s" -x 90 -y 30
	sleep 0.5
	# (characters, not bytes: the sparkline's blocks take 3 bytes each in UTF-8)
	check "resize: redrawn at 90 columns (no wider line, header there)" sh -c \
		"[ \$(tmux -L $sock capture-pane -p -t $s | LC_ALL=C.UTF-8 wc -L) -le 90 ] &&
		 tmux -L $sock capture-pane -p -t $s | grep -q ' CPU TASK'"
	tmux -L $sock send-keys -t "$s" +
	check "+: replay twice as fast (speed 100x)" wait_for 'speed 100x'
	tmux -L $sock send-keys -t "$s" - -
	check "- -: four times slower (speed 25x)" wait_for 'speed 25x'
	tmux -L $sock send-keys -t "$s" q
	check "q: quits (DONE printed by the shell)" wait_for '^DONE'
	check "terminal restored: no screen left after quit" sh -c \
		"! tmux -L $sock capture-pane -p -t $s | grep -qE 'tlbscope top -|CPU TASK|STOCK_IPIS'"
	tmux -L $sock kill-session -t "$s" 2> /dev/null
	# an x86 trace at 80x24: the tuner's brief line keeps why there is no setting
	tmux -L $sock new-session -d -s "$s" -x 80 -y 24 \
		"sh -c '$prog top --replay $x86 --speed max; echo DONE; sleep 60'"
	check "80 columns, x86: 'recommended: not-applicable to x86_64', the cheapest point after" \
		wait_for '^recommended: not-applicable to x86_64 (cheapest T=[0-9]* Q=[0-9]* [0-9.]* ms)$'
	tmux -L $sock send-keys -t "$s" q
	tmux -L $sock kill-session -t "$s" 2> /dev/null
	# the trace on stdin: keys come from the terminal
	tmux -L $sock new-session -d -s "$s" -x 120 -y 40 \
		"sh -c 'xz -dc $fx/x86-hackbench.txt.xz | $prog top --replay - --speed 0.5; echo DONE; sleep 60'"
	check "--replay - on a terminal: the screen reads the trace from stdin" \
		wait_for 'replay - (ftrace-text) END OF TRACE'
	check "--replay -: rates kept at the end of the trace" \
		sh -c "tmux -L $sock capture-pane -p -t $s | grep -qE '^ +0 .* +[1-9][0-9]* +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]/6'"
	tmux -L $sock send-keys -t "$s" q
	check "--replay -: q quits (keys from /dev/tty)" wait_for '^DONE'
	tmux -L $sock kill-session -t "$s" 2> /dev/null
fi

# ---- live ----
need_tracefs "live top" hackbench
pids=""
# tracefs_state (tests/lib.sh): the top level, events, filters, kptr_restrict, and the
# instances not named tlbscope-*; ours (tlbscope-top-<pid>) by name
state() {
	tracefs_state
	for p in $pids; do [ -e $tr/instances/tlbscope-top-$p ] && echo "left behind: tlbscope-top-$p"; done
}
before=$(state)
# no load of ours: this machine's own events (a few hundred to a few thousand a second)
# reach the model once they are a quarter second old.  The timeline's lookahead held 8192
# events back whatever their age, so a quiet machine showed switches 0 and no CPU row for
# seconds, the Debian riscv64 guest (200 events a second) for ever; the lookahead is now a
# quarter second of trace time at most.  So the first snapshot whose trace time is 0.5 s
# or more must show switches: at -d 0.5 that is the first or second on a machine whose
# clock keeps up, later under an emulator (QEMU's TCG: the first snapshots come with
# little trace time in them).  top is stopped (SIGINT) once that snapshot is out, or after
# 300 s; none by then fails.
${TLBSCOPE_WRAP:-} "$prog" top -b -d 0.5 > "$tmp/quiet.txt" 2> "$tmp/quiet.err" &
pid=$!
pids="$pids $pid"
# the first whole snapshot (header to totals) with trace time >= 0.5 s, to stdout
first_due() {
	awk '/^tlbscope top - live / { buf = ""; due = 0 }
	     { buf = buf $0 "\n" }
	     /^elapsed .*, trace time [0-9.]+ s,/ { t = $0; sub(/.*trace time /, "", t); due = t + 0 >= 0.5 }
	     /^totals: / && due { printf "%s", buf; exit }' "$tmp/quiet.txt"
}
for _ in $(seq 3000); do
	[ -n "$(first_due)" ] && break
	kill -0 $pid 2> /dev/null || break
	sleep 0.1
done
kill -INT $pid 2> /dev/null
wait $pid
same "live, no load: top -b -d 0.5 exits 0 (SIGINT)" 0 $?
first_due > "$tmp/first.txt"
at=$(sed -n 's/^elapsed \([0-9.]*\) s, trace time \([0-9.]*\) s,.*/elapsed \1 s, trace time \2 s/p' "$tmp/first.txt")
sw=$(sed -n 's/^totals: switches \([0-9]*\),.*/\1/p' "$tmp/first.txt")
check "live, no load: switches in the first snapshot of 0.5 s of trace (${sw:-none}; ${at:-no such snapshot in 300 s})" \
	[ "${sw:-0}" -gt 0 ]
check "... and CPU rows" [ -n "$(rows "$tmp/first.txt")" ]
same "tracefs is as it was after live top with no load" "$before" "$(state)"

# tracefs not mounted (a machine without systemd): top mounts it where it belongs and says
# so, as record does, then runs as usual
why=$(without_tracefs_why)
if [ -z "$why" ]; then
	without_tracefs ${TLBSCOPE_WRAP:-} "$prog" top -b -d 0.2 -n 2 > "$tmp/nomount.txt" \
		2> "$tmp/nomount.err" &
	pid=$!
	pids="$pids $pid"
	wait $pid
	same "live, tracefs not mounted: top exits 0" 0 $?
	check "... says it mounted tracefs at /sys/kernel/tracing" grep -qx \
		"tlbscope: top: tracefs was not mounted; mounted it at /sys/kernel/tracing" \
		"$tmp/nomount.err"
	same "... and shows its 2 snapshots" 2 "$(grep -c '^totals: ' "$tmp/nomount.txt")"
	same "tracefs is as it was after top mounted its own" "$before" "$(state)"
else
	skip "live, tracefs not mounted: top mounts it" "$why"
fi
# a load that lasts as long as top watches (hackbench alone may end first on an idle
# machine), in a process group of its own so that all its workers go at the end; hackbench
# for switches, shootdown for flush IPIs (hackbench's own are too few to count on)
[ -x "$shootdown" ] || { skip "live top" "$shootdown not built (make unit)"; exit 0; }
# (its group is the one setsid made, named by the pid the load writes: setsid forks when
# it is a group leader already, as under a shell with job control)
setsid sh -c "echo \$\$ > $tmp/load.pid; while :; do hackbench -g 4 -l 2000; done & $shootdown 30" \
	> /dev/null 2>&1 &
hb=$!
for _ in $(seq 50); do [ -s "$tmp/load.pid" ] && break; sleep 0.02; done
# x86 counts the shootdown IPIs it receives: "TLB:" in /proc/interrupts, summed over CPUs
tlb_irqs() { awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts; }
tlb0=$(tlb_irqs)
# where no such count exists (RISC-V): whether the kernel's remote flushes are SBI remote
# fences, no IPI at all (Debian's kernel on plain virt), judged as report's kernel check
# judges it: under shootdown, the cross-calls the kernel ran name no flush function (a
# capture of its own, csd events as the kernel wrote them).  Says why when so.
sbi_fences() {
	local csd flush how
	"$fx/capture.sh" "$tmp/sd" 2048 0 -- "$shootdown" 1 2> /dev/null || return 1
	csd=$(grep -c ' csd_function_entry: ' "$tmp/sd.txt")
	flush=$(grep -cE ' csd_function_entry: func=[A-Za-z0-9_.]*(flush_tlb|kernel_range_flush)' "$tmp/sd.txt")
	[ "$flush" = 0 ] || return 1
	[ "$(uname -m)" = riscv64 ] && how=" (SBI remote fences)"
	echo "the kernel's remote flushes are no IPIs${how:-}: under shootdown (1 s)" \
		"its cross-calls ran no flush function ($csd csd_function_entry events, none a flush)"
}
${TLBSCOPE_WRAP:-} "$prog" top -b -d 1 -n 2 > "$tmp/live.txt" 2> "$tmp/live.err" &
pid=$!
pids="$pids $pid"
# its instance's sub-buffers are 64 KiB where the kernel lets an instance choose (a read of
# trace_pipe_raw takes one sub-buffer); the top level's stay as they were (state below)
sub=$tr/instances/tlbscope-top-$pid/buffer_subbuf_size_kb
if [ -e $tr/buffer_subbuf_size_kb ]; then
	# until top has set it or has ended (at most 30 s)
	for _ in $(seq 1500); do
		[ "$(cat "$sub" 2> /dev/null)" = 64 ] && break
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.02
	done
	refused=$(grep -m1 'cannot set the sub-buffers' "$tmp/live.err")
	if [ -n "$refused" ] && [ "$(cat "$sub" 2> /dev/null)" != 64 ]; then
		# some kernels refuse any size but the page for every instance (EPERM): top says so
		skip "live: its instance's sub-buffers are 64 KiB" "${refused#tlbscope: warning: }"
	else
		same "live: its instance's sub-buffers are 64 KiB" 64 "$(cat "$sub" 2> /dev/null)"
	fi
else
	skip "live: its instance's sub-buffers are 64 KiB" "this kernel has no buffer_subbuf_size_kb"
fi
wait $pid
rc=$?
kill -TERM -- -"$(cat "$tmp/load.pid")" 2> /dev/null
wait $hb 2> /dev/null
same "live: top -b -d 1 -n 2 exits 0" 0 $rc
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/live.err"
same "live: 2 snapshots" 2 "$(grep -c '^tlbscope top - live ' "$tmp/live.txt")"
sw=$(sed -n 's/^totals: switches \([0-9]*\),.*/\1/p' "$tmp/live.txt" | tail -1)
ipis=$(sed -n 's/^totals: .*flush IPIs sent \([0-9]*\),.*/\1/p' "$tmp/live.txt" | tail -1)
check "live: switches under hackbench (${sw:-none})" [ "${sw:-0}" -gt 0 ]
# none seen once in a full run (2026-12-04) and never again: what top printed, if again
[ "${sw:-0}" -gt 0 ] || { tail -n 30 "$tmp/live.txt"; cat "$tmp/live.err"; } | sed 's/^/#   /'
tlb1=$(tlb_irqs)
if [ -n "$tlb0" ] && [ "$tlb1" = "$tlb0" ]; then
	# a paravirtualized guest may flush remote TLBs through its hypervisor, not by IPIs
	skip "live: flush IPIs under hackbench and shootdown (${ipis:-none})" \
		"the kernel sent no TLB-shootdown IPIs meanwhile (/proc/interrupts TLB: $tlb0 before and after)"
elif [ -z "$tlb0" ] && why=$(sbi_fences); then
	skip "live: flush IPIs under hackbench and shootdown (${ipis:-none})" "$why"
else
	check "live: flush IPIs under hackbench and shootdown (${ipis:-none})" [ "${ipis:-0}" -gt 0 ]
fi
check "live: header names the instance" grep -q "instance tlbscope-top-$pid" "$tmp/live.txt"
same "tracefs is as it was after live top" "$before" "$(state)"
# the CPUs merged through a heap of their next records, as on machines of more than 8 CPUs
# (parsers/merge.c; test-merge checks it picks as the scan does), forced here
TLBSCOPE_MERGE_HEAP=1 ${TLBSCOPE_WRAP:-} "$prog" top -b -d 1 -n 2 > "$tmp/heap.txt" \
	2> "$tmp/heap.err"
same "live, the CPUs merged by a heap: top -b -d 1 -n 2 exits 0" 0 $?
sw=$(sed -n 's/^totals: switches \([0-9]*\),.*/\1/p' "$tmp/heap.txt" | tail -1)
check "... and sees switches (${sw:-none})" [ "${sw:-0}" -gt 0 ]
same "tracefs is as it was after top with the heap" "$before" "$(state)"
# the flush handler's end is read live only where its time prices the advice: off a VM
# (--machine metal here), not on a machine that says it is one
# exit_enable PID: csd_function_exit's enable in top PID's instance, once it has enabled
# its events (csd_function_entry, then the rest within the same call)
exit_enable() {
	local d=$tr/instances/tlbscope-top-$1/events/csd
	for _ in $(seq 500); do
		[ "$(cat $d/csd_function_entry/enable 2> /dev/null)" = 1 ] && break
		kill -0 "$1" 2> /dev/null || break
		sleep 0.02
	done
	sleep 0.1
	cat $d/csd_function_exit/enable 2> /dev/null
}
if [ -e $tr/events/csd/csd_function_exit ]; then
	for m in metal vm; do
		${TLBSCOPE_WRAP:-} "$prog" top -b -d 0.5 -n 4 --machine $m > /dev/null 2>&1 &
		pid=$!
		pids="$pids $pid"
		got=$(exit_enable $pid)
		wait $pid
		same "live --machine $m: csd_function_exit's enable in its instance" \
			"$([ $m = metal ] && echo 1 || echo 0)" "$got"
	done
	same "tracefs is as it was after top --machine" "$before" "$(state)"
else
	skip "live --machine metal: csd_function_exit enabled in its instance" \
		"this kernel has no csd:csd_function_exit"
fi
for sig in INT TERM; do
	${TLBSCOPE_WRAP:-} "$prog" top -b -d 0.5 > /dev/null 2>&1 &
	pid=$!
	pids="$pids $pid"
	sleep 1.5
	check "SIG$sig: instance exists while running" [ -d $tr/instances/tlbscope-top-$pid ]
	# x86's task switches that flushed nothing stay in the kernel, by its instance's filter
	# (the top level's filter is in state, above and below)
	filter=$tr/instances/tlbscope-top-$pid/events/tlb/tlb_flush/filter
	what="SIG$sig: tlb_flush's 0-page task switches filtered in its instance"
	if [ -e "$filter" ]; then
		same "$what" "reason != 0 || pages != 0" "$(cat "$filter")"
	else
		skip "$what" "this kernel has no tlb:tlb_flush (x86's)"
	fi
	kill -$sig $pid
	wait $pid
	same "SIG$sig: top exits 0" 0 $?
	same "tracefs is as it was after SIG$sig" "$before" "$(state)"
done
# stopped under a load until the kernel has overwritten some of its ring buffers' events
# (their stats say so), top then reports them lost; the load is two tasks waking each other
# through a pipe, which makes more events than hackbench
setsid sh -c "echo \$\$ > $tmp/load2.pid; while :; do perf bench sched pipe -l 100000; done" \
	> /dev/null 2>&1 &
hb=$!
for _ in $(seq 50); do [ -s "$tmp/load2.pid" ] && break; sleep 0.02; done
${TLBSCOPE_WRAP:-} "$prog" top -b -d 0.5 > "$tmp/lost.txt" 2> "$tmp/lost.err" &
pid=$!
pids="$pids $pid"
for _ in $(seq 600); do grep -q '^elapsed' "$tmp/lost.txt" && break; sleep 0.05; done
kill -STOP $pid
overrun() {
	cat $tr/instances/tlbscope-top-$pid/per_cpu/cpu*/stats 2> /dev/null |
		awk '$1 == "overrun:" { n += $2 } END { print n + 0 }'
}
for _ in $(seq 600); do [ "$(overrun)" -gt 0 ] && break; sleep 0.1; done
over=$(overrun)
kill -CONT $pid
sleep 2
kill -INT $pid
wait $pid
rc=$?
kill -TERM -- -"$(cat "$tmp/load2.pid")" 2> /dev/null
wait $hb 2> /dev/null
same "stopped under a load: top exits 0 (SIGINT)" 0 $rc
lost=$(grep '^elapsed' "$tmp/lost.txt" | tail -1 | sed -n 's/.*, lost \([0-9]*\).*/\1/p')
if [ "$over" -gt 0 ]; then
	check "... and reports the events the kernel overwrote meanwhile ($over; lost ${lost:-none})" \
		[ "${lost:-0}" -gt 0 ]
else
	skip "... and reports the events the kernel overwrote meanwhile" \
		"none overwritten in 60 s stopped (the load is too slow here)"
fi
same "tracefs is as it was after top stopped and continued" "$before" "$(state)"
# a reader that goes away (| head): top ends cleanly, its instance removed
${TLBSCOPE_WRAP:-} "$prog" top -b -d 0.2 -n 50 2> /dev/null | head -1 > /dev/null
same "tracefs is as it was after top -b | head" "$before" "$(state)"
# the live screen under tmux: Ctrl-C leaves the terminal and tracefs as they were
if command -v tmux > /dev/null; then
	s=tlbscope-top-live-$$
	tmux -L $sock new-session -d -s "$s" -x 120 -y 40 \
		"sh -c 'echo \$\$ > $tmp/live.pid; exec $prog top'"
	for _ in $(seq 30); do [ -s "$tmp/live.pid" ] && break; sleep 0.1; done
	pid=$(cat "$tmp/live.pid")
	pids="$pids $pid"
	# its start time (stat's field 22): once pids have wrapped, a new process can take
	# the pid within the wait below and must not pass for top still running
	started() { sed 's/.*) //' /proc/"$1"/stat 2> /dev/null | cut -d' ' -f20; }
	start=$(started "$pid")
	ok_screen=1
	# up to a minute: under AddressSanitizer libtracefs's read of /proc/kallsyms (a
	# realloc per 8 KiB, each a copy there) took 15 s on a host with slow page faults
	for _ in $(seq 600); do
		tmux -L $sock capture-pane -p -t "$s" | grep -q "tlbscope top - live .*instance tlbscope-top-" && ok_screen=0 && break
		sleep 0.1
	done
	check "live screen: header names host, kernel and instance" [ $ok_screen = 0 ]
	tmux -L $sock send-keys -t "$s" C-c
	# ended: gone, or a zombie (it exited; reaping it is the tmux server's business,
	# which at times left it unreaped for more than 30 s)
	ended() { [ -n "$1" ] && { [ ! -d /proc/"$1" ] || [ "$(started "$1")" != "$start" ] ||
		grep -q '^State:[[:space:]]*Z' /proc/"$1"/status 2> /dev/null; }; }
	for _ in $(seq 300); do ended "$pid" && break; sleep 0.1; done
	check "live screen: Ctrl-C ends it (pid ${pid:-unknown})" ended "$pid"
	# when not: what it and its guard are doing
	[ -n "$pid" ] && ! ended "$pid" &&
		ps -o pid,ppid,stat,wchan:24,args -p "$pid" --ppid "$pid" | sed 's/^/#   /'
	same "tracefs is as it was after Ctrl-C on the live screen" "$before" "$(state)"
	tmux -L $sock kill-session -t "$s" 2> /dev/null
else
	skip "live screen" "tmux not installed"
fi
# an instance of a top that was killed with SIGKILL (its pid gone) is removed by the next
dead=$(sh -c 'echo $$')
mkdir $tr/instances/tlbscope-top-$dead
"$prog" top -b -d 0.2 -n 1 > /dev/null 2> "$tmp/reap.err"
check "live top removes tlbscope-top-$dead, left by a process that is gone" \
	[ ! -e $tr/instances/tlbscope-top-$dead ]
check "... and says so" grep -q "removed the tracefs instance tlbscope-top-$dead" "$tmp/reap.err"
rmdir $tr/instances/tlbscope-top-$dead 2> /dev/null
if command -v strace > /dev/null; then
	guest_strace "$tmp/top.strace" "$prog" top -b -d 0.3 -n 1 > /dev/null 2>&1
	same "live top under strace exits 0" 0 $?
	same "live top under strace: nothing written in tracefs outside its instance, nor in /proc/sys" \
		"" "$(guest_writes "$tmp/top.strace" 'tlbscope-top-[0-9]+')"
else
	skip "live top under strace: nothing written outside its instance" "strace not installed"
fi
if command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$prog" top -b -n 1 \
		> /dev/null 2> "$tmp/root.err"
	same "live top as a normal user exits 2" 2 $?
	check "live top as a normal user says it needs root, and what works without" grep -qx \
		"tlbscope: top: needs root (tracefs); --replay TRACE shows a recorded trace without root" \
		"$tmp/root.err"
else
	skip "live top as a normal user" "setpriv not installed"
fi
