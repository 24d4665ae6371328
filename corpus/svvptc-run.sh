#!/bin/bash
# One run of runs-svvptc.list (README "Svvptc").
# Usage: svvptc-run.sh NAME CPUS MACHINE KERNEL DTB WORKLOAD [key=value ...]
#   KERNEL: base | series | base-boot | series-boot | lazy:T:Q     DTB: - | svvptc
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
    base-boot|series-boot)
        # boot runs: the same kernels plus boot-time tracing (kernel-boot.config) and
        # the counter started right after it (patches-boot/0001)
        export KNAME=linux-$KERNEL BOOTCONFIG=1
        if [ "$KERNEL" = base-boot ]; then
            export KPATCHES="../../patches-sfence/*.patch and ../../patches-presvvptc/*.patch and ../../patches-boot/*.patch (kernel-boot.config)"
            NOTE="**Baseline kernel for boot runs \`linux-base-boot\`**: linux-base (6.12 with the pre-Svvptc-series behaviour, ../../patches-presvvptc/0001, and the sfence.vma counter ../../patches-sfence/0001)"
        else
            export KPATCHES="../../patches-sfence/*.patch and ../../patches-boot/*.patch (kernel-boot.config)"
            NOTE="**Kernel for boot runs \`linux-series-boot\`**: linux-series (6.12 as shipped, with the Svvptc series, and the sfence.vma counter ../../patches-sfence/0001)"
        fi
        NOTE="$NOTE plus boot-time tracing (../../kernel-boot.config: \`CONFIG_BOOT_CONFIG\`, \`CONFIG_BOOTTIME_TRACING\`). **Traced from boot**: the kprobes and tracepoints of the other runs are defined and enabled by the kernel at \`core_initcall_sync\` (trace_boot_init) from a bootconfig appended to the initramfs (../../gen-bootconfig.sh; \`bootconfig\` on the command line), so they are in the group \`kprobes\`, not \`tlbscope\`. The sfence.vma counter starts at \`postcore_initcall\`, right after (../../patches-boot/0001; the arming of the boot-time kprobes is before it); \`sfence_vma.before\` and \`kprobe_profile.before\` are that start (zero), \`.after\` are read by /init right after it writes \`tracing_on=0\`, which it does once it has mounted /proc, /sys, /dev, /tmp and tracefs and read its command line: the window is boot to init.";;
    lazy:*)
        IFS=: read -r _ T Q <<<"$KERNEL"
        export KNAME=linux-lazy-sfence
        export KPATCHES="../../patches-sfence/*.patch and ../../patches-lazy/*.patch (kernel-lazy.config)"
        export KAPPEND="lazytlb.max_loaded_mm=$T lazytlb.flush_queue=$Q ${KAPPEND:-}"
        NOTE="**Lazy TLB flush kernel \`linux-lazy-sfence\`**: ../../patches-lazy/*.patch (kernel.config plus ../../kernel-lazy.config, \`CONFIG_RISCV_LAZY_TLB_FLUSH=y\`) plus the sfence.vma counter ../../patches-sfence/0001, booted with \`lazytlb.max_loaded_mm=$T lazytlb.flush_queue=$Q\` (T=$T, Q=$Q); its extra kprobes are those of the \`*-lazy-*\` runs (README section \"Lazy TLB flush kernel\").";;
    *) echo "kernel: base, series, base-boot, series-boot or lazy:T:Q" >&2; exit 2;;
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
