#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Prediction checked against real runs: each lazy-kernel corpus run, replayed at the
# (T, Q) of the other runs of the same workload (tune --direct), against those runs' own
# kernel counts, read with trace-cmd report alone: flush IPIs (csd_queue_cpu of a flush
# callback), evictions (local_flush_tlb_mm), deferrals (lazy_tlb_defer decisions 1-4) and
# overflows (decision 3).  A run predicting its own point is the exactness check; the
# others are bounded by run-to-run variation, shown per workload as the spread of what no
# T or Q changes (flush requests, and the IPIs a stock kernel would send).
#   usage: corpus/lazy-predict.sh [TLBSCOPE]   (prints a markdown table)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prog=${1:-$top/tlbscope}
points="2,4 6,32 12,64"

kernel_counts() {	# trace.dat -> "IPIS EVICTIONS DEFERRALS OVERFLOWS"
	trace-cmd report "$1" 2>/dev/null | awk '
		/ csd_queue_cpu: / && /func=__ipi_flush_tlb/ { ipi++ }
		/ local_flush_tlb_mm: / { ev++ }
		/ lazy_tlb_defer: / { d = $NF; sub(/decision=/, "", d); if (d != 0) df++; if (d == 3) ov++ }
		END { printf "%d %d %d %d\n", ipi, ev, df, ov }'
}

pct() {	# predicted real -> signed error in percent, or "exact"
	awk -v p="$1" -v r="$2" 'BEGIN { if (p == r) print "exact";
		else if (r == 0) print "n/a (0 real)"; else printf "%+.1f %%\n", 100 * (p - r) / r }'
}

echo "| workload | replayed run | predicted at | flush IPIs (pred / real) | evictions | deferrals | overflows |"
echo "|---|---|---|---|---|---|---|"
for w in forkexec hackbench mmap mmapstress pagefault; do
	reqs="" stock=""
	for a in $points; do
		A=$top/corpus/traces/$w-lazy-t${a%,*}q${a#*,}-aia-4cpu/trace.dat
		[ -f "$A" ] || continue
		j=$("$prog" tune --json "$A")
		reqs="$reqs $(jq .input.requests <<< "$j")"
		stock="$stock $(jq .models.stock_asid.ipis <<< "$j")"
		for b in $points; do
			B=$top/corpus/traces/$w-lazy-t${b%,*}q${b#*,}-aia-4cpu/trace.dat
			[ -f "$B" ] || continue
			read -r pi pe pd po <<< "$("$prog" tune --json --direct "$b" "$A" |
				jq -r '.direct | "\(.ipis) \(.evictions) \(.deferred) \(.overflows)"')"
			read -r ki ke kd ko <<< "$(kernel_counts "$B")"
			echo "| $w | T=${a%,*} Q=${a#*,} | T=${b%,*} Q=${b#*,} | $pi / $ki ($(pct "$pi" "$ki")) |" \
			     "$pe / $ke ($(pct "$pe" "$ke")) | $pd / $kd ($(pct "$pd" "$kd")) |" \
			     "$po / $ko ($(pct "$po" "$ko")) |"
		done
	done
	spread() { tr ' ' '\n' <<< "$1" | awk 'NF { if (!n++ || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
		END { if (lo) printf "%.1f %%", 100 * (hi - lo) / lo; else print "n/a" }'; }
	echo "| $w | run-to-run spread | (no T, Q changes these) | flush requests:$reqs ($(spread "$reqs")) |" \
	     "stock IPIs:$stock ($(spread "$stock")) | | |"
done
