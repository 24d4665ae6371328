#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages tlbscope builds and tests with, when they are missing.
# As root this runs apt-get; otherwise it names what to install and fails.
#   usage: deps.sh [fuzz]   ('fuzz' adds clang and its sanitizer/libFuzzer runtime)
set -e

# library and tool packages; the tools are what the real-trace tests compare against,
# perf (linux-perf) is what `tlbscope CMD perf.data` runs to read a perf.data file, and
# GNU parallel runs tune's map/reduce recipe in tests/real/tuner.sh
PKGS="build-essential pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev
libjansson-dev libncurses-dev libzstd-dev zlib1g-dev libcmocka-dev trace-cmd rt-tests stress-ng tmux valgrind
jq xz-utils bc python3 strace linux-perf parallel"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang libclang-rt-dev"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "tlbscope: missing Debian packages:$missing" >&2
	echo "  install them with: sudo apt-get install$missing" >&2
	exit 1
fi
echo "tlbscope: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
