# Kernel-evidence consistency over `trace-cmd report` text (POSIX awk, no gawk needed):
# remote targets in each __flush_tlb_range cpumask (CPUs 0-63) against the flush IPIs
# queued in csd_queue_cpu events (AIA) or the sbi_remote_sfence_vma_asid calls (SBI).
function hexval(c) { return index("0123456789abcdef", c) - 1 }
{
    if (!match($0, /\[[0-9]+\]/)) next
    cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
    if ($0 ~ / __flush_tlb_range: /) {
        m = $0; sub(/.*mask=0x/, "", m); sub(/ .*/, "", m)
        n = 0; L = length(m)
        for (k = 0; k < L; k++) {
            d = hexval(substr(m, L - k, 1))
            for (b = 0; b < 4; b++) { if (d % 2 && 4 * k + b != cpu) n++; d = int(d / 2) }
        }
        if (n) { reqs++; remote += n }
    } else if ($0 ~ / csd_queue_cpu: / && $0 ~ /func=__ipi_flush_tlb_range_asid/) q++
    else if ($0 ~ / sbi_remote_sfence_vma_asid: /) s++
}
END {
    printf "| flush requests with remote targets (`__flush_tlb_range`) | %d |\n", reqs
    printf "| remote targets in their cpumasks | %d |\n", remote
    printf "| flush IPIs queued (`csd_queue_cpu` func=__ipi_flush_tlb_range_asid) | %d |\n", q
    printf "| SBI remote fences (`sbi_remote_sfence_vma_asid`) | %d |\n", s
}
