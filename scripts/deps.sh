#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages tlbscope builds and tests with, when they are missing.
# As root this runs apt-get; otherwise it names what to install and fails.  The optional
# ones (OPTIONAL) only serve a target or test of their own: one this architecture's Debian
# lacks (valgrind on riscv64), or that cannot be installed (no network), is named and left
# out, and that target or test says it is skipped.
#   usage: deps.sh [fuzz|check]   (both add clang and its sanitizer/libFuzzer runtime:
#   required by 'make fuzz', optional for the fuzz smoke of 'make check'; check adds
#   protobuf-compiler, optional: protoc decodes export's Perfetto output in the tests)
set -e

# library and tool packages; the tools are what the real-trace tests compare against,
# perf (linux-perf) is what `tlbscope CMD perf.data` runs to read a perf.data file, and
# GNU parallel runs tune's map/reduce recipe in tests/real/tuner.sh
PKGS="build-essential pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev
libjansson-dev libncurses-dev libzstd-dev zlib1g-dev libdeflate-dev libcmocka-dev trace-cmd rt-tests stress-ng tmux
jq xz-utils bc python3 strace linux-perf parallel"
# for `make valgrind` only
OPTIONAL="valgrind"
FUZZ_PKGS="clang libclang-rt-dev"
# for make check only: a second decoder of export --format perfetto's output
CHECK_PKGS="protobuf-compiler"
case "${1:-}" in
fuzz) PKGS="$PKGS $FUZZ_PKGS" ;;
check) OPTIONAL="$OPTIONAL $FUZZ_PKGS $CHECK_PKGS" ;;
esac

# what an optional package is for, as the messages say it
needed_by() {
	case $1 in
	valgrind) echo "make valgrind skips without it" ;;
	protobuf-compiler) echo "tests/real/export-perfetto.sh skips its protoc --decode_raw check" ;;
	*) echo "the fuzz smoke of make check skips without it" ;;
	esac
}

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
	for p in $opt_missing; do
		echo "tlbscope: optional, not installed: $p ($(needed_by "$p"))" >&2
	done
	[ -z "$missing" ] && exit 0
	echo "tlbscope: missing Debian packages:$missing" >&2
	echo "  install them with: sudo apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# offline (a guest without a network) only the optional ones may be missing: go on
apt-get update -qq || echo "tlbscope: apt-get update failed; the package lists as they are"
arch=$(dpkg --print-architecture)
opt_install=""
for p in $opt_missing; do
	if available "$p"; then
		opt_install="$opt_install $p"
	else
		echo "tlbscope: optional $p: apt has no package of it for $arch; left out" \
			"($(needed_by "$p"))"
	fi
done
if [ -n "$missing" ]; then
	echo "tlbscope: installing$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[ -z "$opt_install" ] && exit 0
echo "tlbscope: installing (optional)$opt_install"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $opt_install >/dev/null ||
	echo "tlbscope: optional$opt_install: apt-get install failed; left out" \
		"(what needs them says it is skipped)"
