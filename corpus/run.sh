#!/bin/bash
# Record one corpus run in QEMU and turn it into traces/<run>/trace.dat + README.md.
# Usage: run.sh RUN-NAME CPUS MACHINE WORKLOAD [key=value ...]
#   MACHINE: aia (-M virt,aia=aplic-imsic: flushes are kernel IPIs) or
#            plain (-M virt: flushes are SBI remote fences)
#   key=value: workload parameters, passed as tlbscope.key=value on the kernel
#              command line (see guest/init.c); buf=KB sizes the per-CPU buffers.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-/work/build-riscv}
KSRC=$BUILD/${KNAME:-linux}
RUN=$1 CPUS=$2 MACHINE=$3 WORKLOAD=$4
shift 4
PARAMS=("$@")
TRIES=${TRIES:-3}
MEM=${MEM:-1G}
W=$BUILD/runs/$RUN
OUTDIR=${OUTROOT:-$HERE/traces}/$RUN   # OUTROOT: elsewhere (check runs not committed)
rm -rf "$W"; mkdir -p "$W" "$OUTDIR"

case $MACHINE in
    aia) MOPT=virt,aia=aplic-imsic;;
    plain) MOPT=virt;;
    *) echo "machine: aia or plain" >&2; exit 2;;
esac

# --- guest: static /init + generated kprobe definitions -> initramfs
riscv64-linux-gnu-gcc -static -O2 -Wall -o "$W/init" "$HERE/guest/init.c" "$HERE/guest/workloads.c" -lpthread
"$HERE/gen-probes.sh" "$KSRC/vmlinux" > "$W/kprobe_events"
# PROBE_SED: a sed script over the definitions (probes-renamed.sed: the hand-named probe set)
if [ -n "${PROBE_SED:-}" ]; then
    sed -f "$PROBE_SED" "$W/kprobe_events" > "$W/kprobe_events.sed"
    mv "$W/kprobe_events.sed" "$W/kprobe_events"
fi
[ -x "$BUILD/gen_init_cpio" ] || gcc -O2 -o "$BUILD/gen_init_cpio" "$KSRC/usr/gen_init_cpio.c"
cat > "$W/initramfs.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 1777 0 0
dir /etc 0755 0 0
dir /etc/tlbscope 0755 0 0
file /etc/tlbscope/kprobe_events $W/kprobe_events 0644 0 0
file /init $W/init 0755 0 0
LIST
"$BUILD/gen_init_cpio" "$W/initramfs.list" > "$W/initramfs.cpio"
# BOOTCONFIG=1 (the boot-* runs): the same probes and tracepoints set up at boot by
# the kernel itself (boot-time tracing), from a bootconfig appended to the initramfs
if [ "${BOOTCONFIG:-0}" = 1 ]; then
    [ -x "$BUILD/bc-build/bootconfig" ] || { mkdir -p "$BUILD/bc-build"; make -C "$KSRC/tools/bootconfig" OUTPUT="$BUILD/bc-build/" > "$W/bootconfig-build.log" 2>&1; }
    bkb=8192; for kv in "${PARAMS[@]}"; do case $kv in buf=*) bkb=${kv#buf=};; esac; done
    "$HERE/gen-bootconfig.sh" "$W/kprobe_events" "$bkb" > "$W/bootconfig"
    "$BUILD/bc-build/bootconfig" -a "$W/bootconfig" "$W/initramfs.cpio"
fi

APPEND="console=ttyS0 earlycon=sbi tlbscope.workload=$WORKLOAD tlbscope.cpus=$CPUS"
for kv in "${PARAMS[@]}"; do APPEND="$APPEND tlbscope.$kv"; done
# KAPPEND: more kernel parameters (e.g. lazytlb.max_loaded_mm=6 lazytlb.flush_queue=32)
[ -z "${KAPPEND:-}" ] || APPEND="$APPEND $KAPPEND"
[ "${BOOTCONFIG:-0}" = 1 ] && APPEND="$APPEND bootconfig"
# DTB: boot with this device tree instead of QEMU's own (DTB=svvptc: QEMU's
# own tree for this machine with _svvptc added to every cpu's riscv,isa,
# made by svvptc-dtb.sh, see README "Svvptc")
DTBOPT=()
if [ -n "${DTB:-}" ]; then
    if [ "$DTB" = svvptc ]; then
        [ "$MACHINE" = aia ] || { echo "DTB=svvptc: aia machine only" >&2; exit 2; }
        DTB=$W/svvptc.dtb
        "$HERE/svvptc-dtb.sh" "$CPUS" "$MEM" "$DTB"
    fi
    DTBOPT=(-dtb "$DTB")
fi
QEMU=(qemu-system-riscv64 -M "$MOPT" -smp "$CPUS" -m "$MEM" -bios default -nographic -no-reboot
      "${DTBOPT[@]}" -kernel "$KSRC/arch/riscv/boot/Image" -initrd "$W/initramfs.cpio"
      -drive file="$W/disk.img",format=raw,if=none,id=out -device virtio-blk-device,drive=out
      -append "$APPEND")

ok=0
for try in $(seq 1 "$TRIES"); do
    rm -rf "$W/x"; mkdir -p "$W/x"
    rm -f "$W/disk.img"; truncate -s 512M "$W/disk.img"
    echo "== $RUN: boot $try/$TRIES: ${QEMU[*]}"
    start=$(date +%s)
    timeout ${TIMEOUT:-900} "${QEMU[@]}" < /dev/null > "$W/console.log" 2>&1 &
    qpid=$!
    # A boot that prints nothing after OpenSBI (seen under heavy host load, before the
    # kernel's first console line) is killed after BOOT_WAIT s and retried.
    ( for _ in $(seq 1 "${BOOT_WAIT:-240}"); do
          sleep 1
          grep -qa 'Linux version' "$W/console.log" 2>/dev/null && exit 0
          kill -0 $qpid 2>/dev/null || exit 0
      done
      echo "== $RUN: no kernel output after ${BOOT_WAIT:-240} s: stopping QEMU"
      kill $qpid ) &
    wpid=$!
    wait $qpid || echo "qemu exit $?"
    kill $wpid 2>/dev/null || true
    wait $wpid 2>/dev/null || true
    echo $(( $(date +%s) - start )) > "$W/guest_seconds"; echo "== $RUN: guest ran $(cat "$W/guest_seconds") s"
    grep 'tlbscope-init' "$W/console.log" | tail -20 || true
    tar -C "$W/x" -xf "$W/disk.img" 2>/dev/null || true
    if [ ! -f "$W/x/info.txt" ]; then echo "no archive from guest"; tail -30 "$W/console.log"; continue; fi
    if grep -q "CPU bring-up failed" "$W/x/info.txt"; then echo "CPU bring-up failed, retrying"; continue; fi
    ok=1; break
done
[ $ok = 1 ] || { echo "$RUN: failed after $TRIES tries" >&2; exit 1; }

# --- host: trace.dat from the raw per-CPU buffers
X=$W/x
# boot runs: the probes were registered at boot with 0 hits; /init has no "before"
if [ "${BOOTCONFIG:-0}" = 1 ] && [ ! -s "$X/kprobe_profile.before" ]; then
    awk 'NF >= 3 {print $1, 0, 0}' "$X/kprobe_profile.after" > "$X/kprobe_profile.before"
fi
cpufiles=()
for c in $(seq 0 $((CPUS - 1))); do cpufiles+=("$X/per_cpu/cpu$c/trace_pipe_raw"); done
(cd "$W" && trace-cmd restore -c -t "$X/tracing" -k "$X/kallsyms" -o head.dat > restore.log 2>&1)
(cd "$W" && trace-cmd restore -i head.dat -o full.dat "${cpufiles[@]}" >> restore.log 2>&1)
rm -f "$OUTDIR/trace.dat"
trace-cmd convert --file-version 7 --compression any -i "$W/full.dat" -o "$OUTDIR/trace.dat" > "$W/convert.log" 2>&1
trace-cmd report -i "$OUTDIR/trace.dat" > "$W/report.txt" 2>"$W/report.err"
# the kernel's own sfence.vma count (patches-sfence/0001) -> counts.json
rm -f "$OUTDIR/counts.json" "$W/sfence.md"
if [ -f "$X/sfence_vma.before" ]; then
    MACHINE=$MACHINE "$HERE/sfence-counts.sh" "$KSRC/vmlinux" "$W" "$OUTDIR"
fi
DESCRIBE=("$HERE/describe.sh" "$RUN" "$W" "$OUTDIR" "$MACHINE" "$CPUS" "$WORKLOAD" "${QEMU[*]}" "${PARAMS[*]}")
declare -p DESCRIBE RUN_NOTE REGEN 2>/dev/null > "$W/describe.cmd" || true   # to redo the README alone
"${DESCRIBE[@]}"
ls -l "$W/full.dat" "$OUTDIR/trace.dat"
