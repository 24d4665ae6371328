#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# tlbscope's own trace.dat reader (tracedat-direct.sh) on a fresh capture of this machine
# of one CPU of two: as v6 the file lists both CPUs, as v7 only the one with data, and
# both read the same events as libtracecmd's reader.
T=tracedat-capture
. "$(dirname "$0")/../lib.sh"

# this machine: a capture of one CPU of two (v6 lists both; as v7 only the one with data)
if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/instances ] ||
   ! command -v trace-cmd > /dev/null; then
	skip "a capture of one CPU of this machine" "needs root, tracefs and trace-cmd"
elif [ "$(nproc)" -lt 2 ]; then
	skip "a capture of one CPU of this machine" "one CPU only"
else
	tls record -C 1 -D 0.5 -o "$tmp/cpu1.dat" > /dev/null 2>&1
	trace-cmd convert -i "$tmp/cpu1.dat" --file-version 7 -o "$tmp/cpu1-v7.dat" > /dev/null 2>&1
	dat_both "a capture of CPU 1 of this machine (v6)" "$tmp/cpu1.dat"
	dat_both "... as v7, CPU 1 the only one listed" "$tmp/cpu1-v7.dat"
	dat_own events "$tmp/cpu1.dat" > "$tmp/v6.own"
	dat_own events "$tmp/cpu1-v7.dat" > "$tmp/v7.own"
	same_file "... the events of the v6 file" "$tmp/v6.own" "$tmp/v7.own"
fi
echo "1..$n"
