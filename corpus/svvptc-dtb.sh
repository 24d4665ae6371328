#!/bin/bash
# A device tree for QEMU 7.2's -M virt,aia=aplic-imsic that advertises Svvptc:
# QEMU 7.2 has no svvptc CPU property, so dump the machine's own device tree
# (same -smp/-m), add "_svvptc" to every cpu's riscv,isa (and "svvptc" to
# riscv,isa-extensions where present), and compile it back with dtc.
# Usage: svvptc-dtb.sh CPUS MEM OUT.dtb   (OUT.dts is kept beside it)
# Why the Svvptc guarantee holds on QEMU: docs/corpus-svvptc.md.
set -euo pipefail
CPUS=$1 MEM=$2 OUT=$3
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
qemu-system-riscv64 -M virt,aia=aplic-imsic,dumpdtb="$TMP/virt.dtb" -smp "$CPUS" -m "$MEM" \
    -bios default -nographic > "$TMP/qemu.log" 2>&1 || true
[ -s "$TMP/virt.dtb" ] || { cat "$TMP/qemu.log" >&2; echo "svvptc-dtb: no dtb dumped" >&2; exit 1; }
dtc -q -I dtb -O dts -o "$TMP/virt.dts" "$TMP/virt.dtb"
# riscv,isa = "rv64imafdch_zicsr_..."; -> append _svvptc once
sed -E -e '/riscv,isa = /{/svvptc/!s/(riscv,isa = "[^"]*)"/\1_svvptc"/}' \
       -e '/riscv,isa-extensions = /{/"svvptc"/!s/;$/, "svvptc";/}' "$TMP/virt.dts" > "${OUT%.dtb}.dts"
n=$(grep -c 'riscv,isa = ".*_svvptc"' "${OUT%.dtb}.dts" || true)
[ "$n" = "$CPUS" ] || { echo "svvptc-dtb: $n of $CPUS cpus have _svvptc" >&2; exit 1; }
dtc -q -I dts -O dtb -o "$OUT" "${OUT%.dtb}.dts"
grep -m1 'riscv,isa = ' "${OUT%.dtb}.dts" | sed 's/^[[:space:]]*/svvptc-dtb: /'
