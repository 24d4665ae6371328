#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# start first: it runs long (tests/run.sh starts it before the others)
# tlbscope export --format perfetto on real traces (riscv AIA ones whose targets' handler
# entries are traced, SBI ones, lazy kernels; this machine's x86 captures), decoded by
# tests/tools/pftrace.py (its own reading of the wire format, inflating compressed packets,
# checking interning, tracks, slice nesting and flows) and, when installed, by protoc
# --decode_raw (of --uncompressed output): the flush IPIs and
# requests `report` counts, a slice per switch (+1) on each CPU, every flow begun ended,
# and the same drawing as the Chrome JSON.
T=export-perfetto
. "$(dirname "$0")/../lib.sh"

if ! command -v python3 > /dev/null || ! command -v jq > /dev/null; then
	skip "export --format perfetto" "needs python3 and jq"
	echo "1..$n"
	exit 0
fi
dec() { python3 "$top/tests/tools/pftrace.py" "$@"; }
# key's value in a decoded summary (0 when absent)
val() { awk -F'\t' -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$1"; }
has_protoc=
command -v protoc > /dev/null && has_protoc=1

# check_one TRACE NAME [plain]: plain also exports --uncompressed and decodes that too (the
# decoder is the test's slowest part: three traces of different shapes do it)
check_one() {
	local t=$1 name=$2 plain=${3:-} p=$tmp/p.pftrace d=$tmp/p.txt j=$tmp/p.json
	if ! tls export --format perfetto -o "$p" "$t" 2> "$tmp/p.err"; then
		not_ok "$name: export failed: $(head -3 "$tmp/p.err")"
		return
	fi
	dec "$p" > "$d" || { not_ok "$name: the decoder failed"; return; }
	same "$name: decodes with every check holding (interning, tracks, nesting, flows)" "" \
		"$(grep '^bad' "$d")"
	local rep want got
	rep=$(tls report --json "$t") || { not_ok "$name: report failed"; return; }
	want=$(jq -r '[.totals.flush_ipis // 0, .totals.flush_requests] | @tsv' <<< "$rep")
	got=$(printf '%s\t%s' "$(val "$d" "instant flush IPI")" "$(val "$d" "instant flush request")")
	same "$name: flush IPIs and requests = report's" "$want" "$got"
	# what ran: the task a CPU's first switch leaves, then one slice per switch
	want=$(jq -r '.cpus[] | select(.switches > 0) | "CPU \(.cpu) \(.switches + 1)"' <<< "$rep")
	got=$(awk -F'\t' '$1 ~ /^slices on CPU / { sub("slices on ", "", $1); print $1, $2 }' "$d" |
		sort -k2n)
	same "$name: slices per CPU = report's switches + 1" "$want" "$got"
	same "$name: every flow begun is ended" "$(val "$d" flows_begun)" "$(val "$d" flows_ended)"
	got=$(val "$d" "sum of flush IPIs/s")
	same "$name: the IPIs/s counter adds up to the IPIs (bucket 0.1 s)" \
		"$(val "$d" "instant flush IPI")" "$((got / 10))"
	# the Chrome JSON of the same model: the same slices, arrows and counter points
	tls export --format chrome -o "$j" "$t" 2> /dev/null
	want=$(jq -r '.traceEvents as $e | [([$e[] | select(.ph == "X")] | length),
		([$e[] | select(.ph == "s")] | length),
		([$e[] | select(.ph == "C")] | length)] | @tsv' "$j")
	got=$(printf '%s\t%s\t%s' "$(val "$d" slices)" "$(val "$d" flows_begun)" \
		"$(($(val "$d" "counter flush IPIs/s") + $(val "$d" "counter lazy deferrals/s")))")
	same "$name: slices, flows, counter points = the Chrome JSON's" "$want" "$got"
	[ -n "$plain" ] || return 0
	# deflated in chunks (the default) or not, the same packets
	tls export --format perfetto --uncompressed -o "$tmp/u.pftrace" "$t" 2> /dev/null
	check "$name: deflated in chunks, under a third of the plain packets' bytes" \
		[ "$(val "$d" compressed_packets)" -gt 0 -a \
		$(($(wc -c < "$p") * 3)) -lt "$(wc -c < "$tmp/u.pftrace")" ]
	same "$name: --uncompressed: the same packets" "$(grep -v '^compressed_packets' "$d")" \
		"$(dec "$tmp/u.pftrace")"
	if [ -n "$has_protoc" ]; then
		got=$(protoc --decode_raw < "$tmp/u.pftrace" 2> "$tmp/protoc.err" | grep -c '^1 {')
		same "$name: protoc --decode_raw reads as many packets" "$(val "$d" packets)" "$got"
	fi
}

for t in hackbench-aia-4cpu:plain hackbench-aia-8cpu mmap-aia-4cpu hackbench-sbi-4cpu \
	mmapstress-sbi-4cpu:plain mmapstress-lazy-t6q32-aia-4cpu forkexec-lazy-t6q32-aia-4cpu; do
	check_one "$top/corpus/traces/${t%:plain}/trace.dat" "${t%:plain}" "${t#${t%:plain}}"
done
check_one "$fx/x86-hackbench.dat" x86-hackbench plain
check_one "$fx/x86-lost.dat" x86-lost
check_one "$fx/x86-threads-tgid.dat" x86-threads-tgid
[ -n "$has_protoc" ] || skip "protoc --decode_raw reads the traces" \
	"protoc is not installed (Debian: protobuf-compiler)"

h=$top/corpus/traces/hackbench-aia-4cpu/trace.dat
tls export --format perfetto -o "$tmp/h.pftrace" "$h" 2> /dev/null
dec "$tmp/h.pftrace" > "$tmp/h.txt"
# arrows end where the target entered the flush handler: csd_function_entry of a flush
# callback, a remote one (csd not NULL), counted with trace-cmd
if command -v trace-cmd > /dev/null; then
	want=$(trace-cmd report "$h" 2> /dev/null | grep csd_function_entry |
		grep -E 'func=(__ipi_flush_tlb_range_asid|__ipi_flush_tlb_all)' | grep -vc 'csd=(nil)')
	same "hackbench-aia-4cpu: a flow ends at each handler entry trace-cmd counts" \
		"$want $want" "$(val "$tmp/h.txt" flows_ended) $(val "$tmp/h.txt" "instant flush handler")"
else
	skip "arrows at handler entries" "needs trace-cmd"
fi
# standard input: copied aside and read twice, the same output but the name
tls export --format perfetto --uncompressed "$h" > "$tmp/file.pftrace" 2> /dev/null
tls export --format perfetto --uncompressed - < "$h" > "$tmp/stdin.pftrace" 2> /dev/null
same "stdin gives what the file gives (but its name)" \
	"$(python3 -c 'import sys; print(len(sys.argv[1]) - 1)' "$h")" \
	"$(($(wc -c < "$tmp/file.pftrace") - $(wc -c < "$tmp/stdin.pftrace")))"
same "... the same packets" "$(dec "$tmp/file.pftrace" | grep -v ^description)" \
	"$(dec "$tmp/stdin.pftrace" | grep -v ^description)"
# what the JSON's otherData says, in the root track's description
tls export --format chrome -o "$tmp/h.json" "$h" 2> /dev/null
t0=$(jq .otherData.first_ts_ns "$tmp/h.json")
same "the description names the trace, the IPI evidence, where arrows end, the first event" \
	"tlbscope export of $h (trace.dat): flush IPIs of csd_queue_cpu, arrows ending at handler entries; the lazy model's deferrals at T=6 Q=32; the first event at $t0 ns of the trace clock, times after it ($t0 ns subtracted)" \
	"$(awk -F'\t' '$1 == "description" { print $2 }' "$tmp/h.txt")"
# --abs: packet times of the trace clock, the first slice at the first event
tls export --format chrome --abs -o "$tmp/abs.json" "$h" 2> /dev/null
tls export --format perfetto --abs -o "$tmp/abs.pftrace" "$h" 2> /dev/null
same "--abs: the first slice at the first event's time (default: at 0)" \
	"$(jq .otherData.first_ts_ns "$tmp/abs.json") 0" \
	"$(dec "$tmp/abs.pftrace" | awk -F'\t' '$1 == "first_slice_ns" { print $2 }') $(val "$tmp/h.txt" first_slice_ns)"
for w in "--from +0.5 --to +1.5" "-C 1,3" "--from +1 -C 0"; do
	# shellcheck disable=SC2086
	tls export --format perfetto $w -o "$tmp/w.pftrace" "$h" 2> /dev/null
	dec "$tmp/w.pftrace" > "$tmp/w.txt"
	# shellcheck disable=SC2086
	same "export --format perfetto $w: report's flush IPIs and requests of the window" \
		"$(tls report --json $w "$h" | jq -r '[.totals.flush_ipis, .totals.flush_requests] | @tsv')" \
		"$(printf '%s\t%s' "$(val "$tmp/w.txt" "instant flush IPI")" "$(val "$tmp/w.txt" "instant flush request")")"
done
tls export --format perfetto -C 1 -o "$tmp/c1.pftrace" "$h" 2> /dev/null
same "-C 1: slices on CPU 1's track only" "CPU 1" \
	"$(dec "$tmp/c1.pftrace" | awk -F'\t' '$1 ~ /^slices on / { sub("slices on ", "", $1); print $1 }')"

# more names than the interning tables keep: they start over, and the reader is told
big=$tmp/many-tasks.txt
awk 'BEGIN {
	print "# tracer: nop"
	prev = "swapper/0"; pp = 0
	for (i = 1; i <= 17000; i++) {
		pid = 1000 + i
		printf "%16s-%-7d [000] d..2. %6d.%06d: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=S ==> next_comm=t%d next_pid=%d next_prio=120\n", prev, pp, 1 + int(i / 1000000), i % 1000000, prev, pp, pid, pid
		prev = "t" pid; pp = pid
	}
}' > "$big"
tls export --format perfetto -o "$tmp/big.pftrace" "$big" 2> /dev/null
dec "$tmp/big.pftrace" > "$tmp/big.txt"
same "17000 tasks' names and mms: the tables cleared past 16384 strings, ids still defined" \
	"cleared again, 17001 slices" \
	"$([ "$(val "$tmp/big.txt" state_cleared)" -gt 1 ] && echo "cleared again"), $(val "$tmp/big.txt" slices) slices$(grep '^bad' "$tmp/big.txt")"

# into a file the first pass guesses (from a trace.dat's flush requests and IPIs alone, the
# other records passed over) and the drawing checks its guess; into a pipe the whole trace
# decides first.  The same bytes either way, also when
# the guess fails (TLBSCOPE_EXPORT_GUESS=N: guessed from N events) and the file is drawn
# again, and with the drawing on its own thread (-j 2) or not (-j 1).
for t in "$h" "$top/corpus/traces/mmapstress-lazy-t6q32-aia-4cpu/trace.dat" \
	"$top/corpus/traces/hackbench-sbi-4cpu/trace.dat" "$fx/x86-hackbench.dat"; do
	name=$(basename "$(dirname "$t")"); [ "$name" = fixtures ] && name=x86-hackbench
	tls export --format perfetto "$t" 2> /dev/null | cat > "$tmp/pipe.pftrace"
	tls export --format perfetto -j 1 -o "$tmp/j1.pftrace" "$t" 2> /dev/null
	tls export --format perfetto -j 2 "$t" > "$tmp/j2.pftrace" 2> /dev/null
	TLBSCOPE_EXPORT_GUESS=1 tls export --format perfetto -o "$tmp/g1.pftrace" "$t" \
		2> "$tmp/g1.err"
	check "$name: a guess from the first event fails, the file is drawn again" \
		grep -q "the guess did not hold; drawn again" "$tmp/g1.err"
	same "$name: into a file (-j 1, -j 2, drawn again) the bytes of a pipe's" \
		"$(md5sum < "$tmp/pipe.pftrace") x3" \
		"$(cat "$tmp/j1.pftrace" | md5sum) $([ "$(md5sum < "$tmp/j2.pftrace")" = \
		"$(md5sum < "$tmp/g1.pftrace")" ] && cmp -s "$tmp/j1.pftrace" "$tmp/j2.pftrace" &&
		echo x3)"
done
# bad input the guess did not read: exit 2, and no file made
python3 "$top/tests/fuzz/corrupt-dat.py" "$top/corpus/traces/mmapstress-aia-4cpu/trace.dat" \
	chunk-garbage-late "$tmp/late.dat"
TLBSCOPE_EXPORT_GUESS=10 tls export --format perfetto -o "$tmp/late.pftrace" "$tmp/late.dat" \
	> /dev/null 2> "$tmp/late.err"
same "a chunk that does not inflate past the guess: exit 2" 2 $?
check "... the message names the chunk" grep -q "late.dat: corrupt trace.dat v7: .*chunk 1" \
	"$tmp/late.err"
check "... and no output file is left" [ ! -e "$tmp/late.pftrace" ]

# bad usage and bad output
tls export --uncompressed "$h" > /dev/null 2> "$tmp/u.err"
same "--uncompressed without --format perfetto: exit 2" 2 $?
tls export --format perfetto -o "$tmp/no/such/dir/x.pftrace" "$h" > /dev/null 2> "$tmp/o.err"
same "-o in a missing directory: exit 2" 2 $?
check "... and the message says why" grep -q "x.pftrace: No such file or directory" "$tmp/o.err"
if command -v script > /dev/null; then
	script -qec "$prog export --format perfetto $h" /dev/null > "$tmp/tty.out" 2>&1
	same "a binary trace to a terminal: exit 2" 2 $?
	check "... with a message saying to use -o" grep -q "give -o FILE" "$tmp/tty.out"
else
	skip "a binary trace to a terminal" "needs script (bsdutils)"
fi
head -c 100000 "$h" > "$tmp/cut.dat"
tls export --format perfetto -o "$tmp/cut.pftrace" "$tmp/cut.dat" > /dev/null 2> "$tmp/cut.err"
same "a truncated trace.dat: exit 2" 2 $?
check "... and the message names the file" grep -q "cut.dat" "$tmp/cut.err"
echo "1..$n"
