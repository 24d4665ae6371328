#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest (installed as /usr/local/sbin/tlbscope-job, run once by tlbscope-job.service):
# the host's /mnt/share/job.sh with the arguments in job.args, its output to job.out and the
# console, its exit status to job.rc, the uptime when it started to job.uptime; then power
# off unless job.keep exists.  Booted without a job.sh, it does nothing.
share=/mnt/share
[ -f "$share/job.sh" ] || exit 0
cd "$share" || exit 0
cut -d' ' -f1 /proc/uptime > job.uptime
set --
[ -f job.args ] && while IFS= read -r a; do set -- "$@" "$a"; done < job.args
{ sh ./job.sh "$@" < /dev/null; echo $? > job.rc; } 2>&1 | tee job.out > /dev/console
sync
[ -e job.keep ] || systemctl poweroff --no-block
