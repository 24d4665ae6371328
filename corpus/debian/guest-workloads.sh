#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest (make -C corpus/debian workloads): real Debian workloads recorded by tlbscope
# on Debian's kernel, each into the share's runs/NAME/.  Each workload is the command of
# `tlbscope record` (the tracepoints, by ftrace, into trace.dat) and, inside it, of `perf
# record` on record's own kprobes and the same tracepoints (record --kprobes-via perf):
# Debian's riscv64 kernel drops every kprobe event from the ftrace ring buffer, perf events
# keep them.  perf.data is turned into `perf script` text here (the host's perf 6.1 cannot
# read perf 6.12's file), xz'd.
# Then `tlbscope top -b` live beside a workload.  The tlbscope binary comes from the share
# (cross-built on the host, `make -C corpus/debian workloads`); zlib's source too.
#   usage: guest-workloads.sh [NAME...]   (default: every run below)
set -u
share=/mnt/share
work=/root/runs
ts=/root/tlbscope
cp $share/tlbscope $ts || exit 1
# the cost profiles, which report and tune look for beside the binary's source tree
export TLBSCOPE_PLATFORM_DIR=$share/platforms
mkdir -p $work $share/runs
# the workloads' own files on the guest's ext4 (stress-ng's tlb-shootdown ftruncates an
# unlinked file, which the 9p share refuses: "aborted early, out of system resources")
cd /root || exit 1
uname -a > $share/runs/uname.txt
dpkg-query -W stress-ng rt-tests redis-server redis-tools linux-perf trace-cmd libtracefs1 \
	> $share/runs/versions.txt 2>&1
# run NAME COMMAND...: COMMAND recorded by `tlbscope record --kprobes-via perf`: the
# tracepoints in trace.dat (ftrace), the same and the kprobes in trace.perf.data (perf)
run() {
	name=$1
	shift
	out=$work/$name
	rm -rf "$out" && mkdir -p "$out"
	echo "== guest: $name: $*"
	echo "$*" > "$out/command.txt"
	t0=$(date +%s)
	$ts record --kprobes-via perf -o "$out/trace.dat" -- "$@" > "$out/workload.txt" \
		2> "$out/record.txt"
	echo "record exited $? after $(($(date +%s) - t0)) s"
	cat "$out/record.txt"
	t0=$(date +%s)
	perf script -i "$out/trace.perf.data" -F comm,tid,pid,cpu,time,event,trace --ns --header \
		--show-lost-events 2> "$out/perf-script.err" | xz -T1 > "$out/perf.txt.xz"
	echo "perf script: $(($(date +%s) - t0)) s; $(head -3 "$out/perf-script.err")"
	$ts report -q "$out/trace.perf.data" > "$out/report-perf-guest.txt" 2>&1
	echo "report -q of trace.perf.data in the guest: exit $?"
	head -16 "$out/report-perf-guest.txt"
	rm -f "$out/trace.perf.data"
	ls -la "$out"
	rm -rf "$share/runs/$name"
	cp -r "$out" "$share/runs/$name" && rm -rf "$out"
	sync
}

want() {
	[ -z "$only" ] && return 0
	case " $only " in *" $1 "*) return 0 ;; esac
	return 1
}
only="$*"

want stress-tlb-debian-sbi-4cpu &&
	run stress-tlb-debian-sbi-4cpu stress-ng --tlb-shootdown 4 --timeout 3s --metrics-brief
want stress-mmap-debian-sbi-4cpu &&
	run stress-mmap-debian-sbi-4cpu stress-ng --mmap 4 --mmap-bytes 16M --timeout 3s \
		--metrics-brief
want stress-fork-debian-sbi-4cpu &&
	run stress-fork-debian-sbi-4cpu stress-ng --fork 4 --timeout 3s --metrics-brief

if want redis-debian-sbi-4cpu; then
	# Debian's redis-server service, as installed (started at boot)
	systemctl start redis-server
	for i in 1 2 3 4 5 6 7 8 9 10; do
		redis-cli ping > /dev/null 2>&1 && break
		sleep 2
	done
	# small: under TCG with perf, -n 2000 of 8 tests ran past 14 minutes
	run redis-debian-sbi-4cpu redis-benchmark -q -n 300 -c 8 -t set,get,lpush,lpop
fi

if want zlib-make-debian-sbi-4cpu; then
	# zlib 1.3.1 (trixie's source package's upstream tarball), configured first, unrecorded
	rm -rf /root/zlib && mkdir /root/zlib &&
		tar -C /root/zlib --strip-components=1 -xzf $share/zlib.orig.tar.gz &&
		(cd /root/zlib && ./configure > /root/zlib-configure.log 2>&1) ||
		{ echo "zlib: configure failed"; tail /root/zlib-configure.log; }
	# the static library alone (15 objects): the whole build records too long a trace
	cd /root/zlib && run zlib-make-debian-sbi-4cpu make -j4 libz.a
	cd /root || exit 1
fi

# the seed's benchmark, as guest-record.sh first recorded it (without perf; this replaces it)
want hackbench-debian-sbi-4cpu &&
	run hackbench-debian-sbi-4cpu hackbench -g 4 -l 100

if want perf-duration; then
	# --kprobes-via perf without a command: perf stopped by record at -D's end, then the
	# kprobes removed (not "in use")
	echo "== guest: record --kprobes-via perf -D 3s"
	$ts record --kprobes-via perf -o /root/d.dat -D 3s > /dev/null 2> /root/d.err
	echo "exit $?; perf.data $(stat -c %s /root/d.perf.data 2> /dev/null || echo none) bytes"
	cat /root/d.err
	echo "kprobe_events after: $(wc -l < /sys/kernel/tracing/kprobe_events) lines;" \
		"instances: $(ls /sys/kernel/tracing/instances | tr '\n' ' ')"
	rm -f /root/d.dat /root/d.perf.data
fi

if want top; then
	# live top beside a workload: switches and trace time must not stay 0
	echo "== guest: top -b beside stress-ng --fork"
	stress-ng --fork 2 --timeout 20s > /dev/null 2>&1 &
	sp=$!
	t0=$(date +%s)
	timeout 300 $ts top -b -d 2 -n 4 > $share/runs/top.txt 2>&1
	echo "top exited $? after $(($(date +%s) - t0)) s"
	wait $sp
	cat $share/runs/top.txt
fi
exit 0
