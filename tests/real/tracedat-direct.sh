#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An uncompressed trace.dat is read sub-buffer by sub-buffer by tlbscope itself
# (parsers/tracedat.c), not through tracecmd_read_data(): the events must be exactly what
# the library gives (TLBSCOPE_TRACEDAT_LIBRARY=1) and what the compressed original gives,
# lost events included; a corrupt record is the same message either way; and the file is
# read in bounded pieces.
T=tracedat-direct
. "$(dirname "$0")/../lib.sh"

lib() { TLBSCOPE_TRACEDAT_LIBRARY=1 tls "$@" 2>&1; echo "status $?"; }
own() { tls "$@" 2>&1; echo "status $?"; }

# files of this machine (v6, as record and capture.sh write them), one with lost events
for f in "$fx"/x86-hackbench.dat "$fx"/x86-lost.dat "$fx"/x86-threads-tgid.dat; do
	same "${f##*/}: the same events as through libtracecmd" "$(lib events "$f")" \
		"$(own events "$f")"
done
same "x86-lost.dat: its lost events are there" "true" \
	"$(tls info --json "$fx/x86-lost.dat" | jq '.lost_events > 0')"

if ! command -v trace-cmd > /dev/null; then
	skip "RISC-V corpus uncompressed" "trace-cmd is not installed (its convert makes the files)"
	echo "1..$n"
	exit 0
fi
# the RISC-V corpus (v7, zstd: read by the library) uncompressed, as v7 and as v6
for run in hackbench-aia-4cpu mmapstress-lazy-t6q32-aia-4cpu hackbench-renamed-aia-4cpu; do
	orig=$top/corpus/traces/$run/trace.dat
	want=$(own events "$orig")
	for v in 6 7; do
		f=$tmp/$run-v$v.dat
		if [ $v = 7 ]; then
			trace-cmd convert -i "$orig" --file-version 7 --compression none -o "$f" \
				> /dev/null 2>&1
		else
			trace-cmd convert -i "$orig" --file-version 6 -o "$f" > /dev/null 2>&1
		fi
		same "$run, v$v uncompressed: the events of the compressed original" "$want" \
			"$(own events "$f")"
		same "$run, v$v uncompressed: the same events as through libtracecmd" \
			"$(lib events "$f")" "$(own events "$f")"
	done
done

# a record whose length runs past its sub-buffer, in the middle of the data
f=$tmp/hackbench-aia-4cpu-v6.dat
cp "$f" "$tmp/bad.dat"
ps=4096
off=$(( ($(stat -c %s "$f") / ps - 40) * ps + 16 ))
printf '\377\377\377\377' | dd of="$tmp/bad.dat" bs=1 seek=$off conv=notrunc status=none
same "a corrupt record: the same message and status either way" "$(lib report "$tmp/bad.dat")" \
	"$(own report "$tmp/bad.dat")"

# read in pieces of 256 KiB (libtracecmd maps each CPU's data at open, and its pages are
# read, and stay in memory, only as tracecmd_read_data() touches them)
if command -v strace > /dev/null; then
	strace -e trace=pread64 -o "$tmp/st" "$prog" events "$f" > /dev/null 2>&1
	big=$(grep -c 'pread64(.*, 262144,' "$tmp/st")
	TLBSCOPE_TRACEDAT_LIBRARY=1 strace -e trace=pread64 -o "$tmp/st-lib" "$prog" events "$f" \
		> /dev/null 2>&1
	lbig=$(grep -c 'pread64(.*, 262144,' "$tmp/st-lib")
	sized() { [ "$big" -gt 4 ] && [ "$lbig" = 0 ]; }
	check "the sub-buffers come in reads of 256 KiB ($big; through libtracecmd $lbig)" sized
else
	skip "reads in pieces" "strace is not installed"
fi
echo "1..$n"
