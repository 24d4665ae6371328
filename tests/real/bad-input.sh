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
