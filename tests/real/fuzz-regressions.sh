#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every input a fuzzing campaign crashed tlbscope with (tests/fuzz/regressions/FORMAT/) is
# read again by report and tune: exit 0, or 2 with a message that names the file (or for
# tune 1, with the verdict insufficient-data); never a crash, a hang, a sanitizer report
# (under `make asan`) or another status.
T=fuzz-regressions
. "$(dirname "$0")/../lib.sh"

for f in "$top"/tests/fuzz/regressions/*/*; do
	[ -f "$f" ] || continue
	name=${f#"$top"/tests/fuzz/regressions/}
	for cmd in report tune; do
		timeout 60 ${TLBSCOPE_WRAP:-} "$prog" $cmd "$f" > "$tmp/out" 2> "$tmp/err"
		rc=$?
		why=""
		case $rc in
		0) ;;
		1) [ $cmd = tune ] && grep -q 'verdict *insufficient-data' "$tmp/out" ||
			why="exit status 1" ;;
		2) grep -qF "tlbscope: $f" "$tmp/err" || why="exit 2 without naming the file" ;;
		124) why="hangs (killed after 60 s)" ;;
		*) why="exit status $rc" ;;
		esac
		grep -qE 'runtime error|Sanitizer' "$tmp/err" && why="sanitizer report"
		if [ -z "$why" ]; then
			ok "$name: $cmd exits $rc"
		else
			not_ok "$name: $cmd: $why"
			head -5 "$tmp/err" | sed 's/^/#   /'
		fi
	done
done
