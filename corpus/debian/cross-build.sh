#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tlbscope cross-built on the host for the guest: the committed tree (REV, default HEAD)
# compiled by Debian 12's riscv64-linux-gnu-gcc against the image's rootfs as sysroot (its
# libtracefs, libtraceevent, libtracecmd and pkg-config files), about 10 s where the guest's
# own gcc takes 6 minutes.  The binary goes to $SHARE/tlbscope (default $CACHE/share), the
# cost profiles (tuner/platforms) to $SHARE/platforms.  Another SHARE keeps its source tree
# and build log beside it (SHARE.cross-src, SHARE.cross-build.log), so that two guests' jobs
# can be built at once.
#   usage: cross-build.sh [REV]   (root the first time: installs gcc-riscv64-linux-gnu)
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${CACHE:-$top/build/debian-riscv64}
SHARE=${SHARE:-$CACHE/share}
if [ "$SHARE" = "$CACHE/share" ]; then
	src=$CACHE/cross-src log=$CACHE/cross-build.log
else
	src=$SHARE.cross-src log=$SHARE.cross-build.log
fi
REV=${1:-HEAD}
root=$CACHE/rootfs
[ -d "$root/usr/lib/riscv64-linux-gnu" ] || { echo "debian guest: no $root: make -C corpus/debian image" >&2; exit 2; }
if ! command -v riscv64-linux-gnu-gcc > /dev/null; then
	[ "$(id -u)" = 0 ] || { echo "debian guest: sudo apt-get install gcc-riscv64-linux-gnu" >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		gcc-riscv64-linux-gnu > /dev/null
fi
rm -rf "$src" && mkdir -p "$src" "$SHARE"
git -C "$top" archive "$REV" | tar -C "$src" -x
PKG_CONFIG_SYSROOT_DIR=$root \
PKG_CONFIG_LIBDIR=$root/usr/lib/riscv64-linux-gnu/pkgconfig:$root/usr/share/pkgconfig \
	make -C "$src" -j"$(nproc)" CC="riscv64-linux-gnu-gcc --sysroot=$root" \
	LDFLAGS="-Wl,-rpath-link,$root/usr/lib/riscv64-linux-gnu" tlbscope > "$log" 2>&1 ||
	{ tail -30 "$log" >&2; exit 1; }
cp "$src/tlbscope" "$SHARE/tlbscope"
rm -rf "$SHARE/platforms" && cp -r "$src/tuner/platforms" "$SHARE/platforms"
git -C "$top" rev-parse --short "$REV" > "$SHARE/tlbscope.rev"
echo "debian guest: $SHARE/tlbscope cross-built at $(cat "$SHARE/tlbscope.rev")"
