#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tlbscope export --format chrome on real traces (every corpus trace: AIA and SBI riscv
# kernels, stock and lazy; this machine's x86 captures): valid Trace Event Format, a track
# per CPU, and exactly the flush IPIs and requests `report` counts, also from stdin.
T=export
. "$(dirname "$0")/../lib.sh"

check_one() {
	local t=$1 name=$2 j=$tmp/e.json
	if ! tls export --format chrome -o "$j" "$t" 2> "$tmp/e.err"; then
		not_ok "$name: export failed: $(head -3 "$tmp/e.err")"
		return
	fi
	local rep got want
	rep=$(tls report --json "$t") || { not_ok "$name: report failed"; return; }
	want=$(jq -r '[.totals.flush_ipis // 0, .totals.flush_requests, (.cpus | length)] | @tsv' <<< "$rep")
	# IPIs and requests as report counts them; thread_name tracks at least the trace's CPUs;
	# the IPIs/s counter integrates back to the IPIs (bucket 0.1 s); one jq over the file
	# for all of it (jq is the test's slowest part)
	local all
	all=$(jq -r '.traceEvents as $e | [
		([$e[] | select(.ph == "i" and .cat == "ipi")] | length),
		([$e[] | select(.ph == "i" and .cat == "flush")] | length),
		([$e[] | select(.ph == "M" and .name == "thread_name")] | length),
		([$e[] | select(.ph == "X" and (.dur < 0 or .ts < 0))] | length),
		([$e[] | select(.ph == "C" and .name == "flush IPIs/s") | .args.ipis]
			| add // 0 | . / 10 | round)] | @tsv' "$j")
	same "$name: flush IPIs, requests, CPU tracks = report's" "$want" "$(cut -f1-3 <<< "$all")"
	same "$name: slices start after the first event and have no negative length" 0 \
		"$(cut -f4 <<< "$all")"
	same "$name: the IPIs/s counter adds up to the IPIs" "${want%%$'\t'*}" "$(cut -f5 <<< "$all")"
}

# every corpus trace but the repeats (-rN: the same runs again, no new shape)
for d in "$top"/corpus/traces/*/; do
	case $d in *-r[0-9]/) continue ;; esac
	[ -f "$d/trace.dat" ] && check_one "$d/trace.dat" "$(basename "$d")"
done
check_one "$fx/x86-hackbench.dat" x86-hackbench
check_one "$fx/x86-lost.dat" x86-lost

# standard input: copied aside and read twice, the same output
h=$top/corpus/traces/hackbench-aia-4cpu/trace.dat
tls export --format chrome "$h" > "$tmp/a.json" 2>/dev/null
tls export --format chrome - < "$h" > "$tmp/b.json" 2>/dev/null
same "stdin gives what the file gives (but its name)" "$(grep -v "^{\"displayTimeUnit" "$tmp/a.json" | md5sum)" \
	"$(grep -v "^{\"displayTimeUnit" "$tmp/b.json" | md5sum)"
# a named pipe: copied aside as standard input is (reopened by path, the second pass
# waited for a writer that never came), its messages naming the pipe, not the copy
mkfifo "$tmp/fifo"
timeout 30 cat "$h" > "$tmp/fifo" &
timeout 60 ${TLBSCOPE_WRAP:-} "$prog" export --format chrome "$tmp/fifo" > "$tmp/c.json" \
	2> /dev/null
same "a named pipe: exit 0, what the file gives (but its name)" \
	"0 $(grep -v "^{\"displayTimeUnit" "$tmp/a.json" | md5sum)" \
	"$? $(grep -v "^{\"displayTimeUnit" "$tmp/c.json" | md5sum)"
wait
head -c 200000 "$h" > "$tmp/cut.dat"
timeout 30 cat "$tmp/cut.dat" > "$tmp/fifo" &
timeout 60 ${TLBSCOPE_WRAP:-} "$prog" export --format perfetto -o "$tmp/cut.pftrace" \
	"$tmp/fifo" 2> "$tmp/cut.err"
same "a cut trace through a named pipe: exit 2, the pipe named" "2 tlbscope: $tmp/fifo:" \
	"$? $(head -1 "$tmp/cut.err" | cut -d' ' -f1-2)"
wait
tls export --format perfetto -o "$tmp/cut.pftrace" - < "$tmp/cut.dat" 2> "$tmp/cut.err"
same "... and through standard input, <stdin> named" "2 tlbscope: <stdin>:" \
	"$? $(head -1 "$tmp/cut.err" | cut -d' ' -f1-2)"
# a flow arrow per sender-side IPI, each 's' with its 'f' on another CPU's track
got=$(jq '[.traceEvents[] | select(.ph == "s")] | length' "$tmp/a.json")
same "one flow start per flush IPI" "$(jq '[.traceEvents[] | select(.ph == "i" and .cat == "ipi")] | length' "$tmp/a.json")" "$got"
flows_end() { jq -e '[.traceEvents[] | select(.ph == "f")] | all(.bp == "e")' "$1" > /dev/null; }
check "flows end on the target's track" flows_end "$tmp/a.json"
# probes under other names, through a --probe-map file: report's IPIs again
m=$fx/probes/renamed-sbi.map r=$fx/probes/renamed-sbi.txt
same "--probe-map: the renamed SBI probe's IPIs = report's" \
	"$(tls report --json --probe-map "$m" "$r" | jq .totals.flush_ipis)" \
	"$(tls export --format chrome --probe-map "$m" "$r" 2>/dev/null |
		jq '[.traceEvents[] | select(.ph == "i" and .cat == "ipi")] | length')"
# arrows end where the target entered the flush handler (csd_function_entry of a flush
# callback, a remote one: csd not NULL), counted here with trace-cmd, and on a slice
if command -v trace-cmd > /dev/null && command -v python3 > /dev/null; then
	for t in hackbench-aia-4cpu hackbench-aia-8cpu mmap-aia-4cpu mmapstress-lazy-t6q32-aia-4cpu \
		forkexec-lazy-t6q32-aia-4cpu; do
		f=$top/corpus/traces/$t/trace.dat
		tls export -o "$tmp/f.json" "$f" 2>/dev/null
		want=$(trace-cmd report "$f" 2>/dev/null | grep csd_function_entry |
			grep -E 'func=(__ipi_flush_tlb_range_asid|__ipi_flush_tlb_all)' |
			grep -vc 'csd=(nil)')
		read -r flows later unbound <<< "$(python3 "$top/tests/tools/flow-ends.py" "$tmp/f.json")"
		same "$t: every arrow ends at a handler entry, as many as trace-cmd counts" \
			"$want $want handler_entry" "$flows $later $(jq -r .otherData.flow_end "$tmp/f.json")"
		same "$t: every arrow's end is bound to a slice (running or idle)" 0 "$unbound"
	done
	tls export -o "$tmp/f.json" "$fx/x86-hackbench.dat" 2>/dev/null
	read -r flows later unbound <<< "$(python3 "$top/tests/tools/flow-ends.py" "$tmp/f.json")"
	same "x86-hackbench: arrows end on a slice of their track" 0 "$unbound"
else
	skip "arrows at handler entries" "needs trace-cmd and python3"
fi
# --abs: the trace clock's times, as report prints them; --from/--to/-C: report's window
tls export --abs -o "$tmp/abs.json" "$h" 2>/dev/null
same "--abs: no offset, and the first slice at the first event's time" \
	"0 $(jq '.otherData.first_ts_ns' "$tmp/abs.json")" \
	"$(jq -r '.otherData.ts_offset_ns' "$tmp/abs.json") $(jq '[.traceEvents[] | select(.ph == "X") | .ts] | min * 1000 | round' "$tmp/abs.json")"
for w in "--from +0.5 --to +1.5" "-C 1,3" "--from +1 -C 0"; do
	# shellcheck disable=SC2086
	same "export $w: report's flush IPIs and requests of the window" \
		"$(tls report --json $w "$h" | jq -r '[.totals.flush_ipis, .totals.flush_requests] | @tsv')" \
		"$(tls export $w "$h" 2>/dev/null | jq -r '.traceEvents as $e | [
			([$e[] | select(.ph == "i" and .cat == "ipi")] | length),
			([$e[] | select(.ph == "i" and .cat == "flush")] | length)] | @tsv')"
done
tls export -C 1 "$h" 2>/dev/null > "$tmp/c1.json"
same "export -C 1: slices on CPU 1's track only" 1 \
	"$(jq '[.traceEvents[] | select(.ph == "X") | .tid] | unique | length' "$tmp/c1.json")"
# bad usage and bad input
tls export "$h" > "$tmp/nofmt.json" 2>/dev/null
same "no --format: the chrome format, the default" "$(md5sum < "$tmp/a.json")" \
	"$(md5sum < "$tmp/nofmt.json")"
tls export --format systrace "$h" > /dev/null 2>&1
same "an unknown format: exit 2" 2 $?
head -c 100000 "$h" > "$tmp/cut.dat"
tls export --format chrome -o "$tmp/cut.json" "$tmp/cut.dat" > /dev/null 2> "$tmp/cut.err"
same "a truncated trace.dat: exit 2" 2 $?
check "... and the message names the file" grep -q "cut.dat" "$tmp/cut.err"
echo "1..$n"
