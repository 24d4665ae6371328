# The probe set of the lazy-kernel runs of runs-lazy.list, recorded before gen-probes.sh
# added the per-site sfence_* probes: those (and their "unprobed" notes) dropped, so that a
# repeat (NAME-rN, lazy-run.sh) is recorded as the run it repeats.
/^p:tlbscope\/sfence_/d
/^# unprobed:/d
