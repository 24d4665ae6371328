#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run SCRIPT in the Debian riscv64 guest and get its output back: SCRIPT becomes job.sh in
# the 9p share (ARGS in job.args), the guest boots Debian's kernel on QEMU's plain
# `-M virt` (AIA's aplic-imsic hangs that kernel under QEMU 7.2) with OpenSBI, its
# tlbscope-job unit runs the job from the share and powers off.  The job's output is
# printed here and its exit status is run.sh's (125: no status came back).
#   usage: run.sh SCRIPT [ARGS...]
# Environment: SHARE (the host directory shared, default $CACHE/share; the job starts
# there, at /mnt/share; the console goes to $CACHE/console.log, another share's to
# SHARE.console.log, so that two guests can run at once), SMP (4), MEM (4G), TIMEOUT
# (seconds, 3600), KEEP_DISK=1 (write the disk image itself; by default writes go to a
# throw-away overlay, -snapshot), APPEND (more kernel arguments), CACHE (mkimage.sh's).
# IMAGE: another kernel (one of the project's, built with kernel-guest.config, everything
# built in): booted without an initrd, on MACHINE (default for it virt,aia=aplic-imsic;
# Debian's kernel: virt).  The QEMU line is kept in the share as qemu.line.
set -e
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${CACHE:-$(cd "$here/../.." && pwd)/build/debian-riscv64}
SHARE=${SHARE:-$CACHE/share}
SMP=${SMP:-4}
MEM=${MEM:-4G}
TIMEOUT=${TIMEOUT:-3600}
[ $# -ge 1 ] || { echo "usage: run.sh SCRIPT [ARGS...]" >&2; exit 2; }
script=$1
shift
[ -e "$CACHE/disk.img" ] || { echo "debian guest: no $CACHE/disk.img: make -C corpus/debian image" >&2; exit 2; }
# the console is a file here, with nothing to read: the image's root login on it (for a
# guest driven by hand) would end at once and start again every few seconds all run long
nogetty=systemd.mask=serial-getty@ttyS0.service
if [ -n "${IMAGE:-}" ]; then
	[ -e "$IMAGE" ] || { echo "debian guest: no kernel $IMAGE" >&2; exit 2; }
	kernel=$IMAGE
	initrd=
	MACHINE=${MACHINE:-virt,aia=aplic-imsic}
	# no initrd: the root device waited for, the console's own earlycon
	append="root=/dev/vda rw rootwait console=ttyS0 earlycon=sbi cryptomgr.notests $nogetty"
else
	for f in vmlinuz initrd.img; do
		[ -e "$CACHE/$f" ] || { echo "debian guest: no $CACHE/$f: make -C corpus/debian image" >&2; exit 2; }
	done
	kernel=$CACHE/vmlinuz
	initrd="-initrd $CACHE/initrd.img"
	MACHINE=${MACHINE:-virt}
	append="root=/dev/vda rw console=ttyS0 cryptomgr.notests $nogetty"
fi
command -v qemu-system-riscv64 > /dev/null || "$here/host-deps.sh"

mkdir -p "$SHARE"
cp "$script" "$SHARE/job.sh"
rm -f "$SHARE/job.args" "$SHARE/job.out" "$SHARE/job.rc" "$SHARE/job.uptime"
: > "$SHARE/job.args"
for a in "$@"; do printf '%s\n' "$a" >> "$SHARE/job.args"; done

bios=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
[ -e $bios ] || bios=default
snapshot=-snapshot
[ "${KEEP_DISK:-0}" = 1 ] && snapshot=
log=$CACHE/console.log
[ "$SHARE" = "$CACHE/share" ] || log=$SHARE.console.log
# shellcheck disable=SC2086
set -- qemu-system-riscv64 -M "$MACHINE" -smp "$SMP" -m "$MEM" -bios $bios \
	-kernel "$kernel" $initrd -append "$append${APPEND:+ $APPEND}" \
	-drive file="$CACHE/disk.img",format=raw,if=none,id=hd0 $snapshot \
	-device virtio-blk-device,drive=hd0 \
	-fsdev local,id=share,path="$SHARE",security_model=none \
	-device virtio-9p-device,fsdev=share,mount_tag=share \
	-display none -monitor none -serial file:"$log" -no-reboot
# the line as run, arguments with spaces quoted
for a in "$@"; do case $a in *' '*) printf "'%s' " "$a" ;; *) printf '%s ' "$a" ;; esac; done |
	sed 's/ $//' > "$SHARE/qemu.line"
echo >> "$SHARE/qemu.line"
t0=$(date +%s)
timeout "$TIMEOUT" "$@" || true
t1=$(date +%s)

[ -e "$SHARE/job.out" ] && cat "$SHARE/job.out"
if [ ! -s "$SHARE/job.rc" ]; then
	echo "debian guest: no exit status came back after $((t1 - t0)) s; the console's end:" >&2
	tail -20 "$log" >&2
	exit 125
fi
up=$(cut -d. -f1 "$SHARE/job.uptime" 2> /dev/null || echo '?')
echo "debian guest: $((t1 - t0)) s in all, the job started $up s after boot" \
	"(console: $log)" >&2
exit "$(cat "$SHARE/job.rc")"
