#!/bin/bash
# The independent sfence.vma count of one run: the kernel's own counter
# (patches-sfence/0001, /proc/sfence_vma read by the guest's /init right before
# tracing_on=1 and right after tracing_on=0), by site and by cause, and the
# check of the per-site kprobes (gen-probes.sh's tlbscope/sfence_<cause>
# events) against it.
# Usage: sfence-counts.sh VMLINUX W OUTDIR
#   W: the run's work directory (W/x = the guest's archive, W/report.txt)
# Writes OUTDIR/counts.json and W/sfence.md (the README section, describe.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VMLINUX=$1 W=$2 OUTDIR=$3
X=$W/x
[ -f "$X/sfence_vma.before" ] && [ -f "$X/sfence_vma.after" ] || { echo "sfence-counts: no counter snapshots in $X" >&2; exit 1; }
"$HERE/sfence-sites.sh" "$VMLINUX" > "$W/sites.tsv"

# the counter over the traced window, by pc
awk 'FNR == 1 {f++} /^#/ {next}
     $1 == "overflow" {ov[f] = $2; next}
     NF == 2 {c[$1] += (f == 1 ? -$2 : $2)}
     END {print "overflow", ov[1] + 0, ov[2] + 0 > "/dev/stderr"; for (p in c) if (c[p] != 0) print p, c[p]}' \
    "$X/sfence_vma.before" "$X/sfence_vma.after" 2> "$W/sfence-overflow.txt" | sort > "$W/sfence-delta.txt"
read -r _ OV_BEFORE OV_AFTER < "$W/sfence-overflow.txt"

# the accepted kprobes, in order, paired with the kprobe_profile lines (both
# files list the same dyn_event list in the same order): hits per probe site
awk '!/^#/ && NF {split($1, a, "/"); print a[2], $2}' "$X/tracing/kprobe_events" > "$W/kprobes.accepted"
paste -d' ' "$W/kprobes.accepted" \
    <(awk 'NF >= 3 {print $1, $2}' "$X/kprobe_profile.before") \
    <(awk 'NF >= 3 {print $1, $2}' "$X/kprobe_profile.after") |
    awk '$1 != $3 || $1 != $5 {print "sfence-counts: kprobe_events/kprobe_profile order mismatch: " $0 > "/dev/stderr"; exit 1}
         {print $1, $2, $6 - $4}' > "$W/kprobe-site-hits.txt"

# events of each sfence_* kind in the trace
awk '{for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {n = $(i + 1); sub(/:$/, "", n); if (n ~ /^sfence_/ || n == "sbi_remote_sfence_vma_asid" || n == "flush_cache_vmap") e[n]++; break}}
     END {for (k in e) print k, e[k]}' "$W/report.txt" > "$W/sfence-events.txt"

SRC="kernel counter patch corpus/patches-sfence/0001-riscv-count-executed-sfence-vma-by-call-site.patch: every sfence.vma executed from C (the inline primitives of tlbflush.h/errata_list.h) counted per CPU at the fence's own address; /proc/sfence_vma read by the guest's /init right before tracing_on=1 and right after tracing_on=0, the difference summed over CPUs; each pc symbolized with riscv64-linux-gnu-addr2line -f -i and classified by corpus/sfence-sites.sh. Not counted: the assembly-only fences (head.S, entry.S new_vmalloc check; none runs during a workload, corpus/README.md section Svvptc)"
SBI=$(awk '$1 == "sbi_remote_sfence_vma_asid" {print $2}' "$W/sfence-events.txt"); SBI=${SBI:-0}
FW="OpenSBI's own sfence.vma (M-mode) are not counted: the counter is in the kernel. On this aia machine remote flushes are kernel IPIs, so the kernel made $SBI sbi_remote_sfence_vma_asid calls in the traced window (kprobe tlbscope/sbi_remote_sfence_vma_asid) and OpenSBI executed no fence on the kernel's behalf"
[ "${MACHINE:-aia}" = aia ] || FW="OpenSBI's own sfence.vma (M-mode) are not counted: the counter is in the kernel. On this plain-virt machine remote flushes go through SBI: $SBI sbi_remote_sfence_vma_asid calls in the traced window, whose fences OpenSBI executes and this count does not include"

awk -v OFS='\t' -v src="$SRC" -v fw="$FW" -v ovb="$OV_BEFORE" -v ova="$OV_AFTER" \
    -v json="$OUTDIR/counts.json" -v md="$W/sfence.md" '
function jq(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function dec(s,   i, n, x) {  # "func+0x1a4" -> "func+420" (tracefs prints offsets in decimal)
    i = index(s, "+0x"); if (!i) return s
    x = substr(s, i + 3); n = 0
    for (k = 1; k <= length(x); k++) n = n * 16 + index("0123456789abcdef", substr(x, k, 1)) - 1
    return substr(s, 1, i) n
}
FILENAME == ARGV[1] { pc[$1] = 1; fo[$1] = $2; ca[$1] = $3; ch[$1] = $4; pr[$1] = dec($5); st[$1] = $6; next }
FILENAME == ARGV[2] { cnt[$1] = $2; next }
FILENAME == ARGV[3] { site_hits[$2] += $3; ev_hits[$1] += $3; ev_sites[$1]++; acc[$1 " " $2] = 1; next }
FILENAME == ARGV[4] { tev[$1] = $2; next }
END {
    ncause = split("pte_new pte_access flush_range flush_all asid lazy_evict lazy_deferred lazy_reset other", cs, " ")
    total = 0
    for (p in cnt) {
        if (!(p in pc)) { ca[p] = "other"; ch[p] = "?(not an sfence.vma in vmlinux)"; st[p] = "unprobed:unknown pc"; fo[p] = "?"; bad_pc++ }
        total += cnt[p]; bc[ca[p]] += cnt[p]
        ev = "sfence_" ca[p]
        if (st[p] ~ /^probed/ && ((ev " " pr[p]) in acc)) pbc[ca[p]] += cnt[p]
    }
    printf "{\"sfence_vma\": %d, \"by_cause\": {", total > json
    for (i = 1; i <= ncause; i++) printf "%s%s: %d", (i > 1 ? ", " : ""), jq(cs[i]), bc[cs[i]] + 0 > json
    printf "}, \"overflow\": %d, \"sites\": [", ova - ovb > json
    n = 0
    # sites sorted by count (descending): a simple selection over the few sites
    for (p in cnt) order[++m] = p
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (cnt[order[j]] > cnt[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
    for (i = 1; i <= m; i++) {
        p = order[i]
        printf "%s{\"pc\": \"0x%s\", \"func\": %s, \"chain\": %s, \"cause\": %s, \"count\": %d, \"probe\": %s}", \
            (n++ ? ", " : ""), p, jq(fo[p]), jq(ch[p]), jq(ca[p]), cnt[p], \
            jq(st[p] ~ /^probed/ ? ((("sfence_" ca[p]) " " pr[p]) in acc ? "tlbscope/sfence_" ca[p] " " pr[p] : "refused by the guest") : st[p]) > json
    }
    printf "], \"kprobe_check\": {" > json
    for (i = 1; i <= ncause; i++) {
        e = "sfence_" cs[i]
        printf "%s%s: {\"counter_probed_sites\": %d, \"kprobe_hits\": %d, \"trace_events\": %d}", (i > 1 ? ", " : ""), jq(cs[i]), pbc[cs[i]] + 0, ev_hits[e] + 0, tev[e] + 0 > json
    }
    printf "}, \"source\": %s, \"firmware\": %s}\n", jq(src), jq(fw) > json

    # README section
    print "## sfence.vma: the kernel counter vs the per-site kprobes" > md
    print "" > md
    printf "The kernel counter (../../patches-sfence/0001, `/proc/sfence_vma`, read right before `tracing_on=1` and right after `tracing_on=0`) counted **%d** `sfence.vma` executed from C in the traced window (table overflow %d, must be 0). `counts.json` has them by site and cause (../../sfence-counts.sh, classifier ../../sfence-sites.sh). %s.\n", total, ova - ovb, fw > md
    print "" > md
    print "Per cause: the counter (all sites), the counter at the sites that carry a kprobe, the kprobe hits of `tlbscope/sfence_<cause>` (kprobe_profile, read just outside the counter reads) and the events in the trace:" > md
    print "" > md
    print "| cause | counter | counter, probed sites | kprobe hits | events in trace.dat |" > md
    print "|---|---|---|---|---|" > md
    for (i = 1; i <= ncause; i++) {
        e = "sfence_" cs[i]
        if (bc[cs[i]] + ev_hits[e] + 0 == 0 && !(e in ev_sites)) continue
        printf "| %s | %d | %d | %d | %d |\n", cs[i], bc[cs[i]], pbc[cs[i]], ev_hits[e], tev[e] > md
        th += bc[cs[i]]; tp += pbc[cs[i]]; tk += ev_hits[e]; tt += tev[e]
    }
    printf "| **all** | %d | %d | %d | %d |\n", th, tp, tk, tt > md
    print "" > md
    print "Sites executed in the window (pc, inline chain innermost first, cause, count, probe):" > md
    print "" > md
    print "| pc | chain | cause | count | probe |" > md
    print "|---|---|---|---|---|" > md
    for (i = 1; i <= m; i++) {
        p = order[i]
        printf "| `%s` | `%s` | %s | %d | %s |\n", p, ch[p], ca[p], cnt[p], \
            (st[p] ~ /^probed/ ? ((("sfence_" ca[p]) " " pr[p]) in acc ? "`" pr[p] "`" : "refused by the guest") : st[p]) > md
    }
    if (bad_pc) printf "\n**%d counter pcs are not sfence.vma instructions of this vmlinux**\n", bad_pc > md
}' "$W/sites.tsv" "$W/sfence-delta.txt" "$W/kprobe-site-hits.txt" "$W/sfence-events.txt"
echo "sfence-counts: $(head -c 300 "$OUTDIR/counts.json")..."
