#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A trace.dat is read sub-buffer by sub-buffer by tlbscope itself (parsers/tracedat.c),
# compressed chunks inflated one at a time, not through tracecmd_read_data(): the events
# must be exactly what the library gives (TLBSCOPE_TRACEDAT_LIBRARY=1), with
# TLBSCOPE_TRACEDAT_DIRECT=1 making sure tlbscope's own reader is the one compared.  On
# every corpus trace, this machine's captures (a fresh one in tracedat-capture.sh, which
# traces: this script runs beside others), buffers that list some CPUs only or in another
# order, and uncompressed copies (v6, v7) that must give what the compressed original
# gives, lost events included; a corrupt record or chunk is the same message either way;
# and the file is read in bounded pieces.
T=tracedat-direct
. "$(dirname "$0")/../lib.sh"

for f in "$top"/corpus/traces/*/trace.dat "$fx"/x86-*.dat; do
	dat_both "${f#"$top"/}" "$f"
done
# buffers that list some CPUs only (trace-cmd writes no entry for a CPU without data): the
# first 200 and 50 events of the 8-CPU run (7 and 4 of its CPUs), and its CPUs listed last
# first; each must be read directly (CPUs by number, not by place in the list)
eight=$top/corpus/traces/hackbench-aia-8cpu/trace.dat
if command -v trace-cmd > /dev/null; then
	for e in 200 50; do
		trace-cmd split -i "$eight" -e $e -o "$tmp/split$e" > /dev/null 2>&1
		listed=$(trace-cmd dump --options -i "$tmp/split$e.1" 2>&1 | grep -c 'data offset and size')
		dat_both "the first $e events of the 8-CPU run ($listed CPUs listed)" \
			"$tmp/split$e.1"
		check "... CPUs left out of the list ($listed)" [ "$listed" -lt 8 ]
	done
else
	skip "buffers that list some CPUs" "trace-cmd is not installed (its split makes them)"
fi
python3 "$top/tests/fuzz/corrupt-dat.py" "$eight" cpu-unlisted "$tmp/unlisted.dat"
dat_both "the 8-CPU run, CPU 6 not listed (7 of 8, as when one never came online)" \
	"$tmp/unlisted.dat"
check "... no event on CPU 6, all of the others'" [ "$(TLBSCOPE_TRACEDAT_DIRECT=1 tls events "$tmp/unlisted.dat" |
	jq -r 'select(.cpu != null) | .cpu' | sort -u | tr '\n' ' ')" = "0 1 2 3 4 5 7 " ]
python3 "$top/tests/fuzz/corrupt-dat.py" "$eight" cpus-reversed "$tmp/reversed.dat"
dat_both "the 8-CPU run, its CPUs listed last first" "$tmp/reversed.dat"
dat_own events "$eight" > "$tmp/eight.own"
dat_own events "$tmp/reversed.dat" > "$tmp/reversed.own"
same_file "... the events of the original" "$tmp/eight.own" "$tmp/reversed.own"
# a chunk after a CPU's first that does not inflate: checked as tlbscope's reader inflates
# it, or by the checks before the library reads: the same message and status
python3 "$top/tests/fuzz/corrupt-dat.py" "$top/corpus/traces/hackbench-aia-4cpu/trace.dat" \
	chunk-garbage-late "$tmp/late.dat"
same "a later chunk that does not inflate: the same message and status either way" \
	"$(dat_lib report "$tmp/late.dat")" "$(dat_own report "$tmp/late.dat")"
check "... the chunk named" grep -q "cpu 1, chunk 1 at offset" <(dat_own report "$tmp/late.dat")
same "x86-lost.dat: it has lost events" "true" \
	"$(tls info --json "$fx/x86-lost.dat" | jq '.lost_events > 0')"
if ! command -v trace-cmd > /dev/null; then
	skip "uncompressed files" "trace-cmd is not installed (its convert makes the files)"
	echo "1..$n"
	exit 0
fi
# compressed v7 files (read by the library) uncompressed, as v7 and as v6: captures of
# this machine in an instance buffer (one with lost events) and RISC-V corpus runs
for orig in "$fx"/x86-hackbench.dat "$fx"/x86-lost.dat "$fx"/x86-threads-tgid.dat \
	"$top"/corpus/traces/{hackbench-aia-4cpu,mmapstress-lazy-t6q32-aia-4cpu,hackbench-renamed-aia-4cpu}/trace.dat; do
	run=${orig#"$top"/}
	dat_own events "$orig" > "$tmp/want.own"
	for v in 6 7; do
		f=$tmp/$(echo "$run" | tr / _)-v$v.dat
		if [ $v = 7 ]; then
			trace-cmd convert -i "$orig" --file-version 7 --compression none -o "$f" \
				> /dev/null 2>&1
		else
			trace-cmd convert -i "$orig" --file-version 6 -o "$f" > /dev/null 2>&1
		fi
		dat_own events "$f" > "$tmp/f.own"
		dat_lib events "$f" > "$tmp/f.lib"
		same_file "$run, v$v uncompressed: the events of the compressed original" \
			"$tmp/want.own" "$tmp/f.own"
		same_file "$run, v$v uncompressed: the same events as through libtracecmd" \
			"$tmp/f.lib" "$tmp/f.own"
	done
done

# a record whose length runs past its sub-buffer, in the middle of the data
f=$tmp/corpus_traces_hackbench-aia-4cpu_trace.dat-v6.dat
cp "$f" "$tmp/bad.dat"
ps=4096
off=$(( ($(stat -c %s "$f") / ps - 40) * ps + 16 ))
printf '\377\377\377\377' | dd of="$tmp/bad.dat" bs=1 seek=$off conv=notrunc status=none
same "a corrupt record: the same message and status either way" "$(dat_lib report "$tmp/bad.dat")" \
	"$(dat_own report "$tmp/bad.dat")"

# the sub-buffers read in pieces (256 KiB, or a CPU's whole data when smaller), not a
# sub-buffer per read, in the top-level buffer and in an instance (the header sections
# before them, kallsyms among them, are read whole).  In the top-level buffer each byte of
# the data is read once: the checks leave the commits of the sub-buffers after each CPU's
# first to this reader
if command -v strace > /dev/null; then
	top_level=$f
	for f in "$f" "$tmp/tests_fixtures_x86-lost.dat-v7.dat"; do
		# where the first CPU's data starts (v6: the flyrecord table; v7: option BUFFER)
		start=$(trace-cmd dump --flyrecord --options -i "$f" 2>&1 | awk '
			/offset, size of cpu/ { o = $1 } /data offset and size/ { o = $2 }
			/offset, size of cpu|data offset and size/ { if (o > 0 && (m == "" || o < m)) m = o }
			END { print m + 0 }')
		# -j 1: the reads on this thread (workers read the same pieces, tracedat-walk.c)
		strace -e trace=pread64 -o "$tmp/st" "$prog" events -j 1 "$f" > /dev/null 2>&1
		# reads of more than 8 KiB in the data: how many, their bytes, how many over 256 KiB
		read -r reads bytes over <<< "$(awk -F', ' -v start="$start" '$4 + 0 < start { next }
			$3 + 0 > 8192 { n++; b += $3 } $3 + 0 > 262144 { o++ }
			END { print n + 0, b + 0, o + 0 }' "$tmp/st")"
		check "${f##*/}: sub-buffers read in pieces of at most 256 KiB ($reads reads)" \
			[ "$reads" -gt 1 -a "$over" = 0 ]
		[ "$f" = "$top_level" ] &&
			check "${f##*/}: the data read once ($bytes bytes in pieces, the file $(stat -c %s "$f"))" \
				[ "$bytes" -le "$(stat -c %s "$f")" ]
	done
else
	skip "reads in pieces" "strace is not installed"
fi
echo "1..$n"
