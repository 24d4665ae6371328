# SPDX-License-Identifier: GPL-2.0-only
# Shared by tests/real/*.sh: TAP output and running tlbscope (under $TLBSCOPE_WRAP).
top=${TLBSCOPE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
prog=${TLBSCOPE:-$top/tlbscope}
fx=$top/tests/fixtures
# tests/tools/shootdown.c, built by 'make unit': a load that makes remote TLB flushes
shootdown=${TLBSCOPE_BUILD:-$top/build}/tests/shootdown
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tls() { ${TLBSCOPE_WRAP:-} "$prog" "$@"; }
ok() { n=$((n + 1)); echo "ok $n $T: $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n $T: $*"; }
skip() { n=$((n + 1)); echo "ok $n $T: $1 # SKIP $2"; }
# check "what" CMD...: ok when CMD succeeds
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
# same "what" A B: ok when the strings are equal, else show both
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diff <(echo "$2") <(echo "$3") | head -20 | sed 's/^/#   /'; fi
}
# decompress a fixture into $tmp and print the path
unxz_fx() { local out=$tmp/$(basename "${1%.xz}"); xz -dc "$fx/$1" > "$out"; echo "$out"; }

tr=/sys/kernel/tracing
# need_tracefs WHAT TOOL...: root, tracefs (mounted if it can be) and the tools, or a
# "skipped" line for WHAT with the reason and the end of the script
need_tracefs() {
	local what=$1 c
	shift
	if [ "$(id -u)" != 0 ]; then
		skip "$what" "not root: cannot use tracefs"; exit 0
	fi
	[ -d $tr/instances ] || mount -t tracefs nodev $tr 2> /dev/null
	if [ ! -d $tr/instances ]; then
		skip "$what" "tracefs is not available at $tr"; exit 0
	fi
	for c in "$@"; do
		command -v "$c" > /dev/null || { skip "$what" "$c not installed"; exit 0; }
	done
}

# guest_writes STRACE_LOG INSTANCE_RE: what a traced run (strace -f -e trace=openat,mkdir,
# rmdir,unlink,truncate) wrote, created or removed in tracefs outside the instances named by
# INSTANCE_RE (an extended regex of their names), and under /proc/sys other than
# kernel/kptr_restrict (trace-cmd restore sets it to 0 while it reads /proc/kallsyms and
# puts it back: tlbscope-record(1) says so).  Empty when the run was a good guest.
guest_writes() {
	grep -E '(openat\(.*(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC)|mkdir\(|rmdir\(|unlink\(|truncate\()' "$1" |
		grep -v -E '= -1 E' |
		grep -E '"(/sys/kernel/(debug/)?tracing|/proc/sys)/' |
		grep -v -E "\"/sys/kernel/(debug/)?tracing/instances/($2)(/|\")" |
		grep -v -F '"/proc/sys/kernel/kptr_restrict"' |
		sed 's/^[0-9]* *//'
}
