#!/bin/bash
# Every sfence.vma instruction in a built vmlinux, with its DWARF inline chain
# and its cause: the ONE classifier used by both the counter (sfence-counts.sh)
# and the per-site kprobes (gen-probes.sh).
# Usage: sfence-sites.sh VMLINUX > sites.tsv
# Output, tab-separated, one line per fence (sorted by address):
#   pc  func+off  cause  chain  probe  status
#   pc       the fence's address (hex, no 0x), as /proc/sfence_vma prints it
#   func+off the fence as symbol+offset (offset in hex, 0x...)
#   cause    pte_new pte_access flush_range flush_all asid lazy_evict
#            lazy_deferred lazy_reset other (README "Svvptc": the taxonomy)
#   chain    addr2line -f -i, innermost first, joined by '<'
#            (e.g. local_flush_tlb_page<update_mmu_cache_range<do_anonymous_page)
#   probe    symbol+offset of the instruction right after the fence (the
#            kprobe site: riscv kprobes refuse the fence itself), or -
#   status   "probed", "probed:on the counter patch auipc before the fence (<why
#            not after>)" or "unprobed:<why>"
#
# Cause rules, on the chain from the innermost frame outward (first rule wins):
#   lazy_evict     a frame is local_flush_tlb_mm   (lazy kernel's eviction)
#   lazy_reset     a frame is lazy_tlb_reset_local
#   lazy_deferred  a frame is local_load_tlb_mm    (queued flushes replayed at switch_mm)
#   pte_access /   a frame is update_mmu_cache_range: pte_access when the frame
#   pte_new        just outside it is handle_pte_fault (access/dirty update after
#                  ptep_set_access_flags) or wp_page_reuse (write fault reusing the
#                  page in place); pte_new for every other caller (do_anonymous_page,
#                  set_pte_range, wp_page_copy, do_swap_page, insert_pfn, ...)
#   flush_all      a frame is __ipi_flush_tlb_all or flush_tlb_all
#   flush_range    a frame is local_flush_tlb_range_asid, __local_flush_tlb_range_asid,
#                  local_flush_tlb_range_threshold_asid, __ipi_flush_tlb_range_asid,
#                  __flush_tlb_range or local_flush_tlb_kernel_range, or the outermost
#                  frame is in arch/riscv/mm/tlbflush.c
#   asid           the outermost frame is in arch/riscv/mm/context.c
#   other          everything else (fixmap, text patching, vmalloc_fault, boot, ...),
#                  and the assembly sites (a .S file: head.S, entry.S), which carry
#                  no probe and which the counter does not see
set -euo pipefail
VMLINUX=$1
CROSS=${CROSS:-riscv64-linux-gnu-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

syms() { ${CROSS}nm "$VMLINUX"; }
syms | awk -v OFS='\t' '$2 ~ /^[tT]$/ {n[$3]++} END {for (s in n) print s, n[s]}' > "$TMP/symcount"
init_lo=$(syms | awk '$3 == "_sinittext" {print $1}')
init_hi=$(syms | awk '$3 == "_einittext" {print $1}')

# disassembly -> per fence: pc func off next_pc next_mnemonic next_is_target
${CROSS}objdump -d --no-show-raw-insn "$VMLINUX" | awk -v OFS='\t' '
function h(s,   i, n) {   # low 32 bits of a hex address (mawk: no strtonum)
    s = tolower(s); sub(/^0x/, "", s); if (length(s) > 8) s = substr(s, length(s) - 7)
    n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return n
}
function flush_fn(   i, a) {
    for (i = 1; i <= nf; i++) {
        if (mn[i] != "sfence.vma") continue
        a = (i < nf) ? ad[i + 1] : "-"
        print ad[i], fn, sprintf("0x%x", h(ad[i]) - h(fstart)), \
              a, (i < nf) ? mn[i + 1] : "-", (a in tgt) ? 1 : 0, \
              (i < nf) ? sprintf("0x%x", h(a) - h(fstart)) : "-", \
              (i > 1 && mn[i - 1] == "auipc" && h(ad[i]) - h(ad[i - 1]) == 4) ? sprintf("0x%x", h(ad[i - 1]) - h(fstart)) : "-"
    }
    nf = 0; delete tgt
}
/^[0-9a-f]+ <[^>]+>:$/ {
    flush_fn()
    fstart = $1; fn = $2; gsub(/^<|>:$/, "", fn); next
}
/^ *[0-9a-f]+:\t/ {
    addr = $1; sub(/:$/, "", addr); sub(/^ +/, "", addr)
    split($0, f, "\t"); m = f[2]; ops = f[3]
    nf++; ad[nf] = addr; mn[nf] = m
    # a branch or jump target inside this function
    if (m ~ /^(c\.)?(j|jal|beq|bne|blt|bge|bltu|bgeu|beqz|bnez|blez|bgez|bltz|bgtz|bgt|ble|bgtu|bleu)$/ &&
        match(ops, /[0-9a-f]+ </)) {
        t = substr(ops, RSTART, RLENGTH - 2); tgt[t] = 1
    }
}
END { flush_fn() }' > "$TMP/fences"

[ -s "$TMP/fences" ] || { echo "sfence-sites: no sfence.vma in $VMLINUX" >&2; exit 1; }

# inline chains, innermost first, and the outermost frame's file
awk '{print "0x" $1}' "$TMP/fences" | ${CROSS}addr2line -f -i -a -e "$VMLINUX" | awk '
/^0x[0-9a-f]+$/ { if (pc != "") print pc "\t" chain "\t" file; pc = substr($0, 3); chain = ""; last = ""; k = 0; next }
# (DWARF often repeats a frame, e.g. update_mmu_cache_range<update_mmu_cache_range:
# consecutive repeats are one frame)
{ if (k % 2 == 0) { if ($0 != last) chain = chain (chain == "" ? "" : "<") $0; last = $0 } else file = $0; k++ }
END { if (pc != "") print pc "\t" chain "\t" file }' > "$TMP/chains"

awk -F'\t' -v OFS='\t' -v ilo="$init_lo" -v ihi="$init_hi" '
function h(s,   i, n) {   # low 32 bits of a hex address (mawk: no strtonum)
    s = tolower(s); sub(/^0x/, "", s); if (length(s) > 8) s = substr(s, length(s) - 7)
    n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return n
}
function cause(chain, ofile,   n, f, i, up) {
    n = split(chain, f, "<")
    for (i = 1; i <= n; i++) {
        if (f[i] == "local_flush_tlb_mm") return "lazy_evict"
        if (f[i] == "lazy_tlb_reset_local") return "lazy_reset"
        if (f[i] == "local_load_tlb_mm") return "lazy_deferred"
    }
    for (i = 1; i <= n; i++)
        if (f[i] == "update_mmu_cache_range") {
            up = (i < n) ? f[i + 1] : ""
            if (up == "update_mmu_cache_pmd" && i + 1 < n) up = f[i + 2]
            return (up == "handle_pte_fault" || up == "wp_page_reuse") ? "pte_access" : "pte_new"
        }
    for (i = 1; i <= n; i++)
        if (f[i] == "__ipi_flush_tlb_all" || f[i] == "flush_tlb_all") return "flush_all"
    for (i = 1; i <= n; i++)
        if (f[i] ~ /^(local_flush_tlb_range_asid|__local_flush_tlb_range_asid|local_flush_tlb_range_threshold_asid|__ipi_flush_tlb_range_asid|__flush_tlb_range|local_flush_tlb_kernel_range)$/)
            return "flush_range"
    if (ofile ~ /arch\/riscv\/mm\/tlbflush\.c/) return "flush_range"
    if (ofile ~ /arch\/riscv\/mm\/context\.c/) return "asid"
    return "other"
}
FILENAME == ARGV[1] { cnt[$1] = $2; next }
FILENAME == ARGV[2] { ch[$1] = $2; fl[$1] = $3; next }
{
    pc = $1; fn = $2; off = $3; npc = $4; nmn = $5; ntgt = $6; noff = $7; aoff = $8
    asm = (fl[pc] ~ /\.S:[0-9]+/)
    if (asm) { f = fl[pc]; sub(/.*\//, "", f); ch[pc] = fn " (" f ")" }
    c = asm ? "other" : cause(ch[pc], fl[pc])
    probe = (npc == "-") ? "-" : fn "+" noff
    st = "probed"
    if (asm) st = "unprobed:assembly, not counted by the counter (README Svvptc)"
    else if (npc == "-") st = "unprobed:fence is the last instruction of " fn
    else if (h(pc) >= h(ilo) && h(pc) < h(ihi)) st = "unprobed:init text (freed after boot)"
    else if (ntgt) st = "unprobed:next instruction is a branch target in " fn
    else if (nmn ~ /^(c\.)?(ecall|ebreak|sret|mret|wfi|csr|sfence|hfence|fence|pause)/) st = "unprobed:next instruction " nmn " is refused by riscv kprobes"
    else if (cnt[fn] != 1) st = "unprobed:symbol " fn " is not unique in kallsyms"
    else if (fn ~ /^(__set_fixmap|patch_map|patch_unmap|__patch_insn_set|__patch_insn_write)$/) st = "unprobed:text-patching path (arming a kprobe runs it), not probed for safety"
    # Fallback: the counter patch puts an "auipc rd, 0" right before every fence
    # in the same asm statement, so that auipc runs exactly when the fence runs
    # (nothing can jump between them): probe it instead (kprobes simulate auipc).
    if (st ~ /^unprobed:next instruction/ && aoff != "-" && cnt[fn] == 1) {
        probe = fn "+" aoff; st = "probed:on the counter patch auipc before the fence (" substr(st, 10) ")"
    }
    print pc, fn "+" off, c, ch[pc], probe, st
}' "$TMP/symcount" "$TMP/chains" "$TMP/fences"
