#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# start first: it runs long (tests/run.sh starts it before the others)
# -j N: worker threads read a trace.dat's per-CPU sub-buffers (parsers/tracedat-jobs.c)
# while the reader's thread merges and decodes them.  The output must be -j 1's to the
# byte, stdout, stderr and status: events (the stream) on every corpus trace, every Debian
# run and this machine's captures (and merged by a heap of the CPUs or by a scan alike), report --json and tune --json on one of each shape,
# compressed (v7) and uncompressed (v6); corrupt input fails with the same message at the
# same record; the workers are really started (-j 3 on a 4-CPU trace: two threads), and
# not for inputs read by one thread (the library's reader, text).
T=jobs
. "$(dirname "$0")/../lib.sh"

# run J CMD... TRACE: CMD with -j J, its stdout, stderr and status in one text; with
# HASH=1 its stdout as a checksum (events prints tens of MB; bash holding three copies of
# that in strings was most of this script's time)
run() {
	local j=$1
	shift
	if [ -n "${HASH:-}" ]; then
		tls "${@:1:$#-1}" -j "$j" "${@: -1}" 2> "$tmp/run.err" | md5sum
		echo "status ${PIPESTATUS[0]}"
		cat "$tmp/run.err"
	else
		tls "${@:1:$#-1}" -j "$j" "${@: -1}" 2>&1
		echo "status $?"
	fi
}
# alike DESC CMD... TRACE: the same with -j 1, 2 and 4
alike() {
	local desc=$1 one two four
	shift
	one=$(run 1 "$@")
	two=$(run 2 "$@")
	four=$(run 4 "$@")
	# the old program's usage error three times is not the same output
	if [ "$one" = "$two" ] && [ "$one" = "$four" ] && [[ $one != *"unknown option"* ]]; then
		ok "$desc"
	else
		not_ok "$desc"
		# shellcheck disable=SC2030
		[ -n "${HASH:-}" ] && { one=$(HASH= run 1 "$@"); two=$(HASH= run 2 "$@"); \
			four=$(HASH= run 4 "$@"); }
		diff <(echo "$one") <(echo "$two") | head -10 | sed 's/^/#   -j2: /'
		diff <(echo "$one") <(echo "$four") | head -10 | sed 's/^/#   -j4: /'
	fi
}

# the stream itself (events prints every record and the timeline's mm lines) on every input
for f in "$top"/corpus/traces/*/trace.dat "$top"/corpus/debian/traces/*/*.dat "$fx"/*.dat; do
	HASH=1 alike "${f#"$top"/}: events alike with -j 1, 2, 4" events "$f"
done
# the merge of the CPUs: a heap of their next records past 8 CPUs (parsers/merge.c), a scan
# of every CPU's below; forced each way, the same stream on every input
for f in "$top"/corpus/traces/*/trace.dat "$top"/corpus/debian/traces/*/*.dat "$fx"/*.dat; do
	scan=$(TLBSCOPE_MERGE_HEAP=0 HASH=1 run 2 events "$f")
	heap=$(TLBSCOPE_MERGE_HEAP=1 HASH=1 run 2 events "$f")
	same "${f#"$top"/}: events alike merged by a scan and by the heap" "$scan" "$heap"
done
# report and tune take that stream on the reader's thread: their whole output alike on an
# input of each shape (the largest corpus run, 8 harts with one never online, a lazy kernel,
# SBI, a Debian run with perf's file beside it, x86 captures with and without losses)
for f in corpus/traces/mmapstress-aia-4cpu/trace.dat corpus/traces/hackbench-aia-8cpu/trace.dat \
	 corpus/traces/hackbench-lazy-t6q32-aia-4cpu/trace.dat corpus/traces/hackbench-sbi-4cpu/trace.dat \
	 corpus/debian/traces/stress-tlb-debian-sbi-4cpu/trace.dat tests/fixtures/x86-hackbench.dat \
	 tests/fixtures/x86-lost.dat; do
	[ -f "$top/$f" ] || continue
	alike "$f: report --json alike with -j 1, 2, 4" report --json "$top/$f"
	alike "$f: tune --json alike" tune --json "$top/$f"
done

# threads started: one clone per worker, none for -j 1 or the library's reader
four=$top/corpus/traces/hackbench-aia-4cpu/trace.dat
why=$(threads_why)
if [ -n "$why" ]; then
	skip "threads started" "$why"
else
	# threads of the runtime itself (a sanitizer's) are there with --help too
	base=$(clones "$prog" --help)
	same "-j 3 on a 4-CPU trace: two worker threads" $((base + 2)) \
		"$(clones "$prog" events -j 3 "$four")"
	same "-j 8 on a 4-CPU trace: four, one per CPU with data" $((base + 4)) \
		"$(clones "$prog" events -j 8 "$four")"
	same "-j 1: no thread" "$base" "$(clones "$prog" events -j 1 "$four")"
	same "TLBSCOPE_TRACEDAT_LIBRARY: no thread whatever -j says" "$base" \
		"$(TLBSCOPE_TRACEDAT_LIBRARY=1 clones "$prog" events -j 4 "$four")"
	check "... and the library's events are the workers'" \
		[ "$(TLBSCOPE_TRACEDAT_LIBRARY=1 tls events -j 4 "$four")" = "$(tls events -j 2 "$four")" ]
fi

# corrupt input: a later compressed chunk that does not inflate (found by a worker)
python3 "$top/tests/fuzz/corrupt-dat.py" "$four" chunk-garbage-late "$tmp/late.dat"
alike "a later chunk that does not inflate: the same message and status" report "$tmp/late.dat"
check "... the chunk named, exit 2" grep -q "cpu 1, chunk 1 at offset.*status 2" \
	<(run 2 report "$tmp/late.dat" | tr '\n' ' ')

if ! command -v trace-cmd > /dev/null; then
	skip "uncompressed files" "trace-cmd is not installed (its convert makes the files)"
	echo "1..$n"
	exit 0
fi
# uncompressed: sub-buffers read 256 KiB at a time by the workers
for orig in "$four" "$fx/x86-lost.dat"; do
	f=$tmp/$(basename "$(dirname "$orig")")-${orig##*/}-v6.dat
	trace-cmd convert -i "$orig" --file-version 6 -o "$f" > /dev/null 2>&1
	alike "${orig#"$top"/} as v6: report --json alike" report --json "$f"
	HASH=1 alike "... events alike" events "$f"
	tls events -j 2 "$orig" > "$tmp/orig.events" 2> /dev/null
	tls events -j 2 "$f" > "$tmp/v6.events" 2> /dev/null
	same_file "... the events of the compressed original" "$tmp/orig.events" "$tmp/v6.events"
done
v6=$tmp/hackbench-aia-4cpu-trace.dat-v6.dat
# CPU 1's second sub-buffer claims more than a sub-buffer holds (a worker checks it)
python3 "$top/tests/fuzz/corrupt-dat.py" "$v6" commit-huge-late "$tmp/commit.dat"
alike "a later sub-buffer's commit past its end: the same message and status" \
	report "$tmp/commit.dat"
check "... the sub-buffer named" grep -q "cpu 1, sub-buffer 1:" <(run 2 report "$tmp/commit.dat")
# a record whose length runs past its sub-buffer, in the middle of the data (the reader's
# thread finds it, in a batch a worker read)
cp "$v6" "$tmp/bad.dat"
off=$(( ($(stat -c %s "$v6") / 4096 - 40) * 4096 + 16 ))
printf '\377\377\377\377' | dd of="$tmp/bad.dat" bs=1 seek=$off conv=notrunc status=none
alike "a corrupt record mid-file: the same message and status" report "$tmp/bad.dat"
check "... exit 2, naming the record" grep -q "record .*(offset .*status 2" \
	<(run 4 report "$tmp/bad.dat" | tr '\n' ' ')
echo "1..$n"
