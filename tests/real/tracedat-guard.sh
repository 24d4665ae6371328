#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tlbscope parses what it needs of a trace.dat's headers with libtraceevent once, in its own
# process (parsers/tracedat-guard.c): no child parses them first.  A file the library
# crashes on still ends in exit 2 and a message naming the event format at fault, by a
# re-execution of tlbscope (from a file, from standard input, and without /proc, where the
# message names the step under way: the format being parsed).
T=tracedat-guard
. "$(dirname "$0")/../lib.sh"

seeds=$top/tests/fuzz/seeds/trace.dat
segv=$top/tests/fuzz/regressions/trace.dat/v6-print-fmt-libtraceevent-segv.dat
want="corrupt trace.dat: the tracing libraries crash reading the event format of system 'sched' at offset 23728"

if ! command -v strace > /dev/null; then
	skip "report of a good trace.dat starts no process" "strace not installed"
else
	for f in hackbench-aia-4cpu-v6.dat hackbench-aia-4cpu-v7-zstd.dat; do
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq \
			-e trace=clone,clone3,fork,vfork,execve -o "$tmp/st" \
			"$prog" report "$seeds/$f" > /dev/null 2>&1
		rc=$?
		# a process, not a thread (-j's workers are clones of CLONE_THREAD)
		calls=$(grep -E 'clone|fork|execve\("/proc' "$tmp/st" | grep -vc CLONE_THREAD)
		check "$f: report exits 0 ($rc) and starts no process to parse the headers ($calls)" \
			[ $rc = 0 -a "$calls" = 0 ]
	done
fi

tls report "$segv" > /dev/null 2> "$tmp/err"
rc=$?
check "the file libtraceevent crashes on: exit 2 ($rc)" [ $rc = 2 ]
same "... and the message names the format at fault" "tlbscope: $segv: $want" "$(cat "$tmp/err")"
if command -v strace > /dev/null; then
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -qq -e trace=execve \
		-o "$tmp/st" "$prog" report "$segv" > /dev/null 2>&1
	check "... found by re-executing tlbscope after the crash" \
		grep -q 'execve("[^"]*", \["tlbscope", "--tracedat-died"' "$tmp/st"
fi
tls tune "$segv" > /dev/null 2> "$tmp/err"
rc=$?
same "tune of it: exit 2 ($rc), the same message" "2 tlbscope: $segv: $want" "$rc $(cat "$tmp/err")"

# standard input: spooled to an unlinked file that only the descriptor reaches
tls report - < "$segv" > /dev/null 2> "$tmp/err"
rc=$?
same "the same file on standard input: exit 2, the same message for <stdin>" \
	"2 tlbscope: <stdin>: $want" "$rc $(cat "$tmp/err")"

# no /proc: tlbscope cannot re-execute itself and says what it was reading
if [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null; then
	skip "without /proc: exit 2 naming the step" "needs root and unshare"
elif ldd "$prog" | grep -q libasan; then
	skip "without /proc: exit 2 naming the step" "AddressSanitizer cannot start without /proc"
else
	unshare --mount --propagation private sh -c \
		'mount -t tmpfs none /proc && exec "$@"' sh "$prog" report "$segv" \
		> /dev/null 2> "$tmp/err"
	rc=$?
	same "without /proc: exit 2 ($rc), the step in the message" \
		"2 tlbscope: $segv: $want" \
		"$rc $(cat "$tmp/err")"
fi
echo "1..$n"
