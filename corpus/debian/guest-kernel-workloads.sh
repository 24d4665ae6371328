#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest booted on one of the project's kernels (make -C corpus/debian workloads
# KERNEL=lazy|stock): real Debian workloads recorded by `tlbscope record` through ftrace
# alone.  These kernels keep kprobe events in the ring buffer (../patches/0001: riscv
# selects ARCH_HAVE_NMI_SAFE_CMPXCHG, which Debian's kernel lacks), have BTF for record's
# argument offsets, and run on AIA (IMSIC IPIs, not SBI fences); the lazy kernel's own
# probes are added by record too.  Each run goes to the share's runs/BASE-SUFFIX/ with the
# kernel's facts (kernel.txt) and the QEMU line (qemu.line, written by run.sh).
#   usage: guest-kernel-workloads.sh SUFFIX [BASE...]   (default: every run below)
# e.g. SUFFIX "debian-lazy-t6q32-aia-4cpu" makes hackbench-debian-lazy-t6q32-aia-4cpu.
set -u
share=/mnt/share
work=/root/runs
ts=/root/tlbscope
suffix=$1
shift
cp $share/tlbscope $ts || exit 1
export TLBSCOPE_PLATFORM_DIR=$share/platforms
mkdir -p $work $share/runs
# the workloads' files on the guest's ext4 (stress-ng's tlb-shootdown refuses the 9p share)
cd /root || exit 1
{
	uname -a
	echo "cmdline: $(cat /proc/cmdline)"
	echo "cpus: $(nproc); btf: $(stat -c %s /sys/kernel/btf/vmlinux 2> /dev/null || echo none)"
	echo "irq: $(grep -o 'IMSIC\|APLIC\|PLIC' /proc/interrupts | sort | uniq -c | tr -s ' \n' ' ')"
} > $share/runs/kernel-$suffix.txt
cat $share/runs/kernel-$suffix.txt
# Debian's redis-server.service fails on these kernels and systemd restarts it all along;
# an attempt inside a recording made 3 flush_tlb_all calls (9 csd IPIs on 4 harts, in no
# __flush_tlb_range mask): the unit's child "(s-server)" once, then a kworker twice, as a
# BPF program (its seccomp filter, SystemCallFilter=) is made read-only and later freed
# (set_memory_*: arch/riscv/mm/pageattr.c flushes everything).  Stopped before recording.
systemctl --no-pager status redis-server.service 2>&1 | sed -n '1,4p'
systemctl stop redis-server.service
echo "redis-server.service: $(systemctl is-active redis-server.service)"
dpkg-query -W stress-ng rt-tests trace-cmd libtracefs1 libtraceevent1 > $share/runs/versions.txt 2>&1
# run BASE COMMAND...: COMMAND recorded by `tlbscope record` into runs/BASE-SUFFIX/trace.dat
run() {
	name=$1-$suffix
	shift
	out=$work/$name
	rm -rf "$out" && mkdir -p "$out"
	echo "== guest: $name: $*"
	echo "$*" > "$out/command.txt"
	cp $share/runs/kernel-$suffix.txt "$out/kernel.txt"
	cp $share/qemu.line "$out/qemu.line" 2> /dev/null
	t0=$(date +%s)
	$ts record -o "$out/trace.dat" -- "$@" > "$out/workload.txt" 2> "$out/record.txt"
	echo "record exited $? after $(($(date +%s) - t0)) s"
	cat "$out/record.txt"
	$ts report -q "$out/trace.dat" > "$out/report-guest.txt" 2>&1
	echo "report -q in the guest: exit $?"
	head -20 "$out/report-guest.txt"
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
# the seed's benchmark first, as on Debian's kernel (hackbench-debian-sbi-4cpu)
want hackbench && run hackbench hackbench -g 4 -l 100
want stress-tlb && run stress-tlb stress-ng --tlb-shootdown 4 --timeout 3s --metrics-brief
want stress-mmap && run stress-mmap stress-ng --mmap 4 --mmap-bytes 16M --timeout 3s --metrics-brief
want stress-fork && run stress-fork stress-ng --fork 4 --timeout 3s --metrics-brief
exit 0
