#!/bin/bash
# Write traces/<run>/README.md for one recorded run (called by run.sh).
set -euo pipefail
RUN=$1 W=$2 OUTDIR=$3 MACHINE=$4 CPUS=$5 WORKLOAD=$6 QEMUCMD=$7 PARAMS=$8
HERE=$(cd "$(dirname "$0")" && pwd)
X=$W/x
R=$W/report.txt
KVER=$(grep -m1 -o 'Linux version [^ ]*' "$X/dmesg" 2>/dev/null || true)
[ -n "$KVER" ] || KVER=$(strings "${BUILD:-/work/build-riscv}/linux/vmlinux" | grep -m1 -o '^Linux version [^ ]*')

# events per name: the field after the timestamp ("12.345678:")
awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $(i+1)); print $(i+1); break } }' "$R" |
    sort | uniq -c | sort -rn > "$W/counts.txt"
total=$(awk '{s += $1} END {print s + 0}' "$W/counts.txt")
lost=$(grep -c 'LOST' "$R" || true)

# kprobe hits inside the traced window vs events in the trace
# (an event with several probes, e.g. tlbscope/sfence_pte_new, has one
# kprobe_profile line per probe: summed by event name)
probes() {
    awk 'NR == FNR { if (NF >= 3) { if (!($1 in before)) order[++n] = $1; before[$1] += $2 }; next }
         NF >= 3 { if (!($1 in before) && !($1 in after)) order[++n] = $1; after[$1] += $2; miss[$1] += $3; np[$1]++ }
         END { for (i = 1; i <= n; i++) print order[i], after[order[i]] - before[order[i]], miss[order[i]] + 0 }' \
        "$X/kprobe_profile.before" "$X/kprobe_profile.after"
}
{
echo "# corpus run \`$RUN\`"
echo
echo "Real ftrace data from $KVER (Debian linux-source-6.12, tinyconfig + ../../kernel.config,"
echo "patches ../../patches/*.patch${KPATCHES:+ and $KPATCHES}) on QEMU $(qemu-system-riscv64 --version | head -1 | awk '{print $4}'), $CPUS vCPUs,"
case $MACHINE in
  aia) echo "\`-M virt,aia=aplic-imsic\`: remote TLB flushes are kernel IPIs (IMSIC), seen in ipi/csd events.";;
  plain) echo "plain \`-M virt\` (PLIC, no IMSIC): remote TLB flushes go through SBI remote fences (\`sbi_remote_sfence_vma_asid\`), no kernel IPI.";;
esac
if [ -n "${RUN_NOTE:-}" ]; then echo; echo "$RUN_NOTE"; fi
echo
echo "## Workload"
echo '```'
sed -n '/^workload=/,$p' "$X/info.txt"
echo '```'
echo "Parameters: \`$WORKLOAD ${PARAMS}\` (see ../../guest/workloads.c)."
echo
echo "## QEMU command"
echo '```'
echo "$QEMUCMD"
echo '```'
echo
echo "## Event counts (\`trace-cmd report\`, $total events; $lost LOST-events markers)"
echo '| event | count |'
echo '|---|---|'
awk '{printf "| %s | %d |\n", $2, $1}' "$W/counts.txt"
echo
echo "## Kernel evidence consistency"
echo "Remote CPUs in the \`mask\` of every \`__flush_tlb_range\` (CPUs 0-63, requester excluded) against"
echo "the flush IPIs the kernel queued (AIA) or the SBI remote fences it made (plain virt);"
echo "computed by ../../consistency.awk over \`trace-cmd report\`."
echo '| what | count |'
echo '|---|---|'
awk -f "$HERE/consistency.awk" "$R"
echo
echo "## kprobes: hits in the traced window vs events in the trace"
echo "From kprobe_profile read just before \`tracing_on=1\` and just after \`tracing_on=0\`"
echo "(a probe hit between those reads and the switch itself may make a difference of 1-2)."
echo '| probe | hits | missed | events |'
echo '|---|---|---|---|'
: > "$W/dropped.txt"
probes | while read -r name hits miss; do
    ev=$(awk -v n="$name" '$2 == n {print $1}' "$W/counts.txt"); ev=${ev:-0}
    echo "| $name | $hits | $miss | $ev |"
    [ "$hits" -le $((ev + 2)) ] || echo "$name: $hits hits, $ev events" >> "$W/dropped.txt"
done
if [ -s "$W/dropped.txt" ]; then
    echo
    echo "**kprobe events were dropped** (hits without events):"
    sed 's/^/- /' "$W/dropped.txt"
else
    echo
    echo "No kprobe event was dropped (hits = events)."
fi
echo
echo "kprobe definitions (\`kprobe_events\` as written in the guest):"
echo '```'
grep -v '^#' "$X/tracing/kprobe_events"
echo '```'
if [ -f "$W/sfence.md" ]; then
    echo
    cat "$W/sfence.md"
    echo
    echo "Sites of this kernel not probed (\`# unprobed: pc func+off cause why\`, from ../../gen-probes.sh):"
    echo '```'
    grep '^# unprobed:' "$W/kprobe_events" | sed 's/^# unprobed: //' || echo "(none)"
    echo '```'
fi
echo
echo "## Ring buffer (per_cpu/cpuN/stats after the run)"
echo '| cpu | entries | overrun | dropped events |'
echo '|---|---|---|---|'
for c in $(seq 0 $((CPUS - 1))); do
    s=$X/per_cpu/cpu$c/stats
    echo "| $c | $(awk '/^entries:/{print $2}' "$s") | $(awk '/^overrun:/{print $2}' "$s") | $(awk '/^dropped events:/{print $3}' "$s") |"
done
echo
echo "## Files"
echo "- \`trace.dat\`: trace-cmd file version 7, compressed ($(stat -c %s "$OUTDIR/trace.dat") bytes); \`trace-cmd report -i trace.dat\` reads it."
echo
echo "## Regenerate"
echo '```'
if [ -n "${REGEN:-}" ]; then echo "$REGEN"; else
echo "make -C corpus kernel           # once: builds the kernel (~3-5 min on 2 cores)"
echo "corpus/run.sh $RUN $CPUS $MACHINE $WORKLOAD ${PARAMS}"
echo "# or: make -C corpus RUNS=$RUN"
fi
echo '```'
echo "(\`make -C corpus\` regenerates every run.) The guest's console log is not kept; the run"
echo "took $(cat "$W/guest_seconds" 2>/dev/null || echo '?') s of QEMU time."
} > "$OUTDIR/README.md"
echo "wrote $OUTDIR/README.md ($total events)"
