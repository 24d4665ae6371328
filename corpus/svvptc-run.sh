#!/bin/bash
# One run of runs-svvptc.list (README "Svvptc").
# Usage: svvptc-run.sh NAME CPUS MACHINE KERNEL DTB WORKLOAD [key=value ...]
#   KERNEL: base | series | lazy:T:Q     DTB: - | svvptc
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=$1 CPUS=$2 MACHINE=$3 KERNEL=$4 DTBSEL=$5 WORKLOAD=$6
shift 6
case $KERNEL in
    base)
        export KNAME=linux-base
        export KPATCHES="../../patches-sfence/*.patch and ../../patches-presvvptc/*.patch"
        NOTE="**Baseline kernel \`linux-base\`**: 6.12 with the pre-Svvptc-series behaviour restored by ../../patches-presvvptc/0001 (a preventive \`sfence.vma\` after every new user PTE in \`update_mmu_cache_range\`, \`flush_cache_vmap()\` = \`flush_tlb_kernel_range()\` of every new kernel mapping, out of line so that the kprobe \`flush_cache_vmap\` sees it), plus the sfence.vma counter ../../patches-sfence/0001.";;
    series)
        export KNAME=linux-series
        export KPATCHES="../../patches-sfence/*.patch"
        NOTE="**Kernel \`linux-series\`**: 6.12 as shipped (with the Svvptc series: no preventive \`sfence.vma\` for new vmalloc mappings; none for new user PTEs when the CPU has Svvptc), plus the sfence.vma counter ../../patches-sfence/0001.";;
    lazy:*)
        IFS=: read -r _ T Q <<<"$KERNEL"
        export KNAME=linux-lazy-sfence
        export KPATCHES="../../patches-sfence/*.patch and ../../patches-lazy/*.patch (kernel-lazy.config)"
        export KAPPEND="lazytlb.max_loaded_mm=$T lazytlb.flush_queue=$Q ${KAPPEND:-}"
        NOTE="**Lazy TLB flush kernel \`linux-lazy-sfence\`**: ../../patches-lazy/*.patch (kernel.config plus ../../kernel-lazy.config, \`CONFIG_RISCV_LAZY_TLB_FLUSH=y\`) plus the sfence.vma counter ../../patches-sfence/0001, booted with \`lazytlb.max_loaded_mm=$T lazytlb.flush_queue=$Q\` (T=$T, Q=$Q); its extra kprobes are those of the \`*-lazy-*\` runs (README section \"Lazy TLB flush kernel\").";;
    *) echo "kernel: base, series or lazy:T:Q" >&2; exit 2;;
esac
if [ "$DTBSEL" = svvptc ]; then
    export DTB=svvptc
    NOTE="$NOTE Booted with **Svvptc advertised**: QEMU 7.2 has no svvptc property, so the run uses QEMU's own device tree for this machine (\`dumpdtb\`, same -smp/-m) with \`_svvptc\` appended to every cpu's \`riscv,isa\` (../../svvptc-dtb.sh); \`cpu0_isa\` below is the isa line of the guest's /proc/cpuinfo, read by /init: the kernel saw \`svvptc\`. Why the Svvptc guarantee holds on QEMU: ../../README.md, section \"Svvptc\"."
else
    unset DTB
fi
if [ "$WORKLOAD" = mmapstress01 ]; then
    NOTE="$NOTE Run-to-run spread of the mmapstress01 parameters, measured when the committed traces were recorded (../../README.md, section \"mmapstress01: the run-to-run spread\"): 4 runs per kernel (3 check runs and the committed one): \`flush_range\` fences 29062-29972 and flush IPIs 672-698 on linux-base, 29559-29665 and 688-732 on linux-series with Svvptc; in every run each of the 6 children ran on all 4 CPUs."
fi
export RUN_NOTE="$NOTE"
export REGEN="make -C corpus svvptc SVVPTC_RUNS=$NAME   # builds \$BUILD/$KNAME if needed"
exec "$HERE/run.sh" "$NAME" "$CPUS" "$MACHINE" "$WORKLOAD" "$@"
