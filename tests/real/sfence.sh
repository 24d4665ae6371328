#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# report's sfence.vma account (tuner/sfence.c) on real traces.  Traces without site probes:
# the total is unknown (null, with why), never 0, and the flush fences by the kernel's rules
# are recounted here from `tlbscope events` (jq, apart from the C code).  The Svvptc runs
# of the corpus (site probes, and the kernel's own count in counts.json from the counter
# patch, docs/corpus-svvptc.md): the total within 2 % of the kernel's, the flush causes
# equal to the rules' count, the what-if from the baseline within 15 % of the Svvptc run,
# and Svvptc below the baseline.
T=sfence
. "$(dirname "$0")/../lib.sh"
command -v jq > /dev/null || { skip "all" "jq not installed"; exit 0; }
ct=$top/corpus/traces

# fences by local_flush_tlb_range_asid()'s rules, from the normalized events
recount() {
	tls events "$1" | jq -n --argjson cpus "$2" '
		def fences: if (.scope != "range" and .scope != "kernel") then 1 else
			((if (.stride // 4096) > 4096 then ((.pages * 4096 + .stride - 1) / .stride | floor)
			  else .pages end) as $n | if $n <= 1 or $n > 64 then 1 else $n end) end;
		reduce (inputs | select(.kind == "flush")) as $e (0;
			if $e.probe == "__ipi_flush_tlb_range_asid" then . + ($e | fences)
			elif $e.probe == "__flush_tlb_range" and $e.role == "request" and
			     $e.kernel_mask == [$e.cpu] then . + ($e | fences)
			elif $e.probe == "flush_tlb_all" and $e.role == "request" then . + $cpus
			else . end)'
}

for run in hackbench-aia-4cpu mmapstress-aia-4cpu pagefault-aia-4cpu forkexec-aia-4cpu \
	hackbench-sbi-4cpu; do
	t=$ct/$run/trace.dat
	tls report --json "$t" > "$tmp/r.json" || { not_ok "$run: report failed"; continue; }
	same "$run: no site probe, the total is unknown and says why" "null false true" \
		"$(jq -r '[.sfence.total, .sfence.exact, (.sfence.why | test("site probe"))] | map(tostring) | join(" ")' "$tmp/r.json")"
	same "$run: no site probe, no Svvptc what-if" "null" "$(jq '.whatif.svvptc' "$tmp/r.json")"
	cpus=$(jq '.span.cpus // 4' "$tmp/r.json")
	same "$run: flush fences by the kernel's rules = the events' recount" \
		"$(recount "$t" "$cpus")" \
		"$(jq '.sfence.flush_rules.range + .sfence.flush_rules.all' "$tmp/r.json")"
done
# the SBI machine's remote flushes are the firmware's fences, not the kernel's
same "hackbench-sbi-4cpu: SBI remote fences (calls) are counted apart" \
	"$(tls events "$ct/hackbench-sbi-4cpu/trace.dat" | jq -n '[inputs | select(.source == "sbi_remote_fence")] | length')" \
	"$(tls report --json "$ct/hackbench-sbi-4cpu/trace.dat" | jq '.sfence.flush_rules.sbi_remote_fences')"
# x86: nothing RISC-V to count from
same "x86 capture: the account is null with the reason" "null null" \
	"$(tls report --json "$fx/x86-hackbench.dat" | jq -r '[.sfence.total, .sfence.by_cause.flush_range] | map(tostring) | join(" ")')"
tls report "$fx/x86-hackbench.dat" 2>/dev/null |
	grep -q "^  n/a on x86_64: a RISC-V account (fences by cause, a Svvptc what-if)" &&
	ok "x86 capture: the text says n/a, the section is RISC-V's" ||
	not_ok "x86 capture: the text says n/a, the section is RISC-V's"
# the events stream carries site probes and vmalloc events both ways
printf '%s\n' '{"kind":"header","version":1,"cpus":2}' \
	'{"ts":1,"cpu":0,"kind":"switch","prev_pid":0,"next_pid":5,"next_comm":"a","mm":"m"}' \
	'{"ts":2,"cpu":0,"kind":"sfence","cause":"pte_new","count":3,"site":"set_pte_range"}' \
	'{"ts":3,"cpu":1,"kind":"vmalloc","start":8192,"pages":4}' > "$tmp/s.jsonl"
same "events: sfence and vmalloc kinds round-trip" \
	"$(tls events "$tmp/s.jsonl" | jq -c 'select(.kind == "sfence" or .kind == "vmalloc") | del(.ts, .cpu)')" \
	"$(tls events "$tmp/s.jsonl" | tls events - | jq -c 'select(.kind == "sfence" or .kind == "vmalloc") | del(.ts, .cpu)')"
same "events: the site probe's fences reach report" "3 3" \
	"$(tls report --json "$tmp/s.jsonl" | jq -r '[.sfence.total, .sfence.by_cause.pte_new] | map(tostring) | join(" ")')"

# ---- the Svvptc corpus runs: the kernel's own count (counts.json) against the trace's ----
pairs=0
for base in "$ct"/*-aia-4cpu; do
	name=$(basename "$base")
	[ -f "$base/counts.json" ] || continue
	tls report --json "$base/trace.dat" > "$tmp/b.json" || { not_ok "$name: report failed"; continue; }
	if [ "$(jq .sfence.exact "$tmp/b.json")" != true ]; then
		# a run made without the site probes (hackbench-renamed: a hand-made probe set)
		same "$name: no site probes, the total is unknown" null "$(jq .sfence.total "$tmp/b.json")"
		continue
	fi
	read -r got want <<< "$(jq -r '.sfence.total' "$tmp/b.json") $(jq -r '.sfence_vma' "$base/counts.json")"
	check "$name: sfence total $got within 2 % of the kernel's count $want" \
		awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.02 * b) }'
	case $name in
	*-lazy-*)
		# the lazy kernel replays queued flushes at switch_mm through the out-of-line
		# local_flush_tlb_range_threshold_asid(), whose fence site the corpus classifies
		# flush_range: the site probes count those too, the flush rules only requests'
		check "$name: the flush rules' fences <= the site probes' flush fences" jq -e \
			'.sfence.flush_rules.complete and .sfence.flush_rules.range + .sfence.flush_rules.all <=
			 .sfence.by_cause.flush_range + .sfence.by_cause.flush_all' "$tmp/b.json" > /dev/null
		;;
	*)
		same "$name: the site probes' flush fences = the flush rules'" \
			"$(jq '.sfence.by_cause.flush_range + .sfence.by_cause.flush_all' "$tmp/b.json")" \
			"$(jq 'if .sfence.flush_rules.complete then .sfence.flush_rules.range + .sfence.flush_rules.all else "incomplete" end' "$tmp/b.json")"
		;;
	esac
	case $name in
	*-svvptc-*|*-lazy-*) continue ;;
	esac
	sv=$ct/${name%-aia-4cpu}-svvptc-aia-4cpu
	[ -f "$sv/counts.json" ] || continue
	pairs=$((pairs + 1))
	whatif=$(jq '.whatif.svvptc.sfence' "$tmp/b.json")
	real=$(jq '.sfence_vma' "$sv/counts.json")
	check "$name: Svvptc what-if $whatif within 15 % of the Svvptc run's $real" \
		awk -v a="$whatif" -v b="$real" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.15 * b) }'
	check "$name: the Svvptc run executes fewer fences ($real < $want)" test "$real" -lt "$want"
done
# docs/corpus-svvptc.md's seeds' tables are what corpus/svvptc-table.sh makes with diff
got=$("$top/corpus/svvptc-table.sh" "$prog")
want=$(awk '/^## The seeds. tables/ { on = 1; next } on && /^## / { exit }
	on && /^\|/ { if (gap && n) print ""; print; n++; gap = 0; next } on && n { gap = 1 }' \
	"$top/docs/corpus-svvptc.md")
same "docs/corpus-svvptc.md's seeds' tables = corpus/svvptc-table.sh" "$want" "$got"
# the lazy seed's claim: mmapstress01 on the lazy kernel at (6, 32) sends >= 30 % fewer
ms=$ct/mmapstress01-aia-4cpu/trace.dat
msl=$ct/mmapstress01-lazy-t6q32-aia-4cpu/trace.dat
if [ -f "$ms" ] && [ -f "$msl" ]; then
	read -r a b <<< "$(tls report --json "$ms" | jq .totals.flush_ipis) $(tls report --json "$msl" | jq .totals.flush_ipis)"
	check "mmapstress01: lazy (6, 32) flush IPIs $b at least 30 % below stock's $a" \
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && b <= 0.7 * a) }'
fi
if [ "$pairs" -ge 3 ]; then ok "$pairs baseline/Svvptc pairs checked"
elif [ "$pairs" = 0 ]; then skip "baseline/Svvptc pairs" "the corpus has no counts.json (docs/corpus-svvptc.md, make -C corpus svvptc)"
else not_ok "only $pairs baseline/Svvptc pairs (3 wanted)"; fi
echo "1..$n"
