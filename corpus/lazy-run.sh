#!/bin/bash
# One run on the lazy TLB flush kernel ($BUILD/linux-lazy).
# Usage: lazy-run.sh NAME CPUS MACHINE WORKLOAD T Q [key=value ...]
#   T, Q: booted as lazytlb.max_loaded_mm=T lazytlb.flush_queue=Q
# The trace goes to traces/NAME (or $OUTROOT/NAME).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=$1 CPUS=$2 MACHINE=$3 WORKLOAD=$4 T=$5 Q=$6
shift 6
export KNAME=linux-lazy
export KAPPEND="lazytlb.max_loaded_mm=$T lazytlb.flush_queue=$Q ${KAPPEND:-}"
export REGEN=${REGEN:-"make -C corpus lazy LAZY_RUNS=$NAME   # builds \$BUILD/linux-lazy (patches + patches-lazy, kernel.config + kernel-lazy.config)"}
export RUN_NOTE=${RUN_NOTE:-"**Lazy TLB flush kernel**: patches/*.patch plus ../../patches-lazy/*.patch, kernel.config plus ../../kernel-lazy.config (\`CONFIG_RISCV_LAZY_TLB_FLUSH=y\`), booted with \`lazytlb.max_loaded_mm=$T lazytlb.flush_queue=$Q\` (T=$T, Q=$Q). Extra kprobes: \`local_load_tlb_mm\` (switch_mm to a new mm: mm, its mask before this CPU joins), \`local_flush_tlb_mm\` (eviction: the evicted mm), \`lazy_tlb_defer\` (one per remote CPU of a user-mm flush: mm, target cpu, decision 0 IPI / 1 queued / 2 flag by full-mm flush / 3 flag by queue overflow / 4 absorbed by the flag / 5 target dropped the mm meanwhile / 6 IPI, in the mask but neither loaded nor active), \`lazy_tlb_reset_local\` (a full local flush drops every loaded mm but the active one), and where the kernel has it \`lazy_tlb_exit_mm\` (the end of exit_mmap: the kernel drops mm from every CPU's table; tlbscope ends the mm there). In the consistency table below the remote CPUs of the masks exceed the flush IPIs by the deferred flushes: that is the mechanism."}
# NAME-rN: the N-th run of NAME's line, same kernel parameters and workload (the noise floor)
# and the probes of the run it repeats (probes-nosfence.sed: no per-site sfence_* probes)
if [[ $NAME =~ -r([0-9]+)$ ]]; then
    export PROBE_SED=${PROBE_SED:-$HERE/probes-nosfence.sed}
    RUN_NOTE="$RUN_NOTE **Repeat ${BASH_REMATCH[1]}** of \`${NAME%-r*}\` (the same kernel source, patches, configuration, boot parameters, workload and probes: \`probes-nosfence.sed\`, plus \`lazy_tlb_exit_mm\` in a repeat recorded since gen-probes.sh adds it; recorded later than it): the run-to-run spread of docs/prediction.md, where a setting has two repeats or more."
# NAME-exitprobe: a small run for the lazy_tlb_exit_mm probe (the repeats' probes plus
# that one), not a repeat: no part of the noise floor
elif [[ $NAME == *-exitprobe ]]; then
    export PROBE_SED=${PROBE_SED:-$HERE/probes-nosfence.sed}
    RUN_NOTE="$RUN_NOTE **A run for the \`lazy_tlb_exit_mm\` probe** (the probes of the repeats, \`probes-nosfence.sed\`, plus \`lazy_tlb_exit_mm\`), smaller than the runs above: not a repeat (no part of docs/prediction.md)."
fi
exec "$HERE/run.sh" "$NAME" "$CPUS" "$MACHINE" "$WORKLOAD" "$@"
