#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Debian 13 (trixie) riscv64 guest: a root filesystem made by mmdebstrap from the
# registry (trixie-riscv64.sources, packages.list), its package versions written to
# versions.txt, Debian's kernel and initrd copied out, and an ext4 disk image of it
# (mkfs.ext4 -d).  Results in $CACHE (default build/debian-riscv64 at the top of the
# repository, which `make clean` removes; not under corpus/, whose C files tests walk):
#   rootfs/  the tree (also a sysroot to cross-build against)
#   disk.img vmlinuz initrd.img
# Root; about 10 minutes on 2 cores.  usage: mkimage.sh   (DISK_SIZE=6G, SOURCES=file)
set -e
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${CACHE:-$(cd "$here/../.." && pwd)/build/debian-riscv64}
DISK_SIZE=${DISK_SIZE:-6G}
SOURCES=${SOURCES:-$here/trixie-riscv64.sources}

"$here/host-deps.sh"
pkgs=$(sed 's/#.*//' "$here/packages.list" | tr -s ' \t\n' ',' | sed 's/^,//; s/,$//')
mkdir -p "$CACHE"
rm -rf "$CACHE/rootfs.new" "$CACHE/disk.img.new"
t0=$(date +%s)
# docs and translations left out (a third of the size); copyright files kept
mmdebstrap --mode=root --architectures=riscv64 --variant=apt --include="$pkgs" \
	--aptopt='Acquire::Retries "3"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--customize-hook="$here/customize.sh" \
	trixie "$CACHE/rootfs.new" "$SOURCES"
t1=$(date +%s)

root=$CACHE/rootfs.new
dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Package}\t${Version}\t${Architecture}\n' \
	> "$here/versions.txt"
kver=$(basename "$(ls -d "$root"/lib/modules/* | sort -V | tail -1)")
# riscv64's package has boot/vmlinux-VER, the flat Image (an EFI stub's PE header first);
# QEMU's -kernel wants it so: undo a gzip if some version has one
kimg=$root/boot/vmlinux-$kver
[ -e "$kimg" ] || kimg=$root/boot/vmlinuz-$kver
if gzip -t "$kimg" 2>/dev/null; then
	gzip -dc "$kimg" > "$CACHE/vmlinuz"
else
	cp "$kimg" "$CACHE/vmlinuz"
fi
cp "$root/boot/initrd.img-$kver" "$CACHE/initrd.img"
echo "$kver" > "$CACHE/kernel.version"

mkfs.ext4 -q -F -L tlbscope-root -d "$root" "$CACHE/disk.img.new" "$DISK_SIZE"
t2=$(date +%s)
rm -rf "$CACHE/rootfs"
mv "$root" "$CACHE/rootfs"
mv "$CACHE/disk.img.new" "$CACHE/disk.img"

echo "debian guest: kernel $kver; $(wc -l < "$here/versions.txt") packages (versions.txt)"
echo "debian guest: mmdebstrap $((t1 - t0)) s, mkfs.ext4 $((t2 - t1)) s;" \
	"rootfs $(du -sh "$CACHE/rootfs" | cut -f1), disk.img $(du -h "$CACHE/disk.img" | cut -f1)" \
	"used of $DISK_SIZE"
