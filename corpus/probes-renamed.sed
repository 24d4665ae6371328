# The kprobes of tlbscope-probes(7) as a user who defined them by hand might have named them
# (run.sh PROBE_SED=probes-renamed.sed; the run hackbench-renamed-aia-4cpu): other event
# names, other argument names (the group stays: the guest enables events/tlbscope).
# tests/real/probe-names.sh checks that tlbscope
# reads such a trace exactly as the same trace under the canonical names.
s|^p:tlbscope/switch_mm \(switch_mm+[0-9]*\) prev=\([^ ]*\) next=\([^ ]*\) next_mask=|p:tlbscope/sw_mm_hit \1 oldp=\2 newp=\3 cpus_next=|
s|^p:tlbscope/__flush_tlb_range \([^ ]*\) mm=\([^ ]*\) mask=|p:tlbscope/tlbscope_ftr_evnt \1 mm=\2 cpus=|
s|^p:tlbscope/flush_tlb_mm \([^ ]*\) mm=\([^ ]*\) mask=|p:tlbscope/mm_whole_fls \1 mm=\2 cpus=|
s|^p:tlbscope/flush_tlb_page \(.*\) mask=|p:tlbscope/cow_page_flush \1 cpus=|
s|^p:tlbscope/__ipi_flush_tlb_range_asid |p:tlbscope/ipi_flush_on_target_cpu_xx |
s|^p:tlbscope/sbi_remote_sfence_vma_asid \([^ ]*\) mask=|p:tlbscope/remote_fence_by_firmware_x \1 hart=|
# the sfence site probes are the corpus's own: a user's hand-made set has none
/^p:tlbscope\/sfence_/d
