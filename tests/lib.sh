# SPDX-License-Identifier: GPL-2.0-only
# Shared by tests/real/*.sh: TAP output and running tlbscope (under $TLBSCOPE_WRAP).
top=${TLBSCOPE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
prog=${TLBSCOPE:-$top/tlbscope}
fx=$top/tests/fixtures
# tests/tools/shootdown.c, built by 'make unit': a load that makes remote TLB flushes
shootdown=${TLBSCOPE_BUILD:-$top/build}/tests/shootdown
# tests/tools/exec-thread.c (make unit): processes whose exec comes from a non-leader thread
exec_thread=${TLBSCOPE_BUILD:-$top/build}/tests/exec-thread
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
# same_file "what" A B: ok when files A and B are the same, else show where they differ (for
# outputs of megabytes, which a shell's strings hold and compare slowly)
same_file() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1"; diff "$2" "$3" | head -20 | sed 's/^/#   /'; fi
}
# top -b's last "recommendation" on stdin, its wrapped lines joined, as tune --json's
# .recommendation reads: "T=.. Q=.. VERDICT" for a point to set, else "VERDICT"
top_recommendation() {
	awk '/^  recommendation \(/ { r = $0; on = 1; next }
	     on && /^    / { r = r " " $0; next } { on = 0 } END { print r }' |
		tr -s ' ' | sed -n \
		's/.*MAX_LOADED_MM \([0-9]*\), MAX_TLB_FLUSH_TASK \([0-9]*\) (\([a-z-]*\);.*/T=\1 Q=\2 \3/p
		 s/.*recommendation ([^)]*): \([a-z-]*\).* (the cheapest.*/\1/p'
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

# without_tracefs CMD...: CMD in a mount namespace of its own where tracefs is unmounted
# (a machine without systemd mounts none); the machine's own mounts are not touched.  The
# command is exec'd: its pid is the one `$!` names.  Needs root and unshare(1), and a
# machine that lets it unmount there: without_tracefs_why says why not, for a skip.
without_tracefs_why() {
	if ! command -v unshare > /dev/null; then
		echo "unshare not installed"
	elif ! without_tracefs true 2> /dev/null; then
		echo "cannot unmount tracefs in a mount namespace of its own here"
	fi
}
without_tracefs() {
	unshare --mount --propagation private sh -c '
		for m in $(grep " tracefs " /proc/mounts | cut -d" " -f2 | sort -r); do
			umount "$m" || exit 125
		done
		exec "$@"' sh "$@"
}

# tlb_flush_fired: whether this kernel's flushes fire tlb:tlb_flush, the only flush event a
# capture of tracepoints alone has.  Every kernel has the event (mm/rmap.c defines it) but
# only x86's flush code calls it; RISC-V's flushes are seen by record's kprobes.  Otherwise
# prints why not, for a skip.
tlb_flush_fired() {
	if [ ! -e $tr/events/tlb/tlb_flush ]; then
		echo "this kernel has no tlb:tlb_flush tracepoint (x86's)"
		return 1
	fi
	case $(uname -m) in
	x86_64 | i?86) return 0 ;;
	esac
	echo "$(uname -m) never fires tlb:tlb_flush (only x86's flush code does; the event" \
		"is in every kernel); its flushes are seen by kprobes, which a capture of" \
		"tracepoints does not add"
	return 1
}

# tracefs_state: what other users of tracefs would notice, for before/after comparisons.
# The top level's settings, dynamic events, enabled events, every event filter, pid
# filters, kptr_restrict and the instances not named tlbscope-* (other test runs come and go
# in those; each script checks its own by name).  buffer_size_kb reads "7 (expanded: 1408)"
# on a freshly booted kernel until the top-level buffer is first used: an unchanged line
# proves nobody used it.  While the top level does not trace, the events its buffer holds
# (truncating its 'trace', as 'trace-cmd extract' does, clears them).
tracefs_state() {
	ls $tr/instances | grep -v '^tlbscope-'
	cat $tr/dynamic_events $tr/set_event $tr/tracing_on $tr/buffer_size_kb \
		$tr/buffer_total_size_kb $tr/current_tracer $tr/trace_options $tr/trace_clock \
		$tr/tracing_cpumask $tr/saved_cmdlines_size /proc/sys/kernel/kptr_restrict
	cat $tr/set_event_pid $tr/set_ftrace_pid $tr/buffer_subbuf_size_kb 2> /dev/null
	grep -r -v -x none $tr/events --include=filter
	if [ "$(cat $tr/tracing_on)" = 0 ]; then grep -H '^entries' $tr/per_cpu/cpu*/stats; fi
}

# guest_strace LOG CMD...: CMD under strace, its file system calls in LOG (directory
# descriptors shown as their paths, so that openat(dirfd, name) is seen too)
# (LeakSanitizer cannot run under ptrace: on `make asan` builds the traced run checks no
# leaks, the suite's other runs do)
guest_strace() {
	local log=$1
	shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -y -e trace=%file -o "$log" "$@"
}

# guest_writes LOG INSTANCE_RE: what a run under guest_strace opened for writing, created,
# removed or renamed (or tried to) in tracefs outside the instances named by INSTANCE_RE (an
# extended regex of their names), and anything under /proc/sys; also any chdir there, after
# which the relative paths of mkdir() and the like could not be placed.  Empty for a good
# guest.
guest_writes() {
	local calls open change places='/sys/kernel/(debug/)?tracing|/proc/sys'
	# "openat(3</dir>, "name"" and "openat(AT_FDCWD</cwd>, "name"" as one absolute path
	calls=$(sed -E 's/^[0-9]+ +//
		s/^([a-z0-9_]+)\((AT_FDCWD|[0-9]+)<[^>]*>, "\//\1(AT_FDCWD, "\//
		s/^([a-z0-9_]+)\((AT_FDCWD|[0-9]+)<([^>]*)>, "/\1(AT_FDCWD, "\3\//' "$1")
	open='open(at2?)?\(.*(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC)'
	change='(creat|mkdir(at)?|rmdir|unlink(at)?|rename(at2?)?|f?truncate)\('
	grep -E "^f?chdir\\(.*($places)" <<< "$calls"
	grep -E "^($open|$change)" <<< "$calls" | grep -E "\"($places)/" |
		grep -v -E "\"/sys/kernel/(debug/)?tracing/instances/($2)(/|\")"
}

# threads_why: why the threads a command starts cannot be counted here (nothing: they can)
threads_why() {
	if [ -n "${TSAN_OPTIONS:-}" ]; then
		echo "ThreadSanitizer (make tsan) starts a thread of its own with the first"
	elif ! command -v strace > /dev/null; then
		echo "strace is not installed"
	fi
}
# clones CMD...: the threads CMD started (strace); a sanitizer's own are counted too, so
# compare with the count of a command that starts none (--help)
clones() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq \
		-e trace=clone,clone3 -o "$tmp/clones" "$@" > /dev/null 2>&1
	grep -c 'CLONE_THREAD' "$tmp/clones"
}

# trace.dat readers compared (tracedat-direct.sh, tracedat-capture.sh): a command through
# libtracecmd's reader (dat_lib) or tlbscope's own (dat_own), the trace's name (the last
# argument) shown as TRACE, the exit status last; dat_both DESC FILE: the two give the same
# events
dat_lib() {
	TLBSCOPE_TRACEDAT_LIBRARY=1 tls "$@" 2>&1 | sed "s|${*: -1}|TRACE|"
	echo "status ${PIPESTATUS[0]}"
}
dat_own() {
	TLBSCOPE_TRACEDAT_DIRECT=1 tls "$@" 2>&1 | sed "s|${*: -1}|TRACE|"
	echo "status ${PIPESTATUS[0]}"
}
dat_both() {
	dat_lib events "$2" > "$tmp/dat.lib"
	dat_own events "$2" > "$tmp/dat.own"
	same_file "$1: the events of libtracecmd's reader" "$tmp/dat.lib" "$tmp/dat.own"
}
