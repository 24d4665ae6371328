#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad input never crashes and never passes silently: empty, truncated trace.dat (cut at
# many offsets), random bytes, a flipped-byte trace.dat, text with malformed lines.
# Every failure is exit status 2 with a message naming the file.
T=bad-input
. "$(dirname "$0")/../lib.sh"

# expect_bad FILE: exit 2, the message names the file, no signal
expect_bad() {
	local f=$1 what=$2 rc
	tls report "$f" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF "$f" "$tmp/err"; then
		ok "$what: exit 2 naming the file"
	else
		not_ok "$what: exit $rc"
		head -5 "$tmp/err" | sed 's/^/#   /'
	fi
}

: > "$tmp/empty"
expect_bad "$tmp/empty" "empty file"
head -c 100000 /dev/urandom > "$tmp/random"
expect_bad "$tmp/random" "random bytes"
expect_bad "$tmp/does-not-exist" "missing file"
printf 'hello\nworld\n' > "$tmp/words.txt"
expect_bad "$tmp/words.txt" "text in no known format"

dat=$fx/x86-hackbench.dat
size=$(stat -c %s "$dat")
# cuts inside the headers, the kallsyms/formats sections and the per-CPU data
for cut in 8 16 100 1000 10000 100000 500000 $((size / 2)) $((size - 4096)) $((size - 1)); do
	head -c "$cut" "$dat" > "$tmp/cut.dat"
	tls report --json "$tmp/cut.dat" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF "$tmp/cut.dat" "$tmp/err"; then
		ok "trace.dat cut at $cut bytes: exit 2 naming the file"
	elif [ $rc -eq 0 ] && cmp -s <(tls report --json "$dat" | jq -S 'del(.input)') \
		<(jq -S 'del(.input)' "$tmp/out"); then
		# the cut took only trailing metadata, no event: the answer is the full one
		ok "trace.dat cut at $cut bytes: no event data lost, same report as the whole file"
	else
		not_ok "trace.dat cut at $cut bytes: exit $rc"
		head -3 "$tmp/err" | sed 's/^/#   /'
	fi
done

# garbage in the middle of the data: located error or a located skip, never a crash
cp "$dat" "$tmp/flip.dat"
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$tmp/flip.dat" bs=1 seek=$((size - 200000)) conv=notrunc 2>/dev/null
tls report "$tmp/flip.dat" > /dev/null 2> "$tmp/err"
rc=$?
check "trace.dat with a corrupted sub-buffer: exit 0 or 2, no crash (got $rc)" [ $rc -eq 0 -o $rc -eq 2 ]

# header fields libtracecmd trusts (each crashed it, or was taken silently, before the
# checks of parsers/tracedat-check.c): exit 2 and a message naming the part of the file
seeds=$top/tests/fuzz/seeds/trace.dat
# (v7 sections: in the plain copy and, inflated, edited and compressed again, the zstd one)
while read -r seed kind msg; do
	label=${seed%.dat}
	label=${label##*-}
	out=$tmp/$kind-$label.dat
	python3 "$top/tests/fuzz/corrupt-dat.py" "$seeds/$seed" "$kind" "$out"
	timeout 60 ${TLBSCOPE_WRAP:-} "$prog" report "$out" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF "tlbscope: $out: corrupt trace.dat" "$tmp/err" &&
	   grep -qF -- "$msg" "$tmp/err"; then
		ok "trace.dat with $kind ($label): exit 2, '$msg'"
	else
		not_ok "trace.dat with $kind ($label): exit $rc"
		head -3 "$tmp/err" | sed 's/^/#   /'
	fi
done <<EOF
hackbench-aia-4cpu-v6.dat cpus0 header: 0 CPUs
hackbench-aia-4cpu-v6.dat cpus-huge header: 100000000 CPUs
hackbench-aia-4cpu-v6.dat pagesize3 sub-buffer size 3
hackbench-aia-4cpu-v6.dat cpudata-past-end run past the end of the file
hackbench-aia-4cpu-v6.dat commit-huge cpu 0, sub-buffer 0: 70000 bytes of events
hackbench-aia-4cpu-v6.dat commit-huge-late cpu 1, sub-buffer 1: 70000 bytes of events
hackbench-aia-4cpu-v6.dat timestamp-size header_page: no 8-byte timestamp
hackbench-aia-4cpu-v7-zstd.dat options-loop options sections (a loop?)
hackbench-aia-4cpu-v7-zstd.dat options-past-end options section at offset
hackbench-aia-4cpu-v7-zstd.dat buffer-cpus-huge option BUFFER at offset 30045: 100000000 CPUs
hackbench-aia-4cpu-v7-zstd.dat chunk-inflate-huge said to inflate to 2147479552
hackbench-aia-4cpu-v7-zstd.dat chunk-garbage zstd: Data corruption detected
hackbench-aia-4cpu-v7-none.dat ftrace-count section 17 (ftrace events) at offset 499: system 'ftrace' claims 1936287860 formats in 11784 bytes
hackbench-aia-4cpu-v7-zstd.dat ftrace-count section 17 (ftrace events) at offset 30286: system 'ftrace' claims 1936287860 formats in 11784 bytes
hackbench-aia-4cpu-v7-none.dat system-count section 18 (event formats) at offset 12303: system 'sched' claims 1936287860 formats in 18451 bytes
hackbench-aia-4cpu-v7-zstd.dat system-count section 18 (event formats) at offset 30286: system 'sched' claims 1936287860 formats in 18451 bytes
hackbench-aia-4cpu-v7-none.dat format-size section 17 (ftrace events) at offset 499: system 'ftrace', format 0: 6474355662414707 bytes, past the section's end
hackbench-aia-4cpu-v7-zstd.dat format-size section 17 (ftrace events) at offset 30286: system 'ftrace', format 0: 6474355662414707 bytes, past the section's end
hackbench-aia-4cpu-v7-none.dat header-event-size section 16 (header info) at offset 32: header_event: 1099511627776 bytes, past the section's end
hackbench-aia-4cpu-v7-zstd.dat header-event-size section 16 (header info) at offset 30286: header_event: 1099511627776 bytes, past the section's end
hackbench-aia-4cpu-v7-none.dat kallsyms-size section 19 (kallsyms) at offset 39574: 4294967280 bytes, past the section's end
hackbench-aia-4cpu-v7-zstd.dat kallsyms-size section 19 (kallsyms) at offset 30286: 4294967280 bytes, past the section's end
hackbench-aia-4cpu-v7-none.dat header-page-byte section 16 (header info) at offset 32: header_page: not a field
hackbench-aia-4cpu-v7-zstd.dat header-page-byte section 16 (header info) at offset 30286: header_page: not a field
hackbench-aia-4cpu-v7-none.dat no-header-info no option HEADER_INFO in the options sections from offset 70896
hackbench-aia-4cpu-v7-zstd.dat no-header-info no option HEADER_INFO in the options sections from offset 12135
hackbench-aia-4cpu-v7-none.dat data-section-flags buffer '': data section at offset 71070: section 3, flags 1 (expected section 3, not compressed)
hackbench-aia-4cpu-v7-zstd.dat data-section-flags buffer '': data section at offset 12309: section 3, flags 0 (expected section 3, compressed)
hackbench-aia-4cpu-v7-none.dat cpu-twice option BUFFER at offset 106512: buffer '': the entry at offset 106561 is CPU 1
hackbench-aia-4cpu-v7-zstd.dat cpu-twice option BUFFER at offset 30045: buffer '': the entry at offset 30094 is CPU 1
hackbench-aia-4cpu-v7-none.dat option-short option 17 at offset 70976: 4 bytes, too short
hackbench-aia-4cpu-v7-zstd.dat option-short option 17 at offset 12215: 4 bytes, too short
hackbench-aia-4cpu-v7-zstd.dat printk-no-colon section 20 (printk formats) at offset 30286: line 2 is not 'address : format'
EOF

# a later sub-buffer's commit is checked as tlbscope's reader loads it; through the library
# (TLBSCOPE_TRACEDAT_LIBRARY) all are checked before it reads one: the same message
TLBSCOPE_TRACEDAT_LIBRARY=1 tls report "$tmp/commit-huge-late-v6.dat" > /dev/null 2> "$tmp/err"
rc=$?
check "commit-huge-late through libtracecmd: exit 2, the same message ($rc)" \
	[ $rc -eq 2 -a -n "$(grep -F "cpu 1, sub-buffer 1: 70000 bytes of events" "$tmp/err")" ]

# a record's length word past any sub-buffer (kbuffer's int of it is negative): the bytes
# it claims, unsigned, read by tlbscope's reader and through libtracecmd
python3 "$top/tests/fuzz/corrupt-dat.py" "$seeds/hackbench-aia-4cpu-v7-none.dat" record-length \
	"$tmp/record-length.dat"
for how in "" " through libtracecmd"; do
	[ -n "$how" ] && export TLBSCOPE_TRACEDAT_LIBRARY=1
	tls report "$tmp/record-length.dat" > /dev/null 2> "$tmp/err"
	rc=$?
	same "record-length$how: exit 2, the record and its size" \
		"2 tlbscope: $tmp/record-length.dat: cpu 0, record 52 (offset 73744): 4284481532 bytes run past the 4096-byte sub-buffer" \
		"$rc $(cat "$tmp/err")"
done
unset TLBSCOPE_TRACEDAT_LIBRARY

# a trace.dat through a FIFO: read once, spooled, not reopened by path (which blocked)
mkfifo "$tmp/fifo"
timeout 30 cat "$seeds/hackbench-aia-4cpu-v6.dat" > "$tmp/fifo" &
a=$(timeout 30 ${TLBSCOPE_WRAP:-} "$prog" report --json "$tmp/fifo" | jq -S '.totals')
wait
b=$(tls report --json "$seeds/hackbench-aia-4cpu-v6.dat" | jq -S '.totals')
same "trace.dat through a FIFO: the same totals as the file" "$b" "$a"
# tune (which asks whether its input is a profile first) and top --replay (the trace's
# span first): a FIFO read once, not waited on for a second writer
fifo_run() {	# CMD...: its output through the FIFO, the trace written into it meanwhile
	timeout 30 cat "$seeds/hackbench-aia-4cpu-v6.dat" > "$tmp/fifo" &
	timeout 60 ${TLBSCOPE_WRAP:-} "$prog" "$@" "$tmp/fifo" 2> /dev/null
	echo "rc=$?"
	wait
}
out=$(fifo_run tune --json)
same "tune of a FIFO: exit 0, the file's recommendation" \
	"rc=0 $(tls tune --json "$seeds/hackbench-aia-4cpu-v6.dat" | jq -c .recommendation)" \
	"$(tail -1 <<< "$out") $(sed '$d' <<< "$out" | jq -c .recommendation)"
out=$(fifo_run top -b -n 1 -d 1000 --speed max --replay)
same "top --replay of a FIFO: exit 0, the file's totals" \
	"rc=0 $(tls top -b -n 1 -d 1000 --speed max --replay "$seeds/hackbench-aia-4cpu-v6.dat" |
		grep '^totals:')" \
	"$(tail -1 <<< "$out") $(grep '^totals:' <<< "$out")"

# a line of megabytes: a located error, memory not following the line
{ head -20 "$fx/hand/identity.txt"; head -c 3000000 /dev/zero | tr '\0' x; echo; } > "$tmp/long.txt"
tls report "$tmp/long.txt" > /dev/null 2> "$tmp/err"
rc=$?
check "a 3 MB text line: exit 2 naming line 21 ($rc)" \
	[ $rc -eq 2 -a -n "$(grep -F "$tmp/long.txt: line 21: longer than 1024 KiB" "$tmp/err")" ]

# CPU numbers past the masks: a malformed header or event, never an allocation by them
{ echo "# tracer: nop"; echo "#"; echo "# entries-in-buffer/entries-written: 2/2   #P:99999999";
  grep -v '^#' "$fx/text/tracefs-flags-notgid.txt" | head -50;
  echo "           bash-1     [99999999] d..2.  100.000000: sched_switch: x"; } > "$tmp/cpus.txt"
tls report "$tmp/cpus.txt" > "$tmp/out" 2> "$tmp/err"
rc=$?
check "#P:99999999 and CPU [99999999]: exit 0 ($rc)" [ $rc -eq 0 ]
check "... both counted as malformed, the first located" \
	grep -q "malformed records skipped: 2 (first: line 3: a header declares 99999999 CPUs" "$tmp/out"
sed 's/#P:99999999/#P:4000000000/' "$tmp/cpus.txt" > "$tmp/cpus-int.txt"
check "#P past an int: counted as malformed too, not taken as no header" \
	sh -c "'$prog' report '$tmp/cpus-int.txt' | grep -q 'first: line 3: a header declares 4000000000 CPUs'"

# text: malformed lines are counted and reported, not fatal
txt=$(unxz_fx x86-hackbench.txt.xz)
{ head -2000 "$txt"; echo "this is not an event line"; echo "     bash-1 [000] garbage";
  tail -n +2001 "$txt"; } > "$tmp/mal.txt"
tls report "$tmp/mal.txt" > "$tmp/out" 2> "$tmp/err"
rc=$?
check "text with 2 malformed lines: exit 0" [ $rc -eq 0 ]
check "text with 2 malformed lines: reported with the line number" \
	grep -q "malformed records skipped: 2 (first: line 2001" "$tmp/out"

# JSON lines with a broken line
printf '{"kind":"header","version":1,"cpus":2}\n{"ts":1,"cpu":0,"kind":"switch","prev_pid":0,"next_pid":5,"next_comm":"a","mm":"m"}\n{"ts":2,"cpu":0,\n' > "$tmp/bad.jsonl"
tls report --json "$tmp/bad.jsonl" > "$tmp/out" 2> "$tmp/err"
check "JSON lines with a broken line: exit 0, 1 skipped" \
	[ $? -eq 0 -a "$(jq '.evidence.malformed_skipped' "$tmp/out")" = 1 ]
same "tune says so too (JSON input.malformed_skipped)" 1 \
	"$(tls tune --json "$tmp/bad.jsonl" | jq '.input.malformed_skipped')"
check "tune says so too (text, with the line)" \
	sh -c "'$prog' tune '$tmp/bad.jsonl' | grep -q '^malformed records skipped: 1 (first: line 3'"

# events on CPUs past those the header declares are skipped by the input's checks, and tune
# says so in its text and JSON
printf '%s\n' '{"kind":"header","version":1,"cpus":2}' \
	'{"ts":1000,"cpu":0,"kind":"switch","prev_pid":7,"next_pid":9,"next_comm":"sh","mm":"p9"}' \
	'{"ts":1100,"cpu":3,"kind":"switch","prev_pid":0,"next_pid":9,"next_comm":"sh","mm":"p9"}' \
	'{"ts":1500,"cpu":0,"kind":"flush","mm":"p9","scope":"range","pages":16}' > "$tmp/under.jsonl"
check "tune: an event on CPU 3 of a 2-CPU input is said skipped" \
	sh -c "'$prog' tune '$tmp/under.jsonl' 2>/dev/null | grep -q '^input checks: records skipped: 1, kept as found or escaped: 0'"
check "tune: ... and the warning names the place" \
	sh -c "'$prog' tune '$tmp/under.jsonl' 2>&1 >/dev/null | grep -q 'past the input.s count, skipped: 1 (first: line 3: cpu 3 at 0.000001 s: the input declares 2 CPUs)'"
same "tune --json: input.input_checks.cpu_out_of_range" 1 \
	"$(tls tune --json "$tmp/under.jsonl" 2>/dev/null | jq '.input.input_checks.cpu_out_of_range')"

# usage errors
tls report > /dev/null 2>&1; check "no trace: exit 2" [ $? -eq 2 ]
tls report --bogus "$dat" > /dev/null 2>&1; check "unknown option: exit 2" [ $? -eq 2 ]
tls report --cpu 9999 "$dat" > /dev/null 2>&1; check "bad --cpu: exit 2" [ $? -eq 2 ]
tls nosuchcmd > /dev/null 2>&1; check "unknown command: exit 2" [ $? -eq 2 ]
# a closed pipe / full disk is an error, not a silent success
if [ -w /dev/full ]; then
	tls report "$dat" > /dev/full 2> "$tmp/err"
	check "stdout on a full device: exit 2 with a message" \
		[ $? -eq 2 -a -s "$tmp/err" ]
fi
