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
# Exit: 0 equal, 1 differ, 2 trace-cmd's report could not be read.
set -euo pipefail
TRACE=$1 T=$2 Q=$3
TLBSCOPE=${TLBSCOPE:-$(cd "$(dirname "$0")/.." && pwd)/tlbscope}
R=$(mktemp); J=$(mktemp); D=$(mktemp)
trap 'rm -f "$R" "$J" "$D" "$R.k" "$R.m" "$R.ms" "$R.known" "$R.err"' EXIT
# trace-cmd 3.3 (Debian 13) prints the latency flags ("d.h..") between the CPU and the
# timestamp; 3.1 (Debian 12) does not: dropped, so both read alike below.  And it prints
# raw nanoseconds ("[002]191907508200:") at times for a trace.dat whose TRACECLOCK option
# is empty (as v6 files have it: the clock follows the CPU data): reading that option it
# parses a buffer of 0 bytes, whatever the heap holds there.  Made seconds again.
trace-cmd report -t -i "$TRACE" 2> "$R.err" |
	sed -E 's/(\[[0-9]+\]) [.a-zA-Z0-9]{4,6} +([0-9]+\.[0-9]+:)/\1 \2/
		s/(\[[0-9]+\]) *([0-9]+)([0-9]{9}):/\1 \2.\3:/' > "$R"
# every event line below is read as "[CPU] SECONDS.NANOSECONDS: NAME:"; a report in
# another form would read as a kernel that did nothing: say so instead (exit 2)
events=$(grep -c ': ' "$R" || true)
headed=$(grep -cE '\[[0-9]+\] +[0-9]+\.[0-9]+: [^:]+:' "$R" || true)
if [ "$events" = 0 ] || [ "$headed" -lt $((events * 9 / 10)) ]; then
	echo "lazy-compare: $TRACE: trace-cmd report: $headed of $events lines read as \"[CPU] SECONDS: EVENT:\"; $(trace-cmd --version 2>&1 | grep -m1 version); its first lines and errors:" >&2
	grep -m 3 ': ' "$R" | cat -A | cut -c1-200 >&2
	head -n 5 "$R.err" >&2
	exit 2
fi
"$TLBSCOPE" tune --direct "$T,$Q" --decisions "$D" --json "$TRACE" > "$J"
ncpu=$(jq '.direct.cpus | length' "$J")
# the model's first load on each CPU once its table can hold nothing from before the
# recording ("CPU NS", null: never): its counters from then on are compared too
jq -r '.direct.cpus[] | "\(.cpu) \(.table_known_ns)"' "$J" > "$R.known"
# kernel, per CPU: ipis/deferred/overflows by target CPU, evictions/resets by the CPU
# itself; in the whole trace (kernel) and from the CPU's known load on (since): for a
# target, its requests made from then on
awk -v n="$ncpu" -v K="$R.known" '
function later(a, b) { return length(a) != length(b) ? length(a) > length(b) : a > b }
# event at @ts counted on CPU @c from the CPU'"'"'s known load on
function since(c, ts) { return (c in known) && !later(known[c], ts) }
BEGIN { while ((getline line < K) > 0) { split(line, f, " "); if (f[2] != "null") known[f[1]] = f[2] } }
{
    if (!match($0, /\[[0-9]+\] +[0-9]+\.[0-9]+: [^:]+:/)) next
    split(substr($0, RSTART, RLENGTH), h, /[][ :]+/)
    c = h[2] + 0; ts = h[3]; sub(/\./, "", ts); sub(/^0+/, "", ts); name = h[4]
}
# a kernel-range flush (mm 0) IPIs every CPU: the model counts those in its totals
# only, and so do these tables
name == "__flush_tlb_range" { req[c] = ts; kreq[c] = / mm=0x0 / }
name == "csd_queue_cpu" && /func=__ipi_flush_tlb_range_asid/ {
    match($0, / cpu=[0-9]+/); t = substr($0, RSTART + 5, RLENGTH - 5) + 0
    if (kreq[c]) { kipi++; next }
    ipi[t]++; if (since(t, req[c])) sipi[t]++
}
name == "lazy_tlb_defer" {
    match($0, / cpu=[0-9]+/); t = substr($0, RSTART + 5, RLENGTH - 5) + 0
    match($0, /decision=[0-9]+/); d = substr($0, RSTART + 9, RLENGTH - 9) + 0
    dec[d]++
    s = since(t, req[c])
    if (d >= 1 && d <= 4) { def[t]++; if (s) sdef[t]++ }
    if (d == 3) { ovf[t]++; if (s) sovf[t]++ }
}
name == "local_flush_tlb_mm" { ev[c]++; if (since(c, ts)) sev[c]++ }
name == "lazy_tlb_reset_local" { rs[c]++; if (since(c, ts)) srs[c]++ }
END {
    for (c = 0; c < n; c++) {
        printf "kernel %d %d %d %d %d %d\n", c, ipi[c], def[c], ovf[c], ev[c], rs[c]
        if (c in known)
            printf "since %d %d %d %d %d %d\n", c, sipi[c], sdef[c], sovf[c], sev[c], srs[c]
    }
    printf "decisions"; for (d = 0; d <= 6; d++) printf " %d", dec[d]; printf "\n"
    printf "kernel-range %d\n", kipi
}' "$R" > "$R.k"
jq -r '.direct.cpus[] | "model \(.cpu) \(.ipis) \(.deferred) \(.overflows) \(.evictions) \(.table_resets) \(.deferred_flushes)"' "$J" > "$R.m"
jq -r '.direct.cpus[] | select(.since_known) | .since_known as $s |
	"msince \(.cpu) \($s.ipis) \($s.deferred) \($s.overflows) \($s.evictions) \($s.table_resets)"' "$J" > "$R.ms"
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
echo "kernel: local_load_tlb_mm $(grep -c ' local_load_tlb_mm: ' "$R" || true), model mm_switches $(jq .input.mm_switches "$J"); flush IPIs of kernel-range flushes (mm 0, not in the table) $(sed -n 's/^kernel-range //p' "$R.k")"
# decision by decision; the kernel's 6 (in the mask, not loaded, not active: IPI) is an IPI
awk -v D="$D" '
# a > b for nanosecond strings without leading zeros
function later(a, b) { return length(a) != length(b) ? length(a) > length(b) : a > b }
BEGIN {
    while ((getline line < D) > 0) {
        if (line ~ /^#/) continue
        split(line, f, " ")
        # 7: the model could not decide, the target'"'"'s table possibly holding the mm
        # from before the recording
        if (f[4] == 7) unk[f[1] " " f[2] " " f[3]] = 1
        else mdec[f[1] " " f[2] " " f[3]] = f[4]
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
        if (!(k in mdec) && (k in unk)) u++
        else if (inside[k]) a++
        else if (between[k]) b++
        else if (++o <= 5) {
            split(k, kk, " ")
            ex = ex sprintf("  other: request at %s ns on CPU %s for CPU %s: kernel %s, model %s\n", kk[1], kk[2], kk[3], (k in kdec) ? kdec[k] : "none", (k in mdec) ? mdec[k] : "none")
        }
    }
    printf "decisions (request, target CPU): %d, equal %d; differ %d: %d with the target'"'"'s table possibly holding the mm from before the recording, %d with the target inside local_load_tlb_mm at the request, %d with the target loading between the request and the decision, %d other\n", n, same, n - same, u, a, b, o
    printf "%s", ex
    # 3: every difference one the replay left undecided
    exit o > 0 ? 2 : (a + b > 0 ? 1 : (u > 0 ? 3 : 0))
}' "$R" && drc=0 || drc=$?
# cmp_counters KERNEL-PREFIX MODEL-FILE: every counter of every CPU listed equal
cmp_counters() {
	join <(grep "^$1 " "$R.k" | awk '{print $2, $3, $4, $5, $6, $7}' | sort) \
		<(awk '{print $2, $3, $4, $5, $6, $7}' "$2" | sort) |
		awk '{ for (i = 2; i <= 6; i++) if ($i != $(i + 5)) bad = 1 } END { exit bad }'
}
# the verdict: every counter of every CPU equal, every decision (exit status 1 otherwise);
# or, where the replay left decisions undecided (tables from before the recording), every
# counter of every CPU from the CPU's known load on
if cmp_counters kernel "$R.m" && [ $drc = 0 ]; then
	echo "verdict: kernel = model on every CPU, every counter, every decision"
	exit 0
fi
if [ $drc = 0 ] || [ $drc = 3 ]; then
	echo
	echo "From each CPU's first load once its table can hold nothing from before the recording:"
	echo
	echo "| CPU | from (s) | flush IPIs kernel / model | deferred kernel / model | overflows kernel / model | evictions kernel / model | table resets kernel / model |"
	echo "|---|---|---|---|---|---|---|"
	join <(grep '^since ' "$R.k" | awk '{print $2, $3, $4, $5, $6, $7}' | sort) \
		<(awk '{print $2, $3, $4, $5, $6, $7}' "$R.ms" | sort) | join - <(sort "$R.known") |
		awk '{ printf "| %d | %.6f | %d / %d | %d / %d | %d / %d | %d / %d | %d / %d |\n", $1, $12 / 1e9, $2, $7, $3, $8, $4, $9, $5, $10, $6, $11 }'
	if [ "$(wc -l < "$R.ms")" = "$ncpu" ] && cmp_counters since "$R.ms"; then
		echo "verdict: kernel = model on every CPU from its table's known load on, every counter; every decision equal or undecided (the target's table from before the recording)"
		exit 0
	fi
fi
echo "verdict: kernel and model differ (above)"
exit 1
