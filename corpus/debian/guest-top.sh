#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest (make -C corpus/debian top): live `tlbscope top -b` on Debian's kernel beside
# a workload that outlasts it.  It passes when the last snapshot has switches and CPU rows,
# and tracefs is as it was after (no instance, the same kprobe_events).  Until d2840c1 the
# timeline's lookahead held back 8192 events whatever their age, and the guest makes a few
# hundred a second: every snapshot showed switches 0 and no CPU row.  The binary comes from
# the share (cross-build.sh); share/tlbscope.old, when there, is run the same way first and
# its result printed, not counted (to show a fix against the code before it).
#   usage: guest-top.sh   (TAP on stdout; exit 0 all ok, 1 not)
set -u
share=/mnt/share
# the cost profiles (cross-build.sh puts them in the share): top's recommendation needs one
export TLBSCOPE_PLATFORM_DIR=$share/platforms
tr=/sys/kernel/tracing
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
state() {
	ls $tr/instances
	cat $tr/kprobe_events
}
# run BIN LABEL COUNTED: top -b -d 2 -n 3 beside stress-ng --fork 1; checks when COUNTED=1
run() {
	bin=$1
	label=$2
	out=/root/top-$label.txt
	before=$(state)
	# stress-ng in /root (its temporary files; the 9p share refuses some), ended after top
	(cd /root && exec stress-ng --fork 1 --timeout 600s > /dev/null 2>&1) &
	sp=$!
	t0=$(date +%s)
	timeout 300 "$bin" top -b -d 2 -n 3 > "$out" 2> "$out.err"
	rc=$?
	t1=$(date +%s)
	kill $sp 2> /dev/null
	wait $sp 2> /dev/null
	# the last snapshot: its totals line and its CPU rows (the lines under " CPU TASK")
	sw=$(sed -n 's/^totals: switches \([0-9]*\),.*/\1/p' "$out" | tail -1)
	rows=$(awk '/^ CPU TASK/ { n = 0; on = 1; next } on && /^$/ { on = 0 }
		    on && $1 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' "$out")
	echo "# $label ($bin): top exited $rc after $((t1 - t0)) s; last snapshot: switches" \
		"${sw:-none}, $rows CPU rows"
	sed 's/^/#   /' "$out" | tail -22
	sed 's/^/#   stderr: /' "$out.err"
	[ "$3" = 1 ] || return 0
	ok $rc "$label: top -b -d 2 -n 3 exits 0"
	[ "${sw:-0}" -gt 0 ]
	ok $? "$label: switches in the last snapshot (${sw:-none})"
	[ "$rows" -gt 0 ]
	ok $? "$label: CPU rows ($rows; $(nproc) CPUs)"
	[ "$before" = "$(state)" ]
	ok $? "$label: tracefs as it was (instances, kprobe_events)"
}

echo "# $(uname -r) $(uname -m), $(nproc) CPUs; tlbscope $(cat $share/tlbscope.rev 2> /dev/null)"
cp $share/tlbscope /root/tlbscope || exit 1
if [ -e $share/tlbscope.old ]; then
	cp $share/tlbscope.old /root/tlbscope.old && run /root/tlbscope.old old 0
fi
run /root/tlbscope new 1
echo "1..$n"
exit $fail
