#!/bin/bash
# Kernel vs model on a lazy-kernel trace: what the kernel did (csd flush IPIs,
# lazy_tlb_defer decisions, local_flush_tlb_mm evictions, lazy_tlb_reset_local)
# against tlbscope's lazy(T, Q) replay at the kernel's own parameters, per CPU; exits 1
# when any counter of any CPU differs.  Then decision by decision: each lazy_tlb_defer
# (flush request, target CPU) against the model's (tune --decisions), and for each
# difference whether the kernel function's own timing explains it (the target was inside
# local_load_tlb_mm, between its probe and its table update, when the request was made;
# or it loaded the mm between the request's probe and the kernel's decision).
# Usage: lazy-compare.sh TRACE.dat T Q     (run from the repository root or corpus/)
set -euo pipefail
TRACE=$1 T=$2 Q=$3
TLBSCOPE=${TLBSCOPE:-$(cd "$(dirname "$0")/.." && pwd)/tlbscope}
R=$(mktemp); J=$(mktemp); D=$(mktemp)
trap 'rm -f "$R" "$J" "$D" "$R.k" "$R.m"' EXIT
# trace-cmd 3.3 (Debian 13) prints the latency flags ("d.h..") between the CPU and the
# timestamp; 3.1 (Debian 12) does not: dropped, so both read alike below
trace-cmd report -t -i "$TRACE" 2>/dev/null |
	sed -E 's/(\[[0-9]+\]) [.a-zA-Z0-9]{4,6} +([0-9]+\.[0-9]+:)/\1 \2/' > "$R"
"$TLBSCOPE" tune --direct "$T,$Q" --decisions "$D" --json "$TRACE" > "$J"
ncpu=$(jq '.direct.cpus | length' "$J")
# kernel, per CPU: ipis/deferred/overflows by target CPU, evictions/resets by the CPU itself
awk -v n="$ncpu" '
/csd_queue_cpu:.*func=__ipi_flush_tlb_range_asid/ { for (i = 1; i <= NF; i++) if ($i ~ /^cpu=/) { c = substr($i, 5) + 0; ipi[c]++ } }
/ lazy_tlb_defer: / {
    for (i = 1; i <= NF; i++) { if ($i ~ /^cpu=/) c = substr($i, 5) + 0; if ($i ~ /^decision=/) d = substr($i, 10) + 0 }
    dec[d]++
    if (d >= 1 && d <= 4) def[c]++
    if (d == 3) ovf[c]++
}
/ local_flush_tlb_mm: / { match($0, /\[[0-9]+\]/); c = substr($0, RSTART + 1, RLENGTH - 2) + 0; ev[c]++ }
/ lazy_tlb_reset_local: / { match($0, /\[[0-9]+\]/); c = substr($0, RSTART + 1, RLENGTH - 2) + 0; rs[c]++ }
END {
    for (c = 0; c < n; c++)
        printf "kernel %d %d %d %d %d %d\n", c, ipi[c], def[c], ovf[c], ev[c], rs[c]
    printf "decisions"; for (d = 0; d <= 6; d++) printf " %d", dec[d]; printf "\n"
}' "$R" > "$R.k"
jq -r '.direct.cpus[] | "model \(.cpu) \(.ipis) \(.deferred) \(.overflows) \(.evictions) \(.table_resets) \(.deferred_flushes)"' "$J" > "$R.m"
echo "trace: $TRACE   lazy(T=$T, Q=$Q)"
echo
echo "| CPU | flush IPIs kernel / model | deferred kernel / model | overflows kernel / model | evictions kernel / model | table resets kernel / model |"
echo "|---|---|---|---|---|---|"
join <(grep '^kernel ' "$R.k" | awk '{print $2, $3, $4, $5, $6, $7}' | sort) <(awk '{print $2, $3, $4, $5, $6, $7}' "$R.m" | sort) |
    awk '{ printf "| %d | %d / %d | %d / %d | %d / %d | %d / %d | %d / %d |\n", $1, $2, $7, $3, $8, $4, $9, $5, $10, $6, $11
           for (i = 0; i < 5; i++) { k[i] += $(i + 2); m[i] += $(i + 7) } }
         END { printf "| all | %d / %d | %d / %d | %d / %d | %d / %d | %d / %d |\n", k[0], m[0], k[1], m[1], k[2], m[2], k[3], m[3], k[4], m[4] }'
echo
awk '/^decisions/ { printf "kernel decisions (lazy_tlb_defer): IPI %d, queued %d, flag full %d, flag overflow %d, absorbed %d, gone %d, IPI no slot %d\n", $2, $3, $4, $5, $6, $7, $8 }' "$R.k"
echo "model: deferred_flushes (switch-ins that performed queued work) $(jq .direct.deferred_flushes "$J"); ideal IPIs $(jq .models.ideal.ipis "$J"); stock_asid IPIs $(jq .models.stock_asid.ipis "$J")"
echo "kernel: local_load_tlb_mm $(grep -c ' local_load_tlb_mm: ' "$R" || true), model mm_switches $(jq .input.mm_switches "$J")"
# decision by decision; the kernel's 6 (in the mask, not loaded, not active: IPI) is an IPI
awk -v D="$D" '
# a > b for nanosecond strings without leading zeros
function later(a, b) { return length(a) != length(b) ? length(a) > length(b) : a > b }
BEGIN {
    while ((getline line < D) > 0) {
        if (line ~ /^#/) continue
        split(line, f, " "); mdec[f[1] " " f[2] " " f[3]] = f[4]
    }
}
{
    if (!match($0, /\[[0-9]+\] +[0-9]+\.[0-9]+: [^:]+:/)) next
    split(substr($0, RSTART, RLENGTH), h, /[][ :]+/)
    # nanoseconds as a string: awk numbers would lose digits (and print as 7.6e+10)
    c = h[2] + 0; ts = h[3]; sub(/\./, "", ts); sub(/^0+/, "", ts); name = h[4]
    if (name == "__flush_tlb_range") {
        req[c] = ts
        for (t in last) if (t + 0 != c) inside[ts " " c " " t] = (last[t] == "local_load_tlb_mm" || last[t] == "local_flush_tlb_mm")
    } else if (name == "lazy_tlb_defer") {
        match($0, / cpu=[0-9]+/); t = substr($0, RSTART + 5, RLENGTH - 5) + 0
        match($0, /decision=[0-9]+/); d = substr($0, RSTART + 9, RLENGTH - 9) + 0
        k = req[c] " " c " " t
        kdec[k] = d == 6 ? 0 : d
        between[k] = (t in loaded) && later(loaded[t], req[c])
    }
    if (name == "local_load_tlb_mm") loaded[c] = ts
    last[c] = name
}
END {
    for (k in kdec) all[k] = 1
    for (k in mdec) all[k] = 1
    for (k in all) {
        n++
        if ((k in kdec) && (k in mdec) && kdec[k] == mdec[k]) { same++; continue }
        if (inside[k]) a++
        else if (between[k]) b++
        else if (++o <= 5) {
            split(k, kk, " ")
            ex = ex sprintf("  other: request at %s ns on CPU %s for CPU %s: kernel %s, model %s\n", kk[1], kk[2], kk[3], (k in kdec) ? kdec[k] : "none", (k in mdec) ? mdec[k] : "none")
        }
    }
    printf "decisions (request, target CPU): %d, equal %d; differ %d: %d with the target inside local_load_tlb_mm at the request, %d with the target loading between the request and the decision, %d other\n", n, same, n - same, a, b, o
    printf "%s", ex
    exit o > 0 ? 2 : (n > same ? 1 : 0)
}' "$R" && drc=0 || drc=$?
# the verdict: every counter of every CPU equal (exit status 1 otherwise)
if join <(grep '^kernel ' "$R.k" | awk '{print $2, $3, $4, $5, $6, $7}' | sort) \
	<(awk '{print $2, $3, $4, $5, $6, $7}' "$R.m" | sort) |
	awk '{ for (i = 2; i <= 6; i++) if ($i != $(i + 5)) bad = 1 } END { exit bad }' &&
	[ $drc = 0 ]; then
	echo "verdict: kernel = model on every CPU, every counter, every decision"
else
	echo "verdict: kernel and model differ (above)"
	exit 1
fi
