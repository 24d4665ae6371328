#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# CLI cases as data (jq/curl style): each tests/cli/NAME/ holds
#   args      the arguments, one per line ("@/" at the start means the source tree)
#   status    the expected exit status (default 0)
#   stdout    the expected standard output, exactly (optional)
#   stderr    a line that standard error must contain (optional, grep -F)
#   stdin     fed to standard input (optional)
# Adding a case is adding a folder.  Prints TAP lines.
set -u
top=${TLBSCOPE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
prog=${TLBSCOPE:-$top/tlbscope}
n=0
for d in "$top"/tests/cli/*/; do
	name=$(basename "$d")
	[ -f "$d/args" ] || continue
	n=$((n + 1))
	args=()
	while IFS= read -r a; do
		args+=("${a//@\//$top/}")
	done < "$d/args"
	want_status=0
	[ -f "$d/status" ] && want_status=$(cat "$d/status")
	out=$(mktemp) err=$(mktemp)
	if [ -f "$d/stdin" ]; then
		(cd "$top" && ${TLBSCOPE_WRAP:-} "$prog" "${args[@]}" < "$d/stdin" > "$out" 2> "$err")
	else
		(cd "$top" && ${TLBSCOPE_WRAP:-} "$prog" "${args[@]}" < /dev/null > "$out" 2> "$err")
	fi
	status=$?
	why=""
	[ "$status" = "$want_status" ] || why="exit status $status, expected $want_status"
	if [ -z "$why" ] && [ -f "$d/stdout" ] && ! diff -u "$d/stdout" "$out" > "$out.diff"; then
		why="stdout differs"
	fi
	if [ -z "$why" ] && [ -f "$d/stderr" ] && ! grep -qF -- "$(cat "$d/stderr")" "$err"; then
		why="stderr lacks: $(cat "$d/stderr")"
	fi
	if [ -n "$why" ]; then
		echo "not ok $n cli/$name: $why"
		[ -f "$out.diff" ] && head -30 "$out.diff" | sed 's/^/#   /'
		sed 's/^/#   stderr: /' "$err" | head -10
	else
		echo "ok $n cli/$name"
	fi
	rm -f "$out" "$err" "$out.diff"
done
