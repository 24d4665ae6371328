# trace-cmd report text of a run made with probes-renamed.sed, with the canonical names of
# tlbscope-probes(7) put back (tests: the same trace under both names must read alike).
/ sw_mm_hit: /{s/ sw_mm_hit: / switch_mm: /;s/ oldp=/ prev=/;s/ newp=/ next=/;s/ cpus_next=/ next_mask=/;}
/ tlbscope_ftr_evnt: /{s/ tlbscope_ftr_evnt: / __flush_tlb_range: /;s/ cpus=/ mask=/;}
/ mm_whole_fls: /{s/ mm_whole_fls: / flush_tlb_mm: /;s/ cpus=/ mask=/;}
/ cow_page_flush: /{s/ cow_page_flush: / flush_tlb_page: /;s/ cpus=/ mask=/;}
s/ ipi_flush_on_target_cpu_xx: / __ipi_flush_tlb_range_asid: /
/ remote_fence_by_firmware_x: /{s/ remote_fence_by_firmware_x: / sbi_remote_sfence_vma_asid: /;s/ hart=/ mask=/;}
