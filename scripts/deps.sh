#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages tlbscope builds and tests with, when they are missing.
# As root this runs apt-get; otherwise it names what to install and fails.  The optional
# ones (OPTIONAL) only serve a target of their own: one this architecture's Debian lacks
# (valgrind on riscv64) is named and left out, and that target says it is skipped.
#   usage: deps.sh [fuzz]   ('fuzz' adds clang and its sanitizer/libFuzzer runtime)
set -e

# library and tool packages; the tools are what the real-trace tests compare against,
# perf (linux-perf) is what `tlbscope CMD perf.data` runs to read a perf.data file, and
# GNU parallel runs tune's map/reduce recipe in tests/real/tuner.sh
PKGS="build-essential pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev
libjansson-dev libncurses-dev libzstd-dev zlib1g-dev libcmocka-dev trace-cmd rt-tests stress-ng tmux
jq xz-utils bc python3 strace linux-perf parallel"
# for `make valgrind` only
OPTIONAL="valgrind"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang libclang-rt-dev"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
# has apt a version of $1 to install on this architecture?
available() { apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'; }

missing="" opt_missing=""
for p in $PKGS; do
	installed "$p" || missing="$missing $p"
done
for p in $OPTIONAL; do
	installed "$p" || opt_missing="$opt_missing $p"
done
[ -z "$missing$opt_missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	if [ -n "$opt_missing" ]; then
		echo "tlbscope: optional, not installed:$opt_missing (make valgrind skips without it)" >&2
	fi
	[ -z "$missing" ] && exit 0
	echo "tlbscope: missing Debian packages:$missing" >&2
	echo "  install them with: sudo apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# offline (a guest without a network) only the optional ones may be missing: go on
apt-get update -qq || echo "tlbscope: apt-get update failed; the package lists as they are"
arch=$(dpkg --print-architecture)
for p in $opt_missing; do
	if available "$p"; then
		missing="$missing $p"
	else
		echo "tlbscope: optional $p: apt has no package of it for $arch; left out" \
			"(make valgrind skips without it)"
	fi
done
[ -z "$missing" ] && exit 0
echo "tlbscope: installing$missing"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
