#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Debian 12 host packages that make and boot the riscv64 guest (mkimage.sh, run.sh),
# installed when missing (as root), and riscv64 binaries made runnable through binfmt_misc
# (mmdebstrap runs the guest's maintainer scripts under qemu-user).
set -e
PKGS="mmdebstrap qemu-user-static binfmt-support qemu-system-misc opensbi e2fsprogs
debian-archive-keyring arch-test"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "debian guest: missing host packages:$missing" >&2
		echo "  install them with: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "debian guest: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# binfmt_misc: mounted and qemu-riscv64 registered (a container may not have done either)
if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
	mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-riscv64 ]; then
	update-binfmts --enable qemu-riscv64 >/dev/null 2>&1 || true
fi
if ! arch-test riscv64 >/dev/null 2>&1; then
	echo "debian guest: this host cannot run riscv64 binaries (binfmt_misc with" >&2
	echo "  qemu-riscv64 from qemu-user-static, flag F); mmdebstrap needs it" >&2
	exit 1
fi
