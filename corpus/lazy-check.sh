#!/bin/bash
# Correctness runs on the lazy TLB flush kernel: the workloads check their data
# (guest/init.c: "Data check: ok|FAILED"); pass = data ok, no BUG/WARNING/Oops
# in the kernel log, clean power-off. Traces go to $BUILD/check (not committed).
# Usage: lazy-check.sh [NAME ...]   (default: all below)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-/work/build-riscv}
export OUTROOT=$BUILD/check
export TIMEOUT=${TIMEOUT:-2400}   # QEMU on a loaded host can be slow
mkdir -p "$OUTROOT"
CHECKS=(
"check-tlbcheck-t6q32-4cpu    4 aia tlbcheck   6 32 procs=8 threads=3 iters=300 pages=8 buf=4096"
"check-tlbcheck-t6q32-8cpu    8 aia tlbcheck   6 32 procs=12 threads=3 iters=300 pages=8 buf=4096"
"check-tlbcheck-t1q0-4cpu     4 aia tlbcheck   1 0  procs=8 threads=3 iters=300 pages=8 buf=4096"
"check-tlbcheck-t1q0-8cpu     8 aia tlbcheck   1 0  procs=12 threads=3 iters=300 pages=8 buf=4096"
"check-hackbench-t1q0-4cpu    4 aia hackbench  1 0  rounds=2 groups=4 fds=10 loops=100 buf=4096"
"check-mmapstress-t1q0-4cpu   4 aia mmapstress 1 0  threads=8 iters=200 pages=16 buf=4096"
"check-mmapstress-t6q32-8cpu  8 aia mmapstress 6 32 threads=8 iters=200 pages=16 buf=4096"
"check-forkexec-t1q0-4cpu     4 aia forkexec   1 0  procs=4 iters=100 pages=32 buf=4096"
"check-tlbcheck-t1q0-sbi-4cpu 4 plain tlbcheck 1 0  procs=8 threads=3 iters=300 pages=8 buf=4096"
"check-hackbench-t12q1-10r-4cpu 4 aia hackbench 12 1 rounds=10 groups=4 fds=10 loops=100 buf=32768"
)
SUM=$OUTROOT/summary.md
[ -n "${ONLY:-}" ] || : > "$SUM"
for c in "${CHECKS[@]}"; do
    set -- $c
    name=$1
    if [ -n "${ONLY:-}" ] && ! grep -qw "$name" <<<"$ONLY"; then continue; fi
    W=$BUILD/runs/$name
    REGEN="corpus/lazy-check.sh" RUN_NOTE="correctness check" "$HERE/lazy-run.sh" "$@" > "$OUTROOT/$name.log" 2>&1
    rc=$?
    data=$(grep -ho 'Data check: [a-zA-Z]* ([0-9]* failed processes)' "$W/x/info.txt" 2>/dev/null | head -1)
    bad=$(grep -cE "BUG:|WARNING:|Oops|Kernel panic|Unable to handle|nobody cared|refcount_t|list_del corruption" "$W/x/dmesg" 2>/dev/null)
    off=$(grep -c 'reboot: Power down' "$W/console.log" 2>/dev/null)
    time=$(grep -ho 'Time: [0-9.]* s' "$W/x/info.txt" 2>/dev/null | head -1)
    lazy=$(grep -ho 'lazy TLB flush: [^\r]*' "$W/console.log" | head -1)
    verdict=PASS
    { [ $rc = 0 ] && [ "${data#Data check: ok}" != "$data" ] && [ "${bad:-1}" = 0 ] && [ "${off:-0}" -ge 1 ]; } || verdict=FAIL
    echo "| \`$name\` | $2 | $3 | $4 | $5 | $6 | ${*:7} | ${data:-no data} | ${bad:-?} | ${off:-0} | ${time} | $verdict |" | tee -a "$SUM"
    echo "   ($lazy)"
done
