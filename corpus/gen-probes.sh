#!/bin/bash
# Generate the kprobe_events lines for the guest from the BUILT kernel:
#  - struct offsets come from the kernel's DWARF (pahole), never hard-coded;
#  - each probed function must exist as a text symbol in vmlinux (not inlined away).
# Usage: gen-probes.sh VMLINUX > kprobe_events
set -euo pipefail
VMLINUX=$1
NM=${NM:-riscv64-linux-gnu-nm}

# offset of MEMBER in STRUCT, from pahole's "/* offset size */" comments
off() {
    local o
    o=$(pahole -C "$1" "$VMLINUX" 2>/dev/null |
        awk -v m="$2" '{ for (i = 1; i <= NF; i++) if ($i == m";" || index($i, m"[") == 1) { for (j = i; j <= NF; j++) if ($j == "/*") { print $(j+1); exit } } }')
    [ -n "$o" ] || { echo "gen-probes: no offset for $1.$2" >&2; exit 1; }
    echo "$o"
}

MM_CPUMASK=$(off mm_struct cpu_bitmap)
VMA_MM=$(off vm_area_struct vm_mm)
BATCH_MASK=$(off arch_tlbflush_unmap_batch cpumask)
FTD_ASID=$(off flush_tlb_range_data asid)
FTD_START=$(off flush_tlb_range_data start)
FTD_SIZE=$(off flush_tlb_range_data size)
FTD_STRIDE=$(off flush_tlb_range_data stride)

# The first 8 bytes of every traceable function are the ftrace patch site
# (-fpatchable-function-entry: 4 c.nop, or 2 nop without RVC): a kprobe there
# is refused, so probe at +8, the first real instruction, and read the
# arguments from the argument registers a0..a7 ($argN does not work there).
# Files built without ftrace (arch/riscv/kernel/sbi.c) have no patch site:
# those functions are probed at +0 (at +8 the prologue has moved registers).
OBJDUMP=${OBJDUMP:-riscv64-linux-gnu-objdump}
probe_off() {
    local addr=$1 words
    words=$($OBJDUMP -d --start-address=0x$addr --stop-address=$(printf '0x%x' $((0x$addr + 8))) "$VMLINUX" |
        awk -F'\t' '/^ *[0-9a-f]+:/ {print $2}' | tr -d ' ' | tr '\n' ' ')
    case "$words" in
        "0001 0001 0001 0001 "|"00000013 00000013 ") echo 8;;
        *) echo 0;;
    esac
}
echo "# tlbscope kprobes for $(strings "$VMLINUX" | grep -m1 '^Linux version' | cut -d' ' -f1-3)"
echo "# offsets (from DWARF): mm_struct.cpu_bitmap=$MM_CPUMASK vm_area_struct.vm_mm=$VMA_MM arch_tlbflush_unmap_batch.cpumask=$BATCH_MASK flush_tlb_range_data.{asid,start,size,stride}=$FTD_ASID,$FTD_START,$FTD_SIZE,$FTD_STRIDE"
defs=(
"switch_mm|prev=%a0:x64 next=%a1:x64 next_mask=+$MM_CPUMASK(%a1):x64"
"__flush_tlb_range|mm=%a0:x64 mask=+0(%a1):x64 start=%a2:x64 size=%a3:x64 stride=%a4:x64"
"flush_tlb_mm|mm=%a0:x64 mask=+$MM_CPUMASK(%a0):x64"
"flush_tlb_mm_range|mm=%a0:x64 start=%a1:x64 end=%a2:x64 page_size=%a3:u32 mask=+$MM_CPUMASK(%a0):x64"
"flush_tlb_page|vma=%a0:x64 mm=+$VMA_MM(%a0):x64 addr=%a1:x64 mask=+$MM_CPUMASK(+$VMA_MM(%a0)):x64"
"flush_tlb_range|vma=%a0:x64 mm=+$VMA_MM(%a0):x64 start=%a1:x64 end=%a2:x64 mask=+$MM_CPUMASK(+$VMA_MM(%a0)):x64"
"flush_tlb_kernel_range|start=%a0:x64 end=%a1:x64"
"flush_tlb_all|"
"arch_tlbbatch_flush|batch=%a0:x64 mask=+$BATCH_MASK(%a0):x64"
"__ipi_flush_tlb_range_asid|info=%a0:x64 asid=+$FTD_ASID(%a0):x64 start=+$FTD_START(%a0):x64 size=+$FTD_SIZE(%a0):x64 stride=+$FTD_STRIDE(%a0):x64"
"sbi_remote_sfence_vma_asid|mask=+0(%a0):x64 start=%a1:x64 size=%a2:x64 asid=%a3:x64"
)
syms=$($NM "$VMLINUX" | awk '$2 ~ /^[tT]$/ {print $1, $3}')
# A kernel with the lazy TLB flush (patches-lazy/, CONFIG_RISCV_LAZY_TLB_FLUSH):
# its entry points, named as in the RFC, plus the deferral decision. Only
# when the kernel has them, so a stock kernel's probe list is unchanged.
if awk '$2 == "local_load_tlb_mm" {f = 1} END {exit !f}' <<<"$syms"; then
defs+=(
"local_load_tlb_mm|mm=%a0:x64 mask=+$MM_CPUMASK(%a0):x64"
"local_flush_tlb_mm|mm=%a0:x64 mask=+$MM_CPUMASK(%a0):x64"
"lazy_tlb_defer|mm=%a0:x64 cpu=%a1:u32 decision=%a2:u32"
"lazy_tlb_reset_local|"
)
fi
# The moment exit_mmap drops an exiting mm from every CPU's table (the end of an mm's
# life on a lazy kernel; tlbscope ends the mm there). Only where the kernel has it as a
# function, so that an older lazy kernel's probe list is unchanged.
if awk '$2 == "lazy_tlb_exit_mm" {f = 1} END {exit !f}' <<<"$syms"; then
    defs+=("lazy_tlb_exit_mm|mm=%a0:x64")
fi
# linux-base (patches-presvvptc/): the pre-Svvptc preventive flush of new kernel
# mappings is the out-of-line flush_cache_vmap(); a 6.12 kernel has it inline.
if awk '$2 == "flush_cache_vmap" {f = 1} END {exit !f}' <<<"$syms"; then
    defs+=("flush_cache_vmap|start=%a0:x64 end=%a1:x64")
fi
for d in "${defs[@]}"; do
    fn=${d%%|*}; args=${d#*|}
    addr=$(awk -v f="$fn" '$2 == f {print $1; exit}' <<<"$syms")
    if [ -z "$addr" ]; then
        echo "gen-probes: $fn is not a function in this kernel (inlined?), no probe" >&2
        echo "# skipped: $fn (no symbol)"
        continue
    fi
    echo "p:tlbscope/$fn $fn+$(probe_off "$addr")${args:+ $args}"
done

# Per-site sfence.vma probes (kernels with DWARF): one event per cause,
# tlbscope/sfence_<cause>, one probe per site of that cause, on the instruction
# right after the fence (riscv kprobes refuse SYSTEM instructions), only where
# that instruction is reached from the fence alone (sfence-sites.sh): then one
# hit is one executed fence. No arguments, so the probes of an event match.
HERE=$(cd "$(dirname "$0")" && pwd)
# (no "grep -q" here: under pipefail readelf's SIGPIPE would read as "no DWARF")
if ${READELF:-riscv64-linux-gnu-readelf} -S "$VMLINUX" | grep -c '\.debug_info' > /dev/null; then
    "$HERE/sfence-sites.sh" "$VMLINUX" | awk -F'\t' '
        $6 ~ /^probed/ { print "p:tlbscope/sfence_" $3 " " $5; if ($6 != "probed") print "# " $5 ": " $6; next }
        { sub(/^unprobed:/, "", $6); print "# unprobed: 0x" $1 " " $2 " " $3 " " $6 }'
else
    echo "gen-probes: $VMLINUX has no DWARF, no per-site sfence.vma probes" >&2
    echo "# no per-site sfence.vma probes (no DWARF)"
fi
