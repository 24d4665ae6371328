#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest (make -C corpus/debian check): the commit in the share's src.tar built
# natively and the README's two commands run, `make check` and `make run`, timed.
# Arguments: the real-trace scripts to run (patterns, tests/run.sh's TESTS_REAL); the others
# are reported skipped with the reason.  None: all of them (more than an hour under TCG).
set -u
if [ $# -gt 0 ]; then
	export TESTS_REAL="$*"
	export TESTS_REAL_WHY="not run in the guest (slow under QEMU's TCG; run on the host)"
fi
# each script's output and seconds in the share as it ends (the host sees the progress)
export TESTS_OUT=/mnt/share/real-out
rm -rf "$TESTS_OUT"
cd /root || exit 1
rm -rf tlbscope && mkdir tlbscope && tar -C tlbscope -xf /mnt/share/src.tar || exit 1
cd tlbscope || exit 1
echo "== guest: $(uname -srm), $(nproc) CPUs; $(dpkg-query -W -f='${Package} ${Version}, ' \
	libtracefs-dev libtraceevent-dev libtracecmd-dev trace-cmd gcc)"
t0=$(date +%s)
make -j"$(nproc)" tlbscope unit > build.log 2>&1 || { tail -40 build.log; exit 1; }
t1=$(date +%s)
echo "== guest: built in $((t1 - t0)) s"
echo "== guest: real-trace scripts: ${TESTS_REAL:-all}"
make check
rc=$?
t2=$(date +%s)
echo "== guest: make check exited $rc after $((t2 - t1)) s"
make run > run.log 2>&1
echo "== guest: make run exited $? ($(wc -l < run.log) lines); its first lines:"
head -12 run.log
exit $rc
