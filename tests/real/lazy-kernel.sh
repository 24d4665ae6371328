#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The corpus's lazy-flush kernel traces (corpus/traces/*-lazy-t<T>q<Q>-*): tlbscope's
# lazy(T, Q) replay at the kernel's own parameters predicts, CPU by CPU, the flush IPIs
# (csd), deferrals (lazy_tlb_defer), overflows, evictions (local_flush_tlb_mm) and table
# resets the kernel made, each lazy_tlb_defer decision, and as many mm switches as its
# local_load_tlb_mm calls
# (corpus/lazy-compare.sh).  At other parameters it does not, so the check can fail.
T=lazy-kernel
. "$(dirname "$0")/../lib.sh"
for c in trace-cmd jq; do
	command -v $c > /dev/null || { skip "all" "$c not installed"; exit 0; }
done
# Known, and pinned: when an mm ends.  The timeline ends it at its exit_mmap's last full
# flush (tl_exit_teardown); the kernel drops it from the tables at the END of exit_mmap
# (lazy_tlb_exit_mm, not probed in that run: the runs that probe it end the mm there, below).  In hackbench-lazy-t6q32-aia-4cpu-r4, CPU 2 switched to
# PID 1's mm 4 ms after pid 259's teardown flush of 0xff600000051ff300 with that exit_mmap
# still running: the kernel still held its slot and evicted 0xff60000000c197c0, the model
# had the slot free.  One eviction of 8494; every other count and decision equal.
declare -A known=(	# run -> "CPU|its row of lazy-compare.sh's table"
	[hackbench-lazy-t6q32-aia-4cpu-r4]="2|| 2 | 1 / 1 | 101 / 101 | 0 / 0 | 2113 / 2112 | 0 / 0 |"
)
found=0
for f in "$top"/corpus/traces/*-lazy-t*q*-*/trace.dat; do
	[ -f "$f" ] || continue
	found=1
	run=$(basename "$(dirname "$f")")
	tq=$(echo "$run" | sed -n 's/.*-lazy-t\([0-9]*\)q\([0-9]*\)-.*/\1 \2/p')
	# shellcheck disable=SC2086
	TLBSCOPE=$prog bash "$top/corpus/lazy-compare.sh" "$f" $tq > "$tmp/c.txt" 2>&1
	rc=$?
	# the whole trace's table (a second one, from each CPU's known load on, may follow)
	sed '/^From each CPU/,$d' "$tmp/c.txt" > "$tmp/c1.txt"
	if [ -n "${known[$run]:-}" ]; then
		# the one CPU row that differs, exactly as pinned; every other row equal on both sides
		kcpu=${known[$run]%%|*}
		same "$run: kernel = lazy($tq) model but the known eviction (timeline ends an exiting mm early)" \
			"1 ${known[$run]#*|}" "$rc $(grep -F "| $kcpu |" "$tmp/c1.txt")"
		check "$run: ... every other CPU, every counter, every decision equal" awk -F'|' -v k="$kcpu" '
			/^\| [0-9]+ \|/ && $2 + 0 != k {
				for (i = 3; i <= 7; i++) { split($i, a, " / "); if (a[1] + 0 != a[2] + 0) bad = 1 } }
			/^decisions/ && !/differ 0:/ { bad = 1 } END { exit bad }' "$tmp/c1.txt"
	else
		same "$run: kernel = lazy($tq) model on every CPU, every counter, every decision" 0 $rc
		[ $rc = 0 ] || sed 's/^/#   /' "$tmp/c.txt" | head -20
	fi
	check "$run: mm switches = the kernel's local_load_tlb_mm calls ($(sed -n 's/^kernel: //p' "$tmp/c.txt"))" \
		awk '/^kernel: local_load_tlb_mm/ { exit !($3 + 0 == $6 + 0 && $6 + 0 > 0) }' "$tmp/c.txt"
done
[ $found = 1 ] || { skip "all" "no lazy-kernel trace in corpus/traces"; exit 0; }
f=$top/corpus/traces/hackbench-lazy-t2q4-aia-4cpu/trace.dat
if [ -f "$f" ]; then
	TLBSCOPE=$prog bash "$top/corpus/lazy-compare.sh" "$f" 6 32 > "$tmp/c.txt" 2>&1
	same "hackbench-lazy-t2q4 replayed at the wrong (6, 32): the check fails" 1 $?
	# a report in a form the script does not read (a decimal comma here) is not a kernel
	# that did nothing: exit 2, with the lines it could not read
	mkdir -p "$tmp/bin"
	printf '#!/bin/sh\n%s "$@" | sed "s/\\([0-9]\\)\\.\\([0-9]\\)/\\1,\\2/"\n' \
		"$(command -v trace-cmd)" > "$tmp/bin/trace-cmd"
	chmod +x "$tmp/bin/trace-cmd"
	PATH=$tmp/bin:$PATH TLBSCOPE=$prog bash "$top/corpus/lazy-compare.sh" "$f" 2 4 \
		> "$tmp/c.txt" 2> "$tmp/c.err"
	same "a trace-cmd report lazy-compare cannot read: exit 2, no table" "2 0" \
		"$? $(grep -c '^|' "$tmp/c.txt")"
	check "... it says how many lines it read, and shows them" grep -q \
		'trace-cmd report: 0 of [0-9]* lines read as' "$tmp/c.err"
	# raw nanoseconds ("[002]191907508200:"), as trace-cmd 3.1 prints at times for a
	# trace.dat with an empty TRACECLOCK option: read as the seconds they are
	printf '#!/bin/sh\n%s "$@" | sed -E "s/(\\\\[[0-9]+\\\\]) +([0-9]+)\\\\.([0-9]{9}):/\\\\1\\\\2\\\\3:/"\n' \
		"$(command -v trace-cmd)" > "$tmp/bin/trace-cmd"
	PATH=$tmp/bin:$PATH TLBSCOPE=$prog bash "$top/corpus/lazy-compare.sh" "$f" 2 4 \
		> "$tmp/c.txt" 2>&1
	same "a report in raw nanoseconds reads as the same kernel (exit 0)" 0 $?
fi
# the same replay from tlbscope's own JSON lines (initial and commit loads kept)
f=$top/corpus/traces/forkexec-lazy-t6q32-aia-4cpu/trace.dat
if [ -f "$f" ]; then
	tls events "$f" > "$tmp/fe.jsonl"
	check "forkexec-lazy-t6q32: the JSON lines carry the initial and the table loads" \
		sh -c "grep -q '\"initial\":true' '$tmp/fe.jsonl' && grep -q '\"commit\":true' '$tmp/fe.jsonl'"
	same "forkexec-lazy-t6q32: tune --direct 6,32 of its JSON lines = of the trace" \
		"$(tls tune --direct 6,32 --json "$f" | jq -S 'del(.input)')" \
		"$(tls tune --direct 6,32 --json "$tmp/fe.jsonl" | jq -S 'del(.input)')"
fi

# The kernel's own end of an mm (lazy_tlb_exit_mm, probed in the runs recorded since
# gen-probes.sh adds it): every probe ends one mm of the replay (exact above); the same
# replay from the trace.dat with the probe renamed (found by its symbol, mm by position),
# its trace-cmd text, that text as perf script prints it and its JSON lines; without the
# probe's lines the end is guessed again (tl_exit_teardown), and mms end elsewhere.
probed=0
for f in "$top"/corpus/traces/*-lazy-t*q*-*/trace.dat; do
	run=$(basename "$(dirname "$f")")
	trace-cmd report "$f" 2> /dev/null > "$tmp/x.txt"
	np=$(grep -c ' lazy_tlb_exit_mm: ' "$tmp/x.txt")
	[ "$np" -gt 0 ] || continue
	probed=$((probed + 1))
	d=$(echo "$run" | sed -n 's/.*-lazy-t\([0-9]*\)q\([0-9]*\)-.*/\1,\2/p')
	tls events "$f" > "$tmp/x.jsonl"
	same "$run: each of its $np lazy_tlb_exit_mm ends one mm, there" "$np" \
		"$(grep '"kind":"exit","event":"lazy_tlb_exit_mm"' "$tmp/x.jsonl" | grep -c '"mm":"p')"
	same "$run: no other event ends an mm" "$np" \
		"$(grep '"kind":"exit"' "$tmp/x.jsonl" | grep -vc '"mm":null')"
	# (the known loads' times left out: trace-cmd's text has microseconds)
	nots='.direct | del(.cpus[].table_known_ns)'
	want=$(tls tune --direct "$d" --json "$f" | jq -cS "$nots")
	sed -E '/^cpus=/d
		s/^( *)(.*)-([0-9]+) +\[([0-9]+)\] +([.a-zA-Z0-9]{4,6} +)?([0-9]+\.[0-9]+): +([a-z_0-9]+): +/\1\2 \3 [\4] \6: grp:\7: /' \
		"$tmp/x.txt" > "$tmp/x-perf.txt"
	forms="x.txt x-perf.txt x.jsonl"
	if trace-cmd convert -i "$f" --file-version 6 --compression none -o "$tmp/x6.dat" \
		> /dev/null 2>&1; then
		"$fx/probe-rename.py" dat "$tmp/x6.dat" "$tmp/x-renamed.dat"
		check "$run: renamed, no lazy_tlb_exit_mm event is left" \
			sh -c "! trace-cmd report '$tmp/x-renamed.dat' 2>/dev/null | grep -q ' lazy_tlb_exit_mm:'"
		forms="$forms x-renamed.dat"
	fi
	for x in $forms; do
		same "$run: $x: its mms end at the $np probes too" "$np" \
			"$(tls events "$tmp/$x" 2> /dev/null | grep '"kind":"exit"' | grep '"mm_ptr"' |
				grep -vc '"mm":null')"
		same "$run: tune --direct $d of $x = of the trace.dat" "$want" \
			"$(tls tune --direct "$d" --json "$tmp/$x" 2> /dev/null | jq -cS "$nots")"
	done
	grep -v ' lazy_tlb_exit_mm: ' "$tmp/x.txt" > "$tmp/x-guess.txt"
	tls events "$tmp/x-guess.txt" > "$tmp/x-guess.jsonl"
	# mms whose end is at another time with the guess
	moved=$(awk '
		FNR == 1 { file++ }
		/"kind":"exit"/ && !/"mm":null/ { match($0, /"ts":[0-9]+/); ts = substr($0, RSTART + 5, RLENGTH - 5)
			match($0, /"mm":"[^"]*"/); mm = substr($0, RSTART, RLENGTH)
			if (file == 1) t[mm] = ts; else if (mm in t && t[mm] != ts) n++ }
		END { print n + 0 }' "$tmp/x.jsonl" "$tmp/x-guess.jsonl")
	check "$run: without the probe the mms end elsewhere (guessed: $moved of $np moved)" \
		[ "$moved" -gt 0 ]
done
[ $probed -gt 0 ] || skip "lazy_tlb_exit_mm" "no corpus run has the probe"

# the kernel's own Q, read from its lazy_tlb_defer decisions: the entries a slot held when it
# overflowed (counted from the load that emptied it); without an overflow it is not in the
# trace, and the longest queue seen is never more than the kernel's Q
for f in "$top"/corpus/traces/*-lazy-t*q*-*/trace.dat; do
	run=$(basename "$(dirname "$f")")
	q=$(echo "$run" | sed -n 's/.*-lazy-t[0-9]*q\([0-9]*\)-.*/\1/p')
	tls tune --json "$f" > "$tmp/q.json"
	IFS=$'\t' read -r found src longest <<< "$(jq -r '.recommendation.base | [.queue_found, .queue_source, .queue_longest_seen] | @tsv' "$tmp/q.json")"
	check "$run: the longest queue seen ($longest) <= the kernel's Q ($q)" test "$longest" -le "$q"
	if [ "$src" = trace ]; then
		same "$run: Q read from an overflow = the kernel's" "$q" "$found"
	elif [ "$src" = "the kernel's command line" ]; then
		same "$run: Q read from the kernel command line in the trace = the kernel's" "$q" "$found"
	else
		same "$run: no overflow, Q not read: the default, said so" "default 32" "$src $found"
	fi
done
for run in forkexec-lazy-t2q4-aia-4cpu forkexec-lazy-t6q32-aia-4cpu; do
	f=$top/corpus/traces/$run/trace.dat
	same "$run: an overflow shows, Q comes from the trace" "trace" \
		"$(tls tune --json "$f" | jq -r .recommendation.base.queue_source)"
	tls events "$f" > "$tmp/q.jsonl"
	same "$run: its JSON lines carry the decisions: the same base" \
		"$(tls tune --json "$f" | jq -c '.recommendation.base')" \
		"$(tls tune --json "$tmp/q.jsonl" | jq -c '.recommendation.base')"
	tls tune --save-profile "$tmp/p.json" "$f" > /dev/null
	same "$run: a saved profile keeps the kernel's Q" \
		"$(tls tune --json "$f" | jq -c '.recommendation.base')" \
		"$(tls tune --json "$tmp/p.json" | jq -c '.recommendation.base')"
done
echo "1..$n"
