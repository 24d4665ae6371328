#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Prediction checked against real runs (docs/prediction.md): every lazy-kernel run of the
# corpus, the repeated runs (NAME-rN) included, predicts its own setting exactly (flush
# IPIs, evictions, deferrals, overflows, flush requests as trace-cmd report counts them);
# each workload with repeated runs has its noise row (the run-to-run spread at that setting,
# each repeat's counts as trace-cmd report gives them)
# and every prediction of it across settings a verdict against that spread; and the
# published tables are what the script prints.
T=lazy-predict
. "$(dirname "$0")/../lib.sh"
command -v jq > /dev/null || { skip "all" "jq not installed"; exit 0; }
command -v trace-cmd > /dev/null || { skip "all" "trace-cmd not installed (Debian package trace-cmd)"; exit 0; }
ls "$top"/corpus/traces/*-lazy-t2q4-aia-4cpu/trace.dat > /dev/null 2>&1 ||
	{ skip "all" "the corpus's lazy-kernel runs are missing"; exit 0; }

"$top/corpus/lazy-predict.sh" "$prog" > "$tmp/table.md"
# the runs, and the repeats of a setting that has two or more (the noise floor; a single
# repeat, such as forkexec-lazy-t12q64-aia-4cpu-r2, is not replayed there)
runs=$(ls -d "$top"/corpus/traces/{forkexec,hackbench,mmap,mmapstress,pagefault}-lazy-t*q*-aia-4cpu{,-r[0-9]*} \
	2> /dev/null | awk '{ base = $0; sub(/-r[0-9]+$/, "", base); n[base] += (base != $0); all[NR] = $0 }
	END { for (i = 1; i <= NR; i++) { b = all[i]; r = sub(/-r[0-9]+$/, "", b)
		if (!r || n[b] >= 2) c++ }; print c + 0 }')
rows=$(awk -F'|' '$3 ~ /T=/ && $3 == $4' "$tmp/table.md" | wc -l)
same "every run, repeats included, predicts its own setting (rows = runs)" "$runs" "$rows"
# but one known eviction (tests/real/lazy-kernel.sh: the timeline ends an exiting mm at its
# teardown flush, the kernel at the end of exit_mmap), pinned
known="| hackbench | T=6 Q=32 r4 | T=6 Q=32 r4 | 1 / 1 (exact) | 8493 / 8494 (-0.01 %, within noise) | 163 / 163 (exact) | 0 / 0 (exact) | 1805 / 1805 (exact) |"
bad=$(awk -F'|' -v k="$known" '$3 ~ /T=/ && $3 == $4 && $0 != k && ($5 !~ /exact/ || $6 !~ /exact/ ||
	$7 !~ /exact/ || $8 !~ /exact/ || $9 !~ /exact/)' "$tmp/table.md")
check "... exactly, every count of every row (but the known one)" [ -z "$bad" ]
if [ -f "$top/corpus/traces/hackbench-lazy-t6q32-aia-4cpu-r4/trace.dat" ]; then
	check "hackbench-lazy-t6q32-aia-4cpu-r4: its own setting, the known eviction as pinned" \
		grep -qxF "$known" "$tmp/table.md"
fi
for w in hackbench mmapstress; do
	r=$top/corpus/traces/$w-lazy-t6q32-aia-4cpu
	if [ ! -f "$r-r2/trace.dat" ] || [ ! -f "$r-r3/trace.dat" ] || [ ! -f "$r-r4/trace.dat" ]; then
		skip "$w: noise row" "the repeated runs $w-lazy-t6q32-aia-4cpu-r2, -r3, -r4 are missing"
		continue
	fi
	check "$w: a noise row of 3 repeats or more at T=6 Q=32" \
		awk -F'|' -v w=" $w " '$2 == w && $3 ~ /^ noise: [0-9]+ repeats at T=6 Q=32 $/ {
			split($3, a, " "); if (a[2] >= 3) f = 1 } END { exit !f }' "$tmp/table.md"
	# the spread of each count = trace-cmd report's counts of the repeated runs
	want=$(for d in "$r"-r[0-9]*; do trace-cmd report "$d/trace.dat" 2> /dev/null | awk '
		/ csd_queue_cpu: / && /func=__ipi_flush_tlb/ { ipi++ }
		/ local_flush_tlb_mm: / { ev++ }
		/ lazy_tlb_defer: / { d = $NF; sub(/decision=/, "", d); if (d != 0) df++ }
		/ __flush_tlb_range: / { rq++ }
		END { printf "%d %d %d %d\n", ipi, ev, df, rq }'; done | awk '
		{ for (i = 1; i <= 4; i++) v[i] = v[i] (NR > 1 ? " " : "") $i }
		END { print v[1] "|" v[2] "|" v[3] "|" v[4] }')
	same "$w: the noise row holds each repeated run's counts" "$want" \
		"$(awk -F'|' -v w=" $w " '$2 == w && $3 ~ /noise:/ {
			for (i = 5; i <= 9; i++) { if (i == 8) continue; c = $i; sub(/^ /, "", c)
				sub(/ \(spread.*/, "", c); s = s (s == "" ? "" : "|") c }
			print s }' "$tmp/table.md")"
	check "$w: the run repeated, each count set against the repeats' range" \
		awk -F'|' -v w=" $w " '$2 == w && $3 ~ /the run repeated/ { f = 1
			for (i = 5; i <= 9; i++) if ($i !~ /^ [0-9]+ \((inside|[0-9]+ below|[0-9]+ above)\) $/) f = 0 }
			END { exit !f }' "$tmp/table.md"
	nov=$(awk -F'|' -v w=" $w " '$2 == w && $3 ~ /^ T=[0-9]+ Q=[0-9]+( r[0-9]+)? $/ && $4 ~ /^ T=/ && $3 != $4 {
		for (i = 5; i <= 9; i++) if ($i !~ /exact|within noise|outside noise/) n++ } END { print n + 0 }' \
		"$tmp/table.md")
	same "$w: every prediction across settings has its verdict against the noise" 0 "$nov"
done
check "docs/prediction.md holds the tables the script prints" \
	cmp -s "$tmp/table.md" <(sed -n '/^| workload /,$p' "$top/docs/prediction.md")
echo "1..$n"
