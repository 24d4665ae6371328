#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# report's explanations of the flush IPIs (cli/report-explain.c) add up to report's own
# counts on every corpus trace and this machine's captures: callers to the requests and
# IPIs, the sender x target matrix to each CPU's IPIs sent and the total, the per-process
# rows to the processes table; the worst burst is recounted from `tlbscope events`.
T=explain
. "$(dirname "$0")/../lib.sh"

for t in "$top"/corpus/traces/*/trace.dat "$fx"/x86-hackbench.dat "$fx"/x86-lost.dat; do
	name=$(basename "$(dirname "$t")")
	[ "$name" = fixtures ] && name=$(basename "$t" .dat)
	tls report --json "$t" > "$tmp/r.json" || { not_ok "$name: report failed"; continue; }
	same "$name: callers' requests and IPIs = the totals" \
		"$(jq -r '[.totals.flush_requests, (.totals.flush_ipis // "null")] | @tsv' "$tmp/r.json")" \
		"$(jq -r '[([.callers[].flush_requests] | add // 0),
			(if .totals.flush_ipis == null then "null" else ([.callers[].flush_ipis] | add // 0) end)] | @tsv' "$tmp/r.json")"
	if [ "$(jq '.ipi_matrix' "$tmp/r.json")" = null ]; then
		same "$name: no IPI evidence, no matrix" null "$(jq '.totals.flush_ipis' "$tmp/r.json")"
		continue
	fi
	same "$name: each matrix row adds up to the CPU's IPIs sent" \
		"$(jq -c '[.cpus[].flush_ipis_sent]' "$tmp/r.json")" \
		"$(jq -c '[.ipi_matrix.rows[] | add]' "$tmp/r.json")"
	same "$name: the matrix (and unknown senders) add up to the flush IPIs" \
		"$(jq '.totals.flush_ipis' "$tmp/r.json")" \
		"$(jq '([.ipi_matrix.rows[][]] | add // 0) + ([.ipi_matrix.unknown_sender[]?] | add // 0)' "$tmp/r.json")"
	same "$name: per-process IPIs = the processes table's" \
		"$(jq -c '[.processes[] | select(.flush_ipis > 0) | [.mm, .flush_ipis]] | sort' "$tmp/r.json")" \
		"$(jq -c '[.ipis_not_running[] | [.mm, .flush_ipis]] | sort' "$tmp/r.json")"
	check "$name: targets not running <= IPIs, bursts in decreasing order" jq -e '
		(all(.ipis_not_running[]; .targets_not_running <= .flush_ipis)) and
		([.ipi_bursts.worst[].flush_ipis] as $w | $w == ($w | sort | reverse))' "$tmp/r.json"
done > "$tmp/out"
grep -v '^true$' "$tmp/out"
n=$(grep -c '^\(not \)\?ok' "$tmp/out")

# the targets not running the mm are those the models tell apart: stock_asid's IPIs minus
# lazy's (which interrupts only CPUs with the mm active), within 0.5 % of the IPIs
for run in hackbench-aia-4cpu mmapstress-aia-4cpu forkexec-aia-4cpu mmap-aia-4cpu \
	pagefault-aia-4cpu hackbench-aia-8cpu; do
	t=$top/corpus/traces/$run/trace.dat
	nr=$(tls report --json "$t" | jq '[.ipis_not_running[].targets_not_running] | add // 0')
	read -r stock ideal <<< "$(tls tune --json --threshold 6 --queue 32 "$t" | jq -r \
		'[.models.stock_asid.ipis, .models.lazy.ipis] | @tsv')"
	[ -n "$stock" ] && [ -n "$ideal" ] || { not_ok "$run: tune --json gave no model IPIs"; continue; }
	check "$run: targets not running the mm ($nr) = stock - lazy ($stock - $ideal) within 0.5 %" \
		awk -v a="$nr" -v b=$((stock - ideal)) -v s="$stock" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= s * 0.005) }'
done

# boot: init's flush IPIs all follow its own __flush_tlb_range of kernel mappings (mm=0x0,
# vmap): no model could queue them, so none is "to a CPU not running the mm"
b=$top/corpus/traces/boot-aia-4cpu/trace.dat
if [ -f "$b" ] && command -v trace-cmd > /dev/null; then
	k=$(trace-cmd report "$b" 2> /dev/null | awk '
		/ __flush_tlb_range: / { kern[$2] = / mm=0x0 / }
		/ csd_queue_cpu: .*func=__ipi_flush_tlb_range_asid/ && kern[$2] && $1 == "init-1" { n++ }
		END { print n + 0 }')
	same "boot-aia-4cpu: init's IPIs, all of kernel-range flushes ($k), none to a CPU 'not running the mm'" \
		"$k 0" "$(tls report --json "$b" | jq -r '.ipis_not_running[] | select(.pid == 1) |
			"\(.flush_ipis) \(.targets_not_running)"')"
fi

# the worst burst of hackbench, recounted from the event stream: csd_queue_cpu TLB calls
# to other CPUs in [start, start + 10 ms)
h=$top/corpus/traces/hackbench-aia-4cpu/trace.dat
read -r start len want <<< "$(tls report --json "$h" | jq -r '.ipi_bursts.worst[0] | [.start_ns, .length_ns, .flush_ipis] | @tsv')"
got=$(tls events "$h" | jq -s --argjson s "$start" --argjson l "$len" '[.[] | select(.event == "csd_queue_cpu"
	and .tlb == true and .ts >= $s and .ts < $s + $l) | .cpu as $c | .targets[] | select(. != $c)] | length')
same "hackbench: the worst burst's IPIs recounted from the events" "$want" "$got"
# text: the sections are there
tls report "$h" > "$tmp/r.txt"
for s in "Flush requests and IPIs by kernel caller" "Flush IPIs, sender (rows) x target (columns)" \
	"Flush IPIs to CPUs not running the mm" "Worst bursts of flush IPIs"; do
	check "text: '$s'" grep -qF "$s" "$tmp/r.txt"
done
echo "1..$n"
